r"""How to activate an environment the wizard made, in the shells people use.

A venv has ``bin/activate`` (bash, zsh), ``bin/activate.fish`` and ``bin/activate.csh`` on
POSIX, and ``Scripts\activate.bat`` (cmd) and ``Scripts\Activate.ps1`` (PowerShell) on Windows
(docs.python.org, venv, "How venvs work"); a conda environment made with ``-p PREFIX`` is
activated by its path (docs.conda.io, "Activating an environment").

>>> activation_commands("venv", "/home/ana/envs/gpu", windows=False)[0]
('bash, zsh', 'source /home/ana/envs/gpu/bin/activate')
>>> activation_commands("venv", "C:\\Users\\Ana Li\\envs\\gpu", windows=True)[0]
('cmd', '"C:\\Users\\Ana Li\\envs\\gpu\\Scripts\\activate.bat"')
"""

from __future__ import annotations

import shlex


def _windows_quoted(path: str) -> str:
    return f'"{path}"' if any(char in path for char in " &()^;,") else path


def activation_commands(manager: str, path: str, *, windows: bool) -> list[tuple[str, str]]:
    """``(shells, command)`` pairs that activate the environment at ``path``, the usual one first."""
    if manager == "conda":
        target = _windows_quoted(path) if windows else shlex.quote(path)
        return [("conda", f"conda activate {target}")]
    if windows:
        scripts = path.rstrip("\\/") + "\\Scripts\\"
        return [
            ("cmd", _windows_quoted(scripts + "activate.bat")),
            ("PowerShell", "& " + _windows_quoted(scripts + "Activate.ps1")),
        ]
    folder = path.rstrip("/") + "/bin/"
    return [
        ("bash, zsh", f"source {shlex.quote(folder + 'activate')}"),
        ("fish", f"source {shlex.quote(folder + 'activate.fish')}"),
        ("csh", f"source {shlex.quote(folder + 'activate.csh')}"),
    ]
