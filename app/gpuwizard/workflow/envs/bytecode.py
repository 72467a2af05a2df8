"""Compiling a new environment's Python files while its import check runs, so it starts fast.

uv installs without compiling (docs.astral.sh/uv/reference/settings/#compile-bytecode), so the
import check and the first run of an environment it made compile as they import: on a 2-core
machine 1.5 s of the check's ``import torch`` and 3 s of the first training step, and a run
that cannot write ``__pycache__`` (a read-only environment, another user,
``PYTHONDONTWRITEBYTECODE``) pays it every time (issue 41, point 13). The wizard makes the
bytecode itself: the ``compile_bytecode`` probe, run by the environment's Python beside the
import check, compiles every installed module but the packages' test suites, one worker per
core, the framework's package last (the check is compiling what it imports meanwhile).

pip compiles what it installs, and conda packages carry their bytecode (or conda writes it
at install), so only uv's environments need it (:func:`start_compiling`). A compile that
fails leaves a working environment that compiles as it imports, as before: said, not fatal.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from gpuwizard import probes
from gpuwizard.adapters.runner import CommandCancelled, RunnerError, StreamingRunner

_PROBE: Final = probes.script("compile_bytecode")
#: The tools whose environments hold only sources after an install.
_UNCOMPILED_TOOLS: Final = frozenset({"uv"})
# A compile of tens of thousands of files on a slow disk takes minutes; an hour means it hangs.
_COMPILE_TIMEOUT_S: Final = 3600.0
# How often the wait looks at the creation's cancel: the runner's own pace.
_POLL_S: Final = 0.1


@dataclass(frozen=True)
class Compiled:
    """What the compile did: files looked at, compiled, not compilable; workers; seconds."""

    files: int
    compiled: int
    failed: int
    workers: int
    seconds: float

    def line(self) -> str:
        """The log's sentence: the same for the same environment, however fast the machine.

        How many the check compiled first, the workers and the seconds vary from run to run:
        they are in the log file (:attr:`Compiling.transcript`), not in the event.
        """
        said = f"compiled the environment's {self.files:,} Python files to bytecode"
        if self.failed:
            said += f"; {self.failed:,} could not be (written for another Python): they compile when imported"
        return said


class Compiling:
    """The compile running on a thread of its own; :meth:`wait` for its end, :meth:`stop` to end it."""

    def __init__(
        self, runner: StreamingRunner, argv: tuple[str, ...], on_start: Callable[[int], None]
    ) -> None:
        self._runner = runner
        self._argv = argv
        self._on_start = on_start
        # Its own cancel: set by stop(), or forwarded from the creation's by wait().
        self._stop = threading.Event()
        self._done = threading.Event()
        self._lines: list[str] = []
        self._status: int | None = None
        self._error: str | None = None
        self._thread = threading.Thread(target=self._run, name="compile-bytecode", daemon=True)

    @property
    def argv(self) -> tuple[str, ...]:
        """The command, for the log."""
        return self._argv

    @property
    def transcript(self) -> str:
        """What the probe printed (its report: files, compiled, workers, seconds), for the log file.

        Each line is named for the probe: a line of the log that starts with ``{`` is an event.
        """
        return "\n".join(f"compile_bytecode: {line}" for line in self._lines)

    def start(self) -> Compiling:
        """Start it on its thread; itself, for ``Compiling(...).start()``."""
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            self._status = self._runner.stream(
                self._argv,
                self._lines.append,
                cancel=self._stop,
                timeout=_COMPILE_TIMEOUT_S,
                on_start=self._on_start,
            )
        except CommandCancelled:
            self._error = "cancelled"
        except (RunnerError, OSError) as error:
            self._error = str(error)
        finally:
            self._done.set()

    def stop(self) -> None:
        """End the compile (and its workers) if it still runs, and wait until it has ended."""
        self._stop.set()
        self._thread.join()

    def wait(self, cancel: threading.Event) -> Compiled | str:
        """Its summary once it ends, or why there is none (a sentence for the log).

        Raises:
            CommandCancelled: ``cancel`` was set first; the compile has ended.
        """
        while not self._done.wait(_POLL_S):
            if cancel.is_set():
                self.stop()
                raise CommandCancelled(list(self._argv), "cancelled")
        self._thread.join()
        if self._error is not None:
            return f"the Python files were not compiled ({self._error}): they compile when imported"
        return _summary(self._lines, self._status)


def start_compiling(
    tool: str,
    python: Path,
    package: str,
    runner: StreamingRunner,
    on_start: Callable[[int], None],
) -> Compiling | None:
    """Start compiling the environment of ``python``'s site-packages, ``package`` last; None where ``tool`` compiled it.

    ``on_start`` gets the process id as it starts (the creation records it, for a recovery to
    end it after a kill). The caller waits (:meth:`Compiling.wait`) or stops it
    (:meth:`Compiling.stop`) before anything removes the environment.
    """
    if tool not in _UNCOMPILED_TOOLS or os.name == "nt":
        # Not on Windows yet: there the probe's worker processes start by spawning, and under
        # Wine (the only Windows the tests have) they hung without running; an environment
        # compiles as it imports there, as before, until a real Windows run shows it works.
        return None
    # -I: the environment's own site-packages, no user site, no PYTHON* variables (and so
    # no PYTHONDONTWRITEBYTECODE: the probe writes the files whatever the machine says).
    argv = (str(python), "-I", str(_PROBE), "--last", package)
    return Compiling(runner, argv, on_start).start()


def _summary(lines: list[str], status: int | None) -> Compiled | str:
    for text in reversed(lines):
        try:
            report = json.loads(text)
        except ValueError:
            continue
        if isinstance(report, dict) and report.get("probe") == "compile_bytecode":
            return Compiled(
                files=int(report.get("files", 0)),
                compiled=int(report.get("compiled", 0)),
                failed=int(report.get("failed", 0)),
                workers=int(report.get("workers", 1)),
                seconds=float(report.get("seconds", 0.0)),
            )
    last = next((text.strip() for text in reversed(lines) if text.strip()), "")
    return f"the Python files were not compiled (exit {status}{': ' + last if last else ''}): they compile when imported"
