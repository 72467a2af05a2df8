r"""The installed wizard's window on a laptop's screen at 125 % and a desktop's at 150 % (issue 37, point 1).

The installer is installed silently into a fresh Wine prefix (conftest.py), which is then shown
on an X screen of the Windows screen's size (Xvfb) through Wine's X11 driver, with Windows'
display scaling set the way Windows keeps it, in ``LogPixels`` (120 dots per inch is 125 %, 144
is 150 %). The installed ``gpuwizardw.exe`` (what the Start-menu shortcut starts) then opens as
it would for that user, and the test, like the user, looks at the screen and uses the mouse:

* the window, frame and title bar included, lies inside the screen's work area, which leaves
  room for a Windows 11 taskbar (48 logical pixels, so 60 pixels at 125 % and 72 at 150 %; the
  X root window's ``_NET_WORKAREA`` says so to Wine, as a Linux desktop's panel would);
* the wizard's buttons are found on the screen itself (the screen's pixels, from Xvfb's frame
  buffer): the row of button-sized controls at the bottom of the window, Cancel the rightmost
  (QWizard's order on Windows: Back, Next, Cancel), each inside the work area;
* a mouse click on Next moves on (the next page adds a Back button), and a click on Cancel
  closes the wizard: its process ends, with status 0;
* the window's size and place that the wizard kept on closing (``window.json`` in its data
  folder, in Qt's logical pixels) are those of the window on the screen once scaled, so Qt
  did run at the screen's scale.

There is no window manager on the X screen: Wine draws the window's frame and title bar itself
(``Decorated`` off), as Windows does, so the X window is the whole Windows window.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import pytest

from installer.x_display import POLL_S, Rect, Screen, Shot, XScreen, need_x_tools, show_on, x_screen

if TYPE_CHECKING:
    from conftest import WinePrefix  # tests/installer/conftest.py, which makes the fixtures

# With pytest-xdist (-n), the installer is built once, on one worker: its tests stay together.
pytestmark = [pytest.mark.slow, pytest.mark.heavy, pytest.mark.xdist_group("installer")]

APP = "GPU Setup Wizard"
#: A cold Wine prefix starts its services and desktop before the wizard: generous limits.
WINDOW_LIMIT_S = 240
CHANGE_LIMIT_S = 120
EXIT_LIMIT_S = 180

T = TypeVar("T")


class OnScreen:
    """The installed wizard running on the X screen, watched the way its user would."""

    def __init__(self, wizard: subprocess.Popen[bytes], x: XScreen, screen: Screen) -> None:
        self.wizard = wizard
        self.x = x
        self.screen = screen
        self.window = ""  # its X window, once it has appeared

    def until(
        self, what: str, found: Callable[[], T | None], limit_s: float, seen: Callable[[], str] = str
    ) -> T:
        """Look again every POLL_S until ``found`` answers; fail if the wizard ends or time runs out.

        ``seen`` says what was on the screen meanwhile, for the failure message.
        """
        deadline = time.monotonic() + limit_s
        while True:
            answer = found()
            if answer is not None:
                return answer
            if self.wizard.poll() is not None:
                ended = f"the wizard ended (status {self.wizard.returncode}) before {what}"
                pytest.fail(f"{ended}; {seen()} {self.x.kept()}")
            if time.monotonic() > deadline:
                pytest.fail(f"{what}: not within {limit_s} s; {seen()} {self.x.kept()}")
            time.sleep(POLL_S)

    def appears(self) -> None:
        """Wait for the window to be shown."""

        def the_window() -> str | None:
            found = self.x.windows_named(APP)
            return found[0] if len(found) == 1 else None

        self.window = self.until("the wizard's window appeared", the_window, WINDOW_LIMIT_S)

    def geometry(self) -> Rect:
        return self.x.geometry(self.window)

    def where(self) -> str:
        """Where the window is, for a failure message (also when it is gone)."""
        shown = self.x.windows_named(APP)
        return f"the window is {self.geometry()};" if self.window in shown else "the window is gone;"

    def buttons(self, count: int, *, or_outside: bool = False) -> list[Rect]:
        """Wait until the window shows ``count`` buttons (or, if ``or_outside``, is not inside the work area).

        The second is for the window's first moments: Qt gives the window its place before it
        shows it, so a window that opens outside the work area stays there, and its buttons may
        never be drawn on the screen.
        """
        area = self.screen.work_area

        def drawn() -> list[Rect] | None:
            window = self.geometry()
            row = buttons_in(self.x.shot(), window, self.screen.scale)
            return row if len(row) == count or (or_outside and not window.inside(area)) else None

        return self.until(f"{count} buttons drawn", drawn, CHANGE_LIMIT_S, seen=self.where)

    def click(self, button: Rect) -> None:
        self.x.click(*button.center)

    def closes(self) -> int:
        """Wait for the wizard's process to end; its exit status."""
        try:
            return self.wizard.wait(timeout=EXIT_LIMIT_S)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the wizard did not close within {EXIT_LIMIT_S} s; {self.x.kept()}")


@contextmanager
def started(prefix: WinePrefix, program: str, x: XScreen, screen: Screen) -> Iterator[OnScreen]:
    """The installed ``program`` started on the X screen; this prefix's Wine stopped afterwards."""
    wizard = subprocess.Popen(
        ["wine", program], env={**prefix.env, "DISPLAY": x.display},
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        yield OnScreen(wizard, x, screen)
    finally:
        if wizard.poll() is None:
            wizard.kill()
            wizard.wait()
        prefix.close()  # Wine's programs end while their X screen is still there


def check_kept(kept: Path, window: Rect, screen: Screen, say: Callable[[str], None]) -> None:
    """What the wizard kept on closing (its geometry inside the frame, in Qt's logical pixels) is its window's.

    Scaled by the screen's scale, the kept geometry is the window on the screen less Wine's
    frame (a few pixels each side and the title bar): had Qt not run at the screen's scale, the
    numbers would be the screen's pixels, and scaled they would be larger than the window.
    """
    data = json.loads(kept.read_text(encoding="utf-8"))
    inner = Rect(*(round(data[k] * screen.scale) for k in ("x", "y", "width", "height")))
    say(
        f"  kept {data['width']}x{data['height']} at ({data['x']}, {data['y']}) logical: {inner} on the screen"
    )
    slack = 1  # the rounding of the scaled numbers
    grown = Rect(inner.left - slack, inner.top - slack, inner.width + 2 * slack, inner.height + 2 * slack)
    assert grown.inside(window), f"kept {inner} on the screen is not inside the window {window}"
    assert window.width - inner.width <= 20 * screen.scale  # the borders
    assert window.height - inner.height <= 50 * screen.scale  # the title bar and the bottom border


def buttons_in(shot: Shot, window: Rect, scale: float) -> list[Rect]:
    """The push buttons in the bottom row of ``window``, left to right, found in the screen's pixels.

    In the lowest 100 logical pixels of the window (where QWizard puts its buttons), every
    connected region of pixels unlike the button bar's background is a control, a word or a
    line; a button is one of push-button size (a frame around its face and text), and the
    wizard's buttons are the lowest row of them.
    """
    first, top = max(window.left, 0), max(window.bottom - round(100 * scale), window.top, 0)
    area = Rect(first, top, min(window.right, shot.width) - first, min(window.bottom, shot.height) - top)
    if area.width <= 0 or area.height < round(12 * scale):
        return []  # the window's bottom is off the screen
    step, width = shot.pixel_bytes, area.width
    lines = [shot.row(y, area.left, area.right) for y in range(area.top, area.bottom)]
    # The bar's background: the commonest colour of its lowest rows, below the buttons.
    lowest = lines[-round(12 * scale) :]
    colours = Counter(line[i : i + step] for line in lowest for i in range(0, len(line), step))
    background = colours.most_common(1)[0][0]
    # 1: unlike the background; 2: unlike it and already in a region.
    marks = bytearray(line[i * step : i * step + step] != background for line in lines for i in range(width))
    regions: list[Rect] = []
    for start, mark in enumerate(marks):
        if mark != 1:
            continue
        marks[start] = 2
        stack = [start]
        x0, y0, x1, y1 = width, len(lines), -1, -1
        while stack:
            index = stack.pop()
            col, row = index % width, index // width
            x0, x1, y0, y1 = min(x0, col), max(x1, col), min(y0, row), max(y1, row)
            for near, inside in (
                (index - 1, col > 0),
                (index + 1, col < width - 1),
                (index - width, row > 0),
                (index + width, row < len(lines) - 1),
            ):
                if inside and marks[near] == 1:
                    marks[near] = 2
                    stack.append(near)
        regions.append(Rect(area.left + x0, area.top + y0, x1 - x0 + 1, y1 - y0 + 1))
    sized = [
        r for r in regions if 18 * scale <= r.height <= 40 * scale and 40 * scale <= r.width <= 250 * scale
    ]
    if not sized:
        return []
    low = max(sized, key=lambda r: r.bottom)
    return sorted((r for r in sized if low.top <= r.center[1] <= low.bottom), key=lambda r: r.left)


SCREENS = [
    pytest.param(Screen(1366, 768, 120), id="1366x768-at-125%"),
    pytest.param(Screen(1920, 1080, 144), id="1920x1080-at-150%"),
]


@pytest.fixture(scope="session")
def x_tools() -> None:
    """The X programs, checked before the installer is built (a session fixture, used first)."""
    need_x_tools()


@pytest.mark.usefixtures("x_tools")  # first, so that a missing tool skips before the build
@pytest.mark.parametrize("screen", SCREENS)
def test_the_installed_wizard_fits_the_screen_and_its_buttons_take_the_mouse(
    say: Callable[[str], None],
    setup_exe: Path,
    wine_prefix: WinePrefix,
    tmp_path: Path,
    screen: Screen,
):
    prefix = wine_prefix
    started_at = time.perf_counter()
    install = prefix.run(str(setup_exe), "/S", timeout=600)
    assert install.returncode == 0, install.stdout + install.stderr
    folder = prefix.expand(rf"%LOCALAPPDATA%\Programs\{APP}")
    program = rf"{folder}\gpuwizardw.exe"
    kept = prefix.linux_path(prefix.expand(r"%LOCALAPPDATA%\gpuwizard\window.json"))
    show_on(prefix, screen)
    area = screen.work_area

    with x_screen(screen, tmp_path / "x") as x, started(prefix, program, x, screen) as wizard:
        opening = time.perf_counter()
        wizard.appears()
        first = wizard.buttons(2, or_outside=True)  # on the first page, Next and Cancel (no Back)
        window = wizard.geometry()
        say(f"\n{screen}: work area {area}; window {window}; buttons {', '.join(map(str, first))}")
        say(f"  {time.perf_counter() - opening:.1f} s from starting gpuwizardw.exe to the drawn window")
        assert window.inside(area), f"the window {window} is not inside the work area {area}; {x.kept()}"
        next_button, cancel = first
        for name, button in (("Next", next_button), ("Cancel", cancel)):
            assert button.inside(window) and button.inside(area), f"{name} {button}; {x.kept()}"

        wizard.click(next_button)
        # The second page shows Back beside Next and Cancel: the click reached Next.
        *_, cancel = wizard.buttons(3)
        assert cancel.inside(area), f"Cancel {cancel}; {x.kept()}"
        wizard.click(cancel)
        assert wizard.closes() == 0

    check_kept(kept, window, screen, say)
    say(f"  {time.perf_counter() - started_at:.1f} s in all, the install included")
