r"""How to activate an environment the wizard made, in the shells people use.

A venv has ``bin/activate`` (bash, zsh), ``bin/activate.fish`` and ``bin/activate.csh`` on
POSIX, and ``Scripts\activate.bat`` (cmd) and ``Scripts\Activate.ps1`` (PowerShell) on Windows
(docs.python.org, venv, "How venvs work"); a conda environment made with ``-p PREFIX`` is
activated by its path (docs.conda.io, "Activating an environment"). One made by py-rattler
(tool ``rattler``) belongs to someone who may have no conda: the wizard writes venv-style
scripts into it (``gpuwizard.adapters.envs.conda_activation``), and those are named instead.

>>> activation_commands("venv", "/home/ana/envs/gpu", windows=False)[0]
('bash, zsh', 'source /home/ana/envs/gpu/bin/activate')
>>> activation_commands("venv", "C:\\Users\\Ana Li\\envs\\gpu", windows=True)[0]
('cmd', '"C:\\Users\\Ana Li\\envs\\gpu\\Scripts\\activate.bat"')
>>> activation_commands("conda", "/home/ana/envs/gpu", windows=False)
[('conda', 'conda activate /home/ana/envs/gpu')]
>>> activation_commands("conda", "/home/ana/my envs/gpu", windows=False, tool="rattler")
[('bash, zsh', "source '/home/ana/my envs/gpu/bin/activate'"), ('fish', "source '/home/ana/my envs/gpu/bin/activate.fish'")]
>>> activation_commands("conda", "C:\\envs\\gpu", windows=True, tool="rattler")[1]
('PowerShell', '& C:\\envs\\gpu\\Scripts\\Activate.ps1')
"""

from __future__ import annotations

import shlex

from gpuwizard.core.machine.conda_engines import RATTLER_ENGINE


def _windows_quoted(path: str) -> str:
    return f'"{path}"' if any(char in path for char in " &()^;,") else path


def activation_commands(
    manager: str, path: str, *, windows: bool, tool: str | None = None
) -> list[tuple[str, str]]:
    """``(shells, command)`` pairs that activate the environment at ``path``, the usual one first.

    ``tool``: what made it (``EnvRecord.tool``); None when not known. A conda environment made
    by py-rattler (``rattler``) is activated by its own scripts, as a venv is.
    """
    if manager == "conda" and tool != RATTLER_ENGINE:
        target = _windows_quoted(path) if windows else shlex.quote(path)
        return [("conda", f"conda activate {target}")]
    if windows:
        scripts = path.rstrip("\\/") + "\\Scripts\\"
        return [
            ("cmd", _windows_quoted(scripts + "activate.bat")),
            ("PowerShell", "& " + _windows_quoted(scripts + "Activate.ps1")),
        ]
    folder = path.rstrip("/") + "/bin/"
    commands = [
        ("bash, zsh", f"source {shlex.quote(folder + 'activate')}"),
        ("fish", f"source {shlex.quote(folder + 'activate.fish')}"),
        ("csh", f"source {shlex.quote(folder + 'activate.csh')}"),
    ]
    # The conda environment's scripts (conda_activation) have no csh one.
    return commands[:2] if manager == "conda" else commands
