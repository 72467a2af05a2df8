"""``gpuwizard env create | list | remove``.

Before anything is made, ``env create`` asks every package index the install will use whether
it answers (not with ``--offline``), and, when uv downloads the environment's Python (none of
the plan's version is installed), the places of that download: one that does not answer ends
the command with exit 2, one line naming the index or download and the failure on stderr, and
the ways forward (a proxy, a mirror, a folder of wheels, PyPI's build with ``--from-pypi``,
installing the Python oneself) on stdout, or as the ``sources`` event with ``--json``.

Cancel: SIGINT (Ctrl+C) and SIGTERM (and Ctrl+Break on Windows) set a flag that the running
step watches; the tool's whole process tree is then killed, what was made is removed, and the
command exits 3 with a ``cancelled`` result.
"""

from __future__ import annotations

import argparse
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from gpuwizard.cli import common
from gpuwizard.cli.recommend import add_wish_options

if TYPE_CHECKING:
    from gpuwizard.core.compat.wsl_route import WslRoute
    from gpuwizard.core.envs.index_reach import SourcesCheck
    from gpuwizard.core.envs.request import SetupRequest
    from gpuwizard.core.events import EventSink
    from gpuwizard.workflow.envs.setup import Setup
    from gpuwizard.workflow.envs.wsl_setup import WslSetup


def add_parser(commands: common.Subcommands) -> None:
    """Add ``env create|list|remove``."""
    from gpuwizard.core.envs.request import CONDA_ENGINES, ENV_TOOLS, VENV_TOOLS  # noqa: PLC0415

    env = commands.add_parser(
        "env",
        help="create, list and remove environments with a framework",
        description="Create, list and remove the environments the wizard makes: a venv or conda "
        "environment with a framework installed, checked and registered.",
        epilog=common.examples(
            "gpuwizard env create lab --framework pytorch",
            "gpuwizard env list",
            "gpuwizard env remove lab",
        ),
    )
    actions = env.add_subparsers(dest="env_command", metavar="ACTION", required=True)

    create = actions.add_parser(
        "create",
        help="create an environment and install the framework",
        usage="%(prog)s NAME --framework F [options]",
        description="Create the environment NAME with the framework build recommended for this "
        "machine, check that it imports, and register it. Nothing is made when a package index "
        "it needs does not answer.",
        epilog=common.examples(
            "gpuwizard env create lab --framework pytorch",
            "gpuwizard env create tf --framework tensorflow --version 2.16 --jupyter",
            "gpuwizard env create lab --framework pytorch --from-pypi --with numpy",
            "gpuwizard env create lab --framework pytorch --find-links wheels --offline",
        ),
    )
    create.add_argument("name", metavar="NAME", help="the environment's name (also its folder's name)")
    wish = create.add_argument_group("what to install")
    add_wish_options(wish)
    wish.add_argument(
        "--with",
        dest="extra",
        metavar="PKG",
        action="append",
        default=[],
        help="a pip requirement to add, e.g. numpy; repeatable",
    )
    wish.add_argument("--jupyter", action="store_true", help="register a Jupyter kernel (installs ipykernel)")
    wish.add_argument(
        "--from-pypi",
        action="store_true",
        help="PyTorch: from PyPI, not PyTorch's index, if it suits",
    )
    how = create.add_argument_group("where and how")
    how.add_argument(
        "--tool",
        choices=list(ENV_TOOLS),
        metavar="TOOL",
        # The default: uv for a venv; for conda, conda, mamba or micromamba if installed, else
        # rattler (built in). The choices are checked by argparse and named in its error.
        help=f"{' or '.join(VENV_TOOLS)} (venv), or {', '.join(CONDA_ENGINES)}",
    )
    how.add_argument("--prefix", metavar="DIR", type=Path, help="the environment's folder")
    how.add_argument("--gpus", metavar="LIST", help="GPUs it sees (CUDA_VISIBLE_DEVICES, e.g. 0,1)")
    how.add_argument("--replace", action="store_true", help="replace an environment of the same name")
    sources = create.add_argument_group("package sources")
    sources.add_argument(
        "--find-links",
        metavar="DIR",
        type=Path,
        help="a folder of wheels; with --offline, the only source",
    )
    sources.add_argument(
        "--offline",
        action="store_true",
        help="download nothing (pip: --find-links; conda: --channel)",
    )
    sources.add_argument(
        "--channel",
        dest="channels",
        metavar="DIR|URL",
        action="append",
        default=[],
        help="conda: a channel instead of conda-forge (repeatable)",
    )
    wsl = create.add_argument_group("Windows: WSL 2")
    wsl.add_argument(
        "--wsl",
        nargs="?",
        const="",
        metavar="DISTRO",
        help="make it in WSL 2 (DISTRO, else the default one)",
    )
    wsl.add_argument(
        "--set-up-wsl",
        action="store_true",
        help="with --wsl: first install WSL 2 (as administrator)",
    )
    common.add_json_option(create, "stream progress events as JSON lines")

    listing = actions.add_parser(
        "list",
        help="the environments this wizard made",
        description="List the environments the wizard made: name, folder, manager, framework and Python.",
        epilog=common.examples("gpuwizard env list", "gpuwizard env list --json"),
    )
    common.add_json_option(listing)

    remove = actions.add_parser(
        "remove",
        help="remove an environment this wizard made, and its folder",
        description="Remove an environment the wizard made, with its folder and Jupyter kernel. What "
        "the wizard cannot prove it made is kept and named.",
        epilog=common.examples("gpuwizard env remove lab", "gpuwizard env remove --all"),
    )
    remove.add_argument("name", metavar="NAME", nargs="?", help="the environment's name (see env list)")
    remove.add_argument(
        "--all",
        action="store_true",
        help="every environment the wizard made, one by one (the uninstaller's 'remove data'); "
        "one it cannot prove it made is kept and said (exit 1)",
    )
    common.add_json_option(remove)


def run(args: argparse.Namespace, write: common.Write) -> int:
    """Run the ``env`` action in ``args``; returns the exit code."""
    if args.env_command == "list":
        return _list(args, write)
    if args.env_command == "remove":
        return _remove(args, write)
    return _create(args, write)


def _create(args: argparse.Namespace, write: common.Write) -> int:
    # From the first line on, SIGINT and SIGTERM only set `cancel`: a signal can never be lost
    # (a KeyboardInterrupt raised inside a finalizer is printed and dropped, docs.python.org
    # "Note on Signal Handlers and Exceptions"), and an early one ends the command as cancelled.
    cancel = threading.Event()
    try:
        with common.cancel_on_signals(cancel):
            return _create_until_cancelled(args, write, cancel)
    except KeyboardInterrupt:  # before the handlers were in place
        return common.EXIT_ROLLED_BACK


def _create_until_cancelled(args: argparse.Namespace, write: common.Write, cancel: threading.Event) -> int:
    from gpuwizard.adapters.elevation import ElevationDeclined  # noqa: PLC0415
    from gpuwizard.cli.text.env import EnvCreateText  # noqa: PLC0415
    from gpuwizard.core.envs.request import SetupRequest, SetupRequestError  # noqa: PLC0415
    from gpuwizard.workflow.envs.setup import SetupRefused, run_setup  # noqa: PLC0415

    with common.bad_input(SetupRequestError):
        # Cheap checks first: a bad name or wish is refused before the machine is even looked at.
        request = SetupRequest.checked(
            framework=args.framework,
            version=args.framework_version,
            python=args.python,
            manager=args.manager,
            name=args.name,
            tool=args.tool,
            prefix=args.prefix,
            find_links=args.find_links,
            channels=tuple(args.channels),
            offline=args.offline,
            jupyter=args.jupyter,
            gpus=args.gpus,
            replace=args.replace,
            extra_requirements=tuple(args.extra),
        )
    show = _json_events(write) if args.json else EnvCreateText(write)
    if not cancel.is_set():
        with common.bad_input(SetupRefused, ElevationDeclined):
            wsl = _wsl_planned(request, args, write)
        if isinstance(wsl, str):  # the Windows step ran; the distribution is not ready yet
            common.say(wsl)
            return common.EXIT_PROBLEM
        if wsl is not None:
            return _create_in_wsl(wsl, args, write, show, cancel)
        with common.bad_input(SetupRefused):
            setup = _planned(request, args, write)
    if cancel.is_set():
        return _cancelled_early(args.name, show)
    if setup.sources_check is not None:
        _show_sources(setup.sources_check, args.json, write)
    with common.bad_input(SetupRefused):
        result = run_setup(setup, show, cancel)
    return common.EXIT_OK if result.ok else common.EXIT_ROLLED_BACK


def _wsl_planned(
    request: SetupRequest, args: argparse.Namespace, write: common.Write
) -> WslSetup | str | None:
    """The WSL 2 route checked, when asked (``--wsl``) or when it is the plan on Windows; else None.

    With ``--set-up-wsl``, the Windows step the route needs runs first (said before it starts);
    when the distribution is not ready after it (a restart, its first start), the one line that
    says what is left is returned instead (exit 1: the same command goes on afterwards).

    Raises:
        SetupRefused: The route cannot be carried out (bad input, exit code 2): one line says
            what it takes (installing WSL, converting a WSL 1 distribution...).
        ElevationDeclined: The administrator prompt was declined; nothing was changed.
    """
    from gpuwizard.workflow.envs.setup import SetupRefused, recommend_for  # noqa: PLC0415
    from gpuwizard.workflow.envs.wsl_setup import WINDOWS_STEPS, plan_wsl_setup, wsl_route_for  # noqa: PLC0415
    from gpuwizard.workflow.machine.detect import detect_system  # noqa: PLC0415
    from gpuwizard.workflow.state.wsl_pending import load_wsl_step  # noqa: PLC0415

    if args.set_up_wsl and args.wsl is None:
        raise SetupRefused("--set-up-wsl goes with --wsl")
    if args.wsl is None and sys.platform != "win32":
        return None  # a wsl2 plan exists only for Windows reports: nothing to look at
    report = detect_system()
    rec = recommend_for(report, request)
    if args.wsl is None and rec.plan.target != "wsl2":
        return None
    distro = args.wsl or None
    if not args.set_up_wsl:
        try:
            return plan_wsl_setup(report, request, rec, distro=distro)
        except SetupRefused as error:
            _, route = wsl_route_for(report, rec, distro=distro)
            if route.state in WINDOWS_STEPS and load_wsl_step() is None:
                raise SetupRefused(f"{error} (--set-up-wsl runs it for you)") from None
            raise
    if args.set_up_wsl:
        _, route = wsl_route_for(report, rec, distro=distro)
        if route.state in WINDOWS_STEPS:
            _run_windows_step(route, write)
            report = detect_system()
            rec = recommend_for(report, request)
            try:
                return plan_wsl_setup(report, request, rec, distro=route.distro)
            except SetupRefused as error:
                return str(error)
    return plan_wsl_setup(report, request, rec, distro=distro)


def _run_windows_step(route: WslRoute, write: common.Write) -> None:
    """Say what the Windows step does, then run it (recorded first: the next run knows it asked)."""
    from gpuwizard.workflow.envs.wsl_setup import run_windows_step_here  # noqa: PLC0415

    command = " ".join(route.windows_commands)
    if route.administrator:
        write(
            f"Running `{command}` as administrator (Windows asks first): it downloads WSL and {route.distro}; "
            f"{route.distro} then asks for a Linux user name and password, and Windows may ask to restart.\n"
        )
    else:
        write(f"Running `{command}` in a window of its own: answer it there if it asks.\n")
    ran = run_windows_step_here(route)
    write(f"`{command}` ended with exit status {ran.exit_code}.\n")


def _create_in_wsl(
    setup: WslSetup, args: argparse.Namespace, write: common.Write, show: EventSink, cancel: threading.Event
) -> int:
    """Make the environment inside the distribution (uv's Linux binary fetched and checked first)."""
    from gpuwizard.adapters.wsl import distro_transport  # noqa: PLC0415
    from gpuwizard.cli.text.env import wsl_usage_text  # noqa: PLC0415
    from gpuwizard.workflow.envs.wsl_setup import run_wsl_setup  # noqa: PLC0415
    from gpuwizard.workflow.envs.wsl_uv import fetch_wsl_uv  # noqa: PLC0415

    result = run_wsl_setup(
        setup, show, cancel, transport=distro_transport, uv=lambda arch: fetch_wsl_uv(arch).binary
    )
    if result.ok and not args.json and result.path:
        write(wsl_usage_text(setup.route.distro, result.path))
    return common.EXIT_OK if result.ok else common.EXIT_ROLLED_BACK


def _planned(request: SetupRequest, args: argparse.Namespace, write: common.Write) -> Setup:
    """The checked setup (indexes asked); an index that does not answer is explained, then refused.

    Raises:
        SetupRefused: The request cannot be carried out (bad input, exit code 2).
    """
    from gpuwizard.workflow.envs.setup import (  # noqa: PLC0415
        FolderRefused,
        SetupRefused,
        SourcesUnreachable,
        from_pypi,
        plan_setup,
        recommend_for,
    )
    from gpuwizard.workflow.machine.detect import detect_system  # noqa: PLC0415

    report = detect_system()
    recommendation = None
    if args.from_pypi:
        recommendation = from_pypi(report, recommend_for(report, request))
    try:
        return plan_setup(report, request, recommendation=recommendation)
    except SourcesUnreachable as error:
        # The explanation first (stdout, or the `sources` event), then the one-line refusal.
        _show_sources(error.check, args.json, write)
        raise
    except FolderRefused as error:
        if args.json:
            raise  # stdout is JSON lines: the one line on stderr says it all
        # The ways forward first, one command a line to copy; then the refusal, without them.
        from gpuwizard.cli.text.wheel_folder import ways_forward  # noqa: PLC0415

        check = error.check
        retry = _command_with_version(args, check.offer_version) if check.offer_version else None
        write(ways_forward(check, retry, common.terminal_width()))
        raise SetupRefused(f"{check.reason(commands=False)} (how to go on is above)") from None


def _command_with_version(args: argparse.Namespace, version: str) -> str:
    """This ``env create`` command line as the person can run it again, asking for ``version``."""
    from gpuwizard.adapters.wizard_program import wizard_command  # noqa: PLC0415

    words = ["env", "create", args.name, "--framework", args.framework, "--version", version]
    valued = (
        ("--python", args.python),
        ("--manager", args.manager),
        ("--tool", args.tool),
        ("--prefix", args.prefix),
        ("--find-links", args.find_links),
        ("--gpus", args.gpus),
    )
    words += [part for option, value in valued if value is not None for part in (option, str(value))]
    words += [part for channel in args.channels for part in ("--channel", channel)]
    words += [part for extra in args.extra for part in ("--with", extra)]
    flags = (
        ("--offline", args.offline),
        ("--from-pypi", args.from_pypi),
        ("--jupyter", args.jupyter),
        ("--replace", args.replace),
    )
    words += [option for option, given in flags if given]
    return wizard_command().run(*words)  # each word quoted for this machine's shells


def _show_sources(check: SourcesCheck, as_json: bool, write: common.Write) -> None:
    from gpuwizard.cli.text.sources import check_text  # noqa: PLC0415
    from gpuwizard.core.envs.index_reach import EnvSources  # noqa: PLC0415

    if as_json:
        _json_events(write)(EnvSources.of(check))
    else:
        write(check_text(check, common.terminal_width()))


def _json_events(write: common.Write) -> EventSink:
    """``--json``: each event as one JSON line (the edge where the typed events become JSON)."""
    from gpuwizard.core.events import to_json  # noqa: PLC0415

    show = common.json_lines(write)
    return lambda event: show(to_json(event))


def _cancelled_early(name: str, show: EventSink) -> int:
    from gpuwizard.core.envs.result import EnvResult  # noqa: PLC0415

    show(EnvResult(status="cancelled", name=name, error="cancelled before anything was made"))
    return common.EXIT_ROLLED_BACK


def _list(args: argparse.Namespace, write: common.Write) -> int:
    from gpuwizard.adapters.wizard_program import wizard_command  # noqa: PLC0415
    from gpuwizard.cli.text.env import environment_lines  # noqa: PLC0415
    from gpuwizard.workflow.envs.registry import list_environments  # noqa: PLC0415

    environments = list_environments()
    if args.json:
        common.write_json(write, environments)
    else:
        write(environment_lines(environments, wizard_command()))
    return common.EXIT_OK


def _remove(args: argparse.Namespace, write: common.Write) -> int:
    from gpuwizard.workflow.envs.registry import EnvRemoveError, remove_environment  # noqa: PLC0415

    if args.all == (args.name is not None):
        raise common.UsageError("env remove: give the environment's NAME or --all (not both)")
    if args.all:
        return _remove_all(args, write)
    with common.bad_input(EnvRemoveError):
        try:
            removed = remove_environment(args.name)
        except OSError as error:  # a file in use (Windows) or without permission: said, not a traceback
            common.say(
                f"{args.name} could not be removed completely: {error}; the next gpuwizard command finishes it"
            )
            return common.EXIT_PROBLEM
    record = removed.record
    for kept in removed.kept:
        common.say(f"kept {kept}")
    if args.json:
        common.json_lines(write)({"removed": record.name, "path": record.path, "kept": list(removed.kept)})
    else:
        write(f"Removed {record.name} ({record.path}).\n")
    return common.EXIT_OK


def _remove_all(args: argparse.Namespace, write: common.Write) -> int:
    """``env remove --all``: each recorded environment as ``env remove NAME`` would, the refused ones kept.

    Exit 0 when every one went (or there was none), 1 when one was kept: not provably the
    wizard's, being made, or a file of it in use; each is said on stderr with why.
    """
    from gpuwizard.workflow.envs.registry import EnvRemoveError, remove_environment  # noqa: PLC0415
    from gpuwizard.workflow.state.env_registry import load_records  # noqa: PLC0415

    show = common.json_lines(write) if args.json else None
    names = [record.name for record in load_records()]
    kept = 0
    for name in names:
        try:
            removed = remove_environment(name)
        except (EnvRemoveError, OSError) as error:
            kept += 1
            common.say(f"kept {name}: {error}")
            if show is not None:
                show({"kept_environment": name, "reason": str(error)})
            continue
        for part in removed.kept:
            common.say(f"kept {part}")
        if show is not None:
            show({"removed": removed.record.name, "path": removed.record.path, "kept": list(removed.kept)})
        else:
            write(f"Removed {removed.record.name} ({removed.record.path}).\n")
    if not names and show is None:
        write("No environments made by the wizard: nothing to remove.\n")
    return common.EXIT_PROBLEM if kept else common.EXIT_OK
