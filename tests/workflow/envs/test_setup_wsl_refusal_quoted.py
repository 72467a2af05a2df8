"""A plan that runs inside WSL 2 is refused here with the command that makes it, the name one word (issue 41)."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from gpuwizard.core.envs.request import SetupRequest
from gpuwizard.workflow.envs.setup import SetupRefused, plan_setup
from gpuwizard.workflow.machine.system_file import load_system_report

WINDOWS = Path(__file__).parents[3] / "resources" / "samples" / "windows-rtx2080super-two-cuda.json"


@pytest.mark.parametrize("name", ["mein Labor ü", "lab $HOME"])
def test_the_wsl_command_names_the_environment_as_one_word(name: str):
    report = load_system_report(WINDOWS)  # TensorFlow 2.15 on this machine runs inside WSL 2
    request = SetupRequest.checked(framework="tensorflow", version="2.15", name=name)
    with pytest.raises(SetupRefused) as refused:
        plan_setup(report, request, check=False)
    said = str(refused.value)
    assert said.startswith("this plan runs inside WSL 2: `") and said.endswith("` makes it there")
    words = shlex.split(said.split("`")[1])  # the shell of this test's machine reads it
    assert words[words.index("env") :] == ["env", "create", name, "--framework", "tensorflow", "--wsl"]
