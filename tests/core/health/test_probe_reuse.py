"""What a recorded probe answer keeps, and the machine facts and variables its fingerprint covers."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from builders.reports import machine
from gpuwizard.core.findings.model import Finding
from gpuwizard.core.health.checks import HealthCheck
from gpuwizard.core.health.env_drift import observe_environment, probe_facts
from gpuwizard.core.health.probe_reuse import REUSED_NOTE, machine_facts, noted_as_reused, steering_variables
from gpuwizard.core.health.snapshot import Snapshot, SnapshotEnv, snapshot_from_json, snapshot_to_json

RTX = ("NVIDIA GeForce RTX 3060", "8.6")
#: Answers as ``probes/env_report.py`` prints them: a CUDA build seeing a GPU (with what the
#: record leaves out: the libraries loaded, warnings, the architectures), TensorFlow's wheels
#: and DLL hook on Windows, an import that fails, a framework that is not there.
ANSWERS: list[dict[str, Any]] = [
    {"probe": "env_report", "python": "3.11.7", "python_executable": "/e/lab/bin/python", "framework": "pytorch",
     "cuda_wheels": [{"name": "nvidia-cudnn-cu12", "version": "9.1.0.70"}], "dll_hook": None,
     "framework_version": "2.13.0+cu126", "built_with_cuda": True, "cuda_build": "12.6", "cudnn_build": 90100,
     "hip_build": None, "arch_list": ["sm_80", "sm_86", "sm_90"],
     "gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 3060", "compute_capability": "8.6", "arch_in_build": True}],
     "gpu_available": True, "machine": "x86_64", "ok": True, "warnings": ["UserWarning: x"],
     "cuda_libraries": [{"name": "cudart", "path": "/e/lab/lib/libcudart.so.12"}]},
    {"probe": "env_report", "python": "3.10.11", "framework": "tensorflow",
     "cuda_wheels": [{"name": "nvidia-cudnn-cu11", "version": "8.9.5.29"}],
     "dll_hook": {"active": True, "folders": ["C:\\e\\tf\\Lib\\site-packages\\nvidia\\cudnn\\bin"], "problem": None},
     "framework_version": "2.10.1", "built_with_cuda": True, "cuda_build": "11.2", "gpus": [], "ok": True},
    {"probe": "env_report", "python": "3.11.7", "framework": "pytorch", "cuda_wheels": [], "dll_hook": None,
     "ok": False, "phase": "import", "error": "ImportError: libcudnn.so.9: cannot open shared object file\nmore"},
    {"probe": "env_report", "python": "3.11.7", "framework": "pytorch", "ok": False, "phase": "import",
     "error": "ModuleNotFoundError: No module named 'torch'"},
]  # fmt: skip


@pytest.mark.parametrize("answer", ANSWERS, ids=["cuda", "tensorflow-windows", "import-fails", "missing"])
def test_the_recorded_part_of_an_answer_is_observed_as_the_whole_answer_and_survives_the_file(
    answer: dict[str, Any],
):
    framework = answer["framework"]
    whole = observe_environment("lab", framework, "/e/lab/bin/python", probe=answer)
    kept = probe_facts(answer)
    assert "cuda_libraries" not in kept and "warnings" not in kept
    assert observe_environment("lab", framework, "/e/lab/bin/python", probe=kept) == whole
    # Through the last good state's JSON and back, as the next verify reads it.
    env = SnapshotEnv("lab", "/e/lab", "/e/lab/bin/python", "venv", framework, "2.13.0",
                      probe_fingerprint="sha256:00", probe=kept)  # fmt: skip
    read = snapshot_from_json(snapshot_to_json(Snapshot("2026-01-05T10:00:00+00:00", environments=(env,))))
    again = read.environment("lab")
    assert again is not None and again.probe_fingerprint == "sha256:00"
    assert observe_environment("lab", framework, "/e/lab/bin/python", probe=again.probe) == whole


def test_an_older_state_without_them_reads_none():
    data = snapshot_to_json(Snapshot("2026-01-05T10:00:00+00:00", environments=(
        SnapshotEnv("lab", "/e/lab", "/e/lab/bin/python", "venv", "pytorch", "2.13.0"),)))  # fmt: skip
    del data["environments"][0]["probe_fingerprint"], data["environments"][0]["probe"]
    env = snapshot_from_json(data).environment("lab")
    assert env is not None and (env.probe_fingerprint, env.probe) == (None, None)
    data["environments"][0]["probe_fingerprint"] = "sha256:00"  # a fingerprint without its answer
    env = snapshot_from_json(data).environment("lab")
    assert env is not None and (env.probe_fingerprint, env.probe) == (None, None)


def test_the_machine_facts_follow_the_driver_the_gpus_and_detections_findings():
    base = machine(gpus=[RTX, RTX], driver="560.35.03", cuda_max="12.6")
    assert machine_facts(base) == machine_facts(machine(gpus=[RTX, RTX], driver="560.35.03", cuda_max="12.6"))
    others = [
        machine(gpus=[RTX, RTX], driver="565.57.01", cuda_max="12.7"),
        machine(gpus=[RTX], driver="560.35.03", cuda_max="12.6"),
        machine(gpus=[RTX, RTX], driver="560.35.03", cuda_max="12.6", lost=[1]),
        machine(gpus=[RTX, RTX], driver=None),
        replace(
            base, findings=(Finding(code="DEVICE_NOT_ACCESSIBLE", severity="error", message="m", hint="h"),)
        ),
    ]
    assert all(machine_facts(other) != machine_facts(base) for other in others)


def test_the_variables_that_steer_the_framework_and_path_only_on_windows():
    environ = {
        "CUDA_VISIBLE_DEVICES": "0,1",
        "LD_LIBRARY_PATH": "/opt/cuda/lib64",
        "PATH": "/bin",
        "HOME": "/h",
    }
    assert steering_variables(environ, windows=False) == {
        "CUDA_VISIBLE_DEVICES": "0,1",
        "LD_LIBRARY_PATH": "/opt/cuda/lib64",
    }
    assert steering_variables(environ, windows=True)["PATH"] == "/bin"


def test_only_checks_judged_from_the_answer_are_noted_and_a_note_is_kept():
    build = HealthCheck("env:lab:build", "build", "lab", "ok", "2.13.0+cpu", "2.13.0+cpu")
    assert noted_as_reused(build).note == REUSED_NOTE
    pins = HealthCheck("env:lab:constraints", "constraints", "lab", "ok", "torch==2.13.0", "torch==2.13.0")
    assert noted_as_reused(pins) == pins  # read from its file this time
    skipped = HealthCheck("env:lab:devices", "devices", "lab", "skipped", note="the probe did not say")
    assert noted_as_reused(skipped) == skipped
