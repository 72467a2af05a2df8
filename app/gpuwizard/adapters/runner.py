"""The one place that starts processes: argv lists only, a clean environment, a timeout.

Every other module asks a :class:`Runner` (a Protocol) so tests can hand in a fake that
replays recorded output; the real :class:`SubprocessRunner` is tested with real children.
"""

from __future__ import annotations

import contextlib
import ctypes
import io
import ntpath
import os
import posixpath
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Protocol

# Variables that make a child Python pick the wrong interpreter or packages: PYTHONPATH
# leaks our packages into the target environment (pipx #233), __PYVENV_LAUNCHER__ makes
# macOS pick the wrong binary (pipx #334), PYTHONHOME points at another installation.
_ENV_BLOCKLIST: Final = ("PYTHONPATH", "PYTHONHOME", "__PYVENV_LAUNCHER__")

# Windows: do not flash a console window for each child of the GUI (CREATE_NO_WINDOW,
# https://learn.microsoft.com/windows/win32/procthread/process-creation-flags).
_CREATE_NO_WINDOW: Final = 0x08000000
_CREATE_NEW_PROCESS_GROUP: Final = 0x00000200


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


@dataclass(frozen=True)
class CompletedBytes:
    """What a finished command left behind, as the bytes it wrote (see :class:`BytesRunner`)."""

    argv: tuple[str, ...]
    returncode: int
    stdout: bytes
    stderr: bytes
    seconds: float


class BytesRunner(Protocol):
    """Runs a command to completion and returns its output undecoded.

    For tools that do not write UTF-8: ``wsl.exe`` writes UTF-16 to a pipe
    (``adapters/wsl.py``), which :meth:`Runner.run`'s UTF-8 reading would garble.
    """

    def run_bytes(
        self,
        argv: Sequence[str],
        *,
        timeout: float,
        env_overrides: Mapping[str, str] | None = None,
    ) -> CompletedBytes:
        """Run ``argv`` and wait for it; raises as :meth:`Runner.run` does."""
        ...


def frozen_bundle_folder() -> str | None:
    """The folder a PyInstaller build runs from (its ``_internal``, ``sys._MEIPASS``), or None."""
    if not getattr(sys, "frozen", False):
        return None
    folder = getattr(sys, "_MEIPASS", None)
    return folder if isinstance(folder, str) and folder else None


def inherited_path(value: str) -> str:
    r"""``value`` (a PATH) less the folders of the wizard's own frozen build.

    PyInstaller's bootloader leaves PATH alone on Windows (it points the DLL search at
    ``_MEIPASS`` instead; pyinstaller.org, "Advanced Topics", "The Bootstrap Process in
    Detail"), but the build's Qt start-up puts its own folders first on this process's PATH:
    PyInstaller's PySide6 run-time hook prepends ``sys._MEIPASS`` on Windows
    (``PyInstaller/hooks/rthooks/pyi_rth_pyside6.py``, 6.x: "Add sys._MEIPASS to PATH in order
    to ensure that QtNetwork can discover OpenSSL DLLs"), and ``PySide6/__init__.py`` prepends
    its package folder, ``_MEIPASS\PySide6`` ("PATH has to contain the package directory").
    They serve the wizard's own DLLs: a child that inherited them could load the wizard's
    copies of DLLs it looks for on PATH (Qt's, OpenSSL's, the C runtime's), and they are no
    part of the PATH that programs get. Only ``sys._MEIPASS`` and folders inside it are dropped;
    the program's own folder (above ``_internal``, which the installer may put on the user PATH)
    stays.
    """
    bundle = frozen_bundle_folder()
    if bundle is None or not value:
        return value
    windows = sys.platform == "win32"
    # Split on the separator alone: a quoted entry holding one ("C:\a;b") is cut in two, but
    # neither half is inside the bundle, and joining again gives it back as it was.
    kept = [entry for entry in value.split(os.pathsep) if not _inside(entry, bundle, windows=windows)]
    return os.pathsep.join(kept)


def _inside(entry: str, folder: str, *, windows: bool) -> bool:
    flavour = ntpath if windows else posixpath
    text = entry.strip().strip('"') if windows else entry
    if not text:
        return False
    normal = flavour.normcase(flavour.normpath(text))
    root = flavour.normcase(flavour.normpath(folder))
    return normal == root or normal.startswith(root.rstrip(flavour.sep) + flavour.sep)


# The frozen build's own folder lists: PATH (see inherited_path), and the Qt folders PyInstaller's
# PySide6 hook sets outright (the value a child would inherit is the build's, never the user's).
_BUNDLE_LISTS: Final = ("PATH", "QT_PLUGIN_PATH", "QML2_IMPORT_PATH")


def child_environment(overrides: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for a child process: ours, cleaned, in UTF-8, plus ``overrides``.

    Cleaned: without the variables that mislead another Python (``_ENV_BLOCKLIST``), and
    without the frozen build's own folders (:func:`inherited_path`).
    """
    env = {name: value for name, value in os.environ.items() if name not in _ENV_BLOCKLIST}
    for name in [name for name in env if name.upper() in _BUNDLE_LISTS]:
        kept = inherited_path(env[name])
        if kept == env[name]:
            continue
        if kept or name.upper() == "PATH":
            env[name] = kept
        else:
            del env[name]  # a Qt variable that named only the build's folders
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
        done = self.run_bytes(argv, timeout=timeout, env_overrides=env_overrides)
        # As text=True, encoding="utf-8", errors="replace" gave: UTF-8, bad bytes replaced,
        # newlines translated as text mode does.
        return CompletedRun(
            argv=done.argv,
            returncode=done.returncode,
            stdout=_text(done.stdout),
            stderr=_text(done.stderr),
            seconds=done.seconds,
        )

    def run_bytes(
        self,
        argv: Sequence[str],
        *,
        timeout: float,
        env_overrides: Mapping[str, str] | None = None,
    ) -> CompletedBytes:
        """Run ``argv`` as :meth:`run` does; its output as the bytes it wrote, undecoded."""
        args = [os.fspath(part) for part in argv]
        started = time.perf_counter()
        flags = _CREATE_NO_WINDOW if sys.platform == "win32" else 0
        try:
            done = subprocess.run(
                args,
                capture_output=True,
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
        return CompletedBytes(
            argv=tuple(args),
            returncode=done.returncode,
            stdout=done.stdout or b"",
            stderr=done.stderr or b"",
            seconds=time.perf_counter() - started,
        )


def _text(data: bytes) -> str:
    """A program's output as text mode reads it: UTF-8 (bad bytes replaced), universal newlines."""
    return data.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")


#: Windows: the program gets a console window of its own (process-creation flags).
_CREATE_NEW_CONSOLE: Final = 0x00000010


def run_in_console(argv: Sequence[str], *, timeout: float, own_window: bool) -> int:
    """Run ``argv`` where the person sees it and can answer it; its exit status.

    For the few programs that ask the person something themselves (``wsl --install``: a
    distribution's first start asks for a Linux user name and password). ``own_window``: in a
    console window of its own (the wizard's window has no console); else in this one.

    Raises:
        CommandNotFound: The program cannot be started.
        CommandTimedOut: It ran longer than ``timeout`` seconds (it is left to the person then).
    """
    args = [os.fspath(part) for part in argv]
    flags = _CREATE_NEW_CONSOLE if own_window and sys.platform == "win32" else 0
    try:
        process = subprocess.Popen(args, env=child_environment(), creationflags=flags)
    except OSError as error:
        raise CommandNotFound(args, getattr(error, "strerror", None) or str(error)) from error
    try:
        return process.wait(timeout=timeout)
    except subprocess.TimeoutExpired as error:
        raise CommandTimedOut(args, f"still running after {timeout:g} s") from error


class CommandCancelled(RunnerError):
    """The command was stopped because the user cancelled; its whole process tree was killed."""


class LineStreamer(Protocol):
    """Runs a program and hands over its output line by line, cancellable (a runner's ``stream``).

    Apart from :class:`StreamingRunner` for what runs programs elsewhere than here: the probes of
    an environment inside WSL run in its distribution (``workflow/livetest/in_wsl.py``).
    """

    def stream(
        self,
        argv: Sequence[str],
        on_line: Callable[[str], None],
        *,
        cancel: threading.Event,
        timeout: float | None = None,
        env_overrides: Mapping[str, str] | None = None,
        cwd: Path | None = None,
        on_start: Callable[[int], None] | None = None,
    ) -> int:
        """Run ``argv``, give each line of its output (stdout and stderr merged) to ``on_line``.

        ``on_start`` is given the process id (also its group's) as soon as it runs, so that a
        caller can record what it started (``adapters/processes.py``); if it raises, the
        process tree is ended and the error goes on.

        Returns the exit status.

        Raises:
            CommandNotFound: The executable is missing or not executable.
            CommandCancelled: ``cancel`` was set; the process tree is gone when this is raised.
            CommandTimedOut: It ran longer than ``timeout`` seconds; the tree was killed.
        """
        ...


class StreamingRunner(Runner, LineStreamer, Protocol):
    """A runner that can also hand over output line by line and be cancelled."""


# How long a tree gets to exit after a polite signal before it is killed outright.
_TERMINATE_GRACE_S: Final = 3.0
_POLL_S: Final = 0.1


class StreamingSubprocessRunner(SubprocessRunner):
    """The real streaming runner: a new process group per command, so cancel kills it all.

    pip and uv start their own children (build backends, the target interpreter); signalling
    only the direct child would leave those running and holding files in the half-made
    environment, so the child leads its own process group (POSIX) or job of processes
    (Windows, ``taskkill /T``) and the whole group is ended.
    """

    def stream(
        self,
        argv: Sequence[str],
        on_line: Callable[[str], None],
        *,
        cancel: threading.Event,
        timeout: float | None = None,
        env_overrides: Mapping[str, str] | None = None,
        cwd: Path | None = None,
        on_start: Callable[[int], None] | None = None,
        stdin: bytes | None = None,
    ) -> int:
        """Run ``argv`` with its output handed over line by line (see :class:`StreamingRunner`).

        ``stdin``: bytes the command reads on its standard input, then end of file (the WSL
        steps feed a file into the distro this way: ``workflow/envs/wsl_create.py``); without
        it the command reads nothing.
        """
        args = [os.fspath(part) for part in argv]
        windows = sys.platform == "win32"
        # CREATE_NEW_PROCESS_GROUP keeps the console's Ctrl+C from reaching the child directly:
        # the wizard decides when and how it stops (learn.microsoft.com process-creation-flags).
        flags = (_CREATE_NO_WINDOW | _CREATE_NEW_PROCESS_GROUP) if windows else 0
        try:
            process = subprocess.Popen(
                args,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
                text=True,
                encoding="utf-8",
                errors="replace",
                env=child_environment(env_overrides),
                cwd=cwd,
                creationflags=flags,
                start_new_session=not windows,
                preexec_fn=_die_with_parent() if sys.platform == "linux" else None,  # noqa: PLW1509 - async-signal-safe: one prctl call
            )
        except (FileNotFoundError, PermissionError, NotADirectoryError) as error:
            raise CommandNotFound(args, error.strerror or str(error)) from error
        except OSError as error:
            raise CommandNotFound(args, str(error)) from error
        job = _kill_on_close_job(process) if windows else None
        try:
            if on_start is not None:
                try:
                    on_start(process.pid)
                except BaseException:
                    kill_tree(process)
                    raise
            if stdin is not None:
                _feed(process, stdin)
            return self._follow(process, args, on_line, cancel, timeout)
        finally:
            if job is not None:
                _close_handle(job)  # ends whatever the tool left running (the job kills on close)

    def _follow(
        self,
        process: subprocess.Popen[str],
        args: list[str],
        on_line: Callable[[str], None],
        cancel: threading.Event,
        timeout: float | None,
    ) -> int:
        reader = threading.Thread(target=_pump, args=(process, on_line), daemon=True)
        reader.start()
        deadline = None if timeout is None else time.monotonic() + timeout
        while process.poll() is None:
            if cancel.wait(_POLL_S):
                kill_tree(process)
                reader.join(_TERMINATE_GRACE_S)
                raise CommandCancelled(args, "cancelled")
            if deadline is not None and time.monotonic() > deadline:
                kill_tree(process)
                reader.join(_TERMINATE_GRACE_S)
                raise CommandTimedOut(args, f"no end within {timeout:g} s")
        reader.join()
        if cancel.is_set():
            # It ended on its own at the moment of cancelling: still a cancel for the caller.
            raise CommandCancelled(args, "cancelled")
        return process.returncode


# --- children die with the wizard ------------------------------------------------------------
# A tool that outlives a killed wizard keeps writing into the environment being made. On Linux
# the child asks for SIGKILL when its parent dies (prctl PR_SET_PDEATHSIG, man 2 prctl; it leads
# its own group, so the terminal's signals do not reach it); what it started itself is ended by
# the next run before it cleans up (adapters/processes.py). On Windows the child goes into a
# job object that kills every process in it when its last handle closes, which the system
# does when the wizard dies (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE, learn.microsoft.com
# "JOBOBJECT_BASIC_LIMIT_INFORMATION"); processes the child starts join the job too.

_PR_SET_PDEATHSIG: Final = 1
_JOB_OBJECT_EXTENDED_LIMIT_INFORMATION: Final = 9
_JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE: Final = 0x2000


def _die_with_parent() -> Callable[[], None] | None:
    """The function the child runs between fork and exec (Linux), or None without libc."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        prctl = libc.prctl
    except (OSError, AttributeError):
        return None
    parent = os.getpid()

    def child() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the request took effect
            os._exit(1)

    return child


def _kill_on_close_job(process: subprocess.Popen[str]) -> int | None:
    """Put ``process`` in a new kill-on-close job; returns the job's handle (None if refused)."""
    try:
        kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)  # type: ignore[attr-defined,unused-ignore]
    except (AttributeError, OSError):
        return None

    class _BasicLimits(ctypes.Structure):
        _fields_ = [
            ("PerProcessUserTimeLimit", ctypes.c_int64),
            ("PerJobUserTimeLimit", ctypes.c_int64),
            ("LimitFlags", ctypes.c_uint32),
            ("MinimumWorkingSetSize", ctypes.c_size_t),
            ("MaximumWorkingSetSize", ctypes.c_size_t),
            ("ActiveProcessLimit", ctypes.c_uint32),
            ("Affinity", ctypes.c_size_t),
            ("PriorityClass", ctypes.c_uint32),
            ("SchedulingClass", ctypes.c_uint32),
        ]

    class _IoCounters(ctypes.Structure):
        _fields_ = [(name, ctypes.c_uint64) for name in ("r", "w", "o", "rb", "wb", "ob")]

    class _ExtendedLimits(ctypes.Structure):
        _fields_ = [
            ("BasicLimitInformation", _BasicLimits),
            ("IoInfo", _IoCounters),
            ("ProcessMemoryLimit", ctypes.c_size_t),
            ("JobMemoryLimit", ctypes.c_size_t),
            ("PeakProcessMemoryUsed", ctypes.c_size_t),
            ("PeakJobMemoryUsed", ctypes.c_size_t),
        ]

    kernel32.CreateJobObjectW.restype = ctypes.c_void_p
    job = kernel32.CreateJobObjectW(None, None)
    if not job:
        return None
    limits = _ExtendedLimits()
    limits.BasicLimitInformation.LimitFlags = _JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
    handle = int(process._handle)  # type: ignore[attr-defined]
    if not (
        kernel32.SetInformationJobObject(
            ctypes.c_void_p(job),
            _JOB_OBJECT_EXTENDED_LIMIT_INFORMATION,
            ctypes.byref(limits),
            ctypes.sizeof(limits),
        )
        and kernel32.AssignProcessToJobObject(ctypes.c_void_p(job), ctypes.c_void_p(handle))
    ):
        kernel32.CloseHandle(ctypes.c_void_p(job))
        return None
    return int(job)


def _close_handle(handle: int) -> None:
    with contextlib.suppress(AttributeError, OSError):
        ctypes.WinDLL("kernel32").CloseHandle(ctypes.c_void_p(handle))  # type: ignore[attr-defined,unused-ignore]


def _feed(process: subprocess.Popen[str], data: bytes) -> None:
    """Write ``data`` to the child's standard input on a thread of its own, then close it.

    On a thread: a child that prints while it reads would otherwise fill its output pipe and
    wait for us while we wait for it. A child that ends (or is ended) before reading it all
    breaks the pipe, which is no error here: its exit status says what happened.
    """
    pipe = process.stdin
    # text=True makes it a TextIOWrapper; the bytes go to the binary stream beneath.
    assert isinstance(pipe, io.TextIOWrapper)  # noqa: S101 - set by stdin=PIPE

    def write() -> None:
        with contextlib.suppress(OSError, ValueError):
            pipe.buffer.write(data)
            pipe.buffer.flush()
        with contextlib.suppress(OSError, ValueError):
            pipe.close()

    threading.Thread(target=write, daemon=True, name="stdin-feed").start()


def _pump(process: subprocess.Popen[str], on_line: Callable[[str], None]) -> None:
    assert process.stdout is not None  # noqa: S101 - set by stdout=PIPE
    # pip and conda redraw progress with carriage returns; each redraw counts as a line.
    for raw in process.stdout:
        for part in raw.rstrip("\n").split("\r"):
            if part.strip():
                on_line(part)
    process.stdout.close()


def kill_tree(process: subprocess.Popen[str]) -> None:
    """End ``process`` and everything it started; returns once the child is reaped."""
    if process.poll() is not None and sys.platform == "win32":
        return
    if sys.platform == "win32":
        # taskkill /T ends the child and its descendants (learn.microsoft.com taskkill).
        subprocess.run(
            [_system32("taskkill.exe"), "/T", "/F", "/PID", str(process.pid)],
            capture_output=True,
            check=False,
            creationflags=_CREATE_NO_WINDOW,
        )
        process.wait()
        return
    group = process.pid  # the child leads its own session and group (start_new_session)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(_TERMINATE_GRACE_S)
    # Grandchildren may outlive the leader (pip's build backend); SIGKILL the group whatever.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, signal.SIGKILL)
    process.wait()


def _system32(program: str) -> str:
    """A Windows system program by full path, so a file of the same name on PATH is never run."""
    return str(Path(os.environ.get("SYSTEMROOT", r"C:\Windows")) / "System32" / program)


def windows_command_line(argv: Sequence[str]) -> str:
    """One command-line string for Windows APIs that take one (``ShellExecuteExW``).

    Quoted by the rules the Microsoft C runtime splits it with again, so no shell is involved.
    """
    return subprocess.list2cmdline(list(argv))
