"""Keyboard-only walks through a window, for the accessibility tests of the wizard's pages."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from harness.waits import EVENT_MS


def tab_through(qtbot: QtBot, window: QWidget, presses: int = 30) -> list[QWidget | None]:
    """Press Tab ``presses`` times from the focused widget; the widgets the focus reached, in order."""
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is not None, timeout=EVENT_MS)
    reached: list[QWidget | None] = []
    for _ in range(presses):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        reached.append(QApplication.focusWidget())
    return reached
