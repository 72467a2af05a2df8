"""Using an environment the wizard made inside a WSL 2 distribution, from the tools Windows users have.

Each way comes with the command that opens it, written for where it runs: ``windows`` (cmd and
PowerShell alike: no quoting differs for these words) or ``distro`` (the distribution's bash).
The sources of each way:

- the distribution's shell and running a program in it from Windows: Microsoft, "Basic commands
  for WSL" (``wsl --distribution NAME``; ``wsl [Argument]`` runs a Linux binary from the
  Windows command line, in the current folder as WSL mounts it);
- VS Code: "Developing in WSL" (code.visualstudio.com/docs/remote/wsl): the WSL extension
  (``ms-vscode-remote.remote-wsl``) and ``code --remote wsl+DISTRO PATH``; the interpreter is then
  chosen with "Python: Select Interpreter";
- Jupyter in the Windows browser: WSL 2 forwards ``localhost`` to Windows (Microsoft,
  "Accessing network applications with WSL"), so the URL Jupyter prints opens there;
- PyCharm: "Configure an interpreter using WSL" (jetbrains.com/help/pycharm/using-wsl-as-a-remote-interpreter.html):
  Add Interpreter, On WSL, the distribution, then the environment's ``bin/python``.

>>> ways = wsl_usage("Ubuntu-24.04", "/home/zoe/.local/share/gpuwizard/envs/tf")
>>> [(way.where, way.command) for way in ways][:2]
[('windows', 'wsl -d Ubuntu-24.04 --cd "~"'), ('distro', 'source /home/zoe/.local/share/gpuwizard/envs/tf/bin/activate')]
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from posixpath import dirname

from gpuwizard.core.texts import QT_TRANSLATE_NOOP, TranslatableText

_CONTEXT = "usage"


@dataclass(frozen=True)
class WslUsageWay:
    """One way to use the environment.

    Attributes:
        title: What it is, for people (translated in the ``usage`` context).
        where: ``windows`` (cmd or PowerShell) or ``distro`` (the distribution's bash).
        command: The command to run there, as printed; None when the way is a few clicks.
        then: What to do after (the clicks), or None.
    """

    title: TranslatableText
    where: str
    command: str | None
    then: TranslatableText | None = None


def _said(template: str, **params: object) -> TranslatableText:
    return TranslatableText(_CONTEXT, template, **params)


def _windows_word(text: str) -> str:
    """A word cmd and PowerShell both take as it is, or double-quoted when it holds a space."""
    return f'"{text}"' if any(char in text for char in " &()^;,'") else text


def wsl_usage(distro: str, env_path: str, *, home_uv: str | None = None) -> list[WslUsageWay]:
    """The ways to use the environment at ``env_path`` (a Linux path) inside ``distro``.

    ``home_uv``: the uv the wizard put in the distribution (for adding Jupyter); None: the
    environment's own folder's sibling ``../../bin/uv`` (the wizard's layout).
    """
    python = env_path.rstrip("/") + "/bin/python"
    uv = home_uv or dirname(dirname(env_path.rstrip("/"))) + "/bin/uv"
    # The person's Linux home: where the wizard's folder (``~/.local/share/gpuwizard``) is.
    marker = "/.local/share/"
    project = env_path[: env_path.index(marker)] if marker in env_path else "~"
    return [
        WslUsageWay(
            _said(QT_TRANSLATE_NOOP("usage", "Open {distro}'s shell from Windows"), distro=distro),
            "windows",
            f'wsl -d {distro} --cd "~"',
        ),
        WslUsageWay(
            _said(QT_TRANSLATE_NOOP("usage", "Activate the environment in that shell")),
            "distro",
            f"source {shlex.quote(env_path.rstrip('/') + '/bin/activate')}",
        ),
        WslUsageWay(
            _said(
                QT_TRANSLATE_NOOP(
                    "usage", "Run a script of the current Windows folder with the environment's Python"
                )
            ),
            "windows",
            f"wsl -d {distro} -- {_windows_word(python)} train.py",
        ),
        WslUsageWay(
            _said(
                QT_TRANSLATE_NOOP("usage", "VS Code (with its WSL extension, ms-vscode-remote.remote-wsl)")
            ),
            "windows",
            f"code --remote wsl+{distro} {_windows_word(project)}",
            _said(
                QT_TRANSLATE_NOOP("usage", "Then run 'Python: Select Interpreter' and enter {python}."),
                python=python,
            ),
        ),
        WslUsageWay(
            _said(QT_TRANSLATE_NOOP("usage", "Jupyter, opened in the Windows browser")),
            "distro",
            f"{shlex.quote(uv)} pip install --python {shlex.quote(python)} jupyterlab && "
            f"{shlex.quote(env_path.rstrip('/') + '/bin/jupyter')} lab --no-browser",
            _said(
                QT_TRANSLATE_NOOP(
                    "usage",
                    "Then open the http://localhost:8888/... address it prints in the Windows browser: "
                    "WSL 2 passes localhost through.",
                )
            ),
        ),
        WslUsageWay(
            _said(QT_TRANSLATE_NOOP("usage", "PyCharm")),
            "windows",
            None,
            _said(
                QT_TRANSLATE_NOOP(
                    "usage",
                    "Settings, Python Interpreter, Add Interpreter, On WSL: choose {distro}, then "
                    "the existing interpreter {python}.",
                ),
                distro=distro,
                python=python,
            ),
        ),
    ]
