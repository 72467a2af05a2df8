"""The subprocess runner, with real child processes (no mocks)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from gpuwizard.adapters.runner import (
    CommandNotFound,
    CommandTimedOut,
    SubprocessRunner,
    child_environment,
    inherited_path,
)
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


# --- a frozen build's own folders (issue 37, point 8) ----------------------------------------------


@pytest.fixture
def frozen(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """This process as the installed wizard: a PyInstaller build running from its ``_internal``."""
    bundle = tmp_path / "gpuwizard" / "_internal"
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(bundle), raising=False)
    return bundle


def test_a_frozen_builds_own_folders_stay_off_the_childrens_path(
    frozen: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    program = frozen.parent  # the installer may put the program's folder on PATH: it stays
    sibling = tmp_path / "gpuwizard" / "_internal_old"  # the same letters, another folder
    # As the build's Qt start-up leaves it: PySide6's folder, then _MEIPASS, then the user's.
    monkeypatch.setenv("PATH", os.pathsep.join([str(frozen / "PySide6"), str(frozen), str(program), "/usr/bin", str(sibling)]))  # fmt: skip
    monkeypatch.setenv("QT_PLUGIN_PATH", str(frozen / "PySide6" / "plugins"))
    expected = os.pathsep.join([str(program), "/usr/bin", str(sibling)])
    env = child_environment()
    assert env["PATH"] == expected
    assert "QT_PLUGIN_PATH" not in env
    done = SubprocessRunner().run(
        [sys.executable, "-c", "import os; print(os.environ['PATH'])"], timeout=EVENT_S
    )
    assert done.stdout.strip() == expected
    # An override is the caller's own choice and stays as given.
    assert child_environment({"PATH": str(frozen)})["PATH"] == str(frozen)


def test_windows_spellings_of_the_bundle_are_recognised(frozen: Path, monkeypatch: pytest.MonkeyPatch):
    bundle = r"C:\Users\Ana\AppData\Local\Programs\gpuwizard\_internal"
    monkeypatch.setattr(sys, "_MEIPASS", bundle)
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setattr(os, "pathsep", ";")
    value = ";".join([
        bundle.lower() + "\\", bundle.upper() + r"\PySide6", f'"{bundle}"', r"C:\Windows\system32",
        r"C:\Users\Ana\AppData\Local\Programs\gpuwizard", "", r'"C:\odd;folder"',
    ])  # fmt: skip
    assert (
        inherited_path(value)
        == r'C:\Windows\system32;C:\Users\Ana\AppData\Local\Programs\gpuwizard;;"C:\odd;folder"'
    )


def test_an_unfrozen_wizard_passes_path_on_as_it_is(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)  # without sys.frozen
    monkeypatch.setenv("PATH", os.pathsep.join([str(tmp_path), "/usr/bin"]))
    assert child_environment()["PATH"] == os.pathsep.join([str(tmp_path), "/usr/bin"])
