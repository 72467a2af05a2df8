"""A good state recorded by the Test page or by ``apply`` keeps the GPUs the framework saw, so
``verify`` notices when the framework loses them.

The test runs the real probe on its GPU path with the CPU standing in for the GPU
(``harness.gpu_stand_in``) in a real environment with the CPU build of torch 2.13.0; the good
state is recorded by the real code each path uses. ``verify`` then probes the same environment
for real: its framework sees no GPU (torch's CPU build), which must be broken, with the GPU named.
"""

from __future__ import annotations

import json
import threading
from datetime import datetime, timezone
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from gpuwizard.cli.apply import exit_code
from gpuwizard.core.envs.request import SetupRequest
from gpuwizard.core.envs.result import EnvResult
from gpuwizard.core.events import Event, Wrapped
from gpuwizard.core.fleet.answers import parse_answers
from gpuwizard.core.livetest.events import Device, LiveTestResult
from gpuwizard.core.machine.system_report import SystemReport
from gpuwizard.workflow.fleet.apply import ApplySteps, apply_answers
from gpuwizard.workflow.health.good_state import load_last_good
from gpuwizard.workflow.livetest.run import LiveTestTarget, run_live_test
from gpuwizard.workflow.machine.system_file import load_system_report
from gpuwizard.workflow.state.env_registry import EnvRecord, save_record
from harness.entry_point import gpuwizard
from harness.gpu_stand_in import STAND_IN_GPU, StandInGpuRunner
from harness.wizard_host import show_between

H200 = Path(str(resources.files("gpuwizard.resources").joinpath("samples/linux-h200.json")))


@pytest.fixture
def lab(torch_python: str) -> EnvRecord:
    """The torch environment, as the wizard's registry records an environment it made."""
    record = EnvRecord(
        name="lab",
        path=str(Path(torch_python).parent.parent),
        python=torch_python,
        manager="venv",
        framework="pytorch",
        framework_version="2.13.0",
        framework_build="2.13.0+cpu",
        tool="uv",
        created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
    )
    save_record(record)
    return record


def stand_in_test(
    _report: SystemReport, target: LiveTestTarget, on_event: Any, cancel: threading.Event
) -> LiveTestResult:
    """The wizard's test step, on the stand-in GPU run (the machine's GPU is the H200 report's)."""
    return run_live_test(
        target, runner=StandInGpuRunner(), on_event=on_event, cancel=cancel, machine_has_nvidia_gpu=True
    )


def assert_recorded_with_the_gpu() -> None:
    state = load_last_good()
    assert state is not None
    env = state.environment("lab")
    assert env is not None and env.test_verdict in ("gpu_ok", "gpu_slow")
    assert (env.gpus_visible, env.gpu_names) == (1, (STAND_IN_GPU["name"],))


def assert_verify_names_the_lost_gpu() -> None:
    done = gpuwizard("verify", "--system", str(H200), "--env", "lab", "--no-test", "--json", timeout=300)
    assert done.returncode == 1, done.stdout + done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    devices = next(event for event in events if event.get("check_id") == "env:lab:devices")
    assert devices["status"] == "broken"
    assert (devices["before"], devices["after"]) == ("1 GPU (Stand-in GPU)", "0 GPUs")
    assert devices["finding"]["code"] == "DRIFT_DEVICES_LOST"
    assert "1 GPU (Stand-in GPU) then, 0 GPUs now" in devices["finding"]["message"]
    assert events[-1]["event"] == "result" and events[-1]["healthy"] is False
    text = gpuwizard("verify", "--system", str(H200), "--env", "lab", "--no-test", "--no-record", timeout=300)
    assert text.returncode == 1
    assert "1 GPU (Stand-in GPU) -> 0 GPUs" in text.stdout


@pytest.mark.slow
def test_a_good_state_from_the_test_page_keeps_the_gpus_and_verify_sees_them_lost(
    qtbot: QtBot, lab: EnvRecord
):
    from gpuwizard.ui.pages.live_test import DONE, LiveTestPage
    from gpuwizard.workflow.wizard.session import WizardSession

    session = WizardSession(
        report=load_system_report(H200),
        choice=SetupRequest("pytorch", version="2.13", name="lab"),
        env_result=EnvResult(status="ok", name="lab", path=lab.path, python=lab.python, framework="pytorch"),
        run_test=stand_in_test,
    )
    page = LiveTestPage(session)
    _wizard = show_between(qtbot, page, "Install", "Summary")
    qtbot.waitUntil(lambda: page.state == DONE, timeout=240_000)
    assert session.test_result is not None and session.test_result.gpus_visible == 1, session.test_result
    assert session.snapshot is not None, session.test_result  # recorded by the page's own step
    assert_recorded_with_the_gpu()
    assert_verify_names_the_lost_gpu()


@pytest.mark.slow
def test_a_good_state_from_apply_keeps_the_gpus_and_verify_sees_them_lost(lab: EnvRecord):
    events: list[Event] = []
    answers = parse_answers(
        {"framework": "pytorch", "version": "2.13", "environment": "lab", "path_scope": "none"}
    )
    result = apply_answers(
        answers,
        confirmed=True,
        steps=ApplySteps(detect=lambda: load_system_report(H200), run_test=stand_in_test),
        path_store=None,
        on_event=events.append,
        cancel=threading.Event(),
    )
    assert (result.status, exit_code(result), result.changed) == ("ok", 0, False), result
    assert result.test is not None and result.test.verdict in ("gpu_ok", "gpu_slow")
    # The test's events went out whole, wrapped with their source.
    assert any(
        isinstance(event, Wrapped) and event.source == "test" and isinstance(event.inner, Device)
        for event in events
    )
    assert_recorded_with_the_gpu()
    assert_verify_names_the_lost_gpu()
