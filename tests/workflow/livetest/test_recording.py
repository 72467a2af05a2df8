"""Test, then record the last good state: the one way ``test``, the wizard and ``apply`` do it (issue 34)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from gpuwizard.core.events import Event
from gpuwizard.core.health.snapshot import Snapshot
from gpuwizard.core.livetest.events import LiveTestResult, Phase
from gpuwizard.core.machine.system_report import SystemReport
from gpuwizard.workflow.health.tested import Tested, run_test_and_record
from gpuwizard.workflow.livetest.run import LiveTestTarget
from gpuwizard.workflow.machine.system_file import load_system_report

SAMPLES = Path(__file__).parents[3] / "resources" / "samples"
NO_GPU = load_system_report(SAMPLES / "no-gpu.json")
H200 = load_system_report(SAMPLES / "linux-h200.json")
MADE = LiveTestTarget(python="/envs/demo/bin/python", framework="pytorch", env_name="demo")
RECORDED = Snapshot(recorded="2026-11-24T06:09:59+00:00")


class Steps:
    """A live test that ends with ``verdict`` (setting ``cancel`` on the way when asked), and a recorder."""

    def __init__(self, verdict: str, *, cancel_midway: bool = False, refuse: Exception | None = None) -> None:
        self.verdict = verdict
        self.cancel_midway = cancel_midway
        self.refuse = refuse
        self.recorded: list[tuple[str, str, object]] = []

    def run_test(self, _report: SystemReport, target: LiveTestTarget, on_event, cancel: threading.Event):
        on_event(Phase(phase="train", device="gpu"))
        if self.cancel_midway:
            cancel.set()
        result = LiveTestResult(verdict=self.verdict, framework=target.framework, env=target.env_name)
        on_event(result)
        return result

    def record_good(self, _report: SystemReport, env_name: str, result: LiveTestResult, store: object):
        if self.refuse is not None:
            raise self.refuse
        self.recorded.append((env_name, result.verdict, store))
        return RECORDED


def run(steps: Steps, report: SystemReport = NO_GPU, target: LiveTestTarget = MADE, **options) -> Tested:
    events: list[Event] = []
    tested = run_test_and_record(
        steps.run_test,
        report,
        target,
        events.append,
        threading.Event(),
        path_store=None,
        record_good=steps.record_good,
        **options,
    )
    assert [event.kind for event in events] == ["phase", "result"]
    assert events[-1] is tested.result
    return tested


def test_a_passed_test_of_an_environment_the_wizard_made_is_recorded():
    steps = Steps("cpu_only")  # the CPU passes on a machine without an NVIDIA GPU
    tested = run(steps)
    assert (tested.result.verdict, tested.snapshot, tested.error) == ("cpu_only", RECORDED, None)
    assert steps.recorded == [("demo", "cpu_only", None)]


@pytest.mark.parametrize(
    ("verdict", "report"),
    [("broken", NO_GPU), ("cpu_only", H200), ("broken", H200)],
    ids=["broken", "cpu-only-beside-an-nvidia-gpu", "broken-on-a-gpu-machine"],
)
def test_a_test_that_did_not_pass_here_is_not_recorded(verdict: str, report: SystemReport):
    steps = Steps(verdict)
    tested = run(steps, report)
    assert (tested.result.verdict, tested.snapshot, tested.error) == (verdict, None, None)
    assert steps.recorded == []


def test_a_cancelled_test_is_never_recorded():
    stopped = Steps("cancelled")
    assert run(stopped).snapshot is None
    # Cancelled as it ended on its own: its verdict stands, but the person asked to stop.
    late = Steps("gpu_ok", cancel_midway=True)
    assert run(late, H200).snapshot is None
    assert stopped.recorded == late.recorded == []


def test_nothing_is_recorded_for_an_interpreter_the_wizard_did_not_make_or_in_a_preview():
    steps = Steps("gpu_ok")
    assert run(steps, H200, LiveTestTarget(python="/usr/bin/python3", framework="pytorch")).snapshot is None
    assert run(steps, H200, record=False).snapshot is None
    assert steps.recorded == []


def test_when_a_gpu_is_required_only_training_on_it_is_recorded():
    on_cpu = Steps("cpu_only")
    assert run(on_cpu, require_gpu=True).snapshot is None
    assert on_cpu.recorded == []
    slow = Steps("gpu_slow")
    assert run(slow, H200, require_gpu=True).snapshot == RECORDED
    assert slow.recorded == [("demo", "gpu_slow", None)]


@pytest.mark.parametrize("error", [OSError(28, "No space left on device"), ValueError("a damaged record")])
def test_a_record_the_disk_refused_comes_back_and_the_verdict_stands(error: Exception):
    tested = run(Steps("gpu_ok", refuse=error), H200)
    assert (tested.result.verdict, tested.snapshot, tested.error) == ("gpu_ok", None, error)
