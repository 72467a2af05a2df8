"""``env create`` and ``env list`` as text: phases and the tool's own lines, then the result."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import Any

from gpuwizard.cli.common import Write
from gpuwizard.core.envs.activation import activation_commands


class EnvProgress:
    """Readable progress: phases and the tool's own lines, indented; the result last."""

    def __init__(self, write: Write) -> None:
        self.write = write

    def __call__(self, event: Mapping[str, Any]) -> None:
        """Show one event of the creation."""
        kind = event.get("event")
        if kind == "phase":
            self.write(f"== {event['phase']}: {event['message']}\n")
        elif kind == "log":
            self.write(f"   {event['line']}\n")
        elif kind == "result":
            self.write(result_text(event))


def result_text(event: Mapping[str, Any]) -> str:
    """The environment made (how to use it), or why not."""
    if event["status"] != "ok":
        log = f" Full log: {event['log']}" if event.get("log") else ""
        return f"\nNot created ({event['status']}): {event.get('error', '')}\nEverything made was removed.{log}\n"
    python = event["python"]
    activate = activation_commands(
        str(event.get("manager") or "venv"),
        str(event["path"]),
        windows=sys.platform == "win32",
        tool=event.get("tool"),
    )[0][1]
    lines = [
        f"\nReady: {event['name']} with framework {event['framework_version']} ({event['seconds']} s).",
        f"  activate:   {activate}",
        f"  interpreter (VS Code 'Python: Select Interpreter', PyCharm): {python}",
    ]
    if event.get("jupyter_kernel"):
        lines.append(f"  Jupyter kernel: {event['jupyter_kernel']}")
    lines.append(f"  full log: {event['log']}")
    return "\n".join(lines) + "\n"


def environment_lines(environments: Sequence[Mapping[str, Any]]) -> str:
    """``env list``: a line per environment and its interpreter."""
    if not environments:
        return "No environments made by the wizard yet (create one with `gpuwizard env create NAME --framework F`).\n"
    lines = []
    for env in environments:
        missing = "" if env["exists"] else "  (folder missing)"
        lines.append(
            f"{env['name']}  {env['framework']} {env['framework_version']}  {env['manager']}/{env['tool']}{missing}"
        )
        lines.append(f"    python: {env['python']}")
    return "\n".join(lines) + "\n"
