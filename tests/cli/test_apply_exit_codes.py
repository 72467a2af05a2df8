"""``apply``'s exit codes are the command line's: decided from how the run ended, written as the result leaves."""

from __future__ import annotations

import pytest

from gpuwizard.cli.apply import exit_code, with_exit_code
from gpuwizard.core.events import to_json
from gpuwizard.core.fleet.events import ApplyResult, DetectStage


@pytest.mark.parametrize(
    ("status", "rolled_back", "code"),
    [
        ("ok", False, 0),
        ("preview", False, 0),
        ("problem", False, 1),
        ("rolled_back", True, 3),
        ("rolled_back", False, 3),  # read back: the flag is not written, the status says it
        ("cancelled", True, 3),  # cancelled while the environment was made: what the run changed was undone
        ("cancelled", False, 130),  # before anything changed, or during the test (the setup is kept)
    ],
)
def test_the_exit_code_stands_for_how_the_run_ended(status: str, rolled_back: bool, code: int):
    assert exit_code(ApplyResult(status=status, message="", rolled_back=rolled_back)) == code


def test_only_the_result_gains_its_exit_code_after_its_status():
    stage = DetectStage(status="done", summary="no NVIDIA GPU")
    assert with_exit_code(stage) is stage
    written = to_json(with_exit_code(ApplyResult(status="problem", message="the test failed")))
    assert list(written)[:6] == ["event", "schema", "answers_schema", "status", "exit_code", "message"]
    assert written["exit_code"] == 1
