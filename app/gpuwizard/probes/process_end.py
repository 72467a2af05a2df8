"""End a probe's process at once, once its output is out: no interpreter teardown.

A probe that imported a framework spends 0.7 to 0.9 s after its last line tearing the
interpreter down (torch with its compiler stack, about 1,600 modules, freed one by one; measured
on 2 cores, CPU torch 2.13): the wizard, which waits for the process to end, shows the verdict
that much later, on every live test, import check and environment report. Nothing is left to
do then (a probe writes only to its standard output and error, flushed here), so the process
ends with ``os._exit``, as multiprocessing's workers end. The operating system frees what the
process held, a GPU context included.

Stdlib only, Python 3.7 syntax: imported by the probes beside it, run by path by an
environment's own interpreter.
"""

import os
import sys
from typing import NoReturn

#: Python's own exit status when its output cannot be flushed at exit (Py_FinalizeEx).
_FLUSH_FAILED = 120


def exit_now(code: int) -> NoReturn:
    """Flush standard output and error, then end the process with ``code`` (never returns)."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # the reader went away, or the stream is closed
        code = code or _FLUSH_FAILED
    os._exit(code)
