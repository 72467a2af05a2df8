"""Making an environment inside a WSL 2 distro from Windows, with the events of any other environment.

:func:`create_wsl_environment` runs the steps of :mod:`gpuwizard.core.envs.wsl_steps` one by
one through a :class:`DistroTransport` (one program run inside the distro: on Windows
``wsl.exe -d DISTRO --cd ~ --exec ARGV...``, in the tests :class:`LocalDistro`, which runs the
same argv on this machine with a home of the test's) and sends what :mod:`.create` sends:
``start``, a ``phase`` per step, uv's lines as ``log`` and ``progress``
(:func:`gpuwizard.core.envs.tool_output.parse_tool_line`), the environment report as a
sentence carrying the report, and last the ``result``
(:class:`~gpuwizard.core.envs.result.EnvResult`, ``manager: wsl``). Each event is also a line of
the run's log file.

On a cancel the step running in the distro is stopped there (ending ``wsl.exe`` leaves it
running: microsoft/WSL#2496; :func:`~gpuwizard.core.envs.wsl_steps.stop_step`), then, as after a
failure, what the run made is removed, newest first, each by the marker of this run's id: the
environment's folder, and the wizard's folder in the distro when this run made it and nothing
else is in it. Helper steps (the markers, uv's copy, the probes' copy) take a moment and are
atomic: they are let finish, and the cancel is acted on after them.

:func:`remove_wsl_environment` is ``env remove`` for such an environment: only folders holding
the wizard's marker with the recorded id go; anything else is kept and named.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal, Protocol

from gpuwizard import probes
from gpuwizard.adapters.runner import (
    CommandCancelled,
    CommandTimedOut,
    RunnerError,
    StreamingSubprocessRunner,
)
from gpuwizard.core.envs.events import EnvLog, EnvPhase, EnvPhaseName, EnvProgress, EnvStart
from gpuwizard.core.envs.package_sources import display_url
from gpuwizard.core.envs.result import EnvResult
from gpuwizard.core.envs.space import space_message
from gpuwizard.core.envs.tool_output import parse_tool_line
from gpuwizard.core.envs.uv_wheel import UvBinary
from gpuwizard.core.envs.wsl_steps import (
    DISTRO_PYTHON,
    HOME_PATH,
    WslEnvRequest,
    WslHome,
    WslPayloads,
    WslStep,
    creation_steps,
    home_step,
    removal_steps,
    stop_step,
)
from gpuwizard.core.events import Event, EventSink, to_json
from gpuwizard.core.exit_status import status_text
from gpuwizard.core.json_lines import json_object
from gpuwizard.workflow.envs.create import new_env_log
from gpuwizard.workflow.envs.ownership import new_id

#: The probes sent into the distro: every module beside ``env_report.py`` and ``train_test.py``
#: they may import, not the helper itself nor the package's ``__init__``.
_NOT_PROBES: Final = frozenset({"__init__.py", "wsl_home.py"})
#: How long a stop or a removal in the distro may take (it ends a group, removes a folder).
_UNDO_TIMEOUT_S: Final = 600.0


class DistroTransport(Protocol):
    """Runs one program inside the distro and hands over its output line by line.

    On Windows: ``wsl.exe -d DISTRO --cd ~ --exec ARGV...`` (``adapters/wsl.py``); here and in
    the tests, :class:`LocalDistro`.
    """

    def run(
        self,
        argv: Sequence[str],
        on_line: Callable[[str], None],
        *,
        cancel: threading.Event,
        stdin: bytes | None = None,
        timeout: float | None = None,
    ) -> int:
        """Run ``argv`` inside the distro, its current folder the user's home; its exit status.

        ``stdin`` is written to its standard input, then end of file (none: it reads nothing).
        Each line of its output, standard output and error merged, goes to ``on_line`` as it
        comes, decoded as UTF-8 (a Linux program's bytes, not ``wsl.exe``'s own UTF-16).

        Raises:
            CommandNotFound: The distro cannot be started (no ``wsl.exe``, no such distro).
            CommandCancelled: ``cancel`` was set; the process on this side has ended. What it
                started inside the distro may still run: the caller stops it there.
            CommandTimedOut: It ran longer than ``timeout`` seconds (the same holds).
        """
        ...


@dataclass(frozen=True)
class LocalDistro:
    """A :class:`DistroTransport` that runs the argv on this machine, with ``home`` as the user's home.

    What the Windows side sends into the distro, run as it is in a local shell: the tests make
    real environments with it (issue 39, "Tests").
    """

    home: Path
    runner: StreamingSubprocessRunner = field(default_factory=StreamingSubprocessRunner)

    def run(
        self,
        argv: Sequence[str],
        on_line: Callable[[str], None],
        *,
        cancel: threading.Event,
        stdin: bytes | None = None,
        timeout: float | None = None,
    ) -> int:
        """Run ``argv`` with ``HOME`` set to :attr:`home` and in it, as ``wsl.exe --cd ~`` does."""
        return self.runner.stream(
            argv,
            on_line,
            cancel=cancel,
            timeout=timeout,
            env_overrides={"HOME": str(self.home)},
            cwd=self.home,
            stdin=stdin,
        )


@dataclass(frozen=True)
class WslCreation:
    """An environment made in a distro, or why not.

    Attributes:
        result: The ``result`` event sent last (``manager: wsl``; ``path`` and ``python`` are
            paths inside the distro).
        distro: The distro, as the request named it.
        home: The wizard's folder in the distro (None when the first step failed): the Windows
            side records its path and id, to remove it with the last environment.
        env_id: The id in the environment's marker: the Windows side records it.
        report: The environment report probe's answer (the framework's build, the GPUs it sees).
        facts: The first step's answer about the distro: its Python (``python``), whether PEP
            668 marks it externally managed, the free space, the driver's libraries (``wsl_lib``).
        uv_version: uv's ``--version`` in the distro.
    """

    result: EnvResult
    distro: str
    home: WslHome | None
    env_id: str
    report: Mapping[str, Any] | None = None
    facts: Mapping[str, Any] = field(default_factory=dict)
    uv_version: str | None = None

    @property
    def ok(self) -> bool:
        """The environment was made and its framework imports."""
        return self.result.ok


@dataclass(frozen=True)
class WslRemoval:
    """What ``env remove`` did in the distro.

    Attributes:
        removed: The folders removed.
        kept: One line per folder kept, saying why (not provably the wizard's, or still used).
        problems: What could not be removed although it is the wizard's.
    """

    removed: tuple[str, ...] = ()
    kept: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()


def read_payloads(uv: UvBinary) -> WslPayloads:
    """What the steps send into the distro: the helper, ``uv``, and the probes read from the wizard."""
    files = {
        path.name: path.read_text(encoding="utf-8")
        for path in sorted(probes.FOLDER.glob("*.py"))
        if path.name not in _NOT_PROBES
    }
    return WslPayloads(helper=probes.script("wsl_home").read_bytes(), uv=uv, probes=files)


def run_in_distro(
    transport: DistroTransport,
    step: WslStep,
    on_line: Callable[[str], None],
    cancel: threading.Event,
    *,
    helper: bytes,
    python: str = DISTRO_PYTHON,
) -> int:
    """Run one step; a tool cancelled or out of time is stopped inside the distro before this raises.

    For the live test (:func:`~gpuwizard.core.envs.wsl_steps.live_test_step`) as for the steps
    of a creation. A helper step is let finish (it is quick and atomic): ``cancel`` is for the
    caller to act on after it.

    Raises:
        CommandCancelled, CommandTimedOut, CommandNotFound: As :meth:`DistroTransport.run`;
            the tool is stopped in the distro first (a stop that fails is said on ``on_line``).
    """
    asked = cancel if step.run_id is not None else threading.Event()
    try:
        return transport.run(step.argv, on_line, cancel=asked, stdin=step.stdin, timeout=step.timeout_s)
    except (CommandCancelled, CommandTimedOut):
        if step.run_id is not None:
            for line in _stop(transport, step.run_id, helper=helper, python=python):
                on_line(line)
        raise


def _stop(transport: DistroTransport, run_id: str, *, helper: bytes, python: str) -> list[str]:
    """Stop the tool of ``run_id`` in the distro; the lines that say what went wrong (none: stopped)."""
    answers: list[str] = []
    stop = stop_step(helper, run_id, python=python)
    try:
        status = transport.run(
            stop.argv, answers.append, cancel=threading.Event(), stdin=stop.stdin, timeout=_UNDO_TIMEOUT_S
        )
    except RunnerError as error:
        return [f"the step may still run in the distro: it could not be stopped ({error})"]
    answer = _helper_answer(answers)
    if status != 0 or answer is None or not answer.get("ok"):
        why = (answer or {}).get("error") or " ".join(answers)[-300:]
        return [f"the step may still run in the distro: it could not be stopped ({why})"]
    return []


def create_wsl_environment(
    request: WslEnvRequest,
    sent: WslPayloads,
    transport: DistroTransport,
    on_event: EventSink,
    cancel: threading.Event,
    *,
    env_id: str | None = None,
    home_id: str | None = None,
) -> WslCreation:
    """Make ``request``'s environment in the distro; returns the creation (its ``result`` was the last event).

    ``env_id`` and ``home_id``: the ids of the environment's marker and of the wizard's folder if
    this run makes it (new ones when not given); the Windows side records them. On failure or
    cancel, what was made is removed before this returns, and the result's ``status`` is
    ``failed`` or ``cancelled`` (what could not be removed is in its ``rollback_problems``).
    """
    run = _WslRun(
        request,
        sent,
        transport,
        on_event,
        cancel=cancel,
        env_id=env_id or new_id(),
        home_id=home_id or new_id(),
    )
    try:
        return run.execute()
    finally:
        run.close()


def remove_wsl_environment(
    transport: DistroTransport,
    helper: bytes,
    name: str,
    env_id: str,
    *,
    home_id: str | None = None,
    python: str = DISTRO_PYTHON,
) -> WslRemoval:
    """Remove the environment ``name`` from the distro if it holds ``env_id``'s marker, then the wizard's folder.

    With ``home_id`` (the last of the wizard's environments in this distro), the wizard's folder
    goes too: uv, the probes, uv's Pythons and cache; it is kept, and said, while anything it
    did not make, or another environment, is in it.

    Raises:
        CommandNotFound: The distro cannot be started; nothing was changed.
    """
    removed: list[str] = []
    kept: list[str] = []
    problems: list[str] = []
    for step in removal_steps(helper, name, env_id, home_id, python=python):
        lines: list[str] = []
        status = transport.run(
            step.argv, lines.append, cancel=threading.Event(), stdin=step.stdin, timeout=_UNDO_TIMEOUT_S
        )
        answer = _helper_answer(lines)
        if answer is None:
            problems.append(f"{step.title}: no answer (exit status {status}): {' '.join(lines)[-300:]}")
            continue
        removed += [str(path) for path in answer.get("removed", [])]
        kept += [_kept_line(item) for item in answer.get("kept", [])]
        problems += [str(problem) for problem in answer.get("problems", [])]
        if answer.get("error"):
            problems.append(str(answer["error"]))
    return WslRemoval(tuple(removed), tuple(kept), tuple(problems))


class _Cancelled(Exception):
    pass


class _StepFailed(Exception):
    pass


class _WslRun:
    """One creation in a distro: its log, the steps, and what to undo."""

    def __init__(
        self,
        request: WslEnvRequest,
        sent: WslPayloads,
        transport: DistroTransport,
        on_event: EventSink,
        *,
        cancel: threading.Event,
        env_id: str,
        home_id: str,
    ) -> None:
        self.request = request
        self.sent = sent
        self.transport = transport
        self.on_event = on_event
        self.cancel = cancel
        self.env_id = env_id
        self.home_id = home_id
        self.started = time.perf_counter()
        self.log_path, self.log = new_env_log(request.name, "env-create-wsl")
        self.phase: EnvPhaseName = "check"
        self.tail: list[str] = []
        self.begun: list[WslStep] = []
        self.answers: dict[str, Mapping[str, Any]] = {}
        self.home: WslHome | None = None
        self.report: Mapping[str, Any] | None = None
        self.lock = threading.Lock()  # lines come on the transport's reading thread

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.log.close()

    # -- events -------------------------------------------------------------------------------
    def emit(self, event: Event) -> None:
        with self.lock:
            # The log file is an edge: each event is one JSON line there.
            self.log.write(json.dumps(to_json(event), ensure_ascii=False) + "\n")
            self.log.flush()
            self.on_event(event)

    def enter(self, phase: EnvPhaseName, message: str) -> None:
        if self.cancel.is_set():
            raise _Cancelled
        self.phase = phase
        self.emit(EnvPhase(phase=phase, message=message))

    def note(self, text: str) -> None:
        self.emit(EnvLog(phase=self.phase, tool="gpuwizard", line=text))

    def line(self, tool: str, text: str) -> None:
        self.tail = [*self.tail[-19:], text]
        self.emit(EnvLog(phase=self.phase, tool=tool, line=text))
        for progress in parse_tool_line(tool, text):
            self.emit(EnvProgress.of(progress, self.phase))

    # -- the run ------------------------------------------------------------------------------
    def execute(self) -> WslCreation:
        self.emit(self._start_event())
        try:
            self._steps()
        except (_Cancelled, CommandCancelled):
            return self._roll_back("cancelled", "cancelled by the user")
        except (_StepFailed, RunnerError, OSError, ValueError) as error:
            return self._roll_back("failed", str(error))
        except BaseException:
            self._roll_back("failed", "interrupted")
            raise
        assert self.home is not None  # noqa: S101 - the first step sets it or raises
        report = self.report or {}
        version = str(report.get("framework_version") or self.request.framework_version)
        result = EnvResult(
            status="ok",
            name=self.request.name,
            path=self.home.env_path(self.request.name),
            python=self.home.env_python(self.request.name),
            framework_version=version.split("+", maxsplit=1)[0],
            framework=self.request.framework,
            framework_build=version,
            manager="wsl",
            tool="uv",
            seconds=round(time.perf_counter() - self.started, 2),
            log=str(self.log_path),
        )
        self.emit(result)
        return self._creation(result)

    def _steps(self) -> None:
        request = self.request
        answer = self._run(
            home_step(self.sent.helper, self.home_id, python=request.distro_python, wsl_lib=request.wsl_lib)
        )
        self.home = WslHome(str(answer["home"]), str(answer["home_id"]), made=answer.get("made") is True)
        self._say_facts(answer)
        for step in creation_steps(request, self.home, self.sent, env_id=self.env_id):
            self._run(step)
        self._check_report()

    def _say_facts(self, answer: Mapping[str, Any]) -> None:
        """What the first step found in the distro, said before anything is installed."""
        request, home = self.request, self.home
        assert home is not None  # noqa: S101 - set just before
        made = "made now" if home.made else "already there"
        shared = " (shared with the wizard installed in the distro)" if answer.get("shared") else ""
        self.note(f"the wizard's folder in the distro: {home.path} ({made}){shared}")
        managed = answer.get("externally_managed") is True
        self.note(
            f"the distro's Python is {answer.get('python', 'unknown')}"
            + (
                "; PEP 668 marks it externally managed, and it is left as it is: the environment is a venv of its own"
                if managed
                else ""
            )
        )
        given = answer.get("wsl_lib")
        lib: Mapping[str, Any] = given if isinstance(given, Mapping) else {}
        found = [str(name) for name in lib.get("libcuda", [])]
        where = str(lib.get("dir") or request.wsl_lib)
        if found:
            self.note(
                f"the Windows NVIDIA driver's CUDA library is passed into the distro: {where}/{found[0]}"
            )
        else:
            self.note(
                f"no libcuda.so in {where}: inside this distro the framework will see no GPU "
                "(the Windows NVIDIA driver passes it through to WSL 2 only)"
            )
        free = answer.get("free_bytes")
        if request.needed_bytes and isinstance(free, int) and free < request.needed_bytes:
            raise _StepFailed(space_message(request.needed_bytes, free, f"the distro ({home.path})"))

    def _run(self, step: WslStep) -> Mapping[str, Any]:
        """Run one step; the helper's answer (empty for a tool's step).

        Raises:
            _StepFailed: The step failed; its last lines say why.
        """
        self.enter(step.phase, step.title)
        self.begun.append(step)
        with self.lock:
            self.log.write(f"$ {step.command_line()}\n")
        reader = _Reader(self, step)
        status = run_in_distro(
            self.transport,
            step,
            reader.take,
            self.cancel,
            helper=self.sent.helper,
            python=self.request.distro_python,
        )
        if step.output == "helper":
            answer = reader.answer
            if answer is not None:
                # Kept whatever it says: a refusal (made nothing) is not undone, a crash is.
                self.answers[step.key] = answer
            if status != 0 or answer is None or not answer.get("ok"):
                why = (
                    (answer or {}).get("error")
                    or self._last_line()
                    or f"exit {status_text(status, windows=False)}"
                )
                raise _StepFailed(f"{step.title}: {why}")
            if step.key == "uv":
                self.note(f"uv in the distro: {answer.get('version', '')} at {answer.get('uv', '')}")
            return answer
        if step.output == "report":
            self.report = reader.report
        if status != 0 and step.output != "report":
            how = status_text(status, windows=False)
            last = self._last_line()
            ended = f"{step.argv[step.argv.index('--') + 1].rsplit('/', 1)[-1]} exited with {how}"
            raise _StepFailed(
                f"{self.phase}: {ended}: {last}" if last else f"{self.phase}: {ended}, printing nothing"
            )
        return {}

    def _last_line(self) -> str:
        return next((text.strip() for text in reversed(self.tail) if text.strip()), "")

    def _check_report(self) -> None:
        report, request = self.report, self.request
        if not report or not report.get("ok"):
            error = (report or {}).get("error") or "no answer from the probe"
            raise _StepFailed(f"verify: import {request.framework} failed in the distro: {error}")
        found = str(report.get("framework_version") or "")
        wanted = request.framework_version
        if not (found == wanted or found.startswith(wanted + "+")):
            raise _StepFailed(f"verify: {request.framework} {found} was installed instead of {wanted}")

    # -- rollback -----------------------------------------------------------------------------
    def _roll_back(self, status: Literal["failed", "cancelled"], error: str) -> WslCreation:
        self.phase = "rollback"
        self.emit(EnvPhase(phase="rollback", message=f"{status}: removing what was made in the distro"))
        problems: list[str] = []
        done: set[tuple[str, ...]] = set()
        for step in reversed(self.begun):
            undo = step.undo
            if undo is None or undo.argv in done:
                continue
            answer = self.answers.get(step.key)
            if step.undo_only_if_made and answer is not None and answer.get("made") is not True:
                continue  # found there, or refused: nothing of this run's to remove
            done.add(undo.argv)
            problems += self._undo(undo)
        result = EnvResult(
            status=status,
            name=self.request.name,
            path=self.home.env_path(self.request.name)
            if self.home
            else f"{HOME_PATH}/envs/{self.request.name}",
            error=error,
            log_tail=tuple(self.tail[-10:]),
            rollback_problems=tuple(problems),
            seconds=round(time.perf_counter() - self.started, 2),
            log=str(self.log_path),
        )
        self.emit(result)
        return self._creation(result)

    def _undo(self, undo: WslStep) -> list[str]:
        """Run one undo step; what it could not remove, or kept though the run made it."""
        lines: list[str] = []
        with self.lock:
            self.log.write(f"$ {undo.command_line()}\n")
        try:
            status = self.transport.run(
                undo.argv, lines.append, cancel=threading.Event(), stdin=undo.stdin, timeout=_UNDO_TIMEOUT_S
            )
        except RunnerError as error:
            return [f"{undo.title}: {error}"]
        answer = _helper_answer(lines)
        if answer is None:
            return [f"{undo.title}: no answer (exit status {status}): {' '.join(lines)[-300:]}"]
        for path in answer.get("removed", []):
            self.note(f"removed {path}")
        problems = [str(problem) for problem in answer.get("problems", [])]
        if answer.get("error"):
            problems.append(f"{undo.title}: {answer['error']}")
        kept = [_kept_line(item) for item in answer.get("kept", [])]
        if undo.key == "remove_home":
            # Kept because another environment or a person's file is in it: right, and said.
            for line in kept:
                self.note(line)
            return problems
        return problems + kept

    # -- pieces -------------------------------------------------------------------------------
    def _start_event(self) -> EnvStart:
        request = self.request
        return EnvStart(
            name=request.name,
            path=f"{HOME_PATH}/envs/{request.name}",
            manager="wsl",
            tool="uv",
            framework=request.framework,
            framework_version=request.framework_version,
            python_version=request.python,
            requirements=request.requirements,
            # The index really used: a mirror instead of PyPI, login hidden; None for PyPI's own.
            index_url=None if request.offline or not request.index_url else display_url(request.index_url),
            find_links=request.find_links,
            offline=request.offline,
            log=str(self.log_path),
        )

    def _creation(self, result: EnvResult) -> WslCreation:
        uv = self.answers.get("uv", {})
        return WslCreation(
            result=result,
            distro=self.request.distro,
            home=self.home,
            env_id=self.env_id,
            report=self.report,
            facts=dict(self.answers.get("home", {})),
            uv_version=str(uv["version"]) if uv.get("version") else None,
        )


class _Reader:
    """Reads one step's output as its kind says: the helper's answer, uv's lines, the report."""

    def __init__(self, run: _WslRun, step: WslStep) -> None:
        self.run = run
        self.step = step
        self.answer: dict[str, Any] | None = None
        self.report: dict[str, Any] | None = None

    def take(self, text: str) -> None:
        output = self.step.output
        data = json_object(text, source="the distro") if text.lstrip().startswith("{") else None
        if output == "helper" and data is not None and data.get("helper") == "wsl_home":
            self.answer = data
            if not data.get("ok") and data.get("error"):
                self.run.line("gpuwizard", str(data["error"]))
            return
        if output == "report" and data is not None and data.get("probe") == "env_report":
            self.report = data
            self.run.emit(
                EnvLog(phase=self.run.phase, tool="gpuwizard", line=report_sentence(data), report=data)
            )
            return
        self.run.line("uv" if output == "uv" else "probe" if output == "report" else "wsl", text)


def report_sentence(report: Mapping[str, Any]) -> str:
    """The environment report probe's answer in a sentence.

    >>> report_sentence({"framework": "tensorflow", "ok": True, "framework_version": "2.21.0",
    ...     "cuda_build": "12.5.1", "gpus": [{"name": "NVIDIA GeForce RTX 4070"}]})
    'tensorflow 2.21.0 imports in the new environment (built with CUDA 12.5.1) and sees 1 GPU: NVIDIA GeForce RTX 4070.'
    >>> report_sentence({"framework": "tensorflow", "ok": False, "error": "ImportError: libcudart.so.12"})
    'import tensorflow failed in the new environment: ImportError: libcudart.so.12'
    """
    framework = str(report.get("framework") or "the framework")
    if not report.get("ok"):
        return f"import {framework} failed in the new environment: {report.get('error') or 'no reason given'}"
    cuda = report.get("cuda_build")
    build = f"built with CUDA {cuda}" if cuda else "a CPU build"
    gpus = [str(gpu.get("name") or "a GPU") for gpu in report.get("gpus") or [] if isinstance(gpu, Mapping)]
    seen = f"sees {len(gpus)} GPU{'s' if len(gpus) > 1 else ''}: {', '.join(gpus)}" if gpus else "sees no GPU"
    version = report.get("framework_version") or "(version unknown)"
    return f"{framework} {version} imports in the new environment ({build}) and {seen}."


def _helper_answer(lines: Sequence[str]) -> dict[str, Any] | None:
    """The helper's JSON answer among a step's lines (its last)."""
    for text in reversed(lines):
        data = json_object(text, source="the distro")
        if data is not None and data.get("helper") == "wsl_home":
            return data
    return None


def _kept_line(item: object) -> str:
    if isinstance(item, Mapping):
        return f"{item.get('path')} is kept: {item.get('why')}"
    return f"{item} is kept"
