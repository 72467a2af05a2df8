"""verify's check of the NVIDIA wheels and the DLL start-up hook, on data (issue 21, point 4).

What the env probe lists now (``cuda_wheels``, ``dll_hook``) against the last good state: a
wheel removed or replaced by another major (or by the same library for another CUDA major) is
broken with the command that puts it back; a version moved within its major is a change; a
hook recorded as active that is gone is broken; an environment that never had NVIDIA wheels
gets no check. The snapshot keeps the new facts, and an older snapshot without them still loads.
"""

from __future__ import annotations

from typing import Any

import pytest

from gpuwizard.core.findings.catalog import CATALOG
from gpuwizard.core.health.checks import KINDS, HealthReport
from gpuwizard.core.health.env_drift import EnvObservation, observe_environment
from gpuwizard.core.health.snapshot import Snapshot, SnapshotEnv, snapshot_from_json, snapshot_to_json
from gpuwizard.core.health.wheel_drift import compare_cuda_wheels
from gpuwizard.core.livetest.libraries import CudaWheel, DllHook

PYTHON = r"C:\Users\Ana\envs\tf210\Scripts\python.exe"
RECREATE = "gpuwizard env create tf210 --framework tensorflow --version 2.10.1 --replace"
#: What the wizard's Windows route installs for TensorFlow 2.10 (issue 21).
ROUTE = (
    CudaWheel("nvidia-cublas-cu11", "11.11.3.6"),
    CudaWheel("nvidia-cuda-runtime-cu11", "11.8.89"),
    CudaWheel("nvidia-cudnn-cu11", "8.9.5.29"),
)
HOOK = DllHook(active=True, folders=(r"C:\Users\Ana\envs\tf210\Lib\site-packages\nvidia\cudnn\bin",))


def recorded(**changes: Any) -> SnapshotEnv:
    values: dict[str, Any] = {
        "name": "tf210",
        "path": r"C:\Users\Ana\envs\tf210",
        "python": PYTHON,
        "manager": "venv",
        "framework": "tensorflow",
        "framework_version": "2.10.1",
        "framework_build": "2.10.1",
        "cuda_wheels": ROUTE,
        "dll_hook_active": True,
    }
    values.update(changes)
    return SnapshotEnv(**values)


def now(*wheels: CudaWheel, hook: DllHook | None = HOOK, **changes: Any) -> EnvObservation:
    values: dict[str, Any] = {
        "name": "tf210",
        "framework": "tensorflow",
        "python": PYTHON,
        "framework_build": "2.10.1",
        "cuda_wheels": tuple(sorted(wheels, key=lambda wheel: wheel.name)),
        "dll_hook": hook,
    }
    values.update(changes)
    return EnvObservation(**values)


def compare(baseline: SnapshotEnv, observed: EnvObservation, *, windows: bool = True):
    return compare_cuda_wheels(baseline, observed, windows=windows, recreate=RECREATE)


CUBLAS, CUDART, CUDNN = ROUTE


def test_the_same_wheels_and_an_active_hook_are_ok():
    check = compare(recorded(), now(*ROUTE))
    assert check is not None
    assert (check.check_id, check.kind, check.subject, check.status, check.finding) == (
        "env:tf210:cuda_wheels", "cuda_wheels", "tf210", "ok", None,
    )  # fmt: skip
    assert (
        check.before
        == check.after
        == (
            "nvidia-cublas-cu11==11.11.3.6, nvidia-cuda-runtime-cu11==11.8.89, nvidia-cudnn-cu11==8.9.5.29; DLL hook active"
        )
    )
    assert "cuda_wheels" in KINDS


def test_a_removed_wheel_is_broken_with_the_pip_command_that_puts_it_back():
    check = compare(recorded(), now(CUBLAS, CUDART))
    assert check is not None and check.finding is not None
    assert (check.status, check.finding.code, check.finding.severity) == (
        "broken",
        "CUDA_WHEEL_REMOVED",
        "error",
    )
    assert "nvidia-cudnn-cu11==8.9.5.29" in check.finding.message
    assert rf"{PYTHON} -m pip install nvidia-cudnn-cu11==8.9.5.29" in check.finding.hint
    assert RECREATE in check.finding.hint
    assert check.after == "nvidia-cublas-cu11==11.11.3.6, nvidia-cuda-runtime-cu11==11.8.89; DLL hook active"
    assert not HealthReport((check,)).healthy


def test_the_fix_is_quoted_for_the_shell_it_runs_in():
    spaced = r"C:\Users\Ana Lopez\envs\tf210\Scripts\python.exe"
    windows = compare(recorded(python=spaced), now(CUBLAS, CUDART, python=spaced))
    assert windows is not None and windows.finding is not None
    assert f'"{spaced}" -m pip install nvidia-cudnn-cu11==8.9.5.29' in windows.finding.hint
    linux = compare(
        recorded(python="/home/ana/my envs/t/bin/python"), now(CUBLAS, CUDART, python="/home/ana/my envs/t/bin/python"),
        windows=False,
    )  # fmt: skip
    assert linux is not None and linux.finding is not None
    assert "'/home/ana/my envs/t/bin/python' -m pip install nvidia-cudnn-cu11==8.9.5.29" in linux.finding.hint


@pytest.mark.parametrize(
    ("replacement", "after"),
    [
        pytest.param(
            CudaWheel("nvidia-cudnn-cu11", "9.1.0.70"), "nvidia-cudnn-cu11==9.1.0.70", id="cudnn-8-to-9"
        ),
        pytest.param(
            CudaWheel("nvidia-cudnn-cu12", "8.9.7.29"), "nvidia-cudnn-cu12==8.9.7.29", id="cu11-to-cu12"
        ),
    ],
)
def test_a_wheel_replaced_by_another_major_is_broken(replacement: CudaWheel, after: str):
    check = compare(recorded(), now(CUBLAS, CUDART, replacement))
    assert check is not None and check.finding is not None
    assert (check.status, check.finding.code) == ("broken", "CUDA_WHEEL_REPLACED")
    assert check.finding.params["before"] == "nvidia-cudnn-cu11==8.9.5.29"
    assert check.finding.params["after"] == after
    assert rf"{PYTHON} -m pip install nvidia-cudnn-cu11==8.9.5.29" in check.finding.hint


def test_a_version_moved_within_its_major_is_a_change_noted_as_a_warning():
    check = compare(recorded(), now(CUBLAS, CUDART, CudaWheel("nvidia-cudnn-cu11", "8.6.0.163")))
    assert check is not None and check.finding is not None
    assert (check.status, check.finding.code, check.finding.severity) == (
        "changed",
        "CUDA_WHEEL_CHANGED",
        "warning",
    )
    assert (check.finding.params["before"], check.finding.params["after"]) == (
        "nvidia-cudnn-cu11==8.9.5.29", "nvidia-cudnn-cu11==8.6.0.163",
    )  # fmt: skip
    report = HealthReport((check,))
    assert report.healthy and report.drifted == (check,)


def test_wheels_added_since_change_nothing():
    check = compare(recorded(), now(*ROUTE, CudaWheel("nvidia-cufft-cu11", "10.9.0.58")))
    assert check is not None and check.status == "ok"


@pytest.mark.parametrize(
    ("hook", "variant", "after"),
    [
        pytest.param(None, None, "missing", id="gone"),
        pytest.param(
            DllHook(active=False, problem="PermissionError: denied"), "inactive", "inactive", id="failed"
        ),
    ],
)
def test_a_hook_recorded_as_active_that_is_gone_is_broken(
    hook: DllHook | None, variant: str | None, after: str
):
    check = compare(recorded(), now(*ROUTE, hook=hook))
    assert check is not None and check.finding is not None
    assert (check.status, check.finding.code) == ("broken", "DLL_HOOK_MISSING")
    assert check.finding.params.get("variant") == variant
    assert check.after is not None and check.after.endswith(f"; DLL hook {after}")
    assert RECREATE in check.finding.hint
    if hook is not None:
        assert "PermissionError: denied" in check.finding.message


def test_several_problems_name_the_first_and_note_the_others():
    check = compare(recorded(), now(CUBLAS, CUDART, hook=None))
    assert check is not None and check.finding is not None
    assert (check.finding.code, check.note) == ("CUDA_WHEEL_REMOVED", "also DLL_HOOK_MISSING")


def test_without_a_recorded_hook_none_is_expected():
    check = compare(recorded(dll_hook_active=None), now(*ROUTE, hook=None))
    assert check is not None and check.status == "ok"


@pytest.mark.parametrize("wheels", [None, ()], ids=["not-recorded", "none-installed"])
def test_an_environment_that_never_had_nvidia_wheels_gets_no_check(wheels: tuple[CudaWheel, ...] | None):
    assert compare(recorded(cuda_wheels=wheels, dll_hook_active=None), now(*ROUTE)) is None


def test_when_the_interpreter_does_not_run_the_check_is_skipped():
    dead = now(cuda_wheels=None, hook=None, interpreter_error="exit status 139")
    check = compare(recorded(), dead)
    assert check is not None
    assert (check.status, check.after, check.note) == ("skipped", None, "the interpreter does not run")


def test_the_findings_are_in_the_catalog_with_the_same_severity_for_each_variant():
    assert CATALOG["DLL_HOOK_MISSING:inactive"].severity == CATALOG["DLL_HOOK_MISSING"].severity == "error"
    for code in ("CUDA_WHEEL_REMOVED", "CUDA_WHEEL_REPLACED", "CUDA_WHEEL_CHANGED"):
        assert code in CATALOG


# --- what the probe says, and what the snapshot keeps ------------------------------------------------


def test_the_wheels_and_hook_are_read_from_the_probe_even_when_the_import_failed():
    probe = {
        "probe": "env_report", "ok": False, "phase": "import", "python": "3.10.11",
        "error": "ImportError: DLL load failed while importing _pywrap_tensorflow_internal",
        "cuda_wheels": [{"name": "nvidia-cudnn-cu11", "version": "8.9.5.29"}],
        "dll_hook": {"active": True, "folders": list(HOOK.folders), "problem": None},
        "cuda_libraries": [],
    }  # fmt: skip
    observed = observe_environment("tf210", "tensorflow", PYTHON, probe=probe)
    assert observed.import_error is not None
    assert observed.cuda_wheels == (CUDNN,)
    assert observed.dll_hook == HOOK
    older = observe_environment("tf210", "tensorflow", PYTHON, probe={"probe": "env_report", "ok": True})
    assert (older.cuda_wheels, older.dll_hook) == (None, None)  # a probe that did not say: unknown


def test_the_snapshot_keeps_the_wheels_and_the_hook_and_an_older_file_still_loads():
    snapshot = Snapshot(recorded="2026-11-25T10:00:00+00:00", environments=(recorded(),))
    data = snapshot_to_json(snapshot)
    assert data["environments"][0]["cuda_wheels"][2] == {"name": "nvidia-cudnn-cu11", "version": "8.9.5.29"}
    assert data["environments"][0]["dll_hook_active"] is True
    assert snapshot_from_json(data) == snapshot
    for key in ("cuda_wheels", "dll_hook_active"):
        del data["environments"][0][key]  # as a version before this check wrote it
    older = snapshot_from_json(data).environments[0]
    assert (older.cuda_wheels, older.dll_hook_active) == (None, None)
