"""What every command shares: exit codes, bad input, the common options, output and cancelling.

Exit codes are the contract's (docs/architecture.md, "The command-line and JSON contract"):
0 success; 1 the check ran and found a problem; 2 bad input or usage (one line on stderr,
nothing changed); 3 an operation failed part-way and was rolled back; 130 cancelled.

Bad input has one way out: a command raises :class:`UsageError` (or lets a domain error through
:func:`bad_input`), and :func:`gpuwizard.cli.main.main` prints it as one line and exits 2.
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import sys
import textwrap
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, Final, NoReturn, Protocol

if TYPE_CHECKING:
    from gpuwizard.adapters.registry import EnvironmentStore
    from gpuwizard.core.events import Event
    from gpuwizard.core.machine.system_report import SystemReport

EXIT_OK: Final = 0
EXIT_PROBLEM: Final = 1
EXIT_USAGE: Final = 2
EXIT_ROLLED_BACK: Final = 3
#: 128 + SIGINT, as shells report a program ended by Ctrl+C.
EXIT_CANCELLED: Final = 130

Write = Callable[[str], None]
#: Where a streaming command's ``--json`` lines go: its typed events (or a JSON object as it is).
JsonLines = Callable[["Event | Mapping[str, Any]"], None]


class UsageError(Exception):
    """Bad input: printed as one line, exit code 2, nothing changed."""


class Subcommands(Protocol):
    """What ``add_subparsers()`` returns (argparse keeps its class private)."""

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:  # noqa: ANN401 - argparse's own keywords
        """Add one command."""


#: The widest ``--help`` is written (issue 41, point 9): 80 columns, or the terminal's when narrower.
HELP_WIDTH: Final = 80


class HelpFormatter(argparse.HelpFormatter):
    """argparse's help within :data:`HELP_WIDTH` columns, with examples kept as they are written.

    A description or epilog is filled to the width paragraph by paragraph, except its indented
    lines (commands: the examples), which are kept as written, one command a line; argparse's
    own formatter would run them together, and ``RawDescriptionHelpFormatter`` would not fill
    the prose.
    """

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24) -> None:
        # argparse leaves 2 columns free of the terminal's (COLUMNS when set); so here of 80.
        width = min(shutil.get_terminal_size().columns, HELP_WIDTH) - 2
        super().__init__(prog, indent_increment, max_help_position, width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        lines: list[str] = []
        prose: list[str] = []

        def fill() -> None:
            if prose:
                lines.extend(
                    textwrap.wrap(
                        " ".join(prose),
                        width,
                        initial_indent=indent,
                        subsequent_indent=indent,
                        break_on_hyphens=False,
                    )
                )
                prose.clear()

        for line in text.strip("\n").splitlines():
            if line[:1].isspace():
                fill()
                lines.append(indent + line.rstrip())
            elif line.strip():
                prose.append(line.strip())
            else:
                fill()
                lines.append("")
        fill()
        return "\n".join(lines)


def examples(*commands: str) -> str:
    """An epilog of example commands, one a line (each must parse: tests/cli/test_help.py runs them)."""
    return "examples:\n" + "".join(f"  {command}\n" for command in commands)


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and exit 2, and whose help fits 80 columns.

    Every command's parser is one of these (argparse makes a subcommand's parser of its
    parent's class), so each gets :class:`HelpFormatter` unless it names another.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:  # noqa: ANN401 - argparse's own arguments
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        """Print the usage error as one line and exit 2."""
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def os_error_line(error: OSError) -> str:
    """What an ``OSError`` no command handled says: the wizard's state, or the error as it is."""
    from gpuwizard.workflow.state.home import state_unwritable  # noqa: PLC0415 - only on an error

    return state_unwritable(error) or str(error)


@contextmanager
def bad_input(*errors: type[Exception]) -> Iterator[None]:
    """Inside, each of ``errors`` is bad input: it leaves as a :class:`UsageError` with its text."""
    try:
        yield
    except errors as error:
        raise UsageError(str(error)) from None


# --- options ---------------------------------------------------------------------------------


#: Where options go: a parser, or one of its argument groups (``--help`` lists them by group).
Options = argparse._ActionsContainer


def add_json_option(parser: Options, help_text: str = "print JSON") -> None:
    """``--json``: machine-readable output instead of text."""
    parser.add_argument("--json", action="store_true", help=help_text)


def add_system_option(parser: Options, dest: str, help_text: str) -> None:
    """``--system FILE``: a saved system report (``detect --json``) instead of detecting this machine."""
    parser.add_argument("--system", dest=dest, metavar="FILE", type=Path, help=help_text)


def add_registry_option(parser: Options, dest: str, help_text: str) -> None:
    """``--registry FILE``: a registry snapshot file instead of the live registry."""
    parser.add_argument("--registry", dest=dest, metavar="FILE", type=Path, help=help_text)


def saved_report(path: Path | None) -> SystemReport | None:
    """The system report saved in ``path`` (None when no file was given).

    Read before anything else is done, so a bad file is refused with nothing detected or changed.

    Raises:
        UsageError: The file cannot be read or is no system report.
    """
    if path is None:
        return None
    from gpuwizard.workflow.machine.system_file import SystemFileError, load_system_report  # noqa: PLC0415

    with bad_input(SystemFileError):
        return load_system_report(path)


def detector(path: Path | None) -> Callable[[], SystemReport]:
    """How to learn the machine: read the saved report in ``path`` now, or detect this machine later.

    Raises:
        UsageError: The file cannot be read or is no system report.
    """
    saved = saved_report(path)
    if saved is None:
        from gpuwizard.workflow.machine.detect import detect_system  # noqa: PLC0415 - only when used

        return detect_system
    return lambda: saved


def path_store(registry: Path | None) -> EnvironmentStore | None:
    """The registry whose PATH a command reads: the snapshot file, the live one on Windows, or none.

    Raises:
        UsageError: The snapshot file cannot be used.
    """
    from gpuwizard.workflow.pathedit.changes import PathChangeError  # noqa: PLC0415
    from gpuwizard.workflow.pathedit.machine import store_if_any  # noqa: PLC0415

    with bad_input(PathChangeError):
        return store_if_any(registry)


# --- output ----------------------------------------------------------------------------------


def write(text: str) -> None:
    """Print ``text``, surviving a console that cannot encode it and a closed pipe."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except UnicodeEncodeError:
        encoding = sys.stdout.encoding or "ascii"
        sys.stdout.write(text.encode(encoding, errors="replace").decode(encoding))
    except BrokenPipeError:
        # `gpuwizard detect | head`: the reader left; that is not our error.
        sys.stderr.close()


def write_json(write: Write, data: object) -> None:
    """One JSON document, indented (the ``--json`` output of the commands that answer once)."""
    write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def json_lines(write: Write) -> JsonLines:
    """Show each event as one JSON line (the ``--json`` output of the streaming commands).

    A typed event is written as its JSON (:func:`gpuwizard.core.events.to_json`): this is
    where the events of the streaming commands become JSON.
    """
    from gpuwizard.core.events import Event, to_json  # noqa: PLC0415 - only for --json

    def show(event: Event | Mapping[str, Any]) -> None:
        data = to_json(event) if isinstance(event, Event) else event
        write(json.dumps(data, ensure_ascii=False) + "\n")

    return show


def say(text: str) -> None:
    """A line for the person on stderr (progress and refusals that are not the command's output)."""
    print(f"gpuwizard: {text}", file=sys.stderr)


# --- cancelling ------------------------------------------------------------------------------


@contextmanager
def cancel_on_signals(cancel: threading.Event) -> Iterator[None]:
    """While inside, SIGINT and SIGTERM (Ctrl+Break on Windows) set ``cancel`` instead of killing us.

    The running step watches ``cancel``, stops its tool or probe and cleans up; the command then
    exits with its ``cancelled`` code.
    """

    def handler(_signum: int, _frame: FrameType | None) -> None:
        cancel.set()

    previous = {}
    for name in ("SIGINT", "SIGTERM", "SIGBREAK"):
        number = getattr(signal, name, None)
        if number is not None:
            previous[number] = signal.signal(number, handler)
    try:
        yield
    finally:
        for number, old in previous.items():
            signal.signal(number, old)


def settle_interrupted_creations() -> None:
    """Finish or undo any environment creation a killed gpuwizard left, saying what was done."""
    from gpuwizard.workflow.envs.recovery import recover_interrupted  # noqa: PLC0415 - only when needed
    from gpuwizard.workflow.state.env_pending import pending_folder  # noqa: PLC0415

    if pending_folder().is_dir():
        recover_interrupted(say)


def terminal_width() -> int:
    """The width text output wraps to: the terminal's, at most 100 columns."""
    return min(shutil.get_terminal_size().columns, 100)
