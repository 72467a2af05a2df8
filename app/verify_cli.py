"""``gpuwizard verify``: what drifted since the last good state (DESIGN.md section 4).

Re-runs detection, probes every environment the wizard made, runs a short live test in each,
checks the PATH folders the wizard added, and compares it all with the last good state
(``GPUWIZARD_HOME/last-good.json``). A healthy run records a new last good state.

Exit codes: 0 healthy (changes such as an upgraded driver are fine); 1 something is broken;
2 bad input (one line on stderr); 130 cancelled (Ctrl+C, SIGTERM).
"""

from __future__ import annotations

import argparse
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from gpuwizard.env_cli import cancel_on_signals, json_lines

if TYPE_CHECKING:
    from gpuwizard.adapters.registry import EnvironmentStore
    from gpuwizard.core.system_report import SystemReport

EXIT_OK: Final = 0
EXIT_PROBLEM: Final = 1
EXIT_CANCELLED: Final = 130


class VerifyCliError(Exception):
    """Bad input for ``verify``: one line, exit code 2, nothing was run."""


def add_verify_parser(commands: Any) -> None:  # noqa: ANN401 - argparse's private _SubParsersAction
    """Add ``verify`` to the command parser."""
    verify = commands.add_parser(
        "verify", help="compare with the last good state: what drifted since (exit 1 if broken)"
    )
    verify.add_argument(
        "--env",
        dest="verify_envs",
        metavar="NAME",
        action="append",
        help="check only this environment (repeat for more; default: every one the wizard made)",
    )
    verify.add_argument("--no-test", action="store_true", help="skip the short live test")
    verify.add_argument("--no-record", action="store_true", help="do not record a healthy result")
    verify.add_argument(
        "--system",
        dest="verify_system",
        metavar="FILE",
        type=Path,
        help="use a saved system report instead of detecting this machine (tests, support)",
    )
    verify.add_argument(
        "--registry",
        dest="verify_registry",
        metavar="FILE",
        type=Path,
        help="check the PATH of a registry snapshot file instead of the live registry",
    )
    verify.add_argument("--json", action="store_true", help="stream JSON lines ending in one result event")


def run_verify_command(args: argparse.Namespace, write: Callable[[str], None]) -> int:
    """Run ``gpuwizard verify``; returns the exit code.

    Raises:
        VerifyCliError: Bad input; nothing was run.
        SystemFileError: The ``--system`` file is no system report (also bad input).
    """
    from gpuwizard.adapters.runner import StreamingSubprocessRunner  # noqa: PLC0415
    from gpuwizard.workflow.system_file import load_system_report  # noqa: PLC0415
    from gpuwizard.workflow.verify import VerifyCancelled, VerifyUsageError, verify_setup  # noqa: PLC0415

    report = load_system_report(args.verify_system) if args.verify_system is not None else None
    store = _path_store(args.verify_registry)
    if report is None:
        from gpuwizard.workflow.detect import detect_system  # noqa: PLC0415

        detect: Callable[[], SystemReport] = detect_system
    else:
        saved = report

        def detect() -> SystemReport:
            return saved

    show = json_lines(write) if args.json else _TextView(write)
    cancel = threading.Event()
    try:
        with cancel_on_signals(cancel):
            health = verify_setup(
                detect=detect,
                runner=StreamingSubprocessRunner(),
                on_event=show,
                cancel=cancel,
                path_store=store,
                short_test=not args.no_test,
                record=not args.no_record,
                env_names=args.verify_envs,
            )
    except VerifyUsageError as error:
        raise VerifyCliError(str(error)) from None
    except VerifyCancelled:
        return EXIT_CANCELLED
    return EXIT_OK if health.healthy else EXIT_PROBLEM


def _path_store(registry: Path | None) -> EnvironmentStore | None:
    from gpuwizard.workflow.path_changes import PathChangeError  # noqa: PLC0415
    from gpuwizard.workflow.path_machine import store_if_any  # noqa: PLC0415

    try:
        return store_if_any(registry)
    except PathChangeError as error:
        raise VerifyCliError(str(error)) from None


_LABELS: Final = {"ok": "ok", "changed": "changed", "broken": "BROKEN", "skipped": "skipped"}


class _TextView:
    """A line per check; for what drifted, before -> after, what happened and the fix."""

    def __init__(self, write: Callable[[str], None]) -> None:
        self.write = write

    def __call__(self, event: dict[str, Any]) -> None:
        if event.get("source") == "test":
            return  # the short test's own progress; its verdict arrives as the test check
        kind = event.get("event")
        if kind == "phase":
            if event.get("phase") == "environment":
                self.write(f"{event['subject']}:\n")
            elif event.get("phase") == "test":
                self.write("  (running a short live test...)\n")
            elif event.get("phase") == "path":
                self.write("PATH:\n")
        elif kind == "check":
            self.write(_check_text(event))
        elif kind == "result":
            self.write(_result_text(event))


def _check_text(check: dict[str, Any]) -> str:
    status = str(check["status"])
    before, after = check.get("before"), check.get("after")
    if status in ("changed", "broken") and before != after:
        value = f"{before or 'none'} -> {after or 'none'}"
    elif status == "skipped":
        value = f"({check.get('note') or 'skipped'})"
    else:
        value = str(after or before or (f"({check['note']})" if check.get("note") else ""))
    lines = [f"  {_LABELS[status]:<8} {check['check_id']}  {value}".rstrip()]
    finding = check.get("finding")
    if finding:
        lines.append(f"           {finding['message']}")
        prefix = "fix: " if status == "broken" else ""
        lines.append(f"           {prefix}{finding['hint']}")
    return "\n".join(lines) + "\n"


def _result_text(result: dict[str, Any]) -> str:
    counts = result.get("counts") or {}
    since = result.get("snapshot_recorded")
    compared = (
        f"Compared with the last good state of {since}."
        if since
        else "No last good state yet: environments were compared with how they were made."
    )
    if result.get("status") == "cancelled":
        return f"\n{compared}\nCancelled: not every check ran, and nothing was recorded.\n"
    if result.get("healthy"):
        changed = counts.get("changed", 0)
        verdict = "Healthy: nothing is broken" + (f" ({changed} changed)." if changed else ".")
    else:
        broken = counts.get("broken", 0)
        failed = "1 check failed; fix it" if broken == 1 else f"{broken} checks failed; fix them"
        verdict = f"Broken: {failed}, then run `gpuwizard verify` again."
    lines = [f"\n{compared}", verdict]
    if result.get("saved"):
        lines.append(f"Recorded as the last good state: {result['saved']}")
    return "\n".join(lines) + "\n"
