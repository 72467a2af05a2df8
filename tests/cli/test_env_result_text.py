"""`env create`'s closing text says how to start the environment, whatever made it."""

from __future__ import annotations

import sys

import pytest

from gpuwizard.cli.text.env import result_text
from gpuwizard.core.envs.result import env_result_from_json

EVENT = {
    "event": "result", "status": "ok", "name": "tf-gpu", "path": "/home/ana/envs/tf-gpu",
    "python": "/home/ana/envs/tf-gpu/bin/python", "framework_version": "2.10.1", "seconds": 12.5,
    "log": "/home/ana/.gpuwizard/logs/x.log",
}  # fmt: skip


@pytest.mark.skipif(sys.platform == "win32", reason="the POSIX commands")
def test_a_rattler_environment_is_started_by_its_own_script_not_conda_activate():
    text = result_text(env_result_from_json({**EVENT, "manager": "conda", "tool": "rattler"}))
    assert "activate:   source /home/ana/envs/tf-gpu/bin/activate\n" in text
    assert "conda activate" not in text
    assert "/home/ana/envs/tf-gpu/bin/python" in text


@pytest.mark.skipif(sys.platform == "win32", reason="the POSIX commands")
def test_a_conda_environment_made_by_conda_is_still_started_by_conda_activate():
    text = result_text(env_result_from_json({**EVENT, "manager": "conda", "tool": "mamba"}))
    assert "activate:   conda activate /home/ana/envs/tf-gpu\n" in text
