"""``gpuwizard apply --answers FILE [--yes] [--json]``: unattended setup for fleets (DESIGN.md section 4).

Exit codes, for Ansible, Intune or SCCM: 0 set up and the live test passed (or, without
``--yes``, the preview was shown and nothing changed); 1 the check failed: the plan cannot use a
GPU though ``require_gpu`` is set, or the live test did not pass (the setup is kept for
diagnosis); 2 bad input: the answer file, or answers this machine cannot carry out (one line
on stderr, nothing changed); 3 a step failed part-way and what this run changed was undone;
130 cancelled during the live test (the setup is kept).
"""

from __future__ import annotations

import argparse
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpuwizard.env_cli import cancel_on_signals, json_lines

if TYPE_CHECKING:
    from gpuwizard.adapters.registry import EnvironmentStore
    from gpuwizard.core.system_report import SystemReport


class ApplyCliError(Exception):
    """Bad input for ``apply``: one line, exit code 2, nothing was changed."""


def add_apply_parser(commands: Any) -> None:  # noqa: ANN401 - argparse's private _SubParsersAction
    """Add ``apply`` to the command parser."""
    apply = commands.add_parser(
        "apply",
        help="unattended setup from an answer file (TOML or JSON): detect, plan, PATH, environment, test",
    )
    apply.add_argument(
        "--answers", required=True, metavar="FILE", type=Path, help="the answer file (.toml, or .json)"
    )
    apply.add_argument(
        "--yes",
        action="store_true",
        help="carry it out; without it, show what would be done and change nothing",
    )
    apply.add_argument("--json", action="store_true", help="stream JSON lines ending in one result event")
    apply.add_argument(
        "--system",
        dest="apply_system",
        metavar="FILE",
        type=Path,
        help="plan for a saved report instead of detecting this machine (to rehearse an answer file)",
    )
    apply.add_argument(
        "--registry",
        dest="apply_registry",
        metavar="FILE",
        type=Path,
        help="edit the PATH of a registry snapshot file instead of the live registry",
    )


def run_apply_command(args: argparse.Namespace, write: Callable[[str], None]) -> int:
    """Run ``gpuwizard apply``; returns the exit code.

    Raises:
        ApplyCliError: Bad input; nothing was changed.
        SystemFileError: The ``--system`` file is no system report (also bad input).
    """
    from gpuwizard.core.answers import AnswersError  # noqa: PLC0415
    from gpuwizard.workflow.answers_file import load_answers  # noqa: PLC0415
    from gpuwizard.workflow.unattended import ApplySteps, ApplyUsageError, apply_answers  # noqa: PLC0415

    try:
        answers = load_answers(args.answers)
    except AnswersError as error:
        raise ApplyCliError(str(error)) from None
    detect = _detector(args.apply_system)
    store = _path_store(args.apply_registry)
    show = json_lines(write) if args.json else _TextView(write)
    cancel = threading.Event()
    try:
        with cancel_on_signals(cancel):
            result = apply_answers(
                answers,
                confirmed=args.yes,
                steps=ApplySteps(detect=detect),
                path_store=store,
                on_event=show,
                cancel=cancel,
            )
    except ApplyUsageError as error:
        raise ApplyCliError(str(error)) from None
    return int(result["exit_code"])


def _detector(system_file: Path | None) -> Callable[[], SystemReport]:
    if system_file is None:
        from gpuwizard.workflow.detect import detect_system  # noqa: PLC0415

        return detect_system
    from gpuwizard.workflow.system_file import load_system_report  # noqa: PLC0415

    saved = load_system_report(system_file)  # before anything else: a bad file is bad input
    return lambda: saved


def _path_store(registry: Path | None) -> EnvironmentStore | None:
    from gpuwizard.workflow.path_changes import PathChangeError  # noqa: PLC0415
    from gpuwizard.workflow.path_machine import store_if_any  # noqa: PLC0415

    try:
        return store_if_any(registry)
    except PathChangeError as error:
        raise ApplyCliError(str(error)) from None


class _TextView:
    """A line per stage; the environment's phases and the test's verdict; the result last."""

    def __init__(self, write: Callable[[str], None]) -> None:
        self.write = write

    def __call__(self, event: dict[str, Any]) -> None:
        source = event.get("source")
        if source == "environment":
            if event.get("event") == "phase":
                self.write(f"   {event['phase']}: {event['message']}\n")
            return
        if source is not None:
            return  # the test's own progress; its verdict arrives in the test step
        if event.get("event") == "stage":
            self.write(_stage_text(event))
        elif event.get("event") == "result":
            self.write(f"\n{_status_word(event['status'])}: {event['message']}\n")


def _stage_text(stage: dict[str, Any]) -> str:
    name, status = stage["stage"], stage["status"]
    if name in ("detect", "plan"):
        return f"{name}: {stage.get('summary', '')}\n"
    if name == "path":
        folders = ", ".join(stage.get("folders") or [])
        detail = f"{stage.get('scope')} PATH: {folders}" if folders else str(stage.get("note", ""))
        return f"path ({status}): {detail}\n"
    if name == "environment":
        where = stage.get("path") or ""
        return f"environment {stage.get('name', '')} ({status}){': ' + where if where else ''}\n"
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
