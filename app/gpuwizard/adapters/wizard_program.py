r"""Which command starts this wizard from the person's shell (issue 37, point 2).

Advice must name a command that runs here. The answer is ``gpuwizard`` when the ``gpuwizard``
that PATH finds first is this very program; otherwise the full path of this program's command
line, quoted for the shell (``core/wizard_command.py``):

- a PyInstaller build: ``gpuwizard.exe`` in the folder of the running executable (the window
  runs as ``gpuwizardw.exe``, which prints nothing; its console twin is beside it);
- an installed package (a venv, a user install): the ``gpuwizard`` script that installation
  made: the one this process was started as, else the one beside the interpreter or in its
  scripts folder;
- neither (``python -m gpuwizard`` from a source tree): ``"<python>" -m gpuwizard``.

"The same program" is the same file (:meth:`pathlib.Path.samefile`, which follows links: pipx and
``~/.local/bin`` link to a venv's script). A ``gpuwizard`` on PATH that is another installation
is not this one, and naming it would run other code.
"""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from pathlib import Path

from gpuwizard.adapters.executables import find_executable
from gpuwizard.core.wizard_command import WIZARD_NAME, WizardCommand

#: The name of the windowed build's executable (PyInstaller ``console=False``); its console twin is ``gpuwizard``.
_WINDOWED_NAME = "gpuwizardw"


def wizard_command(*, path: str | None = None, windows: bool | None = None) -> WizardCommand:
    """How the person starts this wizard's command line from a shell here.

    Args:
        path: The PATH to search (default: this process's, which the person's shell shares).
        windows: Write for cmd and PowerShell (default: when running on Windows).
    """
    windows = os.name == "nt" if windows is None else windows
    search = os.environ.get("PATH", os.defpath) if path is None else path
    program = console_program()
    if program is None:
        # A source tree or an installation without the script: this interpreter runs the package.
        return WizardCommand.of(sys.executable, "-m", WIZARD_NAME, windows=windows)
    found = shutil.which(WIZARD_NAME, path=search)
    if found is not None and _same_file(Path(found), program):
        return WizardCommand(windows=windows)
    return WizardCommand.of(str(program), windows=windows)


def console_program() -> Path | None:
    """The file that starts this wizard's command line, or None when only ``python -m`` does."""
    windows = os.name == "nt"
    if getattr(sys, "frozen", False):
        running = Path(sys.executable)
        twin = running.with_name(WIZARD_NAME + running.suffix)
        if running.stem.lower() == _WINDOWED_NAME and twin.is_file():
            return twin
        return running
    started = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if started is not None and started.stem.lower() == WIZARD_NAME and started.is_file():
        return started.absolute()
    folders = [Path(sys.executable).parent, Path(sysconfig.get_path("scripts"))]
    return find_executable(WIZARD_NAME, dict.fromkeys(folders), windows=windows)


def _same_file(first: Path, second: Path) -> bool:
    try:
        return first.samefile(second)
    except OSError:
        return False
