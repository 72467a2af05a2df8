"""Not a fake: the real wizard on screens as small as laptops', through Qt's offscreen platform.

Qt's offscreen platform takes its screens from a JSON file (``QT_QPA_PLATFORM=offscreen:
configfile=FILE``, qtbase's ``qoffscreenintegration.cpp``): each screen's place and size in
device pixels and its logical DPI, from which Qt scales as it does on Windows (120 dpi is
125 %). Each screen below is a common one less a Windows 11 taskbar (48 logical pixels), so its
whole geometry is what a real one has available. Offscreen windows have a 2-pixel frame when
``windowFrameMargins`` is on.

``python -m harness.laptop_screens OUT``, with the platform configured with
:func:`screens_config`, opens the wizard on each screen in turn (with the mouse pointer there,
as where a person starts it from), walks every page with the recorded runs the screenshots use,
and writes what it saw to ``OUT`` as JSON.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from importlib import resources
from pathlib import Path
from typing import Any, Final

from PySide6.QtCore import QEventLoop, QPoint, QRect
from PySide6.QtGui import QCursor
from PySide6.QtWidgets import QWizard

from gpuwizard.ui.app import make_application
from gpuwizard.ui.screenshots import screenshot_session
from gpuwizard.ui.wizard import PageId, SetupWizard
from gpuwizard.workflow.machine.system_file import load_system_report

#: name: (width, height, scale in %) in device pixels, taskbar already taken off the height.
SCREENS: Final = {
    "1366x768 at 125%": (1366, 768 - 60, 125),
    "1920x1080 at 150%": (1920, 1080 - 72, 150),
    "1280x720 at 100%": (1280, 720 - 48, 100),
    "2560x1440 at 200%": (2560, 1440 - 96, 200),
}
SAMPLE: Final = "windows-rtx2080super-two-cuda.json"


def screens_config() -> dict[str, Any]:
    """The offscreen platform's configuration: the screens side by side, left to right."""
    screens, left = [], 0
    for name, (width, height, scale) in SCREENS.items():
        screens.append(
            {
                "name": name,
                "x": left,
                "y": 0,
                "width": width,
                "height": height,
                "logicalDpi": 96 * scale // 100,
                "logicalBaseDpi": 96,
                "dpr": 1,
            }
        )
        left += width
    return {"windowFrameMargins": True, "screens": screens}


def _rect(rect: QRect) -> list[int]:
    return [rect.x(), rect.y(), rect.width(), rect.height()]


def walk(out: Path) -> None:
    """Open the wizard on each screen, walk its pages, and write what was seen to ``out``."""
    app = make_application("en")
    samples = resources.files("gpuwizard.resources").joinpath("samples")
    report = load_system_report(Path(str(samples.joinpath(SAMPLE))))
    seen: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="gpuwizard-screens-") as scratch:
        for screen in app.screens():
            registry = Path(scratch) / f"registry-{len(seen)}.json"
            shutil.copyfile(str(samples.joinpath("registry/windows-cuda12.json")), registry)
            QCursor.setPos(screen.geometry().center())
            wizard = SetupWizard(screenshot_session(report, registry), start_detection=False)
            wizard.show()
            seen[screen.name()] = {
                "available": _rect(screen.availableGeometry()),
                "screen_of_window": wizard.screen().name(),
                "frame": _rect(wizard.frameGeometry()),
                "minimum": [wizard.minimumWidth(), wizard.minimumHeight()],
            }
            # Every page as the window opened, then with the window made as small as it goes.
            for size in ("opened", "smallest"):
                if size == "smallest":
                    wizard.resize(wizard.minimumSize())
                pages = {}
                for page_id in PageId:
                    wizard.setStartId(page_id)
                    wizard.restart()
                    page = wizard.currentPage()
                    while not page.isComplete():  # the replayed runs' workers report as events
                        app.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents)
                    app.processEvents()
                    buttons = {}
                    for which in ("BackButton", "NextButton", "CommitButton", "FinishButton", "CancelButton"):
                        button = wizard.button(getattr(QWizard.WizardButton, which))
                        if button is not None and button.isVisible():
                            buttons[which] = _rect(QRect(button.mapTo(wizard, QPoint(0, 0)), button.size()))
                    pages[page_id.name] = {"window": _rect(wizard.rect()), "buttons": buttons}
                seen[screen.name()][size] = pages
            wizard.done(0)
    out.write_text(json.dumps(seen, indent=1), encoding="utf-8")


if __name__ == "__main__":
    walk(Path(sys.argv[1]))
