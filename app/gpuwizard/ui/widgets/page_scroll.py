"""A page whose content scrolls as one: long results stay reachable in a small window."""

from __future__ import annotations

from PySide6.QtWidgets import QFrame, QScrollArea, QVBoxLayout, QWidget


def fill_with_scroll_area(page: QWidget, content: QWidget, name: str) -> QScrollArea:
    """Put ``content`` in a frameless scroll area that fills ``page``; returns the scroll area."""
    scroll_area = QScrollArea(page)
    scroll_area.setObjectName(name)
    scroll_area.setWidget(content)
    scroll_area.setWidgetResizable(True)
    scroll_area.setFrameShape(QFrame.Shape.NoFrame)
    outer = QVBoxLayout(page)
    outer.setContentsMargins(0, 0, 0, 0)
    outer.addWidget(scroll_area)
    return scroll_area
