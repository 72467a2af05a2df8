"""Writing ``verify --prometheus FILE``: the metrics of a verification, replaced in one step.

A textfile collector (node_exporter, windows_exporter) may read the file at any moment, so it
is never written in place: a temporary file in the same folder, flushed to the disk, then
renamed over the old one (``os.replace``, which also replaces on Windows), by the wizard's
atomic writer (``adapters/atomic_files.py``). The temporary file's name ends in ``.tmp``, not
``.prom``: node_exporter reads every file matching ``*.prom``, hidden ones included
(github.com/prometheus/node_exporter, "Textfile Collector": write ``FILE.prom.$$``, then
``mv``). Its content is ``core/health/prometheus.py``'s.

The file is checked before verify checks anything (:func:`check_metrics_file`: its name must end
in ``.prom``, its folder must exist), so a mistyped path is refused at once. A write that fails
all the same (a read-only or full folder) does not change what verify found: the result says
why (``prometheus_error``), one warning line says it, and the exit code is the checks'.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Final

from gpuwizard.adapters.atomic_files import write_bytes_atomically
from gpuwizard.core.health.events import VerifyResult
from gpuwizard.core.health.prometheus import exposition, verify_metrics
from gpuwizard.core.health.snapshot import Snapshot
from gpuwizard.core.livetest.events import LiveTestResult
from gpuwizard.core.machine.system_report import SystemReport

#: What a textfile collector reads (node_exporter: ``*.prom``; windows_exporter: the extension ``.prom``).
METRICS_SUFFIX: Final = ".prom"
#: The end of the temporary file's name: one a collector never reads.
_TEMPORARY_SUFFIX: Final = ".prom.tmp"

LOG = logging.getLogger("gpuwizard.verify")


class MetricsFileError(ValueError):
    """The metrics file asked for cannot be one (one line); nothing was checked or written."""


def check_metrics_file(path: Path) -> None:
    """Refuse ``path`` unless a textfile collector would read it and it can be made where it is.

    Raises:
        MetricsFileError: Its name does not end in ``.prom``, its folder does not exist, or it
            is a folder.
    """
    if path.suffix != METRICS_SUFFIX or path.name == METRICS_SUFFIX:
        raise MetricsFileError(
            f"the metrics file {path} must end in {METRICS_SUFFIX}: a textfile collector reads only those"
        )
    folder = path.parent
    if not folder.is_dir():
        raise MetricsFileError(f"the folder of the metrics file {path} does not exist: {folder}")
    if path.is_dir():
        raise MetricsFileError(f"the metrics file {path} is a folder")


def write_metrics(
    path: Path,
    result: VerifyResult,
    *,
    machine: SystemReport | None,
    last_good: Snapshot | None,
    tests: Mapping[str, LiveTestResult],
    duration_s: float,
) -> VerifyResult:
    """Write the metrics of ``result`` to ``path``; returns ``result`` saying what became of the file.

    With ``prometheus_file`` (the file, its full path) when it was written, with
    ``prometheus_error`` (why, one line) when it could not be, which is also logged as a warning
    (``gpuwizard: warning: ...`` on the command line). See
    :func:`gpuwizard.core.health.prometheus.verify_metrics` for the arguments.
    """
    families = verify_metrics(
        result,
        machine=machine,
        last_good=last_good,
        tests=tests,
        finished_s=time.time(),
        duration_s=duration_s,
    )
    # A lone surrogate (a PATH folder read from the registry may hold one) cannot be UTF-8: a
    # replacement character, since the format knows no escape for it.
    data = exposition(families).encode("utf-8", errors="replace")
    target = path.absolute()
    try:
        write_bytes_atomically(target, data, temporary_suffix=_TEMPORARY_SUFFIX)
    except OSError as error:
        why = f"the metrics file {target} was not written: {error}"
        LOG.warning("%s", why)
        return _with(result, error=why)
    return _with(result, written=str(target))


def _with(result: VerifyResult, *, written: str | None = None, error: str | None = None) -> VerifyResult:
    return replace(result, prometheus_file=written, prometheus_error=error)
