"""Not a fake: a real QWizard that shows one page between two plain ones, as the wizard does."""

from __future__ import annotations

from PySide6.QtWidgets import QWizard, QWizardPage
from pytestqt.qtbot import QtBot


def show_between(qtbot: QtBot, page: QWizardPage, before: str, after: str) -> QWizard:
    """Show ``page`` after a page titled ``before`` and go onto it (its initializePage runs).

    The caller holds the wizard: it owns the page.
    """
    wizard = QWizard()
    wizard.setWizardStyle(QWizard.WizardStyle.ModernStyle)
    qtbot.addWidget(wizard)
    wizard.resize(880, 700)
    first, last = QWizardPage(), QWizardPage()
    first.setTitle(before)
    last.setTitle(after)
    for each in (first, page, last):
        wizard.addPage(each)
    wizard.show()
    qtbot.waitExposed(wizard)
    wizard.next()
    assert wizard.currentPage() is page
    return wizard
