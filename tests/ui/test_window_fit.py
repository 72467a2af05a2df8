"""The window fits laptop screens at any scaling, and keeps the size the person gave it (issue 37).

In logical pixels, a Windows 11 taskbar (48) taken off: 1366 × 768 at 125 % leaves 1093 × 566,
and 1920 × 1080 at 150 %, 1280 × 720 at 100 % and 2560 × 1440 at 200 % leave 1280 × 672. The
window used to open at 880 × 700 (at least 720 × 560) whatever the screen, so Back, Next and
Cancel were below the bottom edge or under the taskbar on all four.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest
from PySide6.QtCore import QMargins, QPoint, QRect, QSize
from PySide6.QtWidgets import QLabel, QWizard
from pytestqt.qtbot import QtBot

from gpuwizard.ui.window_fit import (
    ESTIMATED_FRAME,
    MINIMUM_SIZE,
    PREFERRED_SIZE,
    fitted_geometry,
    fitted_minimum,
)
from gpuwizard.ui.wizard import PageId, SetupWizard
from gpuwizard.workflow.machine.system_file import load_system_report
from gpuwizard.workflow.state.home import wizard_home
from gpuwizard.workflow.state.window_geometry import (
    WINDOW_NAME,
    WindowGeometry,
    load_window_geometry,
    save_window_geometry,
)
from gpuwizard.workflow.wizard.session import WizardSession
from harness.kept_wizards import keep
from harness.laptop_screens import SCREENS, screens_config
from harness.waits import EVENT_MS, EVENT_S

TESTS = Path(__file__).parents[1]
SAMPLES = resources.files("gpuwizard.resources").joinpath("samples")

#: What each screen leaves the window, in logical pixels (harness/laptop_screens.py makes them).
AVAILABLE = {
    "1366x768 at 125%": QRect(0, 0, 1093, 566),
    "1920x1080 at 150%": QRect(0, 0, 1280, 672),
    "1280x720 at 100%": QRect(0, 0, 1280, 672),
    "2560x1440 at 200%": QRect(0, 0, 1280, 672),
    # A second monitor left of the first: the window goes on it, not at the origin.
    "1280x720 at 100%, left of the main screen": QRect(-1280, 0, 1280, 672),
}


def old_geometry(available: QRect) -> QRect:
    """Where the window opened before: 880 × 700 whatever the screen, centred by QDialog.

    QDialog keeps a window's top left on the screen, not its size (qdialog.cpp, adjustPosition).
    """
    rect = QRect(QPoint(0, 0), QSize(880, 700))
    rect.moveCenter(available.center())
    rect.moveTopLeft(QPoint(max(rect.left(), available.left()), max(rect.top(), available.top())))
    return rect


def framed(rect: QRect, frame: QMargins = ESTIMATED_FRAME) -> QRect:
    return rect.marginsAdded(frame)


def fits(size: QSize, available: QRect) -> bool:
    """Whether a window of ``size`` fits ``available`` with its frame around it."""
    return available.size().expandedTo(size.grownBy(ESTIMATED_FRAME)) == available.size()


def centred(rect: QRect, available: QRect) -> bool:
    """Whether ``rect`` is in the middle of the room ``available`` leaves inside a frame (to a pixel)."""
    room = available.marginsRemoved(ESTIMATED_FRAME)
    spare_x = (rect.left() - room.left(), room.right() - rect.right())
    spare_y = (rect.top() - room.top(), room.bottom() - rect.bottom())
    return all(min(spare) >= 0 and abs(spare[0] - spare[1]) <= 1 for spare in (spare_x, spare_y))


@pytest.mark.parametrize("screen", AVAILABLE)
def test_the_framed_window_fits_each_screen_and_the_old_size_did_not(screen: str):
    available = AVAILABLE[screen]
    rect = fitted_geometry(PREFERRED_SIZE, MINIMUM_SIZE, available, None)
    assert available.contains(framed(rect)), (screen, rect)
    assert centred(rect, available)
    assert rect.width() >= MINIMUM_SIZE.width() and rect.height() >= MINIMUM_SIZE.height()
    # The smallest window the person can make fits as well.
    smallest = fitted_minimum(MINIMUM_SIZE, available)
    assert smallest == MINIMUM_SIZE
    assert fits(smallest, available)
    # What this test would have said of the old code: the window ran off the screen.
    assert not available.contains(framed(old_geometry(available)))
    if available.height() < 600:
        assert not fits(QSize(720, 560), available)  # the old minimum


def test_a_wide_screen_gets_the_preferred_size():
    available = QRect(0, 0, 1920, 1032)  # 1920 × 1080 at 100 %
    rect = fitted_geometry(PREFERRED_SIZE, MINIMUM_SIZE, available, None)
    assert rect.size() == PREFERRED_SIZE
    assert available.contains(framed(rect))


def test_a_screen_smaller_than_the_minimum_makes_the_minimum_smaller():
    available = QRect(0, 0, 600, 400)  # no such screen is supported, yet the window fits
    assert fits(fitted_minimum(MINIMUM_SIZE, available), available)
    assert available.contains(framed(fitted_geometry(PREFERRED_SIZE, MINIMUM_SIZE, available, None)))


def test_a_saved_size_within_the_screen_is_restored_where_it_was():
    available = AVAILABLE["1920x1080 at 150%"]
    saved = QRect(50, 60, 700, 500)
    assert fitted_geometry(PREFERRED_SIZE, MINIMUM_SIZE, available, saved) == saved


def test_a_size_saved_on_a_4k_monitor_is_made_to_fit_a_laptop():
    available = AVAILABLE["1366x768 at 125%"]
    saved = QRect(200, 150, 3000, 1900)
    rect = fitted_geometry(PREFERRED_SIZE, MINIMUM_SIZE, available, saved)
    assert available.contains(framed(rect))
    assert rect.size() == available.marginsRemoved(ESTIMATED_FRAME).size()


def test_a_window_saved_half_off_the_screen_is_moved_onto_it():
    available = AVAILABLE["1280x720 at 100%"]
    saved = QRect(900, 100, 700, 500)  # its centre is on the screen, its right half is not
    rect = fitted_geometry(PREFERRED_SIZE, MINIMUM_SIZE, available, saved)
    assert rect == QRect(1280 - ESTIMATED_FRAME.right() - 700, 100, 700, 500)  # moved left, no further
    assert available.contains(framed(rect))


def test_a_window_saved_on_a_screen_that_is_gone_is_centred_at_its_size():
    available = AVAILABLE["1280x720 at 100%"]
    saved = QRect(3000, 200, 700, 500)  # on a second monitor, unplugged since
    rect = fitted_geometry(PREFERRED_SIZE, MINIMUM_SIZE, available, saved)
    assert rect.size() == saved.size()
    assert centred(rect, available)


def test_a_saved_size_below_the_minimum_opens_at_the_minimum():
    available = AVAILABLE["1280x720 at 100%"]
    rect = fitted_geometry(PREFERRED_SIZE, MINIMUM_SIZE, available, QRect(10, 40, 50, 30))
    assert rect.size() == MINIMUM_SIZE
    assert available.contains(framed(rect))


# --- the real window --------------------------------------------------------------------------


def open_wizard(qtbot: QtBot, geometry_file: Path | None = None, **session: object) -> SetupWizard:
    report = load_system_report(Path(str(SAMPLES.joinpath("wsl2-rtx4070-laptop.json"))))
    wizard = SetupWizard(
        WizardSession(report=report, **session),  # type: ignore[arg-type]
        start_detection=False,
        geometry_file=geometry_file,
    )
    keep(wizard)
    qtbot.addWidget(wizard)
    wizard.show()
    qtbot.waitExposed(wizard)
    return wizard


def test_the_window_fits_the_available_geometry_of_its_screen(qtbot: QtBot):
    wizard = open_wizard(qtbot)
    available = wizard.screen().availableGeometry()
    assert wizard.geometry() == fitted_geometry(PREFERRED_SIZE, MINIMUM_SIZE, available, None)
    assert available.contains(wizard.frameGeometry())
    # Qt's offscreen screen is 800 pixels wide: narrower than the preferred size and its frame.
    assert available.width() < PREFERRED_SIZE.width() + ESTIMATED_FRAME.left() + ESTIMATED_FRAME.right()
    assert wizard.width() < PREFERRED_SIZE.width()


def test_the_size_the_person_gave_is_restored_next_time(qtbot: QtBot, tmp_path: Path):
    geometry_file = tmp_path / WINDOW_NAME
    first = open_wizard(qtbot, geometry_file)
    first.setGeometry(QRect(30, 40, 700, 520))
    first.reject()
    assert load_window_geometry(geometry_file) == WindowGeometry(30, 40, 700, 520)
    second = open_wizard(qtbot, geometry_file)
    assert second.geometry() == QRect(30, 40, 700, 520)


def test_a_size_saved_on_a_larger_screen_opens_within_this_one(qtbot: QtBot, tmp_path: Path):
    geometry_file = tmp_path / WINDOW_NAME
    save_window_geometry(geometry_file, WindowGeometry(100, 80, 3400, 2000))
    wizard = open_wizard(qtbot, geometry_file)
    available = wizard.screen().availableGeometry()
    assert available.contains(wizard.frameGeometry())
    assert wizard.width() > MINIMUM_SIZE.width() and wizard.height() > MINIMUM_SIZE.height()


def test_without_a_file_nothing_is_kept(qtbot: QtBot):
    wizard = open_wizard(qtbot)
    wizard.reject()
    assert not (wizard_home() / WINDOW_NAME).exists()


@pytest.mark.parametrize(
    ("page_id", "label_name"), [(PageId.WELCOME, "welcome_promise"), (PageId.SUMMARY, "todo")]
)
def test_content_taller_than_the_window_scrolls_and_the_buttons_stay(
    qtbot: QtBot, page_id: PageId, label_name: str
):
    # The two pages that did not scroll before (the others had scroll areas of their own).
    wizard = open_wizard(qtbot)
    wizard.resize(wizard.minimumSize())
    wizard.setStartId(page_id)
    wizard.restart()
    page = wizard.currentPage()
    label = page.findChild(QLabel, label_name)
    label.setText("<p>" + "</p><p>".join(["A long paragraph that needs a line of its own."] * 40) + "</p>")
    size = wizard.size()
    qtbot.waitUntil(lambda: page.scroll_area.verticalScrollBar().maximum() > 0, timeout=EVENT_MS)
    assert wizard.size() == size
    for which in (
        QWizard.WizardButton.NextButton,
        QWizard.WizardButton.FinishButton,
        QWizard.WizardButton.CancelButton,
    ):
        button = wizard.button(which)
        if button.isVisible():
            assert wizard.rect().contains(QRect(button.mapTo(wizard, QPoint(0, 0)), button.size()))


# --- every page on the four screens, in a process of their own ----------------------------------


@pytest.fixture(scope="module")
def laptop_walk(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    folder = tmp_path_factory.mktemp("laptop-screens")
    config = folder / "screens.json"
    config.write_text(json.dumps(screens_config()), encoding="utf-8")
    out = folder / "seen.json"
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": f"offscreen:configfile={config}",
        "PYTHONPATH": os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH")])),
        "GPUWIZARD_HOME": str(folder / "home"),
        "GPUWIZARD_NO_REFRESH": "1",
        "GPUWIZARD_NO_INDEX_CHECK": "1",
    }
    done = subprocess.run(
        [sys.executable, "-m", "harness.laptop_screens", str(out)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=EVENT_S,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(out.read_text(encoding="utf-8"))


@pytest.mark.parametrize("screen", SCREENS)
def test_every_page_shows_its_buttons_on_a_laptop_screen(laptop_walk: dict[str, dict], screen: str):
    seen = laptop_walk[screen]
    available, frame = QRect(*seen["available"]), QRect(*seen["frame"])
    assert available.size() == AVAILABLE[screen].size()
    assert seen["screen_of_window"] == screen  # the screen with the mouse pointer
    assert available.contains(frame), (screen, seen["frame"])
    assert QSize(*seen["minimum"]) == MINIMUM_SIZE
    for size in ("opened", "smallest"):
        assert list(seen[size]) == [page.name for page in PageId]
        for name, page in seen[size].items():
            window = QRect(*page["window"])
            # Every page but the last has Cancel; the last has Finish alone (issue 41, point 7).
            assert ("CancelButton" in page["buttons"]) == (name != "SUMMARY"), name
            for which, rect in page["buttons"].items():
                assert window.contains(QRect(*rect)), (screen, size, name, which, rect, page["window"])
    assert QRect(*seen["smallest"]["WELCOME"]["window"]).size() == MINIMUM_SIZE
