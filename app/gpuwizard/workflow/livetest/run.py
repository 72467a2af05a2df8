"""Run the live training test in an environment and judge it (``gpuwizard test``).

The probe runs with the environment's own interpreter and prints JSON lines; they become typed
events as they come (:data:`~gpuwizard.core.livetest.events.LIVE_TEST_EVENTS`) and are passed
on, with GPU utilisation samples from NVML added while it runs, then one ``finding`` event per
finding and the :class:`~gpuwizard.core.livetest.events.LiveTestResult`. A probe that errors,
dies or hangs gives the verdict ``broken`` with findings, never a traceback and never a hang.
A test whose ``cancel`` was set ends ``cancelled`` (no verdict) and is not remembered.

``device`` names the GPU the plan expects (``plan.device``: ``cuda``, ``rocm``, ``xpu``, ``mps``,
or ``cpu``/``auto`` for none in particular): the probe is told it (``--device``) and trains on
that kind only, and when the framework sees none of it the verdict is ``cpu_only`` with a
finding that names the kind and why it is not visible (:mod:`gpuwizard.core.livetest.devices`).
"""

from __future__ import annotations

import contextlib
import shutil
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from gpuwizard import probes
from gpuwizard.adapters.executables import is_program
from gpuwizard.adapters.nvml import UsageSampler
from gpuwizard.adapters.runner import CommandCancelled, CommandNotFound, CommandTimedOut, LineStreamer
from gpuwizard.adapters.wizard_program import wizard_command
from gpuwizard.core.events import Event, EventSink, value_from_json
from gpuwizard.core.findings.model import Finding, make_finding
from gpuwizard.core.gpu_kinds import NON_CUDA_KINDS
from gpuwizard.core.json_lines import json_object
from gpuwizard.core.livetest.devices import GPU_KINDS
from gpuwizard.core.livetest.events import LIVE_TEST_EVENTS, FindingEvent, GpuUsage, LiveTestResult, Log
from gpuwizard.core.livetest.judge import ProbeEnd, ProbeRun, judge, result_of
from gpuwizard.core.livetest.verdicts import CANCELLED
from gpuwizard.core.machine.readiness import machine_has_nvidia_gpu
from gpuwizard.core.machine.system_report import SystemReport
from gpuwizard.workflow.compat.diagnosis import diagnose_on_machine
from gpuwizard.workflow.state.env_registry import find_record, load_records
from gpuwizard.workflow.state.last_tests import remember_test

#: The probe, run by path with the environment's interpreter (it imports nothing of ours).
TRAIN_PROBE: Final = probes.script("train_test")
#: Far above the probe's own run (under a minute on a 2-core CPU); only a hang reaches it.
DEFAULT_TIMEOUT_S: Final = 600.0
_TAIL_LINES: Final = 200
#: What ``device`` may be: a GPU kind the probe is told to use, or none in particular.
DEVICES: Final = ("auto", "cpu", *GPU_KINDS)

#: The old name of the test's sink, now the one sink type of every long operation: kept only
#: while the wizard's session, its replay and ``apply`` still import it.
TestEvents = EventSink


#: What runs the probe: a runner's ``stream``, here or inside a WSL distribution (``in_wsl``).
ProbeRunner = LineStreamer


class LiveTestUsageError(ValueError):
    """The test cannot be started as asked (one line, exit code 2)."""


@dataclass(frozen=True)
class LiveTestTarget:
    """Which interpreter runs the test, for which framework."""

    python: str
    framework: str
    env_name: str | None = None
    #: The GPU kind the environment's plan named (its record's ``device``); ``auto`` when unknown.
    device: str = "auto"
    #: For an environment inside WSL 2 (``manager: wsl``): its distribution and the wizard's
    #: folder there (the probes' place); ``python`` is then a path inside the distribution.
    distro: str | None = None
    wsl_home: str | None = None


def resolve_target(env_name: str | None, python: str | None, framework: str | None) -> LiveTestTarget:
    """The interpreter and framework from ``--env``/``--python``/``--framework``.

    With neither ``--env`` nor ``--python``, the environment the wizard made last is used.

    Raises:
        LiveTestUsageError: An unknown environment, nothing to test, or a ``--python`` that is no
            program (missing, empty, a folder, not executable): refused before anything runs or
            is recorded.
    """
    if env_name is not None and python is not None:
        raise LiveTestUsageError("give --env NAME or --python EXE, not both")
    if python is not None:
        return LiveTestTarget(python=checked_interpreter(python), framework=framework or "pytorch")
    if env_name is not None:
        record = find_record(env_name)
        if record is None:
            raise LiveTestUsageError(
                f"no environment {env_name!r} was made by the wizard (see `{wizard_command().line('env list')}`)"
            )
    else:
        records = load_records()
        if not records:
            create = wizard_command().line("env create NAME --framework F")
            raise LiveTestUsageError(
                f"nothing to test: give --python EXE or --env NAME, or create one with `{create}`"
            )
        record = records[-1]
    return LiveTestTarget(
        python=record.python,
        framework=framework or record.framework or "pytorch",
        env_name=record.name,
        # CUDA environments are judged as before, by the NVIDIA GPUs the driver serves; the
        # other kinds have no such machine-wide fact, so the test is told the kind to expect.
        device=record.device if record.device in NON_CUDA_KINDS else "auto",
        distro=record.distro or None if record.manager == "wsl" else None,
        wsl_home=record.wsl_home or None if record.manager == "wsl" else None,
    )


def checked_interpreter(python: str) -> str:
    """The interpreter ``--python`` names: a file that can be run, or a program found on PATH.

    Raises:
        LiveTestUsageError: Empty, missing, a folder, or not executable.
    """
    if not python.strip():
        raise LiveTestUsageError("--python is empty: give the path of a Python interpreter")
    candidate = Path(python)
    if not candidate.exists() and candidate.name == python:
        found = shutil.which(python)  # a bare name such as python3: the one on PATH
        if found is not None:
            return found
    if not candidate.exists():
        raise LiveTestUsageError(f"--python {python}: no such file")
    if candidate.is_dir():
        raise LiveTestUsageError(f"--python {python}: is a folder; give the interpreter in it (bin/python)")
    if not is_program(python):
        raise LiveTestUsageError(f"--python {python}: is not executable")
    return python


def run_test(
    report: SystemReport,
    target: LiveTestTarget,
    on_event: EventSink,
    cancel: threading.Event,
    *,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    device: str = "auto",
) -> LiveTestResult:
    """The live test as every caller runs it (``gpuwizard test``, the Test page, ``apply``).

    The probe in a real process, with NVML samples of the GPUs' use when this machine
    (``report``) has an NVIDIA GPU a driver serves; judged with the same knowledge.
    ``device``: the GPU kind the plan expects (``plan.device``), ``auto`` for the one the
    environment's record names (``target.device``), else whichever the framework sees.

    Raises:
        LiveTestUsageError: ``device`` is none of :data:`DEVICES`.
    """
    from gpuwizard.adapters.runner import StreamingSubprocessRunner  # noqa: PLC0415

    has_gpu = machine_has_nvidia_gpu(report)
    runner: ProbeRunner = StreamingSubprocessRunner()
    in_distro = False
    if target.distro is not None:
        from gpuwizard.adapters.wsl import distro_transport  # noqa: PLC0415
        from gpuwizard.workflow.livetest.in_wsl import DistroProbeRunner  # noqa: PLC0415

        # Without wsl.exe (a report of another machine), the interpreter is not found here: said so.
        with contextlib.suppress(CommandNotFound, ValueError):
            transport = distro_transport(target.distro)
            runner, in_distro = (
                DistroProbeRunner(transport, python=target.python, wsl_home=target.wsl_home),
                True,
            )
    return run_live_test(
        target,
        runner=runner,
        on_event=on_event,
        cancel=cancel,
        machine_has_nvidia_gpu=has_gpu,
        sampler=UsageSampler() if has_gpu else None,
        timeout_s=timeout_s,
        machine=report,
        device=target.device if device == "auto" else device,
        in_distro=in_distro,
    )


def run_live_test(
    target: LiveTestTarget,
    *,
    runner: ProbeRunner,
    on_event: EventSink,
    cancel: threading.Event,
    machine_has_nvidia_gpu: bool | None = None,
    sampler: UsageSampler | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    probe_args: Sequence[str] = (),
    machine: SystemReport | None = None,
    device: str = "auto",
    in_distro: bool = False,
) -> LiveTestResult:
    """Run the training probe and return its result (also sent to ``on_event``, last).

    ``in_distro``: ``runner`` runs it inside a WSL 2 distribution (``target.python`` is a path
    there, not looked for here; :mod:`.in_wsl`).

    ``machine``: this machine's report, when known; a failure's findings then name the build
    to install here (:func:`gpuwizard.workflow.compat.diagnosis.diagnose_on_machine`).
    ``device``: the GPU kind the plan expects; ``auto`` and ``cpu`` leave the probe's choice
    to it (the first GPU the framework sees), as before there were kinds.

    Raises:
        LiveTestUsageError: ``device`` is none of :data:`DEVICES`.
    """
    if device not in DEVICES:
        raise LiveTestUsageError(f"unknown device {device!r}: give one of {', '.join(DEVICES)}")
    test = _Test(target, on_event, cancel, probe_args, device if device in GPU_KINDS else None)
    python = target.python
    if not in_distro and not is_program(python):
        return test.finish("broken", [make_finding("PYTHON_NOT_FOUND", python=python)])
    # Told only a GPU kind: the command line of a test that expects none stays as it was.
    expected = ["--device", device] if device in GPU_KINDS else []
    argv = [python, str(TRAIN_PROBE), "--framework", target.framework, *expected, *probe_args]
    if sampler is not None:
        sampler.start(lambda sample: test.emit(value_from_json(GpuUsage, sample)))
    try:
        exit_code: int | None = runner.stream(argv, test.take_line, cancel=cancel, timeout=timeout_s)
        end = ProbeEnd(exit_code, tail=tuple(test.tail), windows=sys.platform == "win32")
    except CommandTimedOut:
        end = ProbeEnd(None, killed_reason="timeout", tail=tuple(test.tail))
    except CommandCancelled:
        end = ProbeEnd(None, killed_reason="cancelled", tail=tuple(test.tail))
    except CommandNotFound:
        return test.finish("broken", [make_finding("PYTHON_NOT_FOUND", python=python)])
    finally:
        if sampler is not None:
            sampler.stop()
    run = test.run
    error_text = "\n".join(
        [f"{error.message}\n{error.traceback}" for error in run.errors]
        + [warning.message for warning in run.warnings]
        + list(test.tail)
    )
    # The test ran here: a hint that names the wizard names it as it starts here.
    diagnosed, _builds = diagnose_on_machine(error_text, lambda: machine, wizard=wizard_command())
    verdict, findings = judge(run, end, machine_has_nvidia_gpu=machine_has_nvidia_gpu, diagnosed=diagnosed)
    return test.finish(verdict, findings)


class _Test:
    """One run of the probe: its events folded as they come, the lines that were no event."""

    def __init__(
        self,
        target: LiveTestTarget,
        on_event: EventSink,
        cancel: threading.Event,
        probe_args: Sequence[str],
        device_expected: str | None = None,
    ) -> None:
        self.target = target
        self.on_event = on_event
        self.cancel = cancel
        self.probe_args = probe_args
        self.device_expected = device_expected
        self.started = time.perf_counter()
        self.run = ProbeRun()
        self.tail: list[str] = []
        self.lock = threading.Lock()  # the sampler's thread emits too

    def emit(self, event: Event) -> None:
        with self.lock:
            self.run.add(event)
            self.on_event(event)

    def take_line(self, line: str) -> None:
        data = json_object(line)
        # The result is the wizard's to give: a `result` the probe printed is not taken as one.
        if data is None or not isinstance(data.get("event"), str) or data["event"] == "result":
            self.tail.append(line)
            del self.tail[:-_TAIL_LINES]
            self.emit(Log(line=line))
        else:
            self.emit(LIVE_TEST_EVENTS.read(data))

    def finish(self, verdict: str, findings: Sequence[Finding]) -> LiveTestResult:
        if self.cancel.is_set() and verdict != CANCELLED:
            # Cancelled as it ended on its own: still a cancel, as the runner says for a tool.
            verdict, findings = CANCELLED, [item for item in findings if item.code != "TEST_PROBE_KILLED"]
        for finding in findings:
            self.on_event(FindingEvent.of(finding))
        result = result_of(
            self.run,
            verdict,
            findings,
            framework=self.target.framework,
            seconds=time.perf_counter() - self.started,
            python=self.target.python,
            env=self.target.env_name,
            device_expected=self.device_expected,
        )
        if not result.cancelled:  # a cancelled test says nothing about the environment
            remember_test(result, probe_args=self.probe_args)
        self.on_event(result)
        return result
