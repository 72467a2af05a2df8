"""``gpuwizard env create | list | remove`` (DESIGN.md section 4).

Cancel: SIGINT (Ctrl+C) and SIGTERM (and Ctrl+Break on Windows) set a flag that the running
step watches; the tool's whole process tree is then killed, what was made is removed, and the
command exits 3 with a ``cancelled`` result.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any, Final

EXIT_OK: Final = 0
EXIT_USAGE: Final = 2
EXIT_ROLLED_BACK: Final = 3


class EnvUsageError(Exception):
    """Bad input for an env command: one line, exit code 2."""


def add_env_parser(commands: Any) -> None:  # noqa: ANN401 - argparse's private _SubParsersAction
    """Add ``env create|list|remove`` to the command parser."""
    env = commands.add_parser("env", help="create, list and remove environments with a framework")
    actions = env.add_subparsers(dest="env_command", metavar="ACTION", required=True)

    create = actions.add_parser("create", help="create an environment and install the framework")
    create.add_argument("name", metavar="NAME", help="the environment's name (also its folder's name)")
    create.add_argument(
        "--framework", required=True, metavar="F", help="pytorch, tensorflow, or tensorflow-gpu"
    )
    create.add_argument("--version", dest="framework_version", metavar="X.Y", help="a framework release")
    create.add_argument("--python", metavar="X.Y", help="the preferred Python")
    create.add_argument("--manager", choices=["venv", "conda"], help="venv (default) or conda")
    create.add_argument(
        "--tool",
        choices=["uv", "pip", "conda", "mamba", "micromamba"],
        help="the tool to use (default: uv or conda)",
    )
    create.add_argument("--prefix", metavar="DIR", type=Path, help="the environment's folder")
    create.add_argument("--find-links", metavar="DIR", type=Path, help="a folder of wheels to install from")
    create.add_argument("--offline", action="store_true", help="fetch nothing: only --find-links DIR is used")
    create.add_argument(
        "--jupyter", action="store_true", help="register a Jupyter kernel (installs ipykernel)"
    )
    create.add_argument(
        "--gpus", metavar="LIST", help="GPUs the environment sees (CUDA_VISIBLE_DEVICES, e.g. 0,1)"
    )
    create.add_argument(
        "--with", dest="extra", metavar="PKG", action="append", default=[], help="another package"
    )
    create.add_argument("--replace", action="store_true", help="replace an environment of the same name")
    create.add_argument("--json", action="store_true", help="stream progress events as JSON lines")

    listing = actions.add_parser("list", help="the environments this wizard made")
    listing.add_argument("--json", action="store_true", help="print JSON")

    remove = actions.add_parser("remove", help="remove an environment this wizard made, and its folder")
    remove.add_argument("name", metavar="NAME")
    remove.add_argument("--json", action="store_true", help="print JSON")


def run_env_command(args: argparse.Namespace, write: Callable[[str], None]) -> int:
    """Run the ``env`` action in ``args``; returns the exit code.

    Raises:
        EnvUsageError: Bad input; nothing was changed.
    """
    if args.env_command == "list":
        return _list(args, write)
    if args.env_command == "remove":
        return _remove(args, write)
    return _create(args, write)


def _create(args: argparse.Namespace, write: Callable[[str], None]) -> int:
    from gpuwizard.adapters.runner import StreamingSubprocessRunner  # noqa: PLC0415
    from gpuwizard.core.env_names import EnvNameError, check_env_name  # noqa: PLC0415
    from gpuwizard.core.plan import WishError, parse_wish  # noqa: PLC0415
    from gpuwizard.core.recommend import recommend  # noqa: PLC0415
    from gpuwizard.workflow.compat_data import load_compat  # noqa: PLC0415
    from gpuwizard.workflow.detect import detect_system  # noqa: PLC0415
    from gpuwizard.workflow.environments import (  # noqa: PLC0415
        EnvRequest,
        EnvRequestError,
        EnvTools,
        create_environment,
        prepare_environment,
    )

    manager = args.manager or (
        None if args.tool is None else ("venv" if args.tool in ("uv", "pip") else "conda")
    )
    try:
        # Cheap checks first: a bad name is refused before the machine is even looked at.
        check_env_name(args.name, manager=manager or "venv")
        wish = parse_wish(args.framework, args.framework_version, args.python, manager)
    except (EnvNameError, WishError) as error:
        raise EnvUsageError(str(error)) from None
    if args.offline and args.find_links is None:
        raise EnvUsageError("--offline needs --find-links DIR: the folder of wheels to install from")
    report = detect_system()
    try:
        recommendation = recommend(report, wish, load_compat())
    except WishError as error:
        raise EnvUsageError(str(error)) from None
    tools = EnvTools(
        runner=StreamingSubprocessRunner(), interpreters=report.interpreters, managers=report.managers
    )
    request = EnvRequest(
        name=args.name,
        plan=recommendation.plan,
        manager=manager,
        tool=args.tool,
        prefix=args.prefix,
        find_links=args.find_links,
        offline=args.offline,
        jupyter=args.jupyter,
        gpus=args.gpus,
        replace=args.replace,
        extra_requirements=tuple(args.extra),
    )
    try:
        prepared = prepare_environment(request, tools)
    except EnvRequestError as error:
        raise EnvUsageError(str(error)) from None
    show = json_lines(write) if args.json else _TextProgress(write)
    cancel = threading.Event()
    with cancel_on_signals(cancel):
        result = create_environment(prepared, tools, show, cancel)
    return EXIT_OK if result["status"] == "ok" else EXIT_ROLLED_BACK


def _list(args: argparse.Namespace, write: Callable[[str], None]) -> int:
    from gpuwizard.workflow.environments import list_environments  # noqa: PLC0415

    environments = list_environments()
    if args.json:
        write(json.dumps(environments, indent=2, ensure_ascii=False) + "\n")
        return EXIT_OK
    if not environments:
        write(
            "No environments made by the wizard yet (create one with `gpuwizard env create NAME --framework F`).\n"
        )
        return EXIT_OK
    for env in environments:
        missing = "" if env["exists"] else "  (folder missing)"
        write(
            f"{env['name']}  {env['framework']} {env['framework_version']}  {env['manager']}/{env['tool']}{missing}\n"
        )
        write(f"    python: {env['python']}\n")
    return EXIT_OK


def _remove(args: argparse.Namespace, write: Callable[[str], None]) -> int:
    from gpuwizard.workflow.environments import EnvRemoveError, remove_environment  # noqa: PLC0415

    try:
        record = remove_environment(args.name)
    except EnvRemoveError as error:
        raise EnvUsageError(str(error)) from None
    if args.json:
        write(json.dumps({"removed": record.name, "path": record.path}) + "\n")
    else:
        write(f"Removed {record.name} ({record.path}).\n")
    return EXIT_OK


def json_lines(write: Callable[[str], None]) -> Callable[[dict[str, Any]], None]:
    """Show each event as one JSON line (the ``--json`` output of the streaming commands)."""

    def show(event: dict[str, Any]) -> None:
        write(json.dumps(event, ensure_ascii=False) + "\n")

    return show


class _TextProgress:
    """Readable progress: phases and the tool's own lines, indented; the result last."""

    def __init__(self, write: Callable[[str], None]) -> None:
        self.write = write

    def __call__(self, event: dict[str, Any]) -> None:
        kind = event.get("event")
        if kind == "phase":
            self.write(f"== {event['phase']}: {event['message']}\n")
        elif kind == "log":
            self.write(f"   {event['line']}\n")
        elif kind == "result":
            self.write(_result_text(event))


def _result_text(event: dict[str, Any]) -> str:
    if event["status"] != "ok":
        return (
            f"\nNot created ({event['status']}): {event.get('error', '')}\n"
            f"Everything made was removed. Full log: {event['log']}\n"
        )
    from gpuwizard.core.activation import activation_commands  # noqa: PLC0415

    python = event["python"]
    activate = activation_commands(
        str(event.get("manager") or "venv"), str(event["path"]), windows=sys.platform == "win32"
    )[0][1]
    lines = [
        f"\nReady: {event['name']} with framework {event['framework_version']} ({event['seconds']} s).",
        f"  activate:   {activate}",
        f"  interpreter (VS Code 'Python: Select Interpreter', PyCharm): {python}",
    ]
    if event.get("jupyter_kernel"):
        lines.append(f"  Jupyter kernel: {event['jupyter_kernel']}")
    lines.append(f"  full log: {event['log']}")
    return "\n".join(lines) + "\n"


@contextmanager
def cancel_on_signals(cancel: threading.Event) -> Iterator[None]:
    """While inside, SIGINT and SIGTERM (Ctrl+Break on Windows) set ``cancel`` instead of killing us."""

    def handler(_signum: int, _frame: FrameType | None) -> None:
        cancel.set()

    names = ["SIGINT", "SIGTERM", "SIGBREAK"]
    previous = {}
    for name in names:
        number = getattr(signal, name, None)
        if number is not None:
            previous[number] = signal.signal(number, handler)
    try:
        yield
    finally:
        for number, old in previous.items():
            signal.signal(number, old)
