"""Label styles shared by pages."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QWidget


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
