"""End a probe's process at once, once its output is out: no interpreter teardown.

A probe that imported a framework spends 0.7 to 0.9 s after its last line tearing the
interpreter down (torch with its compiler stack, about 1,600 modules, freed one by one; measured
on 2 cores, CPU torch 2.13): the wizard, which waits for the process to end, shows the verdict
that much later, on every live test, import check and environment report. Nothing is left to
do then: a probe writes only to its standard output and error, flushed here as Python's own
exit flushes them, and registers no ``atexit`` handler. So the process ends with ``os._exit``,
as multiprocessing's workers end, and the operating system frees what it held, a GPU context
included. Two things Python's own exit would still have done are skipped: ``atexit`` handlers,
and the C library's buffer of what native code printed on a piped standard output (the
frameworks' native logs go to standard error, which C does not buffer; on standard output it
would not be a JSON line anyway).

Stdlib only, Python 3.7 syntax: imported by the probes beside it, run by path by an
environment's own interpreter.
"""

import os
import sys
from typing import NoReturn

#: Python's own exit status when its output cannot be flushed at exit (Py_RunMain).
_FLUSH_FAILED = 120


def exit_now(code: int) -> NoReturn:
    """Flush standard output and error, then end the process with ``code`` (never returns).

    As Python's exit does (flush_std_files in pylifecycle.c): a stream that is missing (``None``:
    started without it) or closed is skipped, and one that cannot be flushed (the reader went
    away) makes a successful ``code`` 120; a failure's own status is kept.
    """
    failed = False
    for stream in (sys.stdout, sys.stderr):
        if stream is None or getattr(stream, "closed", False):
            continue
        try:
            stream.flush()
        except (OSError, ValueError):
            failed = True
    os._exit((code or _FLUSH_FAILED) if failed else code)
