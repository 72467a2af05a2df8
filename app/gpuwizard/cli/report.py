"""``gpuwizard report --out FILE.(html|md|json)``: a support report to share.

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
import threading
from pathlib import Path

from gpuwizard.cli import common


def add_parser(commands: common.Subcommands) -> None:
    """Add ``report``."""
    report = commands.add_parser(
        "report",
        help="write a support report to share (identities redacted)",
        description="Write one file to share when asking for help: this machine, its PATH, the "
        "environments the wizard made with their packages, the last good state and the latest "
        "tests. GPU serial numbers, the user name, the home folder and the computer's name are "
        "redacted first. The format follows the file's suffix.",
        epilog=common.examples(
            "gpuwizard report --out report.html",
            "gpuwizard report --out report.md --no-probe",
            "gpuwizard report --out report.json --system machine.json",
        ),
    )
    report.add_argument(
        "--out",
        dest="report_out",
        metavar="FILE",
        type=Path,
        required=True,
        help="the file to write: .html (one page), .md (GitHub Markdown) or .json (gpuwizard.support/1)",
    )
    common.add_system_option(
        report, "report_system", "use a saved system report (detect --json) instead of detecting this machine"
    )
    common.add_registry_option(
        report, "report_registry", "show the PATH of a registry snapshot file instead of the live registry"
    )
    report.add_argument("--no-probe", action="store_true", help="do not run the environments' interpreters")


def run(args: argparse.Namespace, write: common.Write) -> int:
    """Run ``gpuwizard report``; returns the exit code."""
    out: Path = args.report_out
    fmt = _format_of(out)
    detect = common.detector(args.report_system)
    store = common.path_store(args.report_registry)

    from gpuwizard.adapters.runner import StreamingSubprocessRunner  # noqa: PLC0415
    from gpuwizard.cli.text.report import summary_line  # noqa: PLC0415
    from gpuwizard.workflow.support.bundle import SupportCancelled, write_support_report  # noqa: PLC0415

    report = detect()
    cancel = threading.Event()
    try:
        with common.cancel_on_signals(cancel):
            redacted = write_support_report(
                out,
                fmt,
                report=report,
                system_source="detected" if args.report_system is None else "file",
                path_store=store,
                runner=None if args.no_probe else StreamingSubprocessRunner(),
                cancel=cancel,
                on_progress=lambda line: common.say(f"{line}..."),
            )
    except SupportCancelled:
        return common.EXIT_CANCELLED
    except OSError as error:
        raise common.UsageError(f"{out}: cannot write it ({error.strerror or error})") from None
    write(f"{out}\n")
    write(summary_line(redacted) + "\n")
    return common.EXIT_OK


def _format_of(out: Path) -> str:
    """The format of ``out`` by its suffix; refuses what cannot be written before anything runs."""
    from gpuwizard.core.support.document import OUTPUT_FORMATS  # noqa: PLC0415 - `gpuwizard` starts without it

    fmt = OUTPUT_FORMATS.get(out.suffix.lower())
    if fmt is None:
        raise common.UsageError(
            f"{out}: the file must end in .html, .htm, .md or .json (the format comes from it)"
        )
    if out.is_dir():
        raise common.UsageError(
            f"{out}: is a folder; give a file name such as {out / ('report' + out.suffix)}"
        )
    parent = out.parent if str(out.parent) else Path()
    if not parent.is_dir():
        raise common.UsageError(f"{out}: the folder {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise common.UsageError(f"{out}: the folder {parent} cannot be written")
    return fmt
