"""Driving the Install page's own buttons as a person does."""

from __future__ import annotations

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from gpuwizard.ui.pages.install import InstallPage
from harness.waits import EVENT_MS


def stop_the_install(qtbot: QtBot, page: InstallPage) -> None:
    """Press "Cancel installation", then Stop in the question it asks."""
    qtbot.mouseClick(page.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.stop_question is not None, timeout=EVENT_MS)
    assert page.stop_question is not None
    qtbot.mouseClick(page.stop_question.stop_button, Qt.MouseButton.LeftButton)
