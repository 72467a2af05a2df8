"""``gpuwizard detect [--json] [--system FILE] [--wsl [DISTRO]]``: describe this machine (schema ``gpuwizard.system/1``)."""

from __future__ import annotations

import argparse

from gpuwizard.cli import common


def add_parser(commands: common.Subcommands) -> None:
    """Add ``detect``."""
    detect = commands.add_parser(
        "detect",
        help="describe this machine (schema gpuwizard.system/1)",
        description="Describe this machine: its OS, GPUs, NVIDIA driver, CUDA toolkits, cuDNN, "
        "Python interpreters and environment managers, with findings that say what is missing. "
        "Changes nothing.",
        epilog=common.examples(
            "gpuwizard detect",
            "gpuwizard detect --json",
            "gpuwizard detect --system machine.json",
        ),
    )
    common.add_json_option(detect, "print JSON (schema gpuwizard.system/1) instead of a table")
    common.add_system_option(detect, "detect_system", "describe a saved report instead of this machine")
    detect.add_argument(
        "--wsl",
        nargs="?",
        const="",
        metavar="DISTRO",
        help="Windows: also look inside a WSL distribution (the default one, or DISTRO) "
        "at its driver libraries and Python; this starts it",
    )


def run(args: argparse.Namespace, write: common.Write) -> int:
    """Detect (or read the saved report) and print it."""
    report = common.detector(args.detect_system)()
    if args.wsl is not None:
        from gpuwizard.workflow.machine.detect import WslLookFailed, with_distro_facts  # noqa: PLC0415

        with common.bad_input(WslLookFailed):
            report = with_distro_facts(report, distro=args.wsl or None)
    if args.json:
        from gpuwizard.core.machine.system_report import report_to_json  # noqa: PLC0415

        common.write_json(write, report_to_json(report))
    else:
        from gpuwizard.cli.text.system import render_report  # noqa: PLC0415

        write(render_report(report, width=common.terminal_width()))
    return common.EXIT_OK
