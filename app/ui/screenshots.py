"""``gpuwizard screenshots DIR``: render every wizard page to a PNG file.

Windows are rendered without being shown on screen (WA_DontShowOnScreen), so this works on a
desktop and offscreen alike.
"""

from __future__ import annotations

from pathlib import Path

from gpuwizard.core.system_report import SystemReport
from gpuwizard.ui.app import make_application
from gpuwizard.workflow.detect import detect_system
from gpuwizard.workflow.session import WizardSession
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication


def render_screenshots(
    directory: Path, report: SystemReport | None = None, lang: str | None = None
) -> list[Path]:
    """Render each page to ``directory/NN-name.png``; returns the files written, in page order."""
    from gpuwizard.ui.wizard import PageId, SetupWizard  # noqa: PLC0415 - after the app exists

    make_application(lang)
    session = WizardSession(report=report or detect_system())
    wizard = SetupWizard(session, start_detection=False)
    wizard.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
    wizard.show()
    directory.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for number, page_id in enumerate(wizard.pageIds(), start=1):
        while wizard.currentId() != page_id:
            wizard.next()
        QApplication.processEvents()  # let layouts settle before grabbing
        name = PageId(page_id).name.lower()
        path = directory / f"{number:02d}-{name}.png"
        if not wizard.grab().save(str(path)):
            raise OSError(f"{path}: could not write the image")
        written.append(path)
    wizard.close()
    return written
