"""``gpuwizard apply`` as text: a line per stage, the environment's phases, the test's verdict, the result."""

from __future__ import annotations

from dataclasses import dataclass

from gpuwizard.cli.common import Write
from gpuwizard.core.envs.events import EnvPhase
from gpuwizard.core.events import Event, Wrapped, value_from_json
from gpuwizard.core.fleet.events import (
    ApplyResult,
    ApplyStage,
    DetectStage,
    EnvironmentKept,
    EnvironmentStage,
    LiveTestStage,
    PathStage,
    PlanStage,
    SourcesStage,
)
from gpuwizard.core.machine.conda_engines import CONDA_ENGINES, engine_title


class ApplyView:
    """A line per stage; the environment's phases and the test's verdict; the result last."""

    def __init__(self, write: Write) -> None:
        self.write = write

    def __call__(self, event: Event) -> None:
        """Show one event of the run.

        Of the nested steps only the environment's phases are shown: the test's own progress is
        not (its verdict arrives in the test stage).
        """
        match event:
            case Wrapped(source="environment", inner=EnvPhase() as phase):
                self.write(f"   {phase.phase}: {phase.message}\n")
            case SourcesStage():
                self.write(_sources_text(event))
            case ApplyStage():
                self.write(_stage_text(event))
            case ApplyResult():
                self.write(f"\n{_status_word(event.status)}: {event.message}\n")


def _stage_text(stage: ApplyStage) -> str:
    name, status = stage.stage, stage.status
    match stage:
        case DetectStage():
            return f"{name}: {stage.summary}\n"
        case PlanStage():
            lines = [f"plan: {stage.summary}", f"  {stage.headline}"]
            lines += [f"  - {change}".replace("\n", "\n  ") for change in stage.changes]
            return "\n".join(lines) + "\n"
        case PathStage():
            folders = ", ".join(stage.folders)
            detail = f"{stage.scope} PATH: {folders}" if folders else str(stage.note or "")
            return f"path ({status}): {detail}\n"
        case EnvironmentKept() | EnvironmentStage():
            where = stage.path or ""
            tool = stage.tool if isinstance(stage, EnvironmentStage) else None
            # Which engine makes it: said for conda environments, where it may be py-rattler inside the wizard.
            made_by = f", made by {engine_title(tool)}" if tool in CONDA_ENGINES else ""
            return f"environment {stage.name} ({status}{made_by}){': ' + where if where else ''}\n"
        case LiveTestStage():
            verdict = stage.facts.verdict if stage.facts is not None else None
            return f"test ({status}){': ' + verdict if verdict else ''}\n"
    return f"{name} ({status})\n"


def _status_word(status: str) -> str:
    return {
        "ok": "Done",
        "preview": "Preview",
        "problem": "Problem",
        "rolled_back": "Failed, rolled back",
        "cancelled": "Cancelled",
    }.get(status, status)


@dataclass(frozen=True)
class _Index:
    """What this view says of an index of the ``sources`` stage (its JSON: ``env create``'s)."""

    url: str = ""
    why: str = ""
    reached: bool = False
    failure: str | None = None


def _sources_text(stage: SourcesStage) -> str:
    """The package indexes asked before anything is made; the ways forward when one is unreachable."""
    lines = [f"sources ({stage.status}):"]
    for index in (value_from_json(_Index, item) for item in stage.sources.indexes):
        said = "answers" if index.reached else f"cannot be reached ({index.failure})"
        lines.append(f"  - {index.url} ({index.why}): {said}")
    python = stage.sources.python_download  # the Python build uv downloads (issue 37, point 6)
    if python is not None:
        answer = python.get("answer") or {}
        said = "answers" if python.get("reached") else f"cannot be reached ({answer.get('failure')})"
        lines.append(f"  - {python.get('url')} ({python.get('why')}): {said}")
    for finding in stage.sources.findings:
        lines += [f"  {finding.severity.upper()} {finding.message}", f"    -> {finding.hint}"]
    return "\n".join(lines) + "\n"
