"""Environment results: the ``result`` event's shape per status, and reading one back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpuwizard.core.envs.result import STATUSES, EnvResult, env_result_from_json

RUN_FILE = Path(__file__).parents[3] / "resources" / "samples" / "runs" / "env-create-torch-cpu.jsonl"
CONTRACT_FIELDS = ("event", "status", "name", "path", "python", "framework_version")

MADE = EnvResult(
    status="ok",
    name="torch",
    path="/home/ana/.local/share/gpuwizard/envs/torch",
    python="/home/ana/.local/share/gpuwizard/envs/torch/bin/python",
    framework="pytorch",
    framework_version="2.13.0",
    framework_build="2.13.0+cu126",
    manager="venv",
    tool="uv",
    constraints="/home/ana/.local/share/gpuwizard/envs/torch/gpuwizard-constraints.txt",
    variables={"CUDA_VISIBLE_DEVICES": "0,1"},
    jupyter_kernel="gpuwizard-torch",
    seconds=48.5,
    log="/home/ana/.local/share/gpuwizard/logs/env-create-torch.log",
)
# As workflow/envs/create.py makes them: a failed or cancelled result names no framework.
FAILED = EnvResult(
    status="failed",
    name="tf",
    path="/home/ana/.local/share/gpuwizard/envs/tf",
    seconds=12.25,
    log="/home/ana/.local/share/gpuwizard/logs/env-create-tf.log",
    error="uv pip install failed (exit 1)",
    log_tail=("  × No solution found when resolving dependencies:", "  ╰─▶ tensorflow==2.10.1 has no wheels"),
    rollback_problems=("could not remove /home/ana/.local/share/gpuwizard/envs/tf: in use",),
)
CANCELLED = EnvResult(status="cancelled", name="demo", path="/envs/demo", error="cancelled", seconds=3.0)
KEPT = EnvResult(
    status="ok",
    name="fleet",
    path="/envs/fleet",
    python="/envs/fleet/bin/python",
    framework="pytorch",
    framework_version="2.13.0",
    framework_build="2.13.0+cpu",
    manager="venv",
    tool="uv",
    kept=True,
)


def test_a_made_environment():
    data = MADE.to_json()
    assert list(data)[: len(CONTRACT_FIELDS)] == list(CONTRACT_FIELDS)
    assert data == {
        "event": "result",
        "status": "ok",
        "name": "torch",
        "path": "/home/ana/.local/share/gpuwizard/envs/torch",
        "python": "/home/ana/.local/share/gpuwizard/envs/torch/bin/python",
        "framework_version": "2.13.0",
        "framework": "pytorch",
        "framework_build": "2.13.0+cu126",
        "manager": "venv",
        "tool": "uv",
        "constraints": "/home/ana/.local/share/gpuwizard/envs/torch/gpuwizard-constraints.txt",
        "variables": {"CUDA_VISIBLE_DEVICES": "0,1"},
        "jupyter_kernel": "gpuwizard-torch",
        "seconds": 48.5,
        "log": "/home/ana/.local/share/gpuwizard/logs/env-create-torch.log",
    }
    assert MADE.ok is True


def test_a_failed_environment_says_why_and_what_was_left():
    data = FAILED.to_json()
    assert list(data)[: len(CONTRACT_FIELDS)] == list(CONTRACT_FIELDS)
    assert data == {
        "event": "result",
        "status": "failed",
        "name": "tf",
        "path": "/home/ana/.local/share/gpuwizard/envs/tf",
        "python": None,
        "framework_version": None,
        "error": "uv pip install failed (exit 1)",
        "log_tail": [
            "  × No solution found when resolving dependencies:",
            "  ╰─▶ tensorflow==2.10.1 has no wheels",
        ],
        "rollback_problems": ["could not remove /home/ana/.local/share/gpuwizard/envs/tf: in use"],
        "seconds": 12.25,
        "log": "/home/ana/.local/share/gpuwizard/logs/env-create-tf.log",
    }
    assert FAILED.ok is False


def test_a_cancelled_environment_has_the_failed_shape():
    data = CANCELLED.to_json()
    assert data == {
        "event": "result",
        "status": "cancelled",
        "name": "demo",
        "path": "/envs/demo",
        "python": None,
        "framework_version": None,
        "error": "cancelled",
        "log_tail": [],
        "rollback_problems": [],
        "seconds": 3.0,
        "log": None,
    }
    assert CANCELLED.ok is False


def test_a_kept_environment_says_so_and_only_then():
    assert KEPT.to_json()["kept"] is True
    assert KEPT.ok is True
    assert "kept" not in MADE.to_json()
    assert "kept" not in EnvResult(status="failed", name="x", kept=True).to_json()


@pytest.mark.parametrize("result", [MADE, FAILED, CANCELLED, KEPT], ids=["ok", "failed", "cancelled", "kept"])
def test_the_contracts_fields_are_always_there(result: EnvResult):
    data = result.to_json()
    assert set(CONTRACT_FIELDS) <= set(data)
    assert data["event"] == "result"
    assert data["status"] in STATUSES
    assert json.loads(json.dumps(data)) == data


def test_a_refused_request_has_the_contracts_fields_unknown():
    data = EnvResult(status="failed", name="con", error="'con' is a device name").to_json()
    assert {key: data[key] for key in CONTRACT_FIELDS} == {
        "event": "result",
        "status": "failed",
        "name": "con",
        "path": None,
        "python": None,
        "framework_version": None,
    }


@pytest.mark.parametrize("result", [MADE, FAILED, CANCELLED, KEPT], ids=["ok", "failed", "cancelled", "kept"])
def test_a_result_reads_back_equal(result: EnvResult):
    again = env_result_from_json(result.to_json())
    assert again == result
    assert again.to_json() == result.to_json()


def test_unknown_statuses_read_as_failed():
    for status in ("exploded", "", None, 0, "OK"):
        assert env_result_from_json({"status": status, "name": "x"}).status == "failed"
    assert env_result_from_json({"name": "x"}).ok is False


def test_missing_fields_are_unknown():
    result = env_result_from_json({"status": "ok"})
    assert result == EnvResult(status="ok", name="")
    assert result.ok is True
    assert result.variables == {}
    assert (result.log_tail, result.rollback_problems, result.kept) == ((), (), False)
    assert env_result_from_json({}) == EnvResult(status="failed", name="")


def test_fields_of_the_wrong_type_are_unknown_or_made_text():
    result = env_result_from_json(
        {
            "status": "ok",
            "name": 7,
            "variables": ["CUDA_VISIBLE_DEVICES=0"],
            "seconds": "12.5",
            "kept": "yes",
            "python": 3.11,
            "log_tail": None,
        }
    )
    assert result.name == "7"
    assert result.variables == {}
    assert result.seconds is None
    assert result.kept is False
    assert result.python == "3.11"
    assert result.log_tail == ()
    assert env_result_from_json({"status": "ok", "variables": {"N": 1}}).variables == {"N": "1"}
    assert env_result_from_json({"status": "ok", "seconds": 4}).seconds == 4.0


def test_the_recorded_run_ends_in_a_result_that_reads_back_as_made():
    lines = [json.loads(line) for line in RUN_FILE.read_text().splitlines()]
    assert lines[-1]["event"] == "result"
    assert sum(line["event"] == "result" for line in lines) == 1
    result = env_result_from_json(lines[-1])
    assert result.ok is True
    assert result.name == "torch-cpu"
    assert result.python == "/home/ana/.local/share/gpuwizard/envs/torch-cpu/bin/python"
    assert result.framework_version == "2.13.0"
    assert result.framework_build == "2.13.0+cpu"
    assert (result.manager, result.tool) == ("venv", "uv")
    assert result.variables == {
        "UV_CONSTRAINT": "/home/ana/.local/share/gpuwizard/envs/torch-cpu/gpuwizard-constraints.txt"
    }
    assert result.seconds == 4.93
    assert result.error is None
    assert result.to_json() == {**lines[-1], "framework": None}
