"""``gpuwizard apply --answers FILE [--yes] [--json]``: unattended setup for fleets.

Exit codes, for Ansible, Intune or SCCM: 0 set up and the live test passed (or, without
``--yes``, the preview was shown and nothing changed); 1 the check failed: the plan cannot use a
GPU though ``require_gpu`` is set, or the live test did not pass (the setup is kept for
diagnosis); 2 bad input: the answer file, or answers this machine cannot carry out (one line
on stderr, nothing changed); 3 a step failed part-way and what this run changed was undone;
130 cancelled during the live test (the setup is kept). The run says how it ended
(:class:`~gpuwizard.core.fleet.events.ApplyResult`); :func:`exit_code` is the one place that
turns that into the number, which ``--json`` writes into the result.
"""

from __future__ import annotations

import argparse
import threading
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from gpuwizard.cli import common

if TYPE_CHECKING:
    from gpuwizard.core.events import Event
    from gpuwizard.core.fleet.events import ApplyResult


def add_parser(commands: common.Subcommands) -> None:
    """Add ``apply``."""
    apply = commands.add_parser(
        "apply",
        help="unattended setup from an answer file (TOML or JSON)",
        description="Set a machine up unattended from an answer file, as the wizard would: detect, "
        "plan, PATH, environment and live test. Without --yes it only shows what it would do.",
        epilog=common.examples(
            "gpuwizard apply --answers lab.toml",
            "gpuwizard apply --answers lab.toml --yes --json",
            "gpuwizard apply --answers lab.toml --system node.json   # rehearse it",
        ),
    )
    apply.add_argument(
        "--answers", required=True, metavar="FILE", type=Path, help="the answer file (.toml, or .json)"
    )
    apply.add_argument(
        "--yes",
        action="store_true",
        help="carry it out; without it, show what would be done and change nothing",
    )
    common.add_json_option(apply, "stream JSON lines ending in one result event")
    common.add_system_option(
        apply,
        "apply_system",
        "plan for a saved report instead of detecting this machine (to rehearse an answer file)",
    )
    common.add_registry_option(
        apply, "apply_registry", "edit the PATH of a registry snapshot file instead of the live registry"
    )


def run(args: argparse.Namespace, write: common.Write) -> int:
    """Run ``gpuwizard apply``; returns the exit code."""
    from gpuwizard.cli.text.apply import ApplyView  # noqa: PLC0415
    from gpuwizard.core.fleet.answers import AnswersError  # noqa: PLC0415
    from gpuwizard.workflow.fleet.answers_file import load_answers  # noqa: PLC0415
    from gpuwizard.workflow.fleet.apply import ApplySteps, ApplyUsageError, apply_answers  # noqa: PLC0415

    with common.bad_input(AnswersError):
        answers = load_answers(args.answers)
    detect = common.detector(args.apply_system)  # before anything else: a bad file is bad input
    store = common.path_store(args.apply_registry)
    show = common.json_lines(write) if args.json else ApplyView(write)
    cancel = threading.Event()
    with common.cancel_on_signals(cancel), common.bad_input(ApplyUsageError):
        result = apply_answers(
            answers,
            confirmed=args.yes,
            steps=ApplySteps(detect=detect),
            path_store=store,
            on_event=lambda event: show(with_exit_code(event)),
            cancel=cancel,
        )
    return exit_code(result)


def exit_code(result: ApplyResult) -> int:
    """The exit code that stands for how the run ended (see the module's docstring)."""
    if result.rolled_back or result.status == "rolled_back":
        # A step failed or was cancelled part-way and what this run changed was undone.
        return common.EXIT_ROLLED_BACK
    if result.status in ("ok", "preview"):
        return common.EXIT_OK
    if result.status == "cancelled":
        return common.EXIT_CANCELLED
    return common.EXIT_PROBLEM


def with_exit_code(event: Event) -> Event:
    """``event``, and the result with the exit code it stands for: the ``exit_code`` of ``--json``."""
    from gpuwizard.core.fleet.events import ApplyResult  # noqa: PLC0415

    return replace(event, exit_code=exit_code(event)) if isinstance(event, ApplyResult) else event
