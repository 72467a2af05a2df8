"""``gpuwizard report --out FILE.(html|md|json)``: a support report to share (DESIGN.md section 4).

Detection, PATH (per scope, with its registry type, and the PATH journal), the environments the
wizard made with what their interpreters report now and their packages, the last good state,
the most recent live tests with their findings; GPU UUIDs, serial numbers, the user name, the
home folder and the computer's name are redacted before anything is written. The format comes
from the suffix: ``.html``/``.htm`` (one self-contained page), ``.md`` (GitHub-flavoured
Markdown), ``.json`` (schema ``gpuwizard.support/1``).

Exit codes: 0 written; 2 bad input (one line on stderr, nothing written); 130 cancelled.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from gpuwizard.env_cli import cancel_on_signals

if TYPE_CHECKING:
    from gpuwizard.adapters.registry import EnvironmentStore

EXIT_OK: Final = 0
EXIT_CANCELLED: Final = 130
_KIND_WORDS: Final = {
    "gpu_uuid": "GPU UUID",
    "serial_number": "serial number",
    "home_folder": "home-folder path",
    "user_name": "user name",
    "host_name": "computer name",
    "url_credentials": "URL login",
}


class ReportCliError(Exception):
    """Bad input for ``report``: one line, exit code 2, nothing written."""


def add_report_parser(commands: Any) -> None:  # noqa: ANN401 - argparse's private _SubParsersAction
    """Add ``report`` to the command parser."""
    report = commands.add_parser(
        "report", help="write a support report to share (HTML, Markdown or JSON; identities redacted)"
    )
    report.add_argument(
        "--out",
        dest="report_out",
        metavar="FILE",
        type=Path,
        required=True,
        help="the file to write: .html (one page), .md (GitHub Markdown) or .json (gpuwizard.support/1)",
    )
    report.add_argument(
        "--system",
        dest="report_system",
        metavar="FILE",
        type=Path,
        help="use a saved system report (detect --json) instead of detecting this machine",
    )
    report.add_argument(
        "--registry",
        dest="report_registry",
        metavar="FILE",
        type=Path,
        help="show the PATH of a registry snapshot file instead of the live registry",
    )
    report.add_argument("--no-probe", action="store_true", help="do not run the environments' interpreters")


def run_report_command(args: argparse.Namespace, write: Callable[[str], None]) -> int:
    """Run ``gpuwizard report``; returns the exit code.

    Raises:
        ReportCliError: Bad input; nothing was written.
        SystemFileError: The ``--system`` file is no system report (also bad input).
    """
    out: Path = args.report_out
    fmt = _format_of(out)
    from gpuwizard.workflow.system_file import load_system_report  # noqa: PLC0415

    report = load_system_report(args.report_system) if args.report_system is not None else None
    store = _path_store(args.report_registry)

    from gpuwizard.adapters.runner import StreamingSubprocessRunner  # noqa: PLC0415
    from gpuwizard.workflow.support_bundle import SupportCancelled, write_support_report  # noqa: PLC0415

    if report is None:
        from gpuwizard.workflow.detect import detect_system  # noqa: PLC0415

        report = detect_system()
    cancel = threading.Event()
    try:
        with cancel_on_signals(cancel):
            redacted = write_support_report(
                out,
                fmt,
                report=report,
                system_source="detected" if args.report_system is None else "file",
                path_store=store,
                runner=None if args.no_probe else StreamingSubprocessRunner(),
                cancel=cancel,
                on_progress=lambda line: print(f"gpuwizard: {line}...", file=sys.stderr),
            )
    except SupportCancelled:
        return EXIT_CANCELLED
    except OSError as error:
        raise ReportCliError(f"{out}: cannot write it ({error.strerror or error})") from None
    write(f"{out}\n")
    write(_summary_line(redacted) + "\n")
    return EXIT_OK


def _format_of(out: Path) -> str:
    """The format of ``out`` by its suffix; refuses what cannot be written before anything runs."""
    from gpuwizard.core.support_data import OUTPUT_FORMATS  # noqa: PLC0415 - `gpuwizard` starts without it

    fmt = OUTPUT_FORMATS.get(out.suffix.lower())
    if fmt is None:
        raise ReportCliError(
            f"{out}: the file must end in .html, .htm, .md or .json (the format comes from it)"
        )
    if out.is_dir():
        raise ReportCliError(f"{out}: is a folder; give a file name such as {out / ('report' + out.suffix)}")
    parent = out.parent if str(out.parent) else Path()
    if not parent.is_dir():
        raise ReportCliError(f"{out}: the folder {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise ReportCliError(f"{out}: the folder {parent} cannot be written")
    return fmt


def _path_store(registry: Path | None) -> EnvironmentStore | None:
    from gpuwizard.workflow.path_changes import PathChangeError  # noqa: PLC0415
    from gpuwizard.workflow.path_machine import store_if_any  # noqa: PLC0415

    try:
        return store_if_any(registry)
    except PathChangeError as error:
        raise ReportCliError(str(error)) from None


def _summary_line(document: dict[str, Any]) -> str:
    environments = document.get("environments") or []
    tests = document.get("tests") or []
    counts = (document.get("redaction") or {}).get("counts") or {}
    hidden = [
        f"{count} {_KIND_WORDS[kind]}{'' if count == 1 else 's'}"
        for kind, count in counts.items()
        if kind in _KIND_WORDS and count
    ]
    return (
        f"{len(environments)} environment{'' if len(environments) == 1 else 's'}, "
        f"{len(tests)} live test{'' if len(tests) == 1 else 's'}; redacted: "
        + (", ".join(hidden) if hidden else "nothing found to redact")
    )
