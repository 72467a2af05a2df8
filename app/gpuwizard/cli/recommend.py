"""``gpuwizard recommend``: the plan for this machine or a saved report (schema ``gpuwizard.recommendation/1``)."""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import TYPE_CHECKING

from gpuwizard.cli import common

if TYPE_CHECKING:  # the CLI loads without packaging (the Wine-staged path commands)
    from gpuwizard.core.compat.index_view import IndexReleases
    from gpuwizard.core.compat.plan import Wish
    from gpuwizard.core.compat.tables import CompatData


def add_parser(commands: common.Subcommands) -> None:
    """Add ``recommend``."""
    rec = commands.add_parser(
        "recommend",
        help="recommend a framework / Python / CUDA / cuDNN set (schema gpuwizard.recommendation/1)",
    )
    add_wish_options(rec)
    common.add_system_option(rec, "rec_system", "recommend for a saved report instead of this machine")
    common.add_json_option(rec, "print JSON instead of text")
    rec.add_argument(
        "--refresh",
        action="store_true",
        help="fetch newer compatibility data and ask the package indexes for newer releases",
    )
    rec.add_argument(
        "--compat-url",
        metavar="URL",
        help="where --refresh fetches the signed data, https only "
        "(default: $GPUWIZARD_COMPAT_URL, else the project's published data)",
    )


def add_wish_options(parser: argparse.ArgumentParser, *, required: bool = True) -> None:
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
        "--python", metavar="X.Y", help="the preferred Python; another may be chosen, and why is said"
    )
    parser.add_argument("--manager", choices=["venv", "conda"], help="the environment manager")


def run(args: argparse.Namespace, write: common.Write) -> int:
    """Recommend and print the plan."""
    from gpuwizard.core.compat.plan import WishError, parse_wish, recommendation_to_json  # noqa: PLC0415
    from gpuwizard.core.compat.recommend import recommend  # noqa: PLC0415
    from gpuwizard.workflow.compat.data import load_compat  # noqa: PLC0415

    with common.bad_input(WishError):
        wish = parse_wish(args.framework, args.framework_version, args.python, args.manager)
    # A bad --system file is bad input as well: refused before anything is detected or fetched.
    detect = common.detector(args.rec_system)
    notes: list[str] = []
    if args.refresh:
        from gpuwizard.workflow.compat.refresh import refresh_compat  # noqa: PLC0415 - requests only here

        notes = refresh_compat(args.compat_url)
    compat = load_compat()
    index = _index_for(wish, compat)
    report = detect()
    with common.bad_input(WishError):
        recommendation = recommend(report, wish, compat, index)
    if notes:
        recommendation = replace(recommendation, notes=(*recommendation.notes, *notes))
    if args.json:
        common.write_json(write, recommendation_to_json(recommendation))
    else:
        from gpuwizard.cli.text.plan import render_recommendation  # noqa: PLC0415

        write(
            render_recommendation(
                recommendation, nvidia_gpu_present=bool(report.nvidia_gpus), width=common.terminal_width()
            )
        )
    return common.EXIT_OK


def _index_for(wish: Wish, compat: CompatData) -> IndexReleases | None:
    """What PyPI publishes: the cached answer, asked again (briefly) when the wish is beyond it.

    A wished version newer than the data either exists (then the newest verified plan is
    offered with a warning) or does not (exit 2): only the index can tell.
    """
    from gpuwizard.core.compat.tables import minor_of, version_key  # noqa: PLC0415
    from gpuwizard.workflow.compat.releases import known_index  # noqa: PLC0415

    index = known_index()
    rows = compat.pytorch if wish.framework == "pytorch" else compat.tensorflow
    beyond = (
        wish.version is not None
        and bool(rows)
        and version_key(minor_of(wish.version)) > version_key(rows[0].version)
    )
    if beyond and wish.version and (index is None or not index.has(wish.framework, wish.version)):
        from gpuwizard.adapters.http import RequestsClient  # noqa: PLC0415 - requests only here
        from gpuwizard.workflow.compat.releases import QUICK_TIMEOUT_S, fetch_index  # noqa: PLC0415

        asked, _ = fetch_index(RequestsClient(retries=0, timeout=QUICK_TIMEOUT_S))
        # Asked without an answer (offline) is not "not asked": the recommender then plans
        # the newest verified release with a warning instead of refusing.
        index = asked if asked.knows(wish.framework) or index is None else index
    return index
