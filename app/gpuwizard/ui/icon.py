"""The wizard's icon: the application's window icon and the logo on the wizard's pages."""

from __future__ import annotations

from importlib import resources

from PySide6.QtGui import QIcon


def application_icon() -> QIcon:
    """The wizard's icon (an SVG: sharp at every size and scale)."""
    path = resources.files("gpuwizard.resources").joinpath("icons/gpuwizard.svg")
    return QIcon(str(path))
