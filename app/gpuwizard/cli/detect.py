"""``gpuwizard detect [--json] [--system FILE]``: describe this machine (schema ``gpuwizard.system/1``)."""

from __future__ import annotations

import argparse

from gpuwizard.cli.common import (
    EXIT_OK,
    Subcommands,
    Write,
    add_json_option,
    add_system_option,
    detector,
    terminal_width,
    write_json,
)


def add_parser(commands: Subcommands) -> None:
    """Add ``detect``."""
    detect = commands.add_parser("detect", help="describe this machine (schema gpuwizard.system/1)")
    add_json_option(detect, "print JSON instead of a table")
    add_system_option(detect, "detect_system", "describe a saved report instead of this machine")


def run(args: argparse.Namespace, write: Write) -> int:
    """Detect (or read the saved report) and print it."""
    report = detector(args.detect_system)()
    if args.json:
        from gpuwizard.core.machine.system_report import report_to_json  # noqa: PLC0415

        write_json(write, report_to_json(report))
    else:
        from gpuwizard.cli.text.system import render_report  # noqa: PLC0415

        write(render_report(report, width=terminal_width()))
    return EXIT_OK
