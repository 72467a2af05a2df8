"""The ``gpuwizard`` command (DESIGN.md section 4).

Exit codes: 0 success; 1 the check ran and found a problem; 2 bad input or usage (one line on
stderr, nothing changed); 3 an operation failed part-way and was rolled back.

Headless commands never import PySide6: the GUI modules are imported only by the commands
that open or render windows, so ``gpuwizard detect --json`` stays fast.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

from gpuwizard import __version__
from gpuwizard.apply_cli import ApplyCliError, add_apply_parser, run_apply_command
from gpuwizard.core.system_report import report_to_json
from gpuwizard.diagnose_cli import DiagnoseUsageError, add_diagnose_parser, run_diagnose
from gpuwizard.env_cli import EnvUsageError, add_env_parser, run_env_command
from gpuwizard.export_cli import ExportCliError, add_export_parser, run_export_command
from gpuwizard.live_test_cli import LiveTestCliError, add_test_parser, run_test_command
from gpuwizard.path_cli import PathUsageError, add_path_parser, run_path_command
from gpuwizard.report_cli import ReportCliError, add_report_parser, run_report_command
from gpuwizard.verify_cli import VerifyCliError, add_verify_parser, run_verify_command
from gpuwizard.workflow.system_file import SystemFileError, load_system_report

EXIT_OK = 0
EXIT_PROBLEM = 1
EXIT_USAGE = 2
EXIT_ROLLED_BACK = 3


class UsageError(Exception):
    """Bad input: printed as one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and exit 2 (DESIGN.md section 4)."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    """The parser for every command."""
    parser = _Parser(
        prog="gpuwizard",
        description="GPU Setup Wizard: from 'I have an NVIDIA card' to 'my framework trains on it'. "
        "With no command, opens the wizard.",
    )
    parser.add_argument("--version", action="version", version=f"gpuwizard {__version__}")
    parser.add_argument(
        "--system",
        metavar="FILE",
        type=Path,
        help="open the wizard on a saved system report; every change is a preview",
    )
    parser.add_argument(
        "--lang", metavar="CODE", help="interface language (en, es, zh_CN); default: the system's"
    )
    parser.add_argument(
        "--theme",
        choices=["system", "light", "dark"],
        default="system",
        help="colours of the wizard (default: the system's)",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    detect = commands.add_parser("detect", help="describe this machine (schema gpuwizard.system/1)")
    detect.add_argument("--json", action="store_true", help="print JSON instead of a table")
    detect.add_argument(
        "--system",
        dest="detect_system",
        metavar="FILE",
        type=Path,
        help="describe a saved report instead of this machine",
    )

    rec = commands.add_parser(
        "recommend",
        help="recommend a framework / Python / CUDA / cuDNN set (schema gpuwizard.recommendation/1)",
    )
    rec.add_argument(
        "--framework", required=True, metavar="F", help="pytorch, tensorflow, or the legacy tensorflow-gpu"
    )
    rec.add_argument(
        "--version", dest="framework_version", metavar="X.Y", help="a framework release (2.10 or 2.10.1)"
    )
    rec.add_argument(
        "--python", metavar="X.Y", help="the preferred Python; another may be chosen, and why is said"
    )
    rec.add_argument("--manager", choices=["venv", "conda"], help="the environment manager")
    rec.add_argument(
        "--system",
        dest="rec_system",
        metavar="FILE",
        type=Path,
        help="recommend for a saved report instead of this machine",
    )
    rec.add_argument("--json", action="store_true", help="print JSON instead of text")
    rec.add_argument(
        "--refresh",
        action="store_true",
        help="fetch newer compatibility data and ask the package indexes for newer releases",
    )
    rec.add_argument(
        "--compat-url",
        metavar="URL",
        help="where --refresh fetches the data (default: $GPUWIZARD_COMPAT_URL)",
    )

    add_env_parser(commands)
    add_test_parser(commands)
    add_diagnose_parser(commands)
    add_path_parser(commands)
    add_verify_parser(commands)
    add_apply_parser(commands)
    add_export_parser(commands)
    add_report_parser(commands)

    shots = commands.add_parser("screenshots", help="render every wizard page to PNG")
    shots.add_argument("directory", metavar="DIR", type=Path)
    shots.add_argument(
        "--system",
        dest="shots_system",
        metavar="FILE",
        type=Path,
        help="show a saved report instead of detecting this machine",
    )
    shots.add_argument("--lang", dest="shots_lang", metavar="CODE", help="interface language")
    shots.add_argument(
        "--theme", dest="shots_theme", choices=["system", "light", "dark"], help="colours of the pages"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    args = build_parser().parse_args(argv)
    handlers: dict[str | None, Callable[[argparse.Namespace], int]] = {
        "detect": _detect,
        "recommend": _recommend,
        "screenshots": _screenshots,
        "env": lambda parsed: run_env_command(parsed, _write),
        "test": lambda parsed: run_test_command(parsed, _write),
        "diagnose": lambda parsed: run_diagnose(parsed, _write),
        "path": lambda parsed: run_path_command(parsed, _write),
        "verify": lambda parsed: run_verify_command(parsed, _write),
        "apply": lambda parsed: run_apply_command(parsed, _write),
        "export": lambda parsed: run_export_command(parsed, _write),
        "report": lambda parsed: run_report_command(parsed, _write),
        None: _wizard,
    }
    try:
        return handlers[args.command](args)
    except (
        UsageError,
        EnvUsageError,
        LiveTestCliError,
        DiagnoseUsageError,
        PathUsageError,
        VerifyCliError,
        ApplyCliError,
        ExportCliError,
        ReportCliError,
        # A --system file that is no system report, whichever command was given it.
        SystemFileError,
    ) as error:
        print(f"gpuwizard: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130


def _detect(args: argparse.Namespace) -> int:
    if args.detect_system is not None:
        report = load_system_report(args.detect_system)
    else:
        from gpuwizard.workflow.detect import detect_system  # noqa: PLC0415

        report = detect_system()
    if args.json:
        _write(json.dumps(report_to_json(report), indent=2, ensure_ascii=False) + "\n")
    else:
        from gpuwizard.text_report import render_report  # noqa: PLC0415

        _write(render_report(report, width=min(shutil.get_terminal_size().columns, 100)))
    return EXIT_OK


def _recommend(args: argparse.Namespace) -> int:
    from gpuwizard.core.plan import WishError, parse_wish, recommendation_to_json  # noqa: PLC0415
    from gpuwizard.core.recommend import recommend  # noqa: PLC0415
    from gpuwizard.workflow.compat_data import load_compat  # noqa: PLC0415

    try:
        wish = parse_wish(args.framework, args.framework_version, args.python, args.manager)
    except WishError as error:
        raise UsageError(str(error)) from None
    # A bad --system file is bad input as well: checked before anything is detected or fetched.
    report = load_system_report(args.rec_system) if args.rec_system is not None else None
    notes: list[str] = []
    if args.refresh:
        from gpuwizard.workflow.compat_refresh import refresh_compat  # noqa: PLC0415 - requests only here

        notes = refresh_compat(args.compat_url)
    compat = load_compat()
    if report is None:
        from gpuwizard.workflow.detect import detect_system  # noqa: PLC0415

        report = detect_system()
    try:
        recommendation = recommend(report, wish, compat)
    except WishError as error:
        raise UsageError(str(error)) from None
    if notes:
        from dataclasses import replace  # noqa: PLC0415

        recommendation = replace(recommendation, notes=(*recommendation.notes, *notes))
    if args.json:
        _write(json.dumps(recommendation_to_json(recommendation), indent=2, ensure_ascii=False) + "\n")
    else:
        from gpuwizard.recommend_text import render_recommendation  # noqa: PLC0415

        _write(render_recommendation(recommendation, width=min(shutil.get_terminal_size().columns, 100)))
    return EXIT_OK


def _language(lang: str | None) -> str | None:
    from gpuwizard.workflow.languages import LanguageError, check_language  # noqa: PLC0415

    try:
        return check_language(lang) if lang is not None else None
    except LanguageError as error:
        raise UsageError(str(error)) from None


def _wizard(args: argparse.Namespace) -> int:
    # A bad --system file or --lang is reported before Qt is even imported, let alone a window shown.
    lang = _language(args.lang)
    report = load_system_report(args.system) if args.system is not None else None
    from gpuwizard.ui.app import run_wizard  # noqa: PLC0415 - Qt only for the GUI

    return run_wizard(report=report, system_file=args.system, lang=lang, theme=args.theme)


def _screenshots(args: argparse.Namespace) -> int:
    lang = _language(args.shots_lang or args.lang)
    system_file = args.shots_system or args.system
    report = load_system_report(system_file) if system_file is not None else None
    directory: Path = args.directory
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"{directory}: exists and is not a folder")
    from gpuwizard.ui.screenshots import render_screenshots  # noqa: PLC0415 - Qt only here

    theme = args.shots_theme or args.theme
    written = render_screenshots(directory, report=report, lang=lang, theme=theme)
    for path in written:
        _write(f"{path}\n")
    return EXIT_OK


def _write(text: str) -> None:
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
