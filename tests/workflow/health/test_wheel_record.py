"""The last good state records an environment's NVIDIA wheels and DLL hook (issue 21, point 4).

From verify's env probe when it ran, else from the live test's ``libraries`` event (a test
recorded by ``gpuwizard test`` or the Test page), else as recorded before (a test by an older
probe says nothing about them).
"""

from __future__ import annotations

from typing import Any

from gpuwizard.core.health.env_drift import EnvObservation
from gpuwizard.core.health.snapshot import SnapshotEnv
from gpuwizard.core.livetest.events import result_from_json
from gpuwizard.core.livetest.libraries import CudaWheel
from gpuwizard.workflow.health.good_state import snapshot_env
from gpuwizard.workflow.state.env_registry import EnvRecord

RECORD = EnvRecord(
    name="tf210", path=r"C:\envs\tf210", python=r"C:\envs\tf210\Scripts\python.exe", manager="venv",
    framework="tensorflow", framework_version="2.10.1", framework_build="2.10.1", created="2026-11-25T10:00:00+00:00",
)  # fmt: skip
TEMPLATE = "https://download.pytorch.org/whl/{variant}"
CUDNN = {"name": "nvidia-cudnn-cu11", "version": "8.9.5.29"}
HOOK = {"active": True, "folders": [r"C:\envs\tf210\Lib\site-packages\nvidia\cudnn\bin"], "problem": None}


def result(**fields: Any):
    return result_from_json(
        {"verdict": "gpu_ok", "framework": "tensorflow", "framework_version": "2.10.1", **fields}
    )


def test_a_passed_live_test_records_the_wheels_and_the_hook_it_saw():
    env = snapshot_env(
        RECORD,
        observed=None,
        test=result(cuda_wheels=[CUDNN], dll_hook=HOOK),
        previous=None,
        index_template=TEMPLATE,
    )
    assert (env.cuda_wheels, env.dll_hook_active) == ((CudaWheel("nvidia-cudnn-cu11", "8.9.5.29"),), True)


def test_verify_records_what_its_probe_listed_no_hook_meaning_inactive():
    observed = EnvObservation(
        name="tf210", framework="tensorflow", python=RECORD.python, framework_build="2.10.1",
        cuda_wheels=(CudaWheel("nvidia-cudnn-cu11", "8.9.7.29"),), dll_hook=None,
    )  # fmt: skip
    env = snapshot_env(RECORD, observed=observed, test=None, previous=None, index_template=TEMPLATE)
    assert (env.cuda_wheels, env.dll_hook_active) == ((CudaWheel("nvidia-cudnn-cu11", "8.9.7.29"),), False)


def test_a_test_that_says_nothing_of_them_keeps_what_was_recorded():
    previous = SnapshotEnv(
        name="tf210", path=RECORD.path, python=RECORD.python, manager="venv", framework="tensorflow",
        framework_version="2.10.1", framework_build="2.10.1", created=RECORD.created,
        cuda_wheels=(CudaWheel("nvidia-cudnn-cu11", "8.9.5.29"),), dll_hook_active=True,
    )  # fmt: skip
    env = snapshot_env(RECORD, observed=None, test=result(), previous=previous, index_template=TEMPLATE)
    assert (env.cuda_wheels, env.dll_hook_active) == (previous.cuda_wheels, True)
    fresh = snapshot_env(RECORD, observed=None, test=result(), previous=None, index_template=TEMPLATE)
    assert (fresh.cuda_wheels, fresh.dll_hook_active) == (None, None)
