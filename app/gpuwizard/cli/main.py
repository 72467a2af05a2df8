"""The ``gpuwizard`` command: the parser of every command, and the one place exit codes leave.

Each command lives in its own module of this package with ``add_parser(commands)`` and
``run(args, write) -> exit code``. Bad input of any command arrives here as a
:class:`~gpuwizard.cli.common.UsageError` and leaves as one line on stderr with exit code 2.

Headless commands never import PySide6: only :mod:`gpuwizard.cli.gui` reaches Qt, and only
when it opens or renders windows, so ``gpuwizard detect --json`` stays fast.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from gpuwizard import __version__
from gpuwizard.cli import (
    apply,
    common,
    detect,
    diagnose,
    env,
    export,
    gui,
    live_test,
    path,
    recommend,
    report,
    verify,
)

Command = Callable[[argparse.Namespace, common.Write], int]

#: The commands in the order ``--help`` lists them; ``None`` opens the wizard.
_COMMANDS: dict[str, Command] = {
    "detect": detect.run,
    "recommend": recommend.run,
    "env": env.run,
    "test": live_test.run,
    "diagnose": diagnose.run,
    "path": path.run,
    "verify": verify.run,
    "apply": apply.run,
    "export": export.run,
    "report": report.run,
    "screenshots": gui.run_screenshots,
}


def build_parser() -> argparse.ArgumentParser:
    """The parser for every command."""
    parser = common.Parser(
        prog="gpuwizard",
        description="GPU Setup Wizard: from 'I have an NVIDIA card' to 'my framework trains on it'. "
        "With no command, opens the wizard.",
    )
    parser.add_argument("--version", action="version", version=f"gpuwizard {__version__}")
    gui.add_wizard_options(parser)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in (detect, recommend, env, live_test, diagnose, path, verify, apply, export, report):
        module.add_parser(commands)
    gui.add_screenshots_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    args = build_parser().parse_args(argv)
    run = _COMMANDS.get(args.command, gui.run_wizard) if args.command else gui.run_wizard
    try:
        return run(args, common.write)
    except common.UsageError as error:
        print(f"gpuwizard: error: {error}", file=sys.stderr)
        return common.EXIT_USAGE
    except KeyboardInterrupt:
        return common.EXIT_CANCELLED
