"""The commands that open or render windows: the wizard itself, and ``gpuwizard screenshots``.

The only module of the command line that reaches Qt, and only inside these commands: a bad
``--system`` file or ``--lang``, and a machine without a display, are refused before Qt is even
imported, let alone a window shown.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from gpuwizard.adapters.display import display_unusable, no_display
from gpuwizard.cli import common

_THEMES = ["system", "light", "dark"]


def add_wizard_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``gpuwizard`` with no command (the wizard)."""
    common.add_system_option(
        parser, "system", "open the wizard on a saved system report; every change is a preview"
    )
    parser.add_argument(
        "--lang", metavar="CODE", help="interface language (en, es, zh_CN); default: the system's"
    )
    parser.add_argument(
        "--theme", choices=_THEMES, default="system", help="colours of the wizard (default: the system's)"
    )


def add_screenshots_parser(commands: common.Subcommands) -> None:
    """Add ``screenshots DIR``."""
    shots = commands.add_parser(
        "screenshots",
        help="render every wizard page to PNG",
        description="Render every page of the wizard to a PNG file in DIR, for this machine or a "
        "saved report, without a display. Changes nothing else.",
        epilog=common.examples(
            "gpuwizard screenshots shots",
            "gpuwizard screenshots shots --system machine.json --lang es --theme dark",
        ),
    )
    shots.add_argument("directory", metavar="DIR", type=Path, help="the folder the PNG files go to")
    common.add_system_option(shots, "shots_system", "show a saved report instead of detecting this machine")
    shots.add_argument("--lang", dest="shots_lang", metavar="CODE", help="interface language")
    shots.add_argument("--theme", dest="shots_theme", choices=_THEMES, help="colours of the pages")


def run_wizard(args: argparse.Namespace, write: common.Write) -> int:
    """Open the wizard; returns its exit code (130 when a signal closed it)."""
    lang = _language(args.lang)
    report = common.saved_report(args.system)
    from gpuwizard.adapters.display_probe import SystemDisplay  # noqa: PLC0415 - ctypes, sockets only here

    # Before Qt: without a display, or with one that does not answer or a plugin that cannot
    # load, its xcb platform aborts the process with hints that mislead (issue 41, point 2); one
    # line says what to do instead.
    why = no_display(sys.platform, os.environ) or display_unusable(sys.platform, os.environ, SystemDisplay())
    if why is not None:
        raise common.UsageError(why)
    from gpuwizard.ui.app import run_wizard as open_wizard  # noqa: PLC0415 - Qt only for the GUI

    return open_wizard(report=report, system_file=args.system, lang=lang, theme=args.theme)


def run_screenshots(args: argparse.Namespace, write: common.Write) -> int:
    """Render every page to PNG in ``DIR``; prints the files written."""
    lang = _language(args.shots_lang or args.lang)
    system_file = args.shots_system or args.system
    report = common.saved_report(system_file)
    directory: Path = args.directory
    if directory.exists() and not directory.is_dir():
        raise common.UsageError(f"{directory}: exists and is not a folder")
    if sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    ):
        # Rendering needs no screen: without one, Qt's offscreen platform draws the same pages
        # (doc.qt.io/qt-6/qpa.html) instead of failing to connect to a display.
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from gpuwizard.ui.screenshots import render_screenshots  # noqa: PLC0415 - Qt only here

    theme = args.shots_theme or args.theme
    for path in render_screenshots(directory, report=report, lang=lang, theme=theme):
        write(f"{path}\n")
    return common.EXIT_OK


def _language(lang: str | None) -> str | None:
    from gpuwizard.workflow.wizard.languages import LanguageError, check_language  # noqa: PLC0415

    with common.bad_input(LanguageError):
        return check_language(lang) if lang is not None else None
