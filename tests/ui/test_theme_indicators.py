"""Check boxes and radio buttons stay visible on the dark palette (issue 20, point 8).

Fusion outlines the indicators in the window colour made 40 % darker, almost the dark window
itself. Each indicator is rendered offscreen, checked and not, and the strongest contrast
between its outer ring of pixels and the window is measured: at least 3:1 (WCAG 2.1 success
criterion 1.4.11, non-text contrast), where plain Fusion stays far below it.
"""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor, QImage, QPalette
from PySide6.QtWidgets import QApplication, QCheckBox, QRadioButton, QStyle, QStyleFactory, QStyleOptionButton

from gpuwizard.ui.theme import dark_palette, fusion_style
from harness.contrast import contrast


def indicator_contrast(kind: type[QCheckBox] | type[QRadioButton], style: QStyle, checked: bool) -> float:
    """The strongest contrast against the window on the indicator's outer two pixels."""
    button = kind("An option")
    button.setStyle(style)
    button.setPalette(dark_palette())
    button.setChecked(checked)
    button.resize(button.sizeHint())
    option = QStyleOptionButton()
    button.initStyleOption(option)
    element = (
        QStyle.SubElement.SE_CheckBoxIndicator
        if kind is QCheckBox
        else QStyle.SubElement.SE_RadioButtonIndicator
    )
    rect = style.subElementRect(element, option, button)
    image: QImage = button.grab().toImage()
    window = dark_palette().color(QPalette.ColorRole.Window)
    assert image.pixelColor(image.width() - 1, image.height() - 1) == window  # drawn on the window
    best = 0.0
    for y in range(rect.top(), rect.bottom() + 1):
        for x in range(rect.left(), rect.right() + 1):
            ring = min(x - rect.left(), rect.right() - x, y - rect.top(), rect.bottom() - y)
            if ring < 2:
                best = max(best, contrast(QColor(image.pixelColor(x, y)), window))
    button.deleteLater()
    return best


@pytest.mark.parametrize("kind", [QCheckBox, QRadioButton], ids=["checkbox", "radio"])
@pytest.mark.parametrize("checked", [False, True], ids=["unchecked", "checked"])
def test_indicators_have_a_visible_border_on_the_dark_palette(
    qapp: QApplication, kind: type[QCheckBox] | type[QRadioButton], checked: bool
):
    assert indicator_contrast(kind, fusion_style(), checked) >= 3.0
    # What it was: plain Fusion's border, nearly the window's own colour.
    assert indicator_contrast(kind, QStyleFactory.create("Fusion"), checked) < 1.5
