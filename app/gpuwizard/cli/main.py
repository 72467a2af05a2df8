"""The ``gpuwizard`` command: the parser of every command, and the one place exit codes leave.

Each command lives in its own module of this package with ``add_parser(commands)`` and
``run(args, write) -> exit code``, named here by module path and imported only when it is
needed: the command that runs, or every one when ``--help`` lists them all. So
``gpuwizard detect --json`` loads detection and nothing of the other commands (their
diagnosis, PATH, locks and templates). Bad input of any command arrives here as a
:class:`~gpuwizard.cli.common.UsageError` and leaves as one line on stderr with exit code 2, and
so does an ``OSError`` no command handled (a full or read-only ``GPUWIZARD_HOME``: the line says
so): never a traceback.

Headless commands never import PySide6: only :mod:`gpuwizard.cli.gui` reaches Qt, and only
when it opens or renders windows, so ``gpuwizard detect --json`` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from gpuwizard import __version__
from gpuwizard.cli import common, gui
from gpuwizard.core.json_input import one_line

Command = Callable[[argparse.Namespace, common.Write], int]
AddParser = Callable[[common.Subcommands], None]


@dataclass(frozen=True)
class CommandModule:
    """Where a command lives: its module, and the names of its two functions there."""

    module: str
    run_function: str = "run"
    parser_function: str = "add_parser"

    def load_run(self) -> Command:
        """The command's ``run``; its module is imported now if it was not."""
        run: Command = getattr(importlib.import_module(self.module), self.run_function)
        return run

    def load_add_parser(self) -> AddParser:
        """The command's ``add_parser``; its module is imported now if it was not."""
        add: AddParser = getattr(importlib.import_module(self.module), self.parser_function)
        return add


#: The commands in the order ``--help`` lists them; no command opens the wizard. A module is
#: imported when its command runs, or when ``--help`` lists every command.
COMMANDS: Final[Mapping[str, CommandModule]] = {
    "detect": CommandModule("gpuwizard.cli.detect"),
    "recommend": CommandModule("gpuwizard.cli.recommend"),
    "env": CommandModule("gpuwizard.cli.env"),
    "test": CommandModule("gpuwizard.cli.live_test"),
    "diagnose": CommandModule("gpuwizard.cli.diagnose"),
    "path": CommandModule("gpuwizard.cli.path"),
    "verify": CommandModule("gpuwizard.cli.verify"),
    "apply": CommandModule("gpuwizard.cli.apply"),
    "export": CommandModule("gpuwizard.cli.export"),
    "report": CommandModule("gpuwizard.cli.report"),
    "screenshots": CommandModule("gpuwizard.cli.gui", "run_screenshots", "add_screenshots_parser"),
}


#: Commands that work with the environments the wizard made: a creation a killed wizard left is
#: finished or undone before they start (``None``: the wizard itself).
_SETTLES_CREATIONS = frozenset({None, "env", "test", "verify", "apply", "report", "export"})


def _creates_an_environment(argv: Sequence[str] | None) -> bool:
    words = [word for word in (sys.argv[1:] if argv is None else argv) if not word.startswith("-")]
    return words[:2] == ["env", "create"]


if TYPE_CHECKING:
    _SubParsers = argparse._SubParsersAction[argparse.ArgumentParser]
else:  # typeshed's class is generic, argparse's is not
    _SubParsers = argparse._SubParsersAction


class _LazyCommands(_SubParsers):
    """The ``COMMAND`` argument: a command's parser is added only once that command is wanted.

    Argparse asks for one when the command line names it (:meth:`__call__`), and for all of them
    when it writes ``--help`` (:meth:`_get_subactions`, whose help lines it lists); each is added
    by its own module's ``add_parser``, so ``--help`` says what it always said. ``choices``
    names every command from the start, for argparse's check and its "invalid choice" message.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:  # noqa: ANN401 - argparse's own arguments
        super().__init__(*args, **kwargs)
        self._parsers: dict[str, argparse.ArgumentParser] = {}
        # Typeshed says dict; argparse only asks `name in choices` and iterates the names.
        self.choices = _CommandParsers(self)  # type: ignore[assignment]

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:  # noqa: ANN401 - argparse's
        """Add one command (what its module's ``add_parser`` calls)."""
        parser = super().add_parser(name, **kwargs)
        self._parsers[name] = parser
        return parser

    def parser(self, name: str) -> argparse.ArgumentParser:
        """The parser of command ``name``, added by its module the first time it is asked for."""
        if name not in self._parsers:
            COMMANDS[name].load_add_parser()(self)
        return self._parsers[name]

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        if isinstance(values, Sequence) and values and values[0] in COMMANDS:
            self.parser(values[0])
        super().__call__(parser, namespace, values, option_string)

    def _get_subactions(self) -> list[argparse.Action]:
        for name in COMMANDS:
            self.parser(name)
        order = list(COMMANDS)
        return sorted(super()._get_subactions(), key=lambda action: order.index(action.dest))


class _CommandParsers(Mapping[str, argparse.ArgumentParser]):
    """Every command's name, in ``--help``'s order, with its parser added when it is looked up."""

    def __init__(self, commands: _LazyCommands) -> None:
        self._commands = commands

    def __getitem__(self, name: str) -> argparse.ArgumentParser:
        if name not in COMMANDS:
            raise KeyError(name)
        return self._commands.parser(name)

    def __iter__(self) -> Iterator[str]:
        return iter(COMMANDS)

    def __len__(self) -> int:
        return len(COMMANDS)


def build_parser() -> argparse.ArgumentParser:
    """The parser for every command (each command's own part added when it is needed)."""
    parser = common.Parser(
        prog="gpuwizard",
        description="GPU Setup Wizard: from 'I have a GPU' to 'my framework trains on it'. "
        "With no command, opens the wizard.",
        epilog=common.examples(
            "gpuwizard                         # the wizard",
            "gpuwizard detect",
            "gpuwizard recommend --framework pytorch",
            "gpuwizard env create lab --framework pytorch",
            "gpuwizard test --env lab",
        )
        + "\n'gpuwizard COMMAND --help' says what each command does.",
    )
    parser.add_argument("--version", action="version", version=f"gpuwizard {__version__}")
    gui.add_wizard_options(parser)
    parser.add_subparsers(dest="command", metavar="COMMAND", action=_LazyCommands)
    return parser


def _command(name: str | None) -> Command:
    """What runs ``name``: its module's ``run``, imported now (no name: the wizard)."""
    return gui.run_wizard if name is None else COMMANDS[name].load_run()


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
        run = _command(args.command)
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
