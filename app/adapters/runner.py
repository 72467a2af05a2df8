"""The one place that starts processes: argv lists only, a clean environment, a timeout.

Every other module asks a :class:`Runner` (a Protocol) so tests can hand in a fake that
replays recorded output; the real :class:`SubprocessRunner` is tested with real children.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Protocol

# Variables that make a child Python pick the wrong interpreter or packages: PYTHONPATH
# leaks our packages into the target environment (pipx #233), __PYVENV_LAUNCHER__ makes
# macOS pick the wrong binary (pipx #334), PYTHONHOME points at another installation.
_ENV_BLOCKLIST: Final = ("PYTHONPATH", "PYTHONHOME", "__PYVENV_LAUNCHER__")

# Windows: do not flash a console window for each child of the GUI (CREATE_NO_WINDOW,
# https://learn.microsoft.com/windows/win32/procthread/process-creation-flags).
_CREATE_NO_WINDOW: Final = 0x08000000


class RunnerError(Exception):
    """A command could not be run at all (as opposed to running and failing)."""

    def __init__(self, argv: Sequence[str], reason: str) -> None:
        super().__init__(f"{argv[0]}: {reason}")
        self.argv = tuple(argv)
        self.reason = reason


class CommandNotFound(RunnerError):
    """The executable does not exist or cannot be executed."""


class CommandTimedOut(RunnerError):
    """The command ran past its timeout and was killed."""


@dataclass(frozen=True)
class CompletedRun:
    """What a finished command left behind."""

    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str
    seconds: float

    @property
    def ok(self) -> bool:
        """True when the command exited with status 0."""
        return self.returncode == 0


class Runner(Protocol):
    """Runs a command to completion and returns its output."""

    def run(
        self,
        argv: Sequence[str],
        *,
        timeout: float,
        env_overrides: Mapping[str, str] | None = None,
    ) -> CompletedRun:
        """Run ``argv`` and wait for it.

        Raises:
            CommandNotFound: The executable is missing or not executable.
            CommandTimedOut: It ran longer than ``timeout`` seconds.
        """
        ...


def child_environment(overrides: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for a child process: ours, cleaned, in UTF-8, plus ``overrides``."""
    env = {name: value for name, value in os.environ.items() if name not in _ENV_BLOCKLIST}
    env["PYTHONIOENCODING"] = "utf-8"
    env["PYTHONUTF8"] = "1"
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    if overrides:
        env.update(overrides)
    return env


class SubprocessRunner:
    """The real runner, over :func:`subprocess.run`."""

    def run(
        self,
        argv: Sequence[str],
        *,
        timeout: float,
        env_overrides: Mapping[str, str] | None = None,
    ) -> CompletedRun:
        """Run ``argv`` (a list, never a shell string) and wait at most ``timeout`` seconds."""
        args = [os.fspath(part) for part in argv]
        started = time.perf_counter()
        flags = _CREATE_NO_WINDOW if sys.platform == "win32" else 0
        try:
            done = subprocess.run(
                args,
                capture_output=True,
                text=True,
                encoding="utf-8",
                errors="replace",
                timeout=timeout,
                env=child_environment(env_overrides),
                stdin=subprocess.DEVNULL,
                creationflags=flags,
                check=False,
            )
        except (FileNotFoundError, PermissionError, NotADirectoryError) as error:
            raise CommandNotFound(args, error.strerror or str(error)) from error
        except OSError as error:
            # e.g. ENOEXEC for a file that is not a program, or a Windows stub that refuses.
            raise CommandNotFound(args, str(error)) from error
        except subprocess.TimeoutExpired as error:
            raise CommandTimedOut(args, f"no answer within {timeout:g} s") from error
        return CompletedRun(
            argv=tuple(args),
            returncode=done.returncode,
            stdout=done.stdout or "",
            stderr=done.stderr or "",
            seconds=time.perf_counter() - started,
        )
