"""The post-install check's output as log entries people can read.

After installing, ``env create`` imports the framework in the new environment with the
``framework_import`` probe, whose answer is one JSON line (``{"probe": "framework_import", ...}``),
and whose interpreter may print other things on the way: the framework's own warnings, each
in Python's format, a ``file:line: Category: message`` line and the source line it points at
(``warnings.formatwarning``, docs.python.org/3/library/warnings.html). Shown raw, the install
log ended in a JSON line and a two-line warning that reads like an error. :class:`ProbeOutput`
turns the lines, as they come, into :class:`LogEntry` values:

- the probe's JSON answer becomes one sentence (what imports, its build) carrying the answer as
  data (``report``), never the raw JSON;
- the line of its warm-up (``{"probe": "warm_start", ...}``: the live test in miniature that
  compiles what the first run imports) becomes a sentence, the same for the same environment;
  its JSON, with the seconds that vary from run to run, is kept as ``warm`` (for the log file);
- a warning known to be harmless here becomes one line that explains it, the raw lines kept as
  its ``details`` (the log file has them; the log on screen shows the explanation);
- anything else stays as it was printed, warnings this module does not know included.

The known harmless warning: torch wheels do not depend on NumPy (torch 2.13.0's wheel metadata
names no ``numpy`` in ``Requires-Dist``), and since PyTorch 1.9 torch imports without it, initialising its NumPy
bridge on first use and saying once, as a ``UserWarning``, ``Failed to initialize NumPy: No
module named 'numpy'`` (pytorch/pytorch#52794, "Make NumPy dependency dynamic"; the warning on
a plain ``import torch`` is pytorch/pytorch#115638 and #60252). Only ``torch.from_numpy``,
``Tensor.numpy()`` and the like need NumPy. Other NumPy messages (``module compiled against API
version``, a NumPy 2 ABI mismatch) are real problems and are left as printed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from gpuwizard.core.envs.events import EnvLog
from gpuwizard.core.json_lines import json_object

# Python's warning format: "{filename}:{lineno}: {category}: {message}", then the source line
# indented by two spaces (warnings.formatwarning).
_WARNING: Final = re.compile(
    r"^(?P<where>.+?):(?P<line>\d+): (?P<category>[A-Za-z_]\w*Warning): (?P<message>.*)$"
)
_NUMPY_MISSING: Final = re.compile(r"^Failed to initialize NumPy: No module named '?numpy'?(?:\s|$)")

NUMPY_MISSING_NOTE: Final = (
    "note: torch says NumPy is missing: harmless here; NumPy is only needed to exchange arrays "
    "with NumPy (torch does not require it; `pip install numpy` adds it)"
)


@dataclass(frozen=True)
class LogEntry:
    """One line of the install log, with what stands behind it.

    Attributes:
        line: What the log shows.
        tool: ``probe`` for the probe's own output, ``gpuwizard`` for a line the wizard wrote.
        details: The raw lines this entry stands for, when it is not one of them (kept in the log file).
        report: The probe's JSON answer, when this entry is it.
    """

    line: str
    tool: str = "probe"
    details: tuple[str, ...] = ()
    report: Mapping[str, Any] | None = field(default=None, compare=False)

    def event(self, phase: str) -> EnvLog:
        """The ``log`` event of ``env create`` for this entry (``details``/``report`` when set)."""
        return EnvLog(phase=phase, tool=self.tool, line=self.line, details=self.details, report=self.report)


class ProbeOutput:
    """Reads the probe's output line by line (a warning waits for its source line).

    >>> reader = ProbeOutput()
    >>> reader.feed("/env/torch/_tensor.py:368: UserWarning: Failed to initialize NumPy: No module named 'numpy'")
    []
    >>> [entry.line[:38] for entry in reader.feed("  cpu = _conversion_method_template()")]
    ['note: torch says NumPy is missing: har']
    >>> [entry.line for entry in reader.feed('{"probe": "framework_import", "module": "torch", "ok": true, '
    ...     '"distribution": "torch", "distribution_version": "2.13.0+cpu", "cuda_build": null}')]
    ['torch 2.13.0+cpu imports in the new environment (a CPU build).']
    >>> reader.report["distribution_version"], reader.finish()
    ('2.13.0+cpu', [])
    """

    def __init__(self) -> None:
        self.report: dict[str, Any] | None = None
        self.warm: dict[str, Any] | None = None
        self._warning: str | None = None

    def feed(self, line: str) -> list[LogEntry]:
        """The entries ``line`` completes (none while a warning waits for its source line)."""
        entries: list[LogEntry] = []
        if self._warning is not None:
            header, self._warning = self._warning, None
            if line.startswith((" ", "\t")):
                return _warning_entries(header, line)
            entries.extend(_warning_entries(header, None))
        report = _report_of(line)
        if report is not None and report["probe"] == "warm_start":
            self.warm = report
            entries.append(LogEntry(warm_line(report), "gpuwizard"))
        elif report is not None:
            self.report = report
            entries.append(LogEntry(report_line(report), "gpuwizard", report=report))
        elif _WARNING.match(line):
            self._warning = line
        else:
            entries.append(LogEntry(line))
        return entries

    def finish(self) -> list[LogEntry]:
        """What is left when the probe has ended (a warning without a source line)."""
        header, self._warning = self._warning, None
        return [] if header is None else _warning_entries(header, None)


def report_line(report: Mapping[str, Any]) -> str:
    """The probe's answer in a sentence.

    >>> report_line({"module": "tensorflow", "ok": False, "error": "ImportError: libcudart.so.12"})
    'import tensorflow failed in the new environment: ImportError: libcudart.so.12'
    >>> report_line({"module": "torch", "ok": True, "distribution_version": "2.13.0+cu126", "cuda_build": "12.6"})
    'torch 2.13.0+cu126 imports in the new environment (built with CUDA 12.6).'
    """
    module = str(report.get("module") or "the framework")
    if not report.get("ok"):
        return f"import {module} failed in the new environment: {report.get('error') or 'no reason given'}"
    version = report.get("distribution_version") or report.get("framework_version") or "(version unknown)"
    cuda = report.get("cuda_build")
    build = f" (built with CUDA {cuda})" if cuda else " (a CPU build)" if module == "torch" else ""
    return f"{module} {version} imports in the new environment{build}."


def warm_line(report: Mapping[str, Any]) -> str:
    """The warm-up's line in a sentence: the same for the same environment, however fast the machine.

    >>> warm_line({"probe": "warm_start", "ok": True, "modules": 832, "seconds": 4.2})
    'ran the live test in miniature on the CPU (832 more modules imported and compiled): the first test starts without compiling them'
    >>> warm_line({"probe": "warm_start", "ok": False, "error": "RuntimeError: no kernel image", "modules": 3})
    'the live test in miniature did not run (RuntimeError: no kernel image): the first test compiles what it imports as it goes'
    """
    if report.get("ok"):
        modules = int(report.get("modules") or 0)
        return (
            f"ran the live test in miniature on the CPU ({modules:,} more modules imported and compiled): "
            "the first test starts without compiling them"
        )
    error = report.get("error") or "no reason given"
    return f"the live test in miniature did not run ({error}): the first test compiles what it imports as it goes"


def _report_of(line: str) -> dict[str, Any] | None:
    if not line.strip().startswith('{"probe"'):
        return None
    value = json_object(line)  # the probe's own output, one short line (json.dumps of a flat dict)
    return value if value is not None and isinstance(value.get("probe"), str) else None


def _warning_entries(header: str, source: str | None) -> list[LogEntry]:
    raw = (header,) if source is None else (header, source)
    match = _WARNING.match(header)
    if match is not None and _NUMPY_MISSING.match(match.group("message")):
        return [LogEntry(NUMPY_MISSING_NOTE, "gpuwizard", details=raw)]
    return [LogEntry(line) for line in raw]  # a warning not known to be harmless: as printed
