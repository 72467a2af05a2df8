"""The ``gpuwizard`` command: the parser of every command, and the one place exit codes leave.

Each command lives in its own module of this package with ``add_parser(commands)`` and
``run(args, write) -> exit code``. Bad input of any command arrives here as a
:class:`~gpuwizard.cli.common.UsageError` and leaves as one line on stderr with exit code 2, and
so does an ``OSError`` no command handled (a full or read-only ``GPUWIZARD_HOME``: the line says
so): never a traceback.

Headless commands never import PySide6: only :mod:`gpuwizard.cli.gui` reaches Qt, and only
when it opens or renders windows, so ``gpuwizard detect --json`` stays fast.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
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
from gpuwizard.core.json_input import one_line

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


#: Commands that work with the environments the wizard made: a creation a killed wizard left is
#: finished or undone before they start (``None``: the wizard itself).
_SETTLES_CREATIONS = frozenset({None, "env", "test", "verify", "apply", "report", "export"})


def _creates_an_environment(argv: Sequence[str] | None) -> bool:
    words = [word for word in (sys.argv[1:] if argv is None else argv) if not word.startswith("-")]
    return words[:2] == ["env", "create"]


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


class _WarningLines(logging.Handler):
    """What the workflow warns about (a damaged state file moved aside): one line each on stderr."""

    def emit(self, record: logging.LogRecord) -> None:
        print(f"gpuwizard: warning: {one_line(record.getMessage())}", file=sys.stderr)


_WARNINGS = _WarningLines(logging.WARNING)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    logging.getLogger("gpuwizard").addHandler(_WARNINGS)  # once: a handler is added only once
    # SIGTERM (what `kill` and service managers send) ends a command the way Ctrl+C does: as a
    # cancel, with cleanup, never mid-write. Commands that change things set their own handlers.
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler) if main_thread else None
    try:
        args = build_parser().parse_args(argv)
        run = _COMMANDS.get(args.command, gui.run_wizard) if args.command else gui.run_wizard
        if args.command in _SETTLES_CREATIONS:
            common.settle_interrupted_creations()
        return run(args, common.write)
    except common.UsageError as error:
        print(f"gpuwizard: error: {one_line(str(error))}", file=sys.stderr)
        return common.EXIT_USAGE
    except OSError as error:
        # What a command could not handle itself, mostly its state under GPUWIZARD_HOME that a
        # full or read-only disk refused (issue 33). It got here before changing anything, or
        # after undoing what it had (env create rolls back, path writes the journal first).
        print(f"gpuwizard: error: {one_line(common.os_error_line(error))}", file=sys.stderr)
        return common.EXIT_USAGE
    except KeyboardInterrupt:
        # Before `env create` set its own handlers: nothing was made, and a cancelled creation
        # exits 3 whenever the signal came (the contract).
        return common.EXIT_ROLLED_BACK if _creates_an_environment(argv) else common.EXIT_CANCELLED
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
