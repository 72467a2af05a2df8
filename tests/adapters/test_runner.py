"""The subprocess runner, with real child processes (no mocks)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from gpuwizard.adapters.runner import CommandNotFound, CommandTimedOut, SubprocessRunner, child_environment
from harness.waits import EVENT_S


def test_output_and_exit_status():
    done = SubprocessRunner().run(
        [sys.executable, "-c", "import sys; print('out'); print('err', file=sys.stderr); sys.exit(3)"],
        timeout=EVENT_S,
    )
    assert (done.stdout.strip(), done.stderr.strip(), done.returncode, done.ok) == ("out", "err", 3, False)
    assert done.seconds >= 0


def test_utf8_output_survives():
    done = SubprocessRunner().run([sys.executable, "-c", "print('显卡 ✓')"], timeout=EVENT_S)
    assert done.stdout.strip() == "显卡 ✓"


def test_missing_program_and_non_program(tmp_path: Path):
    with pytest.raises(CommandNotFound):
        SubprocessRunner().run([str(tmp_path / "nope")], timeout=EVENT_S)
    not_a_program = tmp_path / "data.txt"
    not_a_program.write_text("hello")
    not_a_program.chmod(0o755)
    with pytest.raises(CommandNotFound):
        SubprocessRunner().run([str(not_a_program)], timeout=EVENT_S)


def test_timeout_kills_the_child():
    with pytest.raises(CommandTimedOut):
        SubprocessRunner().run(
            [sys.executable, "-c", "import time; time.sleep(30)"], timeout=0.5
        )  # not a guess: the limit under test


def test_child_environment_drops_what_leaks_into_other_pythons(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("PYTHONPATH", "/somewhere")
    monkeypatch.setenv("PYTHONHOME", "/elsewhere")
    env = child_environment({"EXTRA": "1"})
    assert "PYTHONPATH" not in env and "PYTHONHOME" not in env
    assert env["PYTHONUTF8"] == "1" and env["EXTRA"] == "1"
    done = SubprocessRunner().run(
        [sys.executable, "-c", "import os; print(os.environ.get('PYTHONPATH'))"], timeout=EVENT_S
    )
    assert done.stdout.strip() == "None"
