"""The unattended run's Windows paths that this Linux machine cannot make real end to end.

A GPU TensorFlow 2.10 on native Windows needs CUDA 11.2 on PATH: the PATH step runs for real on
a registry snapshot file with the real journal, while the environment and the live test are
the wizard's swappable steps: replayed from runs recorded on this machine
(``resources/samples/runs``), or a GPU pass shaped as the contract's ``result`` event.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from gpuwizard.adapters.registry import RegValue, SnapshotFileEnvironment
from gpuwizard.cli.apply import exit_code
from gpuwizard.core.envs.events import ENV_CREATE_EVENTS
from gpuwizard.core.envs.result import EnvResult
from gpuwizard.core.events import Event, EventSink, Wrapped
from gpuwizard.core.fleet.answers import parse_answers
from gpuwizard.core.fleet.events import ApplyResult, ApplyStage
from gpuwizard.core.livetest.events import LIVE_TEST_EVENTS, LiveTestResult
from gpuwizard.workflow.envs.setup import Setup
from gpuwizard.workflow.fleet.apply import ApplySteps, apply_answers
from gpuwizard.workflow.livetest.run import LiveTestTarget
from gpuwizard.workflow.machine.system_file import load_system_report
from gpuwizard.workflow.wizard.replay import recorded_events, recorded_run

SAMPLES = Path(__file__).resolve().parents[3] / "resources" / "samples"
USER = "HKCU\\Environment"
CUDA_112_BIN = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.2\\bin"
GPU_PASS = {
    "event": "result", "verdict": "gpu_ok", "framework": "tensorflow", "framework_version": "2.10.1",
    "device": "NVIDIA GeForce RTX 2080 SUPER", "loss_first": 2.31, "loss_last": 0.42,
    "samples_per_s": {"gpu": 21234.0, "cpu": 812.0}, "speedup": 26.1, "seconds": 21.4, "findings": [],
}  # fmt: skip


def made_ok(setup: Setup, on_event: EventSink, _cancel: threading.Event) -> EnvResult:
    """The environment's creation as recorded on this machine, under this run's name and folder."""
    events, result = recorded_run("env-create-torch-cpu", ENV_CREATE_EVENTS, EnvResult)
    for event in events:
        on_event(event)
    prepared = setup.prepared
    return replace(result, name=prepared.request.name, path=str(prepared.prefix))


def replayed_test(
    result: dict[str, Any],
) -> Callable[[Any, LiveTestTarget, EventSink, threading.Event], LiveTestResult]:
    typed = LIVE_TEST_EVENTS.read(result)
    assert isinstance(typed, LiveTestResult)

    def run(
        _report: Any, _target: LiveTestTarget, on_event: EventSink, _cancel: threading.Event
    ) -> LiveTestResult:
        on_event(typed)
        return typed

    return run


def stages(events: list[Event]) -> list[tuple[str, str]]:
    return [(event.stage, event.status) for event in events if isinstance(event, ApplyStage)]


@pytest.fixture
def store(tmp_path: Path) -> SnapshotFileEnvironment:
    copy = tmp_path / "registry.json"
    shutil.copy(SAMPLES / "registry" / "windows-cuda12.json", copy)
    return SnapshotFileEnvironment(copy)


def run(
    tmp_path: Path,
    store: SnapshotFileEnvironment,
    *,
    create: Callable[[Setup, EventSink, threading.Event], EnvResult] = made_ok,
    test: dict[str, Any] | None = None,
    recorded: list[str] | None = None,
    cancel: threading.Event | None = None,
    record_good: Callable[..., object] | None = None,
) -> tuple[ApplyResult, list[Event]]:
    wheels = tmp_path / "wheels"
    wheels.mkdir(exist_ok=True)
    answers = parse_answers(
        {"framework": "tensorflow", "version": "2.10", "manager": "venv", "environment": "tf",
         "find_links": str(wheels), "offline": True}
    )  # fmt: skip
    report = load_system_report(SAMPLES / "windows-rtx2080super-two-cuda.json")
    events: list[Event] = []
    steps = ApplySteps(
        detect=lambda: report,
        create_env=create,
        run_test=replayed_test(test or GPU_PASS),
        record_good=record_good
        or (lambda _report, name, _result, _store: (recorded if recorded is not None else []).append(name)),
    )
    result = apply_answers(
        answers,
        confirmed=True,
        steps=steps,
        path_store=store,
        on_event=events.append,
        cancel=cancel or threading.Event(),
    )
    return result, events


def user_path(store: SnapshotFileEnvironment) -> str:
    value = store.read_value(USER, "Path")
    assert value is not None
    return str(value.value)


def journal_actions() -> list[str]:
    journal = Path(os.environ["GPUWIZARD_HOME"]) / "path-journal.json"  # a fresh home per test (conftest)
    return [entry["action"] for entry in json.loads(journal.read_text())["entries"]]


def test_a_gpu_pass_keeps_the_path_change_and_records_the_good_state(
    tmp_path: Path, store: SnapshotFileEnvironment
):
    recorded: list[str] = []
    result, events = run(tmp_path, store, recorded=recorded)
    assert (result.status, exit_code(result), result.changed) == ("ok", 0, True)
    assert result.message == "tf is ready and trains on the GPU (gpu_ok)"
    assert events[-1] is result and not result.findings
    assert CUDA_112_BIN in user_path(store).split(";")
    assert result.path is not None and result.path.folders[0] == CUDA_112_BIN
    assert journal_actions() == ["add"]
    assert recorded == ["tf"]
    sources = {event.source if isinstance(event, Wrapped) else None for event in events}
    assert sources == {None, "environment", "test"}


def test_a_pass_that_cannot_be_recorded_says_so_with_a_finding_and_still_succeeds(
    tmp_path: Path, store: SnapshotFileEnvironment
):
    def full_disk(*_args: object) -> object:
        raise OSError(28, "No space left on device")

    result, _events = run(tmp_path, store, record_good=full_disk)
    assert (result.status, exit_code(result)) == ("ok", 0)
    (finding,) = result.findings
    assert (finding.code, finding.severity, finding.params["env"]) == (
        "GOOD_STATE_NOT_RECORDED",
        "warning",
        "tf",
    )
    assert "No space left on device" in finding.message and "gpuwizard test --env tf" in finding.hint


def test_a_failed_live_test_keeps_the_setup_for_diagnosis_and_exits_1(
    tmp_path: Path, store: SnapshotFileEnvironment
):
    recorded: list[str] = []
    cpu_only = recorded_events("test-torch-cpu")[-1]  # on a machine with a GPU, training on the CPU fails
    result, _events = run(tmp_path, store, test=cpu_only, recorded=recorded)
    assert (result.status, exit_code(result)) == ("problem", 1)
    assert result.test is not None and result.test.verdict == "cpu_only"
    assert "gpuwizard env remove tf" in result.message
    assert CUDA_112_BIN in user_path(store)
    assert journal_actions() == ["add"]
    assert recorded == []


def test_cancel_during_the_environment_undoes_the_path_change(tmp_path: Path, store: SnapshotFileEnvironment):
    before = store.path.read_bytes()
    cancel = threading.Event()

    def cancelled(setup: Setup, _on_event: EventSink, flag: threading.Event) -> EnvResult:
        flag.set()  # Ctrl+C while the tool runs
        prepared = setup.prepared
        return EnvResult(status="cancelled", name=prepared.request.name, path=str(prepared.prefix))

    result, events = run(tmp_path, store, create=cancelled, cancel=cancel)
    assert (result.status, exit_code(result), result.changed) == ("cancelled", 3, False)
    assert store.path.read_bytes() == before
    assert journal_actions() == ["add", "undo"]
    assert ("path", "undone") in stages(events)


def test_path_changed_by_someone_else_meanwhile_is_not_undone(tmp_path: Path, store: SnapshotFileEnvironment):
    def failed_after_another_edit(setup: Setup, _on: EventSink, _c: threading.Event) -> EnvResult:
        current = store.read_value(USER, "Path")
        assert current is not None
        store.replace_value(USER, "Path", current, RegValue(current.type, f"{current.value};D:\\other"))
        return EnvResult(status="failed", name=setup.request.name, error="disk full")

    result, events = run(tmp_path, store, create=failed_after_another_edit)
    assert (result.status, exit_code(result)) == ("rolled_back", 3)
    assert CUDA_112_BIN in user_path(store)  # reverting now would also drop D:\other
    assert "D:\\other" in user_path(store)
    assert "the PATH change could not be undone" in result.message
    assert "gpuwizard path undo" in result.message
    assert ("path", "kept") in stages(events)
    assert journal_actions() == ["add"]
