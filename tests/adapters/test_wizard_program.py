"""Which command starts this wizard from the person's shell (issue 37, point 2).

``gpuwizard`` where the one PATH finds is this very program; otherwise this program's full
path, quoted for the shell, and ``"<python>" -m gpuwizard`` where there is no script. Real
scripts and links on disk, real PATH searches; the Windows spellings are checked as text (cmd
and PowerShell are not here), the POSIX ones by running what was printed.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from gpuwizard.adapters.wizard_program import console_program, wizard_command
from gpuwizard.core.wizard_command import WizardCommand
from harness.entry_point import ENTRY_POINT

#: The venv's own ``gpuwizard`` script: the console program of the process running the tests.
SCRIPT = Path(ENTRY_POINT)
SYSTEM_PATH = os.pathsep.join(["/usr/bin", "/bin"])

pytestmark = pytest.mark.skipif(not SCRIPT.is_file(), reason="the venv has no gpuwizard script")


def test_the_console_program_of_an_installed_wizard_is_its_script():
    assert console_program() == SCRIPT


def test_on_path_it_is_named_by_its_name():
    assert wizard_command(path=os.pathsep.join([str(SCRIPT.parent), SYSTEM_PATH])) == WizardCommand()
    assert wizard_command(path=str(SCRIPT.parent)).line("path undo") == "gpuwizard path undo"


def test_a_link_on_path_to_the_same_script_is_the_same_program(tmp_path: Path):
    # pipx and ~/.local/bin put a link to a venv's script on PATH.
    (tmp_path / "gpuwizard").symlink_to(SCRIPT)
    assert wizard_command(path=str(tmp_path)) == WizardCommand()


def test_off_path_the_advice_carries_the_full_path_and_that_exact_string_runs(tmp_path: Path):
    wizard = wizard_command(path=SYSTEM_PATH)
    line = wizard.line("--version")
    assert line == f"{shlex.quote(str(SCRIPT))} --version"
    # Run as a POSIX shell would read it, with a PATH that has no gpuwizard.
    done = subprocess.run(
        shlex.split(line),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "PATH": SYSTEM_PATH},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("gpuwizard ")


def test_another_gpuwizard_first_on_path_is_not_this_one(tmp_path: Path):
    other = tmp_path / "gpuwizard"
    other.write_text("#!/bin/sh\necho another wizard\n")
    other.chmod(0o755)
    wizard = wizard_command(path=os.pathsep.join([str(tmp_path), str(SCRIPT.parent)]))
    assert wizard.shell == shlex.quote(str(SCRIPT))


def test_a_wizard_started_from_a_folder_with_a_space_is_named_quoted_and_runs(tmp_path: Path):
    # The script started by a path with a space: the advice quotes it, and the quoted line runs.
    folder = tmp_path / "my tools"
    folder.mkdir()
    (folder / "gpuwizard").symlink_to(SCRIPT)
    probe = (
        "import sys; sys.argv[0] = sys.argv[1]; "
        "from gpuwizard.adapters.wizard_program import wizard_command; "
        f"print(wizard_command(path={SYSTEM_PATH!r}).line('--version'))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(folder / "gpuwizard")],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    line = done.stdout.strip()
    assert line == f"'{folder}/gpuwizard' --version"
    ran = subprocess.run(
        shlex.split(line),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "PATH": SYSTEM_PATH},
    )
    assert ran.returncode == 0, ran.stderr


def test_without_a_script_it_is_this_python_with_dash_m(tmp_path: Path):
    # `python -m gpuwizard` where no script was made: the test venv's packages under a prefix
    # (with a space) whose bin folder holds only the interpreter.
    venv = Path(sys.prefix)
    prefix = tmp_path / "venv copy"
    (prefix / "bin").mkdir(parents=True)
    (prefix / "pyvenv.cfg").write_bytes((venv / "pyvenv.cfg").read_bytes())
    (prefix / "lib").symlink_to(venv / "lib")
    python = prefix / "bin" / "python"
    python.symlink_to(Path(sys.executable).resolve())
    probe = (
        "import sys; from gpuwizard.adapters.wizard_program import console_program, wizard_command; "
        "print(console_program()); print(wizard_command(path=sys.argv[1]).line('--version')); "
        "print(wizard_command(path=sys.argv[1], windows=True).powershell)"
    )
    done = subprocess.run(
        [str(python), "-c", probe, SYSTEM_PATH], capture_output=True, text=True, timeout=60, check=True
    )
    program, posix, powershell = done.stdout.splitlines()
    assert program == "None"
    assert posix == f"'{python}' -m gpuwizard --version"
    assert powershell == f"& '{python}' -m gpuwizard"
    ran = subprocess.run(shlex.split(posix), capture_output=True, text=True, timeout=60, check=False)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith("gpuwizard ")


def test_a_frozen_window_build_names_its_console_twin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    # The installer's folder: gpuwizardw.exe (the window) beside gpuwizard.exe (the console).
    window, console = tmp_path / "gpuwizardw.exe", tmp_path / "gpuwizard.exe"
    for program in (window, console):
        program.write_bytes(b"MZ")
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", str(window))
    assert console_program() == console
    console.unlink()
    assert console_program() == window  # no twin: the running one is all there is


@pytest.mark.parametrize(
    ("program", "cmd", "powershell"),
    [
        (r"C:\Tools\gpuwizard.exe", r"C:\Tools\gpuwizard.exe verify", r"C:\Tools\gpuwizard.exe verify"),
        (
            r"C:\Program Files\gpuwizard\gpuwizard.exe",
            r'"C:\Program Files\gpuwizard\gpuwizard.exe" verify',
            r"& 'C:\Program Files\gpuwizard\gpuwizard.exe' verify",
        ),
        (
            r"C:\Users\Ann O'Neil\AppData\Local\Programs\gpuwizard\gpuwizard.exe",
            r'"C:\Users\Ann O' "'" r'Neil\AppData\Local\Programs\gpuwizard\gpuwizard.exe" verify',
            r"& 'C:\Users\Ann O''Neil\AppData\Local\Programs\gpuwizard\gpuwizard.exe' verify",
        ),
    ],
)
def test_the_windows_spellings_for_cmd_and_powershell(program: str, cmd: str, powershell: str):
    wizard = WizardCommand.of(program, windows=True)
    line = wizard.line("verify")
    if cmd == powershell:
        assert line == cmd
    else:
        assert line == f"{cmd}   (cmd; in PowerShell: {powershell})"
