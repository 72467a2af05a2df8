"""Label styles shared by pages."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from gpuwizard.ui.theme import status_style


def headline_label(name: str, parent: QWidget) -> QLabel:
    """A bold, larger, wrapping label for a page's one-line answer."""
    label = QLabel(parent)
    label.setObjectName(name)
    label.setWordWrap(True)
    font = label.font()
    font.setPointSizeF(font.pointSizeF() * 1.25)
    font.setBold(True)
    label.setFont(font)
    return label


def error_label(name: str, parent: QWidget) -> QLabel:
    """A wrapping, selectable label for what went wrong, hidden until there is something to say."""
    label = QLabel(parent)
    label.setObjectName(name)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setStyleSheet(status_style("bad", label))  # the text says what is wrong; red draws the eye
    label.hide()
    return label
