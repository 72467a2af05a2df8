"""``env create`` and ``env list`` as text: phases and the tool's own lines, then the result."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import Any

from gpuwizard.cli.common import Write
from gpuwizard.core.envs.activation import activation_commands
from gpuwizard.core.envs.events import EnvLog, EnvPhase, EnvResult
from gpuwizard.core.events import Event
from gpuwizard.core.wizard_command import BY_NAME, WizardCommand


class EnvCreateText:
    """Readable progress: phases and the tool's own lines, indented; the result last."""

    def __init__(self, write: Write) -> None:
        self.write = write

    def __call__(self, event: Event) -> None:
        """Show one event of the creation (progress records are for screens and ``--json``)."""
        if isinstance(event, EnvPhase):
            self.write(f"== {event.phase}: {event.message}\n")
        elif isinstance(event, EnvLog):
            self.write(f"   {event.line}\n")
        elif isinstance(event, EnvResult):
            self.write(result_text(event))


def result_text(result: EnvResult) -> str:
    """The environment made (how to use it), or why not."""
    if not result.ok:
        log = f" Full log: {result.log}" if result.log else ""
        return f"\nNot created ({result.status}): {result.error or ''}\nEverything made was removed.{log}\n"
    activate = activation_commands(
        "venv" if result.manager == "wsl" else result.manager or "venv",
        str(result.path),
        # A WSL environment is a Linux venv, activated in its distribution's bash.
        windows=sys.platform == "win32" and result.manager != "wsl",
        tool=result.tool,
    )[0][1]
    lines = [
        f"\nReady: {result.name} with framework {result.framework_version} ({result.seconds} s).",
        f"  activate:   {activate}",
        f"  interpreter (VS Code 'Python: Select Interpreter', PyCharm): {result.python}",
    ]
    if result.jupyter_kernel:
        lines.append(f"  Jupyter kernel: {result.jupyter_kernel}")
    lines.append(f"  full log: {result.log}")
    return "\n".join(lines) + "\n"


def environment_lines(environments: Sequence[Mapping[str, Any]], wizard: WizardCommand = BY_NAME) -> str:
    """``env list``: a line per environment and its interpreter (``wizard``: as the person starts it here)."""
    if not environments:
        create = wizard.line("env create NAME --framework F")
        return f"No environments made by the wizard yet (create one with `{create}`).\n"
    lines = []
    for env in environments:
        missing = "  (folder missing)" if env["exists"] is False else ""
        inside = f"  in WSL: {env['distro']}" if env.get("manager") == "wsl" and env.get("distro") else ""
        lines.append(
            f"{env['name']}  {env['framework']} {env['framework_version']}  "
            f"{env['manager']}/{env['tool']}{inside}{missing}"
        )
        lines.append(f"    python: {env['python']}")
    return "\n".join(lines) + "\n"


def wsl_usage_text(distro: str, env_path: str) -> str:
    """How to use an environment made inside WSL 2 from Windows' tools (issue 39, point 4)."""
    from gpuwizard.core.envs.wsl_usage import wsl_usage  # noqa: PLC0415

    where = {"windows": "in PowerShell or cmd", "distro": f"in {distro}'s shell"}
    lines = ["", "Using it from Windows:"]
    for way in wsl_usage(distro, env_path):
        lines.append(f"  {way.title}")
        if way.command:
            lines.append(f"    {where[way.where]}: {way.command}")
        if way.then:
            lines.append(f"    {way.then}")
    return "\n".join(lines) + "\n"
