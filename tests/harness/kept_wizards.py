"""Wizards kept to the end of a test and then closed, so no page's worker outlives the window.

pytest-qt holds the widgets a test adds only weakly: a wizard that the test no longer names is
garbage-collected as the test returns, before qtbot closes it, and so without its ``done()``,
which waits for the pages' workers. A worker thread still running when the process ends aborts it
("QThread: Destroyed while thread is still running"). A test module keeps each wizard it opens
with :func:`keep` and calls :func:`close_kept` after each test (an autouse fixture).
"""

from __future__ import annotations

import shiboken6
from PySide6.QtWidgets import QDialog, QWizard

_kept: list[QWizard] = []


def keep(wizard: QWizard) -> QWizard:
    """Hold ``wizard`` until :func:`close_kept`."""
    _kept.append(wizard)
    return wizard


def close_kept() -> None:
    """Close every kept wizard with ``done()`` (which waits for its workers), newest first."""
    while _kept:
        wizard = _kept.pop()
        if shiboken6.isValid(wizard):
            wizard.done(QDialog.DialogCode.Rejected)
