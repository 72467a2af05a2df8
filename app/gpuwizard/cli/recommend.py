"""``gpuwizard recommend``: the plan for this machine or a saved report (schema ``gpuwizard.recommendation/1``).

Beside the plan: where its packages would come from here (``package_sources``: PyTorch's index or
the person's mirror of it, PyPI or a PyPI mirror, each with the setting it came from). Nothing is
asked over the network for it; a mirror setting that cannot be used is refused (exit 2).
"""

from __future__ import annotations

import argparse
from dataclasses import replace

from gpuwizard.cli import common


def add_parser(commands: common.Subcommands) -> None:
    """Add ``recommend``."""
    rec = commands.add_parser(
        "recommend",
        help="recommend a framework build, Python, CUDA and cuDNN",
        description="Recommend the build of a framework for this machine (or a saved report): the "
        "release, its Python, CUDA and cuDNN, the environment manager, where the packages come "
        "from and the commands that install it, with the reasons. Installs nothing.",
        epilog=common.examples(
            "gpuwizard recommend --framework pytorch",
            "gpuwizard recommend --framework tensorflow --version 2.16 --python 3.11",
            "gpuwizard recommend --framework pytorch --system machine.json --json",
            "gpuwizard recommend --framework pytorch --refresh",
        ),
    )
    add_wish_options(rec.add_argument_group("what you want"))
    data = rec.add_argument_group("machine and data")
    common.add_system_option(data, "rec_system", "recommend for a saved report instead of this machine")
    data.add_argument(
        "--refresh",
        action="store_true",
        help="fetch newer compatibility data, ask the package indexes for newer releases, and ask pip "
        "what the plan's CUDA library ranges resolve to today",
    )
    data.add_argument(
        "--compat-url",
        metavar="URL",
        help="where --refresh fetches the signed data, https only "
        "(default: $GPUWIZARD_COMPAT_URL, else the project's published data)",
    )
    common.add_json_option(rec, "print JSON (schema gpuwizard.recommendation/1) instead of text")


def add_wish_options(parser: common.Options, *, required: bool = True) -> None:
    """``--framework``, ``--version``, ``--python``, ``--manager``: what the person wants."""
    parser.add_argument(
        "--framework",
        required=required,
        metavar="F",
        help="pytorch, tensorflow, or the legacy tensorflow-gpu",
    )
    parser.add_argument(
        "--version", dest="framework_version", metavar="X.Y", help="a framework release (2.10 or 2.10.1)"
    )
    parser.add_argument(
        "--python", metavar="X.Y", help="the preferred Python; another may be chosen, with why"
    )
    parser.add_argument(
        "--manager", choices=["venv", "conda"], metavar="venv|conda", help="the environment manager"
    )


def run(args: argparse.Namespace, write: common.Write) -> int:
    """Recommend and print the plan."""
    from gpuwizard.adapters.index_settings import read_index_settings  # noqa: PLC0415
    from gpuwizard.core.compat.plan import WishError, parse_wish, recommendation_to_json  # noqa: PLC0415
    from gpuwizard.core.compat.recommend import recommend  # noqa: PLC0415
    from gpuwizard.core.envs.package_sources import MirrorRefused, sources_to_json  # noqa: PLC0415
    from gpuwizard.workflow.compat.data import load_compat  # noqa: PLC0415
    from gpuwizard.workflow.compat.releases import index_for_wish  # noqa: PLC0415
    from gpuwizard.workflow.compat.resolutions import plan_resolutions  # noqa: PLC0415
    from gpuwizard.workflow.envs.index_check import expected_tool, sources_for  # noqa: PLC0415

    with common.bad_input(WishError):
        wish = parse_wish(args.framework, args.framework_version, args.python, args.manager)
    # A bad --system file is bad input as well: refused before anything is detected or fetched.
    detect = common.detector(args.rec_system)
    notes: list[str] = []
    if args.refresh:
        from gpuwizard.workflow.compat.refresh import refresh_compat  # noqa: PLC0415 - requests only here

        notes = refresh_compat(args.compat_url)
    compat = load_compat()
    index = index_for_wish(wish.framework, wish.version, compat)
    report = detect()
    with common.bad_input(WishError):
        recommendation = recommend(report, wish, compat, index)
    # What the plan's range pins resolve to today (pip, with --refresh; else today's kept answer):
    # planned again with it, the plan pins what that release no longer supports (issue 36).
    resolutions, resolve_notes = plan_resolutions(recommendation.plan, ask=args.refresh)
    notes += resolve_notes
    if resolutions:
        recommendation = recommend(report, wish, compat, index, resolutions)
    if notes:
        recommendation = replace(recommendation, notes=(*recommendation.notes, *notes))
    plan = recommendation.plan
    with common.bad_input(MirrorRefused):
        sources = sources_for(
            plan,
            tool=expected_tool(plan.manager, None, report.managers),
            find_links=None,
            offline=False,
            settings=read_index_settings(),
        )
    if args.json:
        data = recommendation_to_json(recommendation)
        data["package_sources"] = sources_to_json(sources, plan.requirements)
        common.write_json(write, data)
    else:
        from gpuwizard.cli.text.plan import render_recommendation  # noqa: PLC0415
        from gpuwizard.core.compat.shell_commands import command_host  # noqa: PLC0415

        write(
            render_recommendation(
                recommendation,
                gpu_present=bool(report.compute_gpus),
                host=command_host(report, plan),
                width=common.terminal_width(),
                sources=sources,
            )
        )
    return common.EXIT_OK
