"""Run the live training test in an environment and judge it (DESIGN.md section 4, ``test``).

The probe runs with the environment's own interpreter and prints JSON lines; they are passed
on as they come, with GPU utilisation samples from NVML added while it runs, then one
``finding`` event per finding and the ``result`` event. A probe that errors, dies or hangs
gives the verdict ``broken`` with findings, never a traceback and never a hang.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from gpuwizard import probes
from gpuwizard.adapters.nvml import UsageSampler
from gpuwizard.adapters.runner import CommandCancelled, CommandNotFound, CommandTimedOut, StreamingRunner
from gpuwizard.core.findings.diagnosis import diagnose
from gpuwizard.core.findings.model import finding_to_json, make_finding
from gpuwizard.core.livetest.verdict import ProbeEnd, ProbeRun, judge, result_event
from gpuwizard.workflow.state.env_registry import find_record, load_records
from gpuwizard.workflow.state.last_tests import remember_test

#: The probe, run by path with the environment's interpreter (it imports nothing of ours).
TRAIN_PROBE: Final = probes.script("train_test")
#: Far above the probe's own run (under a minute on a 2-core CPU); only a hang reaches it.
DEFAULT_TIMEOUT_S: Final = 600.0
_TAIL_LINES: Final = 200

EventSink = Callable[[dict[str, Any]], None]


class LiveTestUsageError(ValueError):
    """The test cannot be started as asked (one line, exit code 2)."""


@dataclass(frozen=True)
class LiveTestTarget:
    """Which interpreter runs the test, for which framework."""

    python: str
    framework: str
    env_name: str | None = None


def resolve_target(env_name: str | None, python: str | None, framework: str | None) -> LiveTestTarget:
    """The interpreter and framework from ``--env``/``--python``/``--framework``.

    With neither ``--env`` nor ``--python``, the environment the wizard made last is used.

    Raises:
        LiveTestUsageError: An unknown environment, or nothing to test.
    """
    if env_name is not None and python is not None:
        raise LiveTestUsageError("give --env NAME or --python EXE, not both")
    if python is not None:
        return LiveTestTarget(python=python, framework=framework or "pytorch")
    if env_name is not None:
        record = find_record(env_name)
        if record is None:
            raise LiveTestUsageError(
                f"no environment {env_name!r} was made by the wizard (see `gpuwizard env list`)"
            )
    else:
        records = load_records()
        if not records:
            raise LiveTestUsageError(
                "nothing to test: give --python EXE or --env NAME, or create one with `gpuwizard env create`"
            )
        record = records[-1]
    return LiveTestTarget(
        python=record.python, framework=framework or record.framework or "pytorch", env_name=record.name
    )


def run_live_test(
    target: LiveTestTarget,
    *,
    runner: StreamingRunner,
    on_event: EventSink,
    cancel: threading.Event,
    machine_has_nvidia_gpu: bool | None = None,
    sampler: UsageSampler | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    probe_args: Sequence[str] = (),
) -> dict[str, Any]:
    """Run the training probe and return the ``result`` event (also sent to ``on_event``)."""
    started = time.perf_counter()
    run = ProbeRun()
    tail: list[str] = []
    lock = threading.Lock()

    def emit(event: dict[str, Any]) -> None:
        with lock:
            run.add(event)
            on_event(event)

    def on_line(line: str) -> None:
        event = _as_event(line)
        if event is None:
            tail.append(line)
            del tail[:-_TAIL_LINES]
            emit({"event": "log", "line": line})
        else:
            emit(event)

    ending: dict[str, Any] = {"cancel": cancel, "probe_args": probe_args}
    python = target.python
    if not _is_program(python):
        finding = make_finding("PYTHON_NOT_FOUND", python=python)
        return _finish(
            run, "broken", findings=[finding], target=target, started=started, on_event=on_event, **ending
        )
    argv = [python, str(TRAIN_PROBE), "--framework", target.framework, *probe_args]
    if sampler is not None:
        sampler.start(lambda sample: emit({"event": "gpu_usage", **sample}))
    try:
        exit_code: int | None = runner.stream(argv, on_line, cancel=cancel, timeout=timeout_s)
        end = ProbeEnd(exit_code, tail=tuple(tail))
    except CommandTimedOut:
        end = ProbeEnd(None, killed_reason="timeout", tail=tuple(tail))
    except CommandCancelled:
        end = ProbeEnd(None, killed_reason="cancelled", tail=tuple(tail))
    except CommandNotFound:
        finding = make_finding("PYTHON_NOT_FOUND", python=python)
        return _finish(
            run, "broken", findings=[finding], target=target, started=started, on_event=on_event, **ending
        )
    finally:
        if sampler is not None:
            sampler.stop()
    error_text = "\n".join(
        [str(error.get("message", "")) + "\n" + str(error.get("traceback", "")) for error in run.errors]
        + [str(warning.get("message", "")) for warning in run.warnings]
        + list(tail)
    )
    verdict, findings = judge(
        run, end, machine_has_nvidia_gpu=machine_has_nvidia_gpu, diagnosed=diagnose(error_text)
    )
    return _finish(
        run, verdict, findings=findings, target=target, started=started, on_event=on_event, **ending
    )


def _finish(
    run: ProbeRun,
    verdict: str,
    *,
    findings: list[Any],
    target: LiveTestTarget,
    started: float,
    on_event: EventSink,
    cancel: threading.Event,
    probe_args: Sequence[str],
) -> dict[str, Any]:
    for finding in findings:
        on_event({"event": "finding", **finding_to_json(finding)})
    result = result_event(
        run, verdict, findings, framework=target.framework, seconds=time.perf_counter() - started
    )
    if result["python"] is None:
        result["python"] = target.python
    result["env"] = target.env_name
    if not cancel.is_set():  # a cancelled test says nothing about the environment
        remember_test(result, probe_args=probe_args)
    on_event(result)
    return result


def _as_event(line: str) -> dict[str, Any] | None:
    text = line.strip()
    if not text.startswith("{"):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    if isinstance(value, dict) and isinstance(value.get("event"), str) and value["event"] != "result":
        return value
    return None


def _is_program(path: str) -> bool:
    candidate = Path(path)
    return candidate.is_file() and (os.name == "nt" or os.access(candidate, os.X_OK))
