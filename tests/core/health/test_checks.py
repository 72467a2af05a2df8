"""The drift rules: each comparison on data, the snapshot's JSON, and what counts as a passed test."""

from __future__ import annotations

import json
import shlex
from dataclasses import replace
from typing import Any

import pytest

from builders.reports import machine
from gpuwizard.core.events import to_json
from gpuwizard.core.health.checks import HealthCheck, HealthReport
from gpuwizard.core.health.env_drift import (
    EnvObservation,
    compare_environment,
    compare_test,
    env_fixes,
    observe_environment,
)
from gpuwizard.core.health.events import VERIFY_EVENTS, VerifyResult
from gpuwizard.core.health.install_commands import EnvSource
from gpuwizard.core.health.machine_drift import DriverNeed, compare_driver, compare_gpus
from gpuwizard.core.health.path_drift import compare_path
from gpuwizard.core.health.snapshot import (
    Snapshot,
    SnapshotEnv,
    SnapshotError,
    SnapshotGpu,
    SnapshotPathEntry,
    snapshot_from_json,
    snapshot_gpus,
    snapshot_to_json,
)
from gpuwizard.core.livetest import verdicts
from gpuwizard.core.livetest.events import result_from_json
from gpuwizard.core.machine.system_report import report_from_json, report_to_json

RTX = ("NVIDIA GeForce RTX 3060", "8.6")
CU126_INDEX = "https://download.pytorch.org/whl/cu126"


def snapshot(**changes: Any) -> Snapshot:
    values: dict[str, Any] = {
        "recorded": "2026-03-01T10:00:00+00:00",
        "driver_version": "550.54",
        "driver_cuda_max": "12.4",
        "gpus": (SnapshotGpu(0, RTX[0], RTX[1], 12288),),
    }
    values.update(changes)
    return Snapshot(**values)


def env(**changes: Any) -> SnapshotEnv:
    values: dict[str, Any] = {
        "name": "demo",
        "path": "/home/ana/envs/demo",
        "python": "/home/ana/envs/demo/bin/python",
        "manager": "venv",
        "framework": "pytorch",
        "framework_version": "2.13.0",
        "framework_build": "2.13.0+cu126",
        "built_with_cuda": True,
        "cuda_build": "12.6",
        "constraints": "/home/ana/envs/demo/gpuwizard-constraints.txt",
        "pins": ("torch==2.13.0+cu126",),
        "gpus_visible": 1,
        "test_verdict": "gpu_ok",
        "python_version": "3.11.7",
        "index_url": CU126_INDEX,
    }
    values.update(changes)
    return SnapshotEnv(**values)


def seen(**changes: Any) -> EnvObservation:
    """What the probe finds in the environment ``env()`` when nothing changed."""
    values: dict[str, Any] = {
        "name": "demo",
        "framework": "pytorch",
        "python": "/home/ana/envs/demo/bin/python",
        "framework_build": "2.13.0+cu126",
        "built_with_cuda": True,
        "cuda_build": "12.6",
        "gpus_visible": 1,
        "python_version": "3.11.7",
        "constraints_path": "/home/ana/envs/demo/gpuwizard-constraints.txt",
        "constraints_pins": ("torch==2.13.0+cu126",),
    }
    values.update(changes)
    return EnvObservation(**values)


def by_kind(checks: tuple[HealthCheck, ...]) -> dict[str, HealthCheck]:
    return {check.kind: check for check in checks}


def code_of(check: HealthCheck) -> str | None:
    return check.finding.code if check.finding else None


# --- driver ---------------------------------------------------------------------------------------

CU126_NEED = DriverNeed("demo", "12.6", "525.60.13")


@pytest.mark.parametrize(
    ("now", "needs", "status", "code"),
    [
        pytest.param(machine(gpus=[RTX], driver="550.54", cuda_max="12.4"), [CU126_NEED], "ok", None, id="same"),
        pytest.param(
            machine(gpus=[RTX], driver="560.35", cuda_max="12.6"), [CU126_NEED], "changed", "DRIFT_DRIVER_CHANGED",
            id="upgraded",
        ),
        pytest.param(machine(gpus=[RTX], driver=None), [CU126_NEED], "broken", "DRIFT_DRIVER_GONE", id="gone"),
        pytest.param(
            machine(gpus=[RTX], driver="470.57", cuda_max="11.4"), [CU126_NEED], "broken",
            "DRIFT_DRIVER_TOO_OLD_FOR_BUILD", id="downgraded-below-the-build",
        ),
        pytest.param(
            machine(gpus=[RTX], driver="530.30", cuda_max="12.1"), [DriverNeed("demo", "12.6", None)], "broken",
            "DRIFT_DRIVER_TOO_OLD_FOR_BUILD", id="no-table-row-cuda-max-below-build",
        ),
        pytest.param(
            machine(gpus=[RTX], driver="530.30", cuda_max="12.1"), [CU126_NEED], "changed", "DRIFT_DRIVER_CHANGED",
            id="older-but-minor-version-compatible",
        ),
    ],
)  # fmt: skip
def test_driver(now, needs, status, code):
    check = compare_driver(snapshot(), now, needs)
    assert (check.check_id, check.kind, check.status, code_of(check)) == ("driver", "driver", status, code)
    assert check.before == "550.54"
    assert HealthReport((check,)).healthy == (status != "broken")


def test_an_upgraded_driver_is_a_change_with_before_and_after_and_stays_healthy():
    check = compare_driver(snapshot(), machine(gpus=[RTX], driver="560.35", cuda_max="12.6"), [CU126_NEED])
    report = HealthReport((check,), snapshot_recorded="2026-03-01T10:00:00+00:00")
    assert (check.before, check.after) == ("550.54", "560.35")
    assert report.healthy and report.drifted == (check,)
    assert check.finding is not None and check.finding.severity == "info"


def test_too_old_names_the_builds_and_the_driver_to_install():
    check = compare_driver(
        snapshot(), machine(gpus=[RTX], driver="470.57", cuda_max="11.4"),
        [CU126_NEED, DriverNeed("other", "12.8", "570.26")],
    )  # fmt: skip
    assert check.finding is not None
    assert "demo (CUDA 12.6), other (CUDA 12.8)" in check.finding.message
    assert "570.26" in check.finding.hint


def test_without_a_snapshot_driver_and_gpus_are_skipped():
    now = machine(gpus=[RTX], driver="550.54", cuda_max="12.4")
    for check in (compare_driver(None, now, [CU126_NEED]), compare_gpus(None, now)):
        assert check.status == "skipped" and check.finding is None and check.note


def test_no_driver_then_or_now_is_fine():
    check = compare_driver(
        snapshot(driver_version=None, driver_cuda_max=None, gpus=()), machine(gpus=[], driver=None)
    )
    assert check.status == "ok"


# --- GPUs -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("now", "status", "code"),
    [
        pytest.param(machine(gpus=[RTX, RTX]), "ok", None, id="same"),
        pytest.param(machine(gpus=[RTX]), "broken", "DRIFT_GPU_MISSING", id="one-missing"),
        pytest.param(machine(gpus=[RTX, RTX], lost=[1]), "broken", "DRIFT_GPU_MISSING", id="one-lost"),
        pytest.param(machine(gpus=[RTX, ("NVIDIA GeForce RTX 4090", "8.9")]), "changed", "DRIFT_GPU_CHANGED",
                     id="one-replaced"),
        pytest.param(machine(gpus=[RTX, RTX, RTX]), "changed", "DRIFT_GPU_CHANGED", id="one-more"),
        pytest.param(machine(gpus=[RTX, RTX], driver=None), "skipped", None, id="driver-gone-gpus-still-there"),
    ],
)  # fmt: skip
def test_gpus(now, status, code):
    recorded = snapshot(gpus=(SnapshotGpu(0, RTX[0], RTX[1], 12288), SnapshotGpu(1, RTX[0], RTX[1], 12288)))
    check = compare_gpus(recorded, now)
    assert (check.status, code_of(check)) == (status, code)
    assert check.before == f"2 × {RTX[0]}"


def test_an_amd_gpu_that_vanishes_is_drift_and_an_igpu_beside_old_nvidia_gpus_is_not():
    radeon = machine(gpus=[], driver=None, other_gpus=["AMD Radeon RX 7900 XTX"])
    radeon = replace(radeon, gpus=tuple(replace(gpu, gfx_target="gfx1100") for gpu in radeon.gpus))
    recorded = snapshot(driver_version=None, driver_cuda_max=None, gpus=snapshot_gpus(radeon))
    assert [(gpu.vendor, gpu.gfx_target) for gpu in recorded.gpus] == [("amd", "gfx1100")]
    back = snapshot_from_json(json.loads(json.dumps(snapshot_to_json(recorded))))
    assert back.gpus == recorded.gpus
    assert compare_gpus(recorded, radeon).status == "ok"
    gone = compare_gpus(recorded, replace(radeon, gpus=()))
    assert (gone.status, code_of(gone)) == ("broken", "DRIFT_GPU_MISSING")
    # A snapshot written before other vendors were kept: NVIDIA only, the iGPU is not compared.
    old = snapshot(gpus=(SnapshotGpu(0, RTX[0], RTX[1], 12288),))
    hybrid = machine(gpus=[RTX], driver="560.35", cuda_max="12.6", other_gpus=["Intel UHD Graphics 770"])
    assert compare_gpus(old, hybrid).status == "ok"


# --- environments ---------------------------------------------------------------------------------

FIXES = env_fixes(env(), windows=False)
ALL_OK = dict.fromkeys(("interpreter", "import", "build", "constraints", "devices"), ("ok", None))


@pytest.mark.parametrize(
    ("observed", "expected"),
    [
        pytest.param(seen(), ALL_OK, id="unchanged"),
        pytest.param(
            seen(interpreter_error="[Errno 2] No such file or directory", framework_build=None),
            {"interpreter": ("broken", "DRIFT_ENV_INTERPRETER_BROKEN"), "import": ("skipped", None),
             "build": ("skipped", None), "constraints": ("skipped", None), "devices": ("skipped", None)},
            id="interpreter-gone",
        ),
        pytest.param(
            seen(import_error="ModuleNotFoundError: No module named 'torch'", framework_missing=True,
                 framework_build=None, gpus_visible=None),
            {**ALL_OK, "import": ("broken", "DRIFT_FRAMEWORK_MISSING"), "build": ("skipped", None),
             "devices": ("skipped", None)},
            id="framework-removed",
        ),
        pytest.param(
            seen(import_error="OSError: libtorch_cuda.so: cannot open shared object file", framework_build=None),
            {**ALL_OK, "import": ("broken", "DRIFT_FRAMEWORK_BROKEN"), "build": ("skipped", None),
             "devices": ("skipped", None)},
            id="framework-no-longer-imports",
        ),
        pytest.param(
            seen(framework_build="2.13.0+cpu", built_with_cuda=False, cuda_build=None, gpus_visible=0),
            {**ALL_OK, "build": ("broken", "DRIFT_CPU_BUILD_SWAPPED"),
             "constraints": ("broken", "DRIFT_CONSTRAINTS_MISMATCH"), "devices": ("broken", "DRIFT_DEVICES_LOST")},
            id="cpu-wheel-swapped-in",
        ),
        pytest.param(
            seen(framework_build="2.13.1+cu126"),
            {**ALL_OK, "build": ("broken", "DRIFT_BUILD_CHANGED"),
             "constraints": ("broken", "DRIFT_CONSTRAINTS_MISMATCH")},
            id="other-build-against-the-pin",
        ),
        pytest.param(
            seen(framework_build="2.13.1+cu126", constraints_pins=("torch==2.13.1+cu126",)),
            {**ALL_OK, "build": ("changed", "DRIFT_BUILD_UPDATED"),
             "constraints": ("changed", "DRIFT_CONSTRAINTS_CHANGED")},
            id="re-pinned-on-purpose",
        ),
        pytest.param(
            seen(constraints_pins=None),
            {**ALL_OK, "constraints": ("broken", "DRIFT_CONSTRAINTS_MISSING")},
            id="constraints-file-deleted",
        ),
        pytest.param(
            seen(constraints_pins=("numpy<2",)),
            {**ALL_OK, "constraints": ("broken", "DRIFT_CONSTRAINTS_MISSING")},
            id="pin-taken-out-of-the-file",
        ),
        pytest.param(
            seen(constraints_pins=("torch==2.13.0+cpu",)),
            {**ALL_OK, "constraints": ("broken", "DRIFT_CONSTRAINTS_MISMATCH")},
            id="pin-differs-from-the-build",
        ),
        pytest.param(
            seen(gpus_visible=0),
            {**ALL_OK, "devices": ("broken", "DRIFT_DEVICES_LOST")},
            id="framework-sees-fewer-gpus",
        ),
        pytest.param(
            seen(python_version="3.11.9"),
            {**ALL_OK, "interpreter": ("changed", "DRIFT_PYTHON_CHANGED")},
            id="python-patch-release",
        ),
    ],
)  # fmt: skip
def test_environment(observed: EnvObservation, expected: dict[str, tuple[str, str | None]]):
    checks = compare_environment(env(), observed, fixes=FIXES)
    found = {kind: (check.status, code_of(check)) for kind, check in by_kind(checks).items()}
    assert found == expected
    assert [check.check_id for check in checks] == [
        f"env:demo:{kind}" for kind in ("interpreter", "import", "build", "constraints", "devices")
    ]
    for check in checks:
        assert (check.finding is None) == (check.status in ("ok", "skipped"))


def test_a_swapped_cpu_wheel_says_before_after_and_the_pinned_reinstall_with_its_index():
    checks = by_kind(
        compare_environment(
            env(), seen(framework_build="2.13.0+cpu", built_with_cuda=False, cuda_build=None), fixes=FIXES
        )
    )
    build = checks["build"]
    assert (build.before, build.after) == ("2.13.0+cu126 (CUDA 12.6)", "2.13.0+cpu (CPU)")
    assert build.finding is not None
    assert "CPU build" in build.finding.message
    hint = build.finding.hint
    assert (
        "/home/ana/envs/demo/bin/python -m pip install torch==2.13.0+cu126 --force-reinstall "
        f"--index-url {CU126_INDEX}" in hint
    )
    assert "gpuwizard env create demo --framework pytorch --version 2.13.0 --replace" in hint


def test_a_swap_is_seen_from_the_wheel_labels_alone_and_for_tensorflow_from_the_build_flag():
    unlabelled = env(built_with_cuda=None, cuda_build=None)
    checks = by_kind(
        compare_environment(unlabelled, seen(framework_build="2.13.0+cpu", built_with_cuda=None), fixes=FIXES)
    )
    assert code_of(checks["build"]) == "DRIFT_CPU_BUILD_SWAPPED"
    tf = env(
        framework="tensorflow", framework_build="2.16.1", cuda_build="12.3", pins=("tensorflow==2.16.1",)
    )
    tf_seen = seen(framework="tensorflow", framework_build="2.16.1", built_with_cuda=False, cuda_build=None,
                   constraints_pins=("tensorflow==2.16.1",))  # fmt: skip
    checks = by_kind(compare_environment(tf, tf_seen, fixes=env_fixes(tf, windows=False)))
    assert code_of(checks["build"]) == "DRIFT_CPU_BUILD_SWAPPED"
    assert checks["constraints"].status == "ok"


def test_the_pin_missing_from_the_file_is_its_own_variant_and_names_the_pin_to_write_back():
    check = by_kind(compare_environment(env(), seen(constraints_pins=("numpy<2",)), fixes=FIXES))[
        "constraints"
    ]
    assert check.finding is not None
    assert check.finding.params["variant"] == "pin"
    assert "torch==2.13.0+cu126" in check.finding.hint


def test_without_a_snapshot_an_environment_is_compared_with_its_registry_record():
    # From the record only: the build, the constraints file and the Python it was made with.
    made = env(pins=(), gpus_visible=None, test_verdict=None, built_with_cuda=None, cuda_build=None)
    fine = by_kind(compare_environment(made, seen(), fixes=FIXES))
    assert {check.status for check in fine.values()} == {"ok"}
    swapped = by_kind(
        compare_environment(
            made, seen(framework_build="2.13.0+cpu", built_with_cuda=False, gpus_visible=0), fixes=FIXES
        )
    )
    assert code_of(swapped["build"]) == "DRIFT_CPU_BUILD_SWAPPED"
    assert swapped["devices"].status == "ok"  # nothing recorded to compare the count with


def test_fix_commands_quote_for_the_shell_and_name_a_custom_prefix():
    fixes = env_fixes(
        env(name="my env", python="C:\\Users\\Ana Li\\envs\\my env\\Scripts\\python.exe", manager="conda"),
        windows=True,
        prefix="D:\\envs\\my env",
    )
    assert fixes.recreate == (
        'gpuwizard env create "my env" --framework pytorch --version 2.13.0 --manager conda '
        '--prefix "D:\\envs\\my env" --replace'
    )
    assert fixes.reinstall.startswith('"C:\\Users\\Ana Li\\envs\\my env\\Scripts\\python.exe" -m pip install')
    posix = env_fixes(env(name="my env", pins=()), windows=False)
    assert posix.recreate.startswith("gpuwizard env create 'my env' ")
    assert "torch==2.13.0+cu126" in posix.reinstall  # from the build when no pin was recorded


UV = "/opt/gpu wizard/bin/uv"
WHEELS = "/srv/lab wheels"


def test_an_environment_made_by_uv_offline_is_fixed_with_uv_from_its_folder_alone():
    fixes = env_fixes(env(), windows=False, source=EnvSource(uv=UV, find_links=WHEELS, offline=True))
    # uv made it without pip: uv installs, into its interpreter, from the folder, with no index.
    assert shlex.split(fixes.reinstall) == [
        UV, "pip", "install", "--python", "/home/ana/envs/demo/bin/python", "torch==2.13.0+cu126",
        "--reinstall-package", "torch", "--find-links", WHEELS, "--offline", "--no-index",
    ]  # fmt: skip
    assert shlex.split(fixes.recreate) == [
        "gpuwizard", "env", "create", "demo", "--framework", "pytorch", "--version", "2.13.0",
        "--find-links", WHEELS, "--offline", "--replace",
    ]  # fmt: skip
    assert "download.pytorch.org" not in fixes.reinstall


def test_an_environment_made_by_pip_is_fixed_with_its_pip_from_its_folder():
    offline = env_fixes(env(), windows=False, source=EnvSource(find_links=WHEELS, offline=True))
    assert shlex.split(offline.reinstall) == [
        "/home/ana/envs/demo/bin/python", "-m", "pip", "install", "torch==2.13.0+cu126", "--force-reinstall",
        "--find-links", WHEELS, "--no-index",
    ]  # fmt: skip
    # A folder looked at first, the index still allowed: both named, and the recreate is not offline.
    online = env_fixes(env(), windows=False, source=EnvSource(find_links=WHEELS))
    assert shlex.split(online.reinstall)[-4:] == ["--find-links", WHEELS, "--index-url", CU126_INDEX]
    assert "--offline" not in shlex.split(online.recreate)
    assert shlex.split(online.recreate)[-3:] == ["--find-links", WHEELS, "--replace"]


def test_the_uv_and_the_folder_are_quoted_for_cmd_and_powershell_on_windows():
    windows = env(python="C:\\Users\\Ana Li\\envs\\demo\\Scripts\\python.exe")
    source = EnvSource(uv="C:\\Program Files\\uv\\uv.exe", find_links="D:\\lab wheels", offline=True)
    fixes = env_fixes(windows, windows=True, source=source)
    words = (
        'pip install --python "C:\\Users\\Ana Li\\envs\\demo\\Scripts\\python.exe" '
        'torch==2.13.0+cu126 --reinstall-package torch --find-links "D:\\lab wheels" --offline --no-index'
    )
    # A quoted program is no command in PowerShell without "&" (its call operator).
    assert fixes.reinstall == (
        f'"C:\\Program Files\\uv\\uv.exe" {words}   '
        f"(cmd; in PowerShell: & 'C:\\Program Files\\uv\\uv.exe' {words})"
    )
    assert '--find-links "D:\\lab wheels" --offline --replace' in fixes.recreate


# --- the short live test --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("recorded", "now", "has_gpu", "status", "code"),
    [
        ("gpu_ok", "gpu_ok", True, "ok", None),
        ("gpu_slow", "gpu_ok", True, "ok", None),
        ("gpu_ok", "gpu_slow", True, "changed", "DRIFT_TEST_SLOWER"),
        ("gpu_ok", "cpu_only", True, "broken", "DRIFT_TEST_WORSE"),
        ("gpu_ok", "cpu_only", False, "broken", "DRIFT_TEST_WORSE"),  # the GPU is gone: still worse
        ("gpu_ok", "broken", True, "broken", "DRIFT_TEST_WORSE"),
        ("cpu_only", "cpu_only", False, "ok", None),
        ("cpu_only", "gpu_ok", True, "ok", None),
        (None, "cpu_only", False, "ok", None),
        (None, "cpu_only", True, "broken", "DRIFT_TEST_WORSE"),
        (None, "broken", False, "broken", "DRIFT_TEST_WORSE"),
    ],
)
def test_short_test_verdicts(recorded, now, has_gpu, status, code):
    result = result_from_json(
        {"event": "result", "verdict": now, "findings": [{"code": "X", "message": "why it failed"}]}
    )
    check = compare_test("demo", recorded, result, machine_has_nvidia_gpu=has_gpu)
    assert (check.check_id, check.status, code_of(check)) == ("env:demo:test", status, code)
    assert (check.before, check.after) == (recorded, now)
    if status == "broken":
        assert check.finding is not None and "why it failed" in check.finding.hint
        assert check.finding.params.get("variant") == (None if recorded else "unrecorded")


def test_a_test_not_run_is_skipped():
    check = compare_test("demo", "gpu_ok", None, machine_has_nvidia_gpu=True)
    assert (check.status, check.before, check.after, check.finding) == ("skipped", "gpu_ok", None, None)


@pytest.mark.parametrize(
    ("verdict", "has_gpu", "passed"),
    [
        ("gpu_ok", True, True),
        ("gpu_slow", True, True),
        ("cpu_only", True, False),
        ("broken", True, False),
        ("gpu_ok", False, True),
        ("cpu_only", False, True),
        ("broken", False, False),
    ],
)
def test_test_passed(verdict: str, has_gpu: bool, passed: bool):
    assert verdicts.passed(verdict, has_gpu) is passed


# --- PATH -----------------------------------------------------------------------------------------

CUDA_BIN = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.2\\bin"


def test_a_path_folder_still_there_is_ok_and_one_gone_is_broken_with_the_command_to_add_it():
    entry = SnapshotPathEntry("live", "user", CUDA_BIN)
    assert compare_path(entry, present=True).status == "ok"
    gone = compare_path(entry, present=False)
    assert (gone.check_id, gone.status, code_of(gone)) == (
        f"path:user:{CUDA_BIN}",
        "broken",
        "DRIFT_PATH_ENTRY_REMOVED",
    )
    assert gone.finding is not None
    assert f'gpuwizard path add "{CUDA_BIN}" --scope user' in gone.finding.hint
    in_file = compare_path(SnapshotPathEntry("file:/tmp/reg.json", "system", "C:\\cuda\\bin"), present=False)
    assert in_file.finding is not None
    assert "gpuwizard path add C:\\cuda\\bin --scope system --registry /tmp/reg.json" in in_file.finding.hint


def test_a_path_folder_the_user_removed_with_the_wizard_is_a_change():
    check = compare_path(SnapshotPathEntry("live", "user", CUDA_BIN), present=False, removed_by_wizard=True)
    assert (check.status, code_of(check)) == ("changed", "DRIFT_PATH_ENTRY_DROPPED")


# --- probe facts ----------------------------------------------------------------------------------


def test_observing_an_environment_from_its_probe():
    probe = {"probe": "env_report", "ok": True, "python": "3.11.7", "framework_version": "2.13.0+cu126",
             "built_with_cuda": True, "cuda_build": "12.6", "gpus": [{"index": 0}]}  # fmt: skip
    observed = observe_environment(
        "demo",
        "pytorch",
        "/py",
        probe=probe,
        constraints_path="/c.txt",
        constraints_text="# x\ntorch==2.13.0+cu126\n",
    )
    assert observed == seen(python="/py", constraints_path="/c.txt")
    missing = observe_environment(
        "demo", "pytorch", "/py",
        probe={"probe": "env_report", "ok": False, "phase": "import", "error": "ModuleNotFoundError: No module named 'torch'"},
    )  # fmt: skip
    assert missing.framework_missing and missing.import_error and missing.constraints_pins is None
    broken = observe_environment(
        "demo", "pytorch", "/py",
        probe={"probe": "env_report", "ok": False, "phase": "import", "error": "ModuleNotFoundError: No module named 'torch._C'"},
    )  # fmt: skip
    assert not broken.framework_missing and broken.import_error
    dead = observe_environment("demo", "pytorch", "/py", probe=None, probe_failure="exit status 139")
    assert dead.interpreter_error == "exit status 139"


# --- the report and the snapshot's JSON ------------------------------------------------------------


def test_health_json_carries_every_check_with_its_finding():
    checks = (
        compare_driver(snapshot(), machine(gpus=[RTX], driver="560.35", cuda_max="12.6")),
        compare_path(SnapshotPathEntry("live", "user", CUDA_BIN), present=False),
        compare_gpus(None, machine(gpus=[RTX])),
    )
    report = HealthReport(checks, snapshot_recorded="2026-03-01T10:00:00+00:00")
    data = to_json(VerifyResult.of(report, "complete"))
    assert list(data)[:7] == [
        "event",
        "schema",
        "healthy",
        "snapshot_recorded",
        "counts",
        "drifted",
        "checks",
    ]
    assert data["schema"] == "gpuwizard.health/1"
    assert data["healthy"] is False
    assert data["counts"] == {"ok": 0, "changed": 1, "broken": 1, "skipped": 1}
    assert data["drifted"] == ["driver", f"path:user:{CUDA_BIN}"]
    assert [check["status"] for check in data["checks"]] == ["changed", "broken", "skipped"]
    assert data["checks"][1]["finding"]["code"] == "DRIFT_PATH_ENTRY_REMOVED"
    assert data["checks"][2]["finding"] is None
    json.dumps(data)  # plain JSON
    again = VERIFY_EVENTS.read(json.loads(json.dumps(data)))
    assert isinstance(again, VerifyResult) and again.report == report


def test_snapshot_json_round_trip_and_no_gpu_uuid():
    report = report_to_json(machine(gpus=[RTX], driver="550.54", cuda_max="12.4"))
    report["gpus"][0]["uuid"] = "GPU-1234-secret"
    gpus = snapshot_gpus(report_from_json(report))
    full = snapshot(
        gpus=gpus,
        environments=(
            env(samples_per_s={"gpu": 51234.0, "cpu": 812.0}, created="2026-02-01T00:00:00+00:00"),
        ),
        path_entries=(SnapshotPathEntry("live", "user", CUDA_BIN),),
    )
    data = snapshot_to_json(full)
    assert data["schema"] == "gpuwizard.snapshot/1"
    assert snapshot_from_json(json.loads(json.dumps(data))) == full
    assert "GPU-1234" not in json.dumps(data) and "uuid" not in json.dumps(data)


def test_snapshot_json_ignores_unknown_fields_and_refuses_other_shapes():
    data = snapshot_to_json(snapshot(environments=(env(),)))
    data["future"] = {"x": 1}
    data["environments"][0]["future"] = True
    assert snapshot_from_json(data) == snapshot(environments=(env(),))
    bad: list[Any] = [
        [],
        {**data, "schema": "gpuwizard.system/1"},
        {**data, "environments": {"demo": {}}},
        {**data, "environments": [{"path": "/x"}]},
        {**data, "gpus": [{"name": "no index"}]},
    ]
    for item in bad:
        with pytest.raises(SnapshotError):
            snapshot_from_json(item)


def test_report_properties():
    ok = HealthCheck("driver", "driver", "", "ok", "1", "1")
    changed = replace(ok, check_id="gpus", kind="gpus", status="changed", after="2")
    broken = HealthCheck("env:demo:import", "import", "demo", "broken", "import torch", "not installed")
    assert HealthReport((ok, changed)).healthy
    report = HealthReport((ok, changed, broken))
    assert not report.healthy
    assert report.drifted == (changed, broken)
    assert report.broken == (broken,)
