"""``gpuwizard apply`` as text: a line per stage, the environment's phases, the test's verdict, the result."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpuwizard.cli.common import Write
from gpuwizard.core.machine.conda_engines import CONDA_ENGINES, engine_title


class ApplyView:
    """A line per stage; the environment's phases and the test's verdict; the result last."""

    def __init__(self, write: Write) -> None:
        self.write = write

    def __call__(self, event: Mapping[str, Any]) -> None:
        """Show one event of the run."""
        source = event.get("source")
        if source == "environment":
            if event.get("event") == "phase":
                self.write(f"   {event['phase']}: {event['message']}\n")
            return
        if source is not None:
            return  # the test's own progress; its verdict arrives in the test step
        if event.get("event") == "stage":
            self.write(_sources_text(event) if event.get("stage") == "sources" else _stage_text(event))
        elif event.get("event") == "result":
            self.write(f"\n{_status_word(event['status'])}: {event['message']}\n")


def _stage_text(stage: Mapping[str, Any]) -> str:
    name, status = stage["stage"], stage["status"]
    if name == "detect":
        return f"{name}: {stage.get('summary', '')}\n"
    if name == "plan":
        lines = [f"plan: {stage.get('summary', '')}", f"  {stage.get('headline', '')}"]
        lines += [f"  - {change}".replace("\n", "\n  ") for change in stage.get("changes") or []]
        return "\n".join(lines) + "\n"
    if name == "path":
        folders = ", ".join(stage.get("folders") or [])
        detail = f"{stage.get('scope')} PATH: {folders}" if folders else str(stage.get("note", ""))
        return f"path ({status}): {detail}\n"
    if name == "environment":
        where = stage.get("path") or ""
        tool = stage.get("tool")
        # Which engine makes it: said for conda environments, where it may be py-rattler inside the wizard.
        made_by = f", made by {engine_title(tool)}" if tool in CONDA_ENGINES else ""
        return f"environment {stage.get('name', '')} ({status}{made_by}){': ' + where if where else ''}\n"
    if name == "test":
        verdict = stage.get("verdict")
        return f"test ({status}){': ' + str(verdict) if verdict else ''}\n"
    return f"{name} ({status})\n"


def _status_word(status: str) -> str:
    return {
        "ok": "Done",
        "preview": "Preview",
        "problem": "Problem",
        "rolled_back": "Failed, rolled back",
        "cancelled": "Cancelled",
    }.get(status, status)


def _sources_text(stage: Mapping[str, Any]) -> str:
    """The package indexes asked before anything is made; the ways forward when one is unreachable."""
    lines = [f"sources ({stage['status']}):"]
    for index in stage.get("indexes") or []:
        said = "answers" if index.get("reached") else f"cannot be reached ({index.get('failure')})"
        lines.append(f"  - {index.get('url')} ({index.get('why')}): {said}")
    for finding in stage.get("findings") or []:
        lines += [
            f"  {str(finding.get('severity', '')).upper()} {finding.get('message', '')}",
            f"    -> {finding.get('hint', '')}",
        ]
    return "\n".join(lines) + "\n"
