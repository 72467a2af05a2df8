"""A GPU the machine does not have is refused by apply (and env create), exit 2, nothing made."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from harness.entry_point import gpuwizard

SAMPLES = Path(__file__).resolve().parents[2] / "resources" / "samples"


def home() -> Path:
    return Path(os.environ["GPUWIZARD_HOME"])  # a fresh one for every test (tests/conftest.py)


@pytest.mark.parametrize("json_output", [False, True], ids=["text", "json"])
def test_apply_refuses_a_gpu_index_the_machine_does_not_have(tmp_path: Path, json_output: bool):
    answers = tmp_path / "lab.toml"
    answers.write_text('framework = "pytorch"\nenvironment = "lab"\ngpus = [7]\n', encoding="utf-8")
    more = ("--json",) if json_output else ()
    done = gpuwizard("apply", "--answers", str(answers), "--system", str(SAMPLES / "linux-h200.json"), *more)
    assert done.returncode == 2, done.stdout[-2000:] + done.stderr
    assert done.stderr == "gpuwizard: error: GPU 7 is not on this machine (it has GPU 0: NVIDIA H200)\n"
    assert "CUDA_VISIBLE_DEVICES=7" not in done.stdout  # refused before the plan is shown
    if json_output:
        assert [json.loads(line)["stage"] for line in done.stdout.splitlines()] == ["detect"]
    assert not home().exists() or not any(home().rglob("*"))


def test_apply_previews_a_gpu_the_machine_has(tmp_path: Path):
    answers = tmp_path / "lab.toml"
    answers.write_text('framework = "pytorch"\nenvironment = "lab"\ngpus = [0]\n', encoding="utf-8")
    done = gpuwizard("apply", "--answers", str(answers), "--system", str(SAMPLES / "linux-h200.json"))
    assert done.returncode == 0, done.stderr
    assert "CUDA_VISIBLE_DEVICES=0" in done.stdout


def test_env_create_refuses_gpus_this_machine_does_not_have():
    """env create detects this machine: no GPU index above every one it has can exist here."""
    done = gpuwizard("env", "create", "lab", "--framework", "pytorch", "--gpus", "63")
    assert done.returncode == 2, done.stdout[-2000:] + done.stderr
    assert done.stderr.startswith("gpuwizard: error: GPU 63 is not on this machine (it has ")
    assert len(done.stderr.splitlines()) == 1
    assert not (home() / "envs" / "lab").exists()
