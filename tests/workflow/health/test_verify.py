"""Verify on real environments: the env probe and the short test run for real, detection is injected.

Environments are made by the wizard's own creation code from stand-in ``torch`` wheels that
report a CUDA (``+cu126``) build (``builders.torch_builds``), offline with uv; one test runs the
short live test with the real CPU build of torch 2.13.0. Only the machine report is made up
(there is no NVIDIA GPU here), and a test result where a GPU verdict is needed.
"""

from __future__ import annotations

import json
import shlex
import shutil
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from builders.reports import machine
from builders.requests import planned
from builders.torch_builds import torch_build
from builders.wheels import bundled_pip_wheel
from gpuwizard.adapters.interpreters import own_python
from gpuwizard.adapters.registry import USER_ENVIRONMENT_KEY, SnapshotFileEnvironment
from gpuwizard.adapters.runner import StreamingSubprocessRunner
from gpuwizard.core.compat.plan import Plan
from gpuwizard.core.envs.result import EnvResult
from gpuwizard.core.events import Event, Wrapped
from gpuwizard.core.health.checks import HealthReport
from gpuwizard.core.health.events import VerifyCheck, VerifyPhase, VerifyResult
from gpuwizard.core.health.snapshot import SnapshotPathEntry
from gpuwizard.core.livetest.events import LiveTestResult, Start, result_from_json
from gpuwizard.core.machine.system_report import ManagerFacts, SystemReport
from gpuwizard.workflow.envs.create import create_environment
from gpuwizard.workflow.envs.prepare import EnvTools, prepare_environment
from gpuwizard.workflow.health.good_state import (
    build_snapshot,
    load_last_good,
    record_good_state,
    save_last_good,
    setup_to_verify,
    snapshot_path,
)
from gpuwizard.workflow.health.verify import SHORT_TEST_ARGS, VerifyCancelled, VerifyUsageError, verify_setup
from gpuwizard.workflow.pathedit.changes import apply_change, plan_add, plan_remove
from gpuwizard.workflow.state.env_registry import EnvRecord, save_record
from gpuwizard.workflow.state.home import wizard_home
from gpuwizard.workflow.state.path_journal import PathJournal
from harness.proc import end, gone, hang_after_saying_who, said
from harness.waits import set_when, until

PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"
UV = shutil.which("uv", path=str(Path(sys.executable).parent))
RTX = ("NVIDIA GeForce RTX 3060", "8.6")
NO_GPU = machine(gpus=[], driver=None)
CUDA_BIN = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.6\\bin"


@pytest.fixture
def cuda_wheels(tmp_path: Path) -> Path:
    folder = tmp_path / "wheels"
    torch_build(folder, "2.13.0+cu126", "12.6")
    shutil.copy(bundled_pip_wheel(), folder)
    return folder


def make_env(name: str, wheels: Path) -> EnvResult:
    """An environment made by the wizard's creation code, offline from ``wheels``."""
    plan = Plan(
        framework="pytorch", framework_version="2.13.0", python=PYTHON, cpu_only=False, cuda="12.6",
        cudnn=None, torch_variant="cu126", requirements=("torch==2.13.0",),
        index_url="https://download.pytorch.org/whl/cu126",
    )  # fmt: skip
    tools = EnvTools(
        runner=StreamingSubprocessRunner(), interpreters=[own_python()], managers=ManagerFacts(uv=UV)
    )
    prepared = prepare_environment(*planned(name, plan, find_links=wheels, offline=True), tools)
    result = create_environment(prepared, tools, lambda _event: None, threading.Event())
    assert result.status == "ok", result
    return result


def verify(
    report: SystemReport = NO_GPU, *, events: list[Event] | None = None, **options: Any
) -> HealthReport:
    options.setdefault("short_test", False)
    return verify_setup(
        detect=lambda: report,
        runner=StreamingSubprocessRunner(),
        on_event=(events if events is not None else []).append,
        cancel=options.pop("cancel", threading.Event()),
        **options,
    )


def checks_of(health: HealthReport) -> dict[str, tuple[str, str | None]]:
    return {
        check.check_id: (check.status, check.finding.code if check.finding else None)
        for check in health.checks
    }


@pytest.mark.slow
def test_without_a_snapshot_the_record_is_the_baseline_and_a_healthy_run_is_recorded(cuda_wheels: Path):
    made = make_env("demo", cuda_wheels)
    events: list[Event] = []
    health = verify(events=events)
    assert health.healthy and health.snapshot_recorded is None
    assert checks_of(health) == {
        "driver": ("skipped", None),
        "gpus": ("skipped", None),
        "env:demo:interpreter": ("ok", None),
        "env:demo:import": ("ok", None),
        "env:demo:build": ("ok", None),
        "env:demo:constraints": ("ok", None),
        "env:demo:devices": ("ok", None),
        "env:demo:test": ("skipped", None),
    }
    assert [e.phase for e in events if isinstance(e, VerifyPhase)] == ["detect", "environment"]
    assert [e.check for e in events if isinstance(e, VerifyCheck)] == list(health.checks)
    result = events[-1]
    assert isinstance(result, VerifyResult) and result.report == health
    assert (result.schema, result.status, result.healthy) == ("gpuwizard.health/1", "complete", True)
    assert result.saved == str(snapshot_path())
    recorded = load_last_good()
    assert recorded is not None
    entry = recorded.environment("demo")
    assert entry is not None
    assert (entry.framework_build, entry.built_with_cuda, entry.cuda_build) == ("2.13.0+cu126", True, "12.6")
    assert (entry.pins, entry.gpus_visible, entry.python) == (("torch==2.13.0+cu126",), 0, str(made.python))
    assert entry.index_url == "https://download.pytorch.org/whl/cu126"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("driver", "cuda_max", "status", "code"),
    [
        ("560.35.03", "12.6", "changed", "DRIFT_DRIVER_CHANGED"),
        (None, None, "broken", "DRIFT_DRIVER_GONE"),
        ("470.57.02", "11.4", "broken", "DRIFT_DRIVER_TOO_OLD_FOR_BUILD"),
    ],
    ids=["upgraded", "gone", "too-old-for-cu126"],
)
def test_the_driver_against_the_last_good_state(
    driver: str | None, cuda_max: str | None, status: str, code: str, cuda_wheels: Path
):
    make_env("demo", cuda_wheels)
    before = machine(gpus=[RTX], driver="550.54.14", cuda_max="12.4")
    # The passed GPU test that recorded the state (no GPU here to run one for real).
    passed = {"event": "result", "verdict": "gpu_ok", "framework_version": "2.13.0+cu126",
              "built_with_cuda": True, "cuda_build": "12.6", "samples_per_s": {"gpu": 50000.0, "cpu": 800.0}}  # fmt: skip
    assert record_good_state(before, "demo", result_from_json(passed)) is not None
    recorded_text = snapshot_path().read_text()
    health = verify(machine(gpus=[RTX], driver=driver, cuda_max=cuda_max))
    assert checks_of(health)["driver"] == (status, code)
    assert health.healthy == (status == "changed")
    assert health.snapshot_recorded is not None
    for check in health.checks:
        if check.kind != "driver":
            assert check.status in ("ok", "skipped"), check
    now = load_last_good()
    assert now is not None
    if health.healthy:
        # Recorded again: the new driver is the last good one, the test's verdict is kept.
        assert now.driver_version == "560.35.03"
        entry = now.environment("demo")
        assert entry is not None and entry.test_verdict == "gpu_ok"
        again = verify(machine(gpus=[RTX], driver=driver, cuda_max=cuda_max))
        assert checks_of(again)["driver"] == ("ok", None)
    else:
        assert snapshot_path().read_text() == recorded_text  # a broken run records nothing


@pytest.mark.slow
def test_an_interpreter_that_is_gone_is_broken_and_the_fix_recreates(cuda_wheels: Path):
    made = make_env("demo", cuda_wheels)
    Path(str(made.python)).unlink()
    health = verify(short_test=True)
    found = checks_of(health)
    assert found["env:demo:interpreter"] == ("broken", "DRIFT_ENV_INTERPRETER_BROKEN")
    assert {
        found[f"env:demo:{kind}"][0] for kind in ("import", "build", "constraints", "devices", "test")
    } == {"skipped"}
    broken = health.broken[0]
    assert broken.finding is not None
    # Made offline from the folder: it is made again from there.
    assert shlex.split(broken.finding.params["recreate"]) == [
        "gpuwizard", "env", "create", "demo", "--framework", "pytorch", "--version", "2.13.0",
        "--find-links", str(cuda_wheels), "--offline", "--replace",
    ]  # fmt: skip
    assert not snapshot_path().exists()


@pytest.mark.slow
@pytest.mark.skipif(UV is None, reason="uv is a project dependency")
@pytest.mark.skipif(sys.platform == "win32", reason="the commands are split as a POSIX shell does")
def test_the_reinstall_uses_the_uv_the_machine_report_names_for_an_environment_uv_made(cuda_wheels: Path):
    made = make_env("demo", cuda_wheels)
    shutil.rmtree(next(Path(str(made.path)).glob("lib/python*/site-packages")) / "torch")

    def reinstall(report: SystemReport) -> list[str]:
        finding = next(check.finding for check in verify(report).broken if check.kind == "import")
        assert finding is not None and finding.code == "DRIFT_FRAMEWORK_MISSING"
        return shlex.split(finding.params["reinstall"])

    assert reinstall(replace(NO_GPU, managers=ManagerFacts(uv=UV))) == [
        str(UV), "pip", "install", "--python", str(made.python), "torch==2.13.0+cu126",
        "--reinstall-package", "torch", "--find-links", str(cuda_wheels), "--offline", "--no-index",
    ]  # fmt: skip
    # A report that names no uv (uv removed since): the environment's own pip, which this one
    # has (pip's wheel was in the folder), from the same folder.
    assert reinstall(NO_GPU) == [
        str(made.python), "-m", "pip", "install", "torch==2.13.0+cu126", "--force-reinstall",
        "--find-links", str(cuda_wheels), "--no-index",
    ]  # fmt: skip


@pytest.mark.slow
def test_only_the_environments_asked_for_and_the_others_keep_their_state(cuda_wheels: Path):
    make_env("one", cuda_wheels)
    make_env("two", cuda_wheels)
    assert verify().healthy
    first = load_last_good()
    assert first is not None and [e.name for e in first.environments] == ["one", "two"]
    health = verify(env_names=["two"])
    assert {check.subject for check in health.checks if check.check_id.startswith("env:")} == {"two"}
    second = load_last_good()
    assert second is not None and sorted(e.name for e in second.environments) == ["one", "two"]
    with pytest.raises(VerifyUsageError, match="never-made"):
        verify(env_names=["never-made"])


@pytest.mark.slow
def test_cancel_stops_the_running_probe_and_records_nothing(cuda_wheels: Path, tmp_path: Path):
    made = make_env("demo", cuda_wheels)
    # Make `import torch` hang, as a broken network file system would (for an hour: the result
    # comes only if the cancel ended the probe, never by waiting for it).
    init = Path(str(made.path)) / "lib" / f"python{PYTHON}" / "site-packages" / "torch" / "__init__.py"
    if not init.is_file():
        init = Path(str(made.path)) / "Lib" / "site-packages" / "torch" / "__init__.py"
    importing = tmp_path / "import-pid"
    init.write_text(init.read_text() + "\n" + hang_after_saying_who(importing))
    cancel = threading.Event()
    events: list[Event] = []
    try:
        with set_when(lambda: said(importing), cancel), pytest.raises(VerifyCancelled) as stopped:
            verify_setup(
                detect=lambda: NO_GPU,
                runner=StreamingSubprocessRunner(),
                on_event=events.append,
                cancel=cancel,
            )
        probe = said(importing)
        assert probe is not None, "the import never began"
        until(lambda: gone(probe), "the hanging probe ended")
    finally:
        end(said(importing))
    result = events[-1]
    assert isinstance(result, VerifyResult)
    assert (result.status, result.healthy, result.saved) == ("cancelled", False, None)
    assert [c.check_id for c in stopped.value.report.checks] == ["driver", "gpus"]
    assert not snapshot_path().exists()


@pytest.mark.slow
def test_the_short_test_runs_in_a_real_torch_environment_and_its_events_are_tagged(torch_python: str):
    save_record(
        EnvRecord(
            name="real", path=str(Path(torch_python).parent.parent), python=torch_python, manager="venv",
            framework="pytorch", framework_version="2.13.0", framework_build="2.13.0+cpu",
        )
    )  # fmt: skip
    events: list[Event] = []
    started = time.monotonic()
    health = verify(events=events, short_test=True)
    seconds = time.monotonic() - started
    print(f"verify with the short test: {seconds:.1f} s")
    assert checks_of(health)["env:real:test"] == ("ok", None)
    assert health.healthy
    wrapped = [event for event in events if isinstance(event, Wrapped)]
    assert wrapped and all((event.source, event.env) == ("test", "real") for event in wrapped)
    tagged = [event.inner for event in wrapped]
    assert {"start", "step", "summary", "result"} <= {event.kind for event in tagged}
    start = next(event for event in tagged if isinstance(event, Start))
    assert start.cpu_steps == int(SHORT_TEST_ARGS[SHORT_TEST_ARGS.index("--cpu-steps") + 1])
    test_result = next(event for event in tagged if isinstance(event, LiveTestResult))
    assert test_result.verdict == "cpu_only"
    assert test_result.loss_last is not None and test_result.loss_first is not None
    assert test_result.loss_last < test_result.loss_first
    # Verify's own events are its own, and its result is the last event.
    assert isinstance(events[-1], VerifyResult) and isinstance(events[-2], VerifyCheck)
    recorded = load_last_good()
    assert recorded is not None
    entry = recorded.environment("real")
    assert entry is not None and entry.test_verdict == "cpu_only"
    assert entry.samples_per_s is not None and (entry.samples_per_s.get("cpu") or 0) > 0


def registry_file(tmp_path: Path) -> SnapshotFileEnvironment:
    path = tmp_path / "registry.json"
    path.write_text(
        json.dumps(
            {
                USER_ENVIRONMENT_KEY: {
                    "Path": {"type": "REG_EXPAND_SZ", "value": "%USERPROFILE%\\bin;C:\\tools"}
                }
            }
        )
    )
    return SnapshotFileEnvironment(path)


@pytest.mark.parametrize("how", ["by-hand", "with-the-wizard"])
def test_a_path_folder_the_wizard_added_and_that_went_away(how: str, tmp_path: Path):
    store = registry_file(tmp_path)
    journal = PathJournal(wizard_home())
    apply_change(store, journal, plan_add(store, "user", [CUDA_BIN]))
    apply_change(store, journal, plan_add(store, "user", ["C:\\tools"]))  # already there: not the wizard's
    assert verify(path_store=store).healthy
    recorded = load_last_good()
    assert recorded is not None
    assert recorded.path_entries == (SnapshotPathEntry(store.identity, "user", CUDA_BIN),)
    if how == "by-hand":
        data = json.loads(store.path.read_text())
        data[USER_ENVIRONMENT_KEY]["Path"]["value"] = "%USERPROFILE%\\bin;C:\\tools"
        store.path.write_text(json.dumps(data))
    else:
        apply_change(store, journal, plan_remove(store, "user", [CUDA_BIN]))
    events: list[Event] = []
    health = verify(path_store=store, events=events)
    check = health.checks[-1]
    assert check.check_id == f"path:user:{CUDA_BIN}"
    assert "path" in [e.phase for e in events if isinstance(e, VerifyPhase)]
    if how == "by-hand":
        assert (check.status, check.finding and check.finding.code) == ("broken", "DRIFT_PATH_ENTRY_REMOVED")
        assert check.finding is not None
        assert f'gpuwizard path add "{CUDA_BIN}" --scope user --registry {store.path}' in check.finding.hint
        assert not health.healthy
    else:
        assert (check.status, check.finding and check.finding.code) == ("changed", "DRIFT_PATH_ENTRY_DROPPED")
        assert health.healthy
        after = load_last_good()
        assert after is not None and after.path_entries == ()


def test_a_damaged_snapshot_is_moved_aside_and_counts_as_none():
    path = snapshot_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"schema": "gpuwizard.snapshot/1", "recorded": "x", "environments": 3}')
    assert load_last_good() is None
    assert not path.exists() and path.with_suffix(".json.bad").is_file()
    events: list[Event] = []
    health = verify(events=events)
    assert health.checks == ()  # the wizard set nothing up here: nothing to verify
    assert [(type(event), event.status) for event in events if isinstance(event, VerifyResult)] == [
        (VerifyResult, "nothing_to_verify")
    ]
    assert len(events) == 1
    assert not path.exists()


def test_nothing_set_up_is_nothing_to_verify_nothing_detected_nothing_recorded(tmp_path: Path):
    def detect() -> SystemReport:
        raise AssertionError("nothing to verify: nothing to detect")

    events: list[Event] = []
    health = verify_setup(
        detect=detect,
        runner=StreamingSubprocessRunner(),
        on_event=events.append,
        cancel=threading.Event(),
        path_store=registry_file(tmp_path),  # a PATH the wizard never changed
    )
    assert health.checks == ()
    assert len(events) == 1
    result = events[0]
    assert isinstance(result, VerifyResult)
    assert (result.schema, result.status) == ("gpuwizard.health/1", "nothing_to_verify")
    assert (result.healthy, result.saved, result.checks) == (False, None, ())
    assert result.message is not None
    assert result.message.startswith("Nothing to verify: the wizard has not set up anything")
    assert not snapshot_path().exists()
    assert not setup_to_verify(registry_file(tmp_path))


def test_an_empty_last_good_state_is_neither_a_setup_nor_a_baseline(tmp_path: Path):
    # What an older version recorded after verifying a machine it had not set up: driver and GPUs only.
    gpu = machine(gpus=[RTX], driver="550.54.14", cuda_max="12.4")
    save_last_good(build_snapshot(gpu, [], {}, {}, ()))
    store = registry_file(tmp_path)
    assert not setup_to_verify(None) and not setup_to_verify(store)
    kept = snapshot_path().read_bytes()
    assert verify(gpu, path_store=store).checks == ()
    assert snapshot_path().read_bytes() == kept  # nothing recorded over it

    # Once the wizard changed PATH there is something to verify, and the empty state is no
    # baseline: the driver is not "as before", there is no last good state yet.
    apply_change(store, PathJournal(wizard_home()), plan_add(store, "user", [CUDA_BIN]))
    assert setup_to_verify(store) and not setup_to_verify(None)
    health = verify(gpu, path_store=store)
    assert health.snapshot_recorded is None
    assert checks_of(health)["driver"] == ("skipped", None)
    recorded = load_last_good()
    assert recorded is not None
    assert recorded.path_entries == (SnapshotPathEntry(store.identity, "user", CUDA_BIN),)
    assert setup_to_verify(store)


def test_an_environment_the_wizard_made_is_a_setup_to_verify(tmp_path: Path):
    assert not setup_to_verify(None)
    save_record(
        EnvRecord(
            "demo", str(tmp_path / "demo"), str(tmp_path / "demo/bin/python"), "venv", "pytorch", "2.13.0"
        )
    )
    assert setup_to_verify(None)


def test_record_good_state_only_for_a_passed_test_of_an_environment_the_wizard_made(tmp_path: Path):
    save_record(
        EnvRecord(
            "demo", str(tmp_path / "demo"), str(tmp_path / "demo/bin/python"), "venv", "pytorch", "2.13.0"
        )
    )
    save_record(
        EnvRecord(
            "other", str(tmp_path / "other"), str(tmp_path / "other/bin/python"), "venv", "pytorch", "2.13.0"
        )
    )
    gpu = machine(gpus=[RTX], driver="550.54.14", cuda_max="12.4")
    assert record_good_state(NO_GPU, "demo", result_from_json({"verdict": "broken"})) is None
    assert (
        record_good_state(gpu, "demo", result_from_json({"verdict": "cpu_only"})) is None
    )  # a GPU it did not use
    assert record_good_state(NO_GPU, "never-made", result_from_json({"verdict": "cpu_only"})) is None
    assert not snapshot_path().exists()
    first = record_good_state(
        NO_GPU, "demo", result_from_json({"verdict": "cpu_only", "framework_version": "2.13.0+cpu"})
    )
    assert first is not None and first.environment("demo") is not None
    both = record_good_state(gpu, "other", result_from_json({"verdict": "gpu_slow", "gpus_visible": 2}))
    assert both is not None
    assert [env.name for env in both.environments] == ["demo", "other"]
    other = both.environment("other")
    assert other is not None and (other.test_verdict, other.gpus_visible) == ("gpu_slow", 2)
    assert both.driver_version == "550.54.14" and [gpu.name for gpu in both.gpus] == [RTX[0]]
    assert load_last_good() == both
    save_last_good(both)
    assert load_last_good() == both
