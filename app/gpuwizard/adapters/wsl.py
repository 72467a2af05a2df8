"""Windows Subsystem for Linux, asked from Windows: the only code in the wizard that starts ``wsl.exe``.

Everything the wizard learns of WSL goes through :class:`WslSource`: the listing, status and
version that detection reads (:meth:`WslSource.facts`, which never starts a distribution), and
the facts from inside a distribution (:meth:`WslSource.distro_facts`, which starts its VM). Each
call runs ``wsl.exe`` by its full path, with an argument list (never a shell) and one deadline
for all the commands it makes. What ``wsl.exe`` prints is read by
:mod:`gpuwizard.core.machine.wsl_listing`: it writes UTF-16 to a pipe, so its bytes are decoded
there (:meth:`~gpuwizard.adapters.runner.BytesRunner.run_bytes`, not the runner's UTF-8 text).

``WSL_UTF8=1`` is set for ``wsl.exe``: the Store WSL then writes UTF-8 (microsoft/WSL,
src/windows/common/WslClient.cpp: ``_O_U8TEXT`` when it is "1", else ``_O_U16TEXT``); older builds,
the inbox WSL of Windows 10 among them, know no such variable and write UTF-16 whatever it says.
"""

from __future__ import annotations

import base64
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path, PureWindowsPath
from typing import Any, Final

from gpuwizard.adapters.runner import BytesRunner, CommandNotFound, CommandTimedOut, StreamingSubprocessRunner
from gpuwizard.core.json_lines import last_json_object
from gpuwizard.core.machine.system_report import WslDistroFacts, WslFacts
from gpuwizard.core.machine.wsl_listing import (
    DISTRO_NAME,
    WslGpuMinimums,
    WslOutput,
    decode_output,
    first_line,
    gpu_compute,
    wsl_facts,
)
from gpuwizard.probes import script

#: How long detection gives ``wsl.exe --list --verbose``, ``--status`` and ``--version``
#: together. Each answers in well under a second once WSL's service runs; the first call after
#: boot starts the service (a second or two). ``--status`` is the slowest (microsoft/WSL#5985:
#: "The --status command is also pretty slow"); what is not had by then is left out and said so.
DETECT_DEADLINE_S: Final = 8.0
#: How long the probe inside a distribution may take: starting a stopped WSL 2 VM and the
#: distribution takes seconds, a first start after an update longer.
DISTRO_DEADLINE_S: Final = 120.0
_ENV: Final = {"WSL_UTF8": "1"}
#: The distribution's own Python, by full path: under ``wsl.exe --exec`` PATH also holds the
#: Windows folders (WSL's interop appends them: learn.microsoft.com, "wsl.conf",
#: ``appendWindowsPath``), where a distribution without Python could find another program.
DISTRO_PYTHON: Final = "/usr/bin/python3"
_PROBE: Final = script("wsl_distro")


class WslProbeFailed(Exception):
    """The probe inside a distribution gave no answer; ``detail`` says what ``wsl.exe`` said."""

    def __init__(self, distro: str, detail: str) -> None:
        super().__init__(f"{distro}: {detail}")
        self.distro = distro
        self.detail = detail


def find_wsl_exe(env: Mapping[str, str], exists: Callable[[Path], bool] = Path.is_file) -> Path | None:
    r"""``wsl.exe`` by its full path, so that a file of that name on PATH is never run.

    ``System32\wsl.exe`` is there on every Windows that has WSL (the Store WSL too: it forwards
    to ``Program Files\WSL\wsl.exe``); a 32-bit process sees System32 redirected to SysWOW64,
    which has none, and reaches the real one through ``Sysnative`` (Microsoft, "File System
    Redirector"). The Store package's own copy comes last.
    """
    root = PureWindowsPath(env.get("SystemRoot") or env.get("SYSTEMROOT") or r"C:\Windows")
    program_files = PureWindowsPath(env.get("ProgramW6432") or env.get("ProgramFiles") or r"C:\Program Files")
    for candidate in (
        root / "System32" / "wsl.exe",
        root / "Sysnative" / "wsl.exe",
        program_files / "WSL" / "wsl.exe",
    ):
        if exists(Path(str(candidate))):
            return Path(str(candidate))
    return None


@dataclass
class _Asked:
    """The answers had so far, and why the rest were not."""

    answers: dict[str, WslOutput | None]
    missing: str | None = None


class WslSource:
    """Asks ``wsl.exe`` (at ``executable``; None when there is none) through ``runner``."""

    def __init__(
        self,
        runner: BytesRunner,
        executable: str | Path | None,
        *,
        deadline_s: float = DETECT_DEADLINE_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._runner = runner
        self._executable = None if executable is None else str(executable)
        self._deadline_s = deadline_s
        self._clock = clock

    @property
    def executable(self) -> str | None:
        """The ``wsl.exe`` asked, or None."""
        return self._executable

    def facts(
        self,
        *,
        windows_build: int | None = None,
        driver_version: str | None = None,
        has_nvidia_gpu: bool | None = None,
        minimums: WslGpuMinimums | None = None,
    ) -> WslFacts:
        """WSL as ``wsl.exe --list --verbose``, ``--status`` and ``--version`` describe it.

        ``gpu_compute`` is decided when ``has_nvidia_gpu`` is given
        (:func:`~gpuwizard.core.machine.wsl_listing.gpu_compute`); detection, which reads the
        driver at the same time, decides it afterwards.
        """
        gpu = None
        if has_nvidia_gpu is not None:
            gpu = gpu_compute(windows_build, driver_version, has_nvidia_gpu, minimums)
        if self._executable is None:
            return WslFacts(
                installed=False, gpu_compute=gpu, windows_build=windows_build, detail="wsl.exe not found"
            )
        asked = self._ask_all(
            {"listing": ["--list", "--verbose"], "status": ["--status"], "version": ["--version"]},
            self._clock() + self._deadline_s,
        )
        facts = wsl_facts(
            asked.answers.get("listing"),
            asked.answers.get("status"),
            asked.answers.get("version"),
            windows_build=windows_build,
            gpu=gpu,
        )
        if asked.missing and (facts.detail is None or not asked.answers):
            facts = replace(facts, detail=asked.missing)
        return facts

    def distro_facts(
        self, name: str, listed: WslDistroFacts | None = None, *, deadline_s: float = DISTRO_DEADLINE_S
    ) -> WslDistroFacts:
        """The facts from inside distribution ``name`` (this starts it), on top of ``listed``.

        Raises:
            ValueError: ``name`` is no distribution name WSL accepts.
            WslProbeFailed: The probe gave no answer (no ``wsl.exe``, no ``/usr/bin/python3`` in the
                distribution, WSL 2 cannot start, the deadline passed).
        """
        if not DISTRO_NAME.match(name) or name.startswith("-"):
            raise ValueError(f"not a WSL distribution name: {name!r}")
        if self._executable is None:
            raise WslProbeFailed(name, "wsl.exe not found")
        argv = [
            self._executable,
            "--distribution",
            name,
            "--exec",
            DISTRO_PYTHON,
            "-I",
            "-c",
            probe_command(),
        ]
        try:
            done = self._runner.run_bytes(argv, timeout=deadline_s, env_overrides=_ENV)
        except CommandNotFound as error:
            raise WslProbeFailed(name, error.reason) from error
        except CommandTimedOut as error:
            raise WslProbeFailed(name, error.reason) from error
        output = decode_output(done.stdout)
        answer = last_json_object(output.splitlines(), _is_probe_answer, source="the WSL probe")
        if answer is None or not answer.get("ok"):
            said = (answer or {}).get("error") or first_line(decode_output(done.stderr)) or first_line(output)
            raise WslProbeFailed(name, str(said or f"exit {done.returncode}, printing nothing"))
        base = listed if listed is not None and listed.name == name else WslDistroFacts(name)
        return replace(
            base,
            libcuda=_flag(answer.get("libcuda")),
            nvidia_smi=_flag(answer.get("nvidia_smi")),
            linux_driver=_text(answer.get("linux_driver")),
            python=_text(answer.get("python")),
            externally_managed=_flag(answer.get("externally_managed")),
            os_name=_text(answer.get("os_name")),
            home_free_mib=_count(answer.get("home_free_mib")),
            memory_total_mib=_count(answer.get("memory_total_mib")),
        )

    def _ask_all(self, commands: Mapping[str, list[str]], deadline: float) -> _Asked:
        """Run each command while time is left; stop at the first that cannot run or overruns."""
        assert self._executable is not None  # noqa: S101 - checked by the caller
        asked = _Asked({})
        for key, args in commands.items():
            left = deadline - self._clock()
            if left <= 0:
                asked.missing = (
                    f"wsl.exe {' '.join(args)}: not asked, the {self._deadline_s:g} s for WSL ran out"
                )
                break
            try:
                done = self._runner.run_bytes([self._executable, *args], timeout=left, env_overrides=_ENV)
            except CommandNotFound as error:
                asked.missing = f"wsl.exe: {error.reason}"
                break
            except CommandTimedOut:
                asked.missing = (
                    f"wsl.exe {' '.join(args)}: no answer within the {self._deadline_s:g} s for WSL"
                )
                break
            text = decode_output(done.stdout) + decode_output(done.stderr)
            asked.answers[key] = WslOutput(text, done.returncode)
        return asked


def probe_command() -> str:
    """The ``python3 -c`` program that runs the probe's source, carried in base64.

    Base64 and single quotes only: nothing that ``wsl.exe``'s command line, or the C runtime's
    quoting rules it is split by, would change.
    """
    encoded = base64.b64encode(_PROBE.read_bytes()).decode("ascii")
    return f"import base64;exec(compile(base64.b64decode('{encoded}'),'wsl_distro.py','exec'))"


def _is_probe_answer(found: Mapping[str, Any]) -> bool:
    return found.get("probe") == "wsl_distro"


# A probe's answer is data: a value of another type than the field's is no value.


def _flag(value: object) -> bool | None:
    return value if isinstance(value, bool) else None


def _count(value: object) -> int | None:
    return value if type(value) is int and value >= 0 else None


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


@dataclass(frozen=True)
class WslDistro:
    """Runs programs inside one distribution: ``wsl.exe --distribution NAME --cd ~ --exec ARGV…``.

    The transport of :mod:`gpuwizard.workflow.envs.wsl_create` on Windows. ``--exec`` runs the
    program without the distribution's shell (nothing in the argv is read by a shell), ``--cd ~``
    in the user's home (Microsoft, "Basic commands for WSL"). What the program writes passes
    through ``wsl.exe`` as its bytes (UTF-8); ``wsl.exe``'s own messages come in UTF-8 too with
    ``WSL_UTF8=1``. Ending ``wsl.exe`` does not end what it started inside (microsoft/WSL#2496):
    the caller stops a cancelled step there (``wsl_create.run_in_distro``).
    """

    executable: str
    name: str
    runner: StreamingSubprocessRunner = field(default_factory=StreamingSubprocessRunner)

    def argv(self, argv: Sequence[str]) -> list[str]:
        """The ``wsl.exe`` command line that runs ``argv`` in the distribution."""
        return [self.executable, "--distribution", self.name, "--cd", "~", "--exec", *argv]

    def run(
        self,
        argv: Sequence[str],
        on_line: Callable[[str], None],
        *,
        cancel: threading.Event,
        stdin: bytes | None = None,
        timeout: float | None = None,
    ) -> int:
        """Run ``argv`` in the distribution (``DistroTransport.run``)."""
        return self.runner.stream(
            self.argv(argv), on_line, cancel=cancel, timeout=timeout, env_overrides=_ENV, stdin=stdin
        )


def distro_transport(name: str, env: Mapping[str, str] | None = None) -> WslDistro:
    """The transport into distribution ``name`` on this Windows machine.

    Raises:
        CommandNotFound: This Windows has no ``wsl.exe``.
    """
    found = find_wsl_exe(os.environ if env is None else env)
    if found is None:
        raise CommandNotFound(["wsl.exe"], "not found in System32: WSL is not installed")
    if not DISTRO_NAME.fullmatch(name):
        raise ValueError(f"{name!r} is not a WSL distribution name")
    return WslDistro(str(found), name)


#: Installing WSL downloads it and a distribution (hundreds of MB) and may wait on the person's
#: answers (the distribution's Linux user): an hour before the wizard stops waiting.
WINDOWS_STEP_LIMIT_S: Final = 3600.0


def windows_step_argv(executable: str, step: str, distro: str) -> list[str]:
    """The ``wsl.exe`` command of a route's Windows step (``install_wsl``, ``install_distro``, ``convert``).

    Microsoft, "How to install Linux on Windows with WSL" and "Basic commands for WSL":
    ``wsl --install --distribution NAME`` installs WSL when it is not (as administrator) and the
    distribution, whose first start asks for a Linux user; ``wsl --set-version NAME 2`` converts
    a WSL 1 distribution, keeping its files.

    Raises:
        ValueError: An unknown step, or a name WSL would refuse.
    """
    if not DISTRO_NAME.fullmatch(distro) or distro.startswith("-"):
        raise ValueError(f"{distro!r} is not a WSL distribution name")
    if step in ("install_wsl", "install_distro"):
        return [executable, "--install", "--distribution", distro]
    if step == "convert":
        return [executable, "--set-version", distro, "2"]
    raise ValueError(f"no Windows step {step!r}")


def run_windows_step(
    executable: str,
    step: str,
    distro: str,
    *,
    elevated: Callable[[Sequence[str]], int] | None = None,
    in_console: Callable[[Sequence[str]], int] | None = None,
) -> int:
    """Run a route's Windows step where the person sees it; its exit status.

    Installing WSL runs elevated (the administrator prompt first: ``elevated``, by default
    :func:`gpuwizard.adapters.elevation.run_elevated` in a visible window); the others as the
    person, in a console they can answer (``in_console``, by default
    :func:`gpuwizard.adapters.runner.run_in_console`, a window of its own).

    Raises:
        ElevationDeclined: The administrator prompt was declined; nothing ran.
        ElevationFailed, CommandNotFound, CommandTimedOut: It could not be run to its end.
    """
    argv = windows_step_argv(executable, step, distro)
    if step == "install_wsl":
        if elevated is None:
            from gpuwizard.adapters.elevation import run_elevated  # noqa: PLC0415

            return run_elevated(argv, timeout_s=WINDOWS_STEP_LIMIT_S, visible=True)
        return elevated(argv)
    if in_console is None:
        from gpuwizard.adapters.runner import run_in_console  # noqa: PLC0415

        return run_in_console(argv, timeout=WINDOWS_STEP_LIMIT_S, own_window=True)
    return in_console(argv)
