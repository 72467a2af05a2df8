"""Without a display the wizard says so in one line, before Qt starts (issue 41, point 2).

Before, the README's first command on a machine without a display ended in Qt's abort (exit
134) with hints that sent a newcomer the wrong way ("xcb-cursor0 is needed"). Now ``gpuwizard``
exits 2 with one line naming what to do. The rule itself is pure (the platform and the
environment it is handed); the command is run for real with the display variables taken out.
"""

from __future__ import annotations

import os
import subprocess
import sys
from importlib import resources

import pytest

from gpuwizard.adapters.display import no_display
from harness.entry_point import ENTRY_POINT
from harness.waits import EVENT_S

SAMPLE = str(resources.files("gpuwizard.resources").joinpath("samples", "no-gpu.json"))
DISPLAY_VARIABLES = ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")


@pytest.mark.parametrize(
    "environ",
    [
        {},
        {"QT_QPA_PLATFORM": "xcb"},
        {"QT_QPA_PLATFORM": "xcb", "WAYLAND_DISPLAY": "wayland-0"},
        {"QT_QPA_PLATFORM": "wayland"},
        {"QT_QPA_PLATFORM": "wayland-egl", "DISPLAY": ":0"},
        {"QT_QPA_PLATFORM": "wayland;xcb"},
        {"QT_QPA_PLATFORM": "xcb:nomitshm"},
        {"DISPLAY": ""},
    ],
)
@pytest.mark.parametrize("platform", ["linux", "freebsd14"])
def test_no_display_on_linux_and_bsd(platform: str, environ: dict[str, str]):
    why = no_display(platform, environ)
    assert why is not None and why.startswith("no display found")
    for way in ("desktop session", "xvfb-run", "QT_QPA_PLATFORM=offscreen", "headless commands"):
        assert way in why


@pytest.mark.parametrize(
    "environ",
    [
        {"DISPLAY": ":0"},
        {"WAYLAND_DISPLAY": "wayland-0"},
        {"QT_QPA_PLATFORM": "offscreen"},
        {"QT_QPA_PLATFORM": "minimal"},
        {"QT_QPA_PLATFORM": "eglfs"},
        {"QT_QPA_PLATFORM": "xcb", "DISPLAY": ":1"},
        {"QT_QPA_PLATFORM": "wayland", "WAYLAND_DISPLAY": "wayland-1"},
        {"QT_QPA_PLATFORM": "wayland;xcb", "DISPLAY": ":0"},
    ],
)
def test_a_display_or_a_platform_that_needs_none(environ: dict[str, str]):
    assert no_display("linux", environ) is None


@pytest.mark.parametrize("platform", ["win32", "darwin", "cygwin"])
def test_windows_and_macos_always_have_one(platform: str):
    assert no_display(platform, {}) is None


def without_display() -> dict[str, str]:
    return {name: value for name, value in os.environ.items() if name not in DISPLAY_VARIABLES}


@pytest.mark.slow
@pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="Linux decides by DISPLAY and WAYLAND_DISPLAY"
)
@pytest.mark.parametrize("args", [[], ["--system", SAMPLE]], ids=["this machine", "a saved report"])
def test_the_wizard_without_a_display_says_so_in_one_line_and_exits_2(args: list[str]):
    env = without_display()
    done = subprocess.run(
        [ENTRY_POINT, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=EVENT_S,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr  # nothing from Qt: it never started
    assert lines[0].startswith(
        "gpuwizard: error: no display found (neither DISPLAY nor WAYLAND_DISPLAY is set)"
    )


@pytest.mark.slow
@pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="Linux decides by DISPLAY and WAYLAND_DISPLAY"
)
def test_qt_is_never_loaded_without_a_display():
    probe = (
        "import sys\n"
        "from gpuwizard.cli.main import main\n"
        "code = main([])\n"
        "print('PySide6' in sys.modules)\n"
        "sys.exit(code)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        env=without_display(),
        timeout=EVENT_S,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert done.stdout.strip() == "False"


def test_the_suites_offscreen_wizard_is_not_refused():
    # conftest sets QT_QPA_PLATFORM=offscreen: the GUI tests and `screenshots` run as before.
    assert os.environ["QT_QPA_PLATFORM"] == "offscreen"
    assert no_display(sys.platform, os.environ) is None
