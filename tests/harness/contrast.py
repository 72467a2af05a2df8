"""Colour contrast as WCAG 2.1 measures it, for the tests of the themes' colours."""

from __future__ import annotations

from PySide6.QtGui import QColor


def contrast(a: QColor, b: QColor) -> float:
    """The contrast ratio of two colours, 1 to 21 (WCAG 2.1, "contrast ratio", relative luminance)."""

    def luminance(colour: QColor) -> float:
        def channel(value: float) -> float:
            return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

        return (
            0.2126 * channel(colour.redF())
            + 0.7152 * channel(colour.greenF())
            + 0.0722 * channel(colour.blueF())
        )

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)
