"""``gpuwizard export``: the plan as a Dockerfile, a conda environment.yml or a requirements file.

For the cloud-VM and Docker cases. The plan is the recommendation for this
machine (or a saved report, ``--system``) and a wish like ``recommend``'s, or the exact build of
an environment the wizard made (``--env``). A Dockerfile gets a plan of its own, made for Linux
with the host's GPUs and driver (:mod:`gpuwizard.core.exports.docker`).

Exit codes: 0 written; 2 bad input (one line on stderr, nothing written).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Final

from gpuwizard.cli import common

FORMATS: Final = ("dockerfile", "environment.yml", "requirements")
#: The environment manager each format is for; ``requirements`` serves both.
_FORMAT_MANAGERS: Final = {
    "dockerfile": ("venv",),
    "environment.yml": ("conda",),
    "requirements": ("venv", "conda"),
}

_DESCRIPTION: Final = """\
Write the plan as a file for another target: a Dockerfile (a Linux container on an official
CUDA, TensorFlow or Python image), a conda environment.yml, or a pinned pip requirements file.

The plan is the exact build of an environment the wizard made (--env NAME), or else the
recommendation for this machine (--framework F and, as recommend takes them, --version,
--python, --manager); --system FILE plans for the machine a saved report describes. A
Dockerfile is for Linux whatever the host's OS, with the host's GPUs and driver.
"""


def add_parser(commands: common.Subcommands) -> None:
    """Add ``export``."""
    export = commands.add_parser(
        "export",
        help="write the plan for Docker, conda or pip",
        usage="%(prog)s --format FORMAT --out FILE [options]",
        description=_DESCRIPTION,
        epilog=common.examples(
            "gpuwizard export --format dockerfile --out Dockerfile --framework pytorch",
            "gpuwizard export --format requirements --out requirements.txt --env lab",
            "gpuwizard export --format environment.yml --out env.yml --framework tensorflow",
        ),
    )
    written = export.add_argument_group("what to write")
    written.add_argument(
        "--format",
        dest="export_format",
        required=True,
        choices=FORMATS,
        metavar="FORMAT",
        help=f"{', '.join(FORMATS[:-1])} or {FORMATS[-1]}",
    )
    written.add_argument(
        "--out",
        dest="export_out",
        required=True,
        metavar="FILE",
        type=Path,
        help="the file to write (replaced)",
    )
    written.add_argument(
        "--name",
        dest="export_name",
        metavar="NAME",
        help="the conda environment's and the image's name (default: the environment's or the plan's)",
    )
    plan = export.add_argument_group("which plan")
    plan.add_argument(
        "--env", dest="export_env", metavar="NAME", help="the exact build of this environment the wizard made"
    )
    plan.add_argument(
        "--framework",
        dest="export_framework",
        metavar="F",
        help="else: pytorch, tensorflow or tensorflow-gpu, as recommended here",
    )
    plan.add_argument(
        "--version", dest="export_version", metavar="X.Y", help="a framework release (2.10 or 2.10.1)"
    )
    plan.add_argument("--python", dest="export_python", metavar="X.Y", help="the preferred Python")
    plan.add_argument(
        "--manager",
        dest="export_manager",
        choices=["venv", "conda"],
        metavar="venv|conda",
        help="the environment manager (requirements: pip in either)",
    )
    common.add_system_option(plan, "export_system", "plan for the machine of a saved system report")


def run(args: argparse.Namespace, write: common.Write) -> int:
    """Run ``gpuwizard export``; returns the exit code (nothing is written on bad input)."""
    from gpuwizard.core.compat.plan import WishError, parse_wish  # noqa: PLC0415
    from gpuwizard.core.exports.files import ExportError, check_name  # noqa: PLC0415
    from gpuwizard.workflow.exports.plan_files import ExportSource, environment_source, render_export  # noqa: PLC0415
    from gpuwizard.workflow.state.files import write_text_atomically  # noqa: PLC0415

    out: Path = args.export_out
    fmt: str = args.export_format
    _check_out(out)
    _check_combination(args, fmt)
    manager = args.export_manager or ("conda" if fmt == "environment.yml" else "venv")
    # Everything that can be refused is, before this machine is even detected.
    with common.bad_input(ExportError):
        name = check_name(args.export_name) if args.export_name is not None else None
    report = common.saved_report(args.export_system)
    with common.bad_input(ExportError, WishError):
        if args.export_env is not None:
            source = environment_source(args.export_env, fmt, manager)
        else:
            wish = parse_wish(args.export_framework, args.export_version, args.export_python, manager)
            source = ExportSource(wish)
        if report is None:
            from gpuwizard.workflow.machine.detect import detect_system  # noqa: PLC0415

            report, where = detect_system(), "this machine"
        else:
            # Its name only: the file is shared, and the folder would tell whose home it came from.
            where = f"the saved report {Path(args.export_system).name}"
        text, summary = render_export(fmt, source, report, where, name=name, file_name=out.name)
    try:
        write_text_atomically(out, text)
    except OSError as error:
        raise common.UsageError(f"{out}: cannot be written ({error.strerror or error})") from None
    write(f"{out}: {summary}\n")
    return common.EXIT_OK


def _check_out(out: Path) -> None:
    if out.is_dir():
        raise common.UsageError(f"{out}: is a folder; give the file to write")
    if not out.parent.is_dir():
        raise common.UsageError(f"{out.parent}: no such folder")


def _check_combination(args: argparse.Namespace, fmt: str) -> None:
    if args.export_env is not None:
        given = [
            option
            for option, value in (
                ("--framework", args.export_framework),
                ("--version", args.export_version),
                ("--python", args.export_python),
                ("--manager", args.export_manager),
            )
            if value is not None
        ]
        if given:
            raise common.UsageError(
                f"--env takes the framework, version, build and Python from the environment; leave out {', '.join(given)}"
            )
    elif args.export_framework is None:
        raise common.UsageError(
            "say which plan: --framework F (the recommendation) or --env NAME (an environment made)"
        )
    if args.export_manager is not None and args.export_manager not in _FORMAT_MANAGERS[fmt]:
        raise common.UsageError(
            f"--format {fmt} is for {' or '.join(_FORMAT_MANAGERS[fmt])} environments, not {args.export_manager}"
        )
