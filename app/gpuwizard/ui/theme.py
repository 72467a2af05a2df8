"""Light and dark palettes, and the status colours that stay readable on both.

The wizard follows the system's colour scheme (Qt 6.5+ reads it on Windows, macOS and the
Linux desktops that publish it); ``--theme light|dark`` overrides it. Both palettes are set
on the Fusion style, the one Qt style that draws every widget from the palette alone, so a
dark palette is dark everywhere (the native Windows style ignores parts of it).

Status colours (good, warning, bad) carry meaning beside a word or an icon, never alone
(the text always says it too); each pair has at least 4.5:1 contrast on its background
(WCAG 2.1 success criterion 1.4.3): dark-grade colours on light bases, light-grade on dark.

Fusion outlines check boxes and radio buttons in the window colour made 40 % darker
(``QFusionStylePrivate::outline`` in qtbase's ``qfusionstyle.cpp``): on a dark window that is
almost the window itself, so the indicators all but vanish. With a dark palette their border
is drawn again in :data:`INDICATOR_BORDER_ON_DARK`, at least 3:1 against the window and the
indicator's own fill (WCAG 2.1 success criterion 1.4.11, non-text contrast).
"""

from __future__ import annotations

from typing import Final, Literal

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QGuiApplication, QPainter, QPalette, QPen
from PySide6.QtWidgets import QApplication, QProxyStyle, QStyle, QStyleFactory, QStyleOption, QWidget

Theme = Literal["system", "light", "dark"]
Status = Literal["good", "warn", "bad", "info", "muted"]

THEMES: Final = ("system", "light", "dark")

# On white: 7.5:1, 6.8:1, 8.0:1, 8.3:1, 6.7:1 (on the window grey #efefef, at least 5.8:1).
_ON_LIGHT: Final[dict[str, str]] = {
    "good": "#11622b", "warn": "#8a4b00", "bad": "#a11212", "info": "#35507a", "muted": "#5c5c5c",
}  # fmt: skip
# On the dark window #2b2b2b: 8.1:1, 8.0:1, 6.2:1, 6.9:1, 6.5:1 (more on the base #1e1e1e).
_ON_DARK: Final[dict[str, str]] = {
    "good": "#7bd88f", "warn": "#f2b866", "bad": "#ff8a80", "info": "#9ec1f0", "muted": "#b0b0b0",
}  # fmt: skip
#: The border of check boxes and radio buttons on the dark palette: 4.2:1 on the window
#: #2b2b2b, 5.0:1 on the indicator's fill (the base #1e1e1e, 15 % darker).
INDICATOR_BORDER_ON_DARK: Final = "#8c8c8c"
# Diff rows: (text, background) for added and removed lines, light and dark.
_DIFF: Final[dict[tuple[bool, bool], tuple[str, str]]] = {
    (False, True): ("#11622b", "#e3f4e7"),
    (False, False): ("#a11212", "#fbe5e3"),
    (True, True): ("#9be7ab", "#1d3a25"),
    (True, False): ("#ffb3ab", "#4a2321"),
}


def is_dark(palette: QPalette) -> bool:
    """True when the palette draws light text on dark backgrounds."""
    return palette.color(QPalette.ColorRole.Base).lightnessF() < 0.5


def status_color(status: Status, widget: QWidget | None = None) -> QColor:
    """The colour for ``status`` that reads well on ``widget``'s (or the application's) palette."""
    palette = widget.palette() if widget is not None else QGuiApplication.palette()
    return QColor((_ON_DARK if is_dark(palette) else _ON_LIGHT)[status])


def status_style(status: Status, widget: QWidget | None = None) -> str:
    """A style sheet that colours a label's text for ``status``."""
    return f"color: {status_color(status, widget).name()}"


def diff_colors(added: bool, widget: QWidget | None = None) -> tuple[QColor, QColor]:
    """Text and background colours of an added (or removed) line of a diff."""
    palette = widget.palette() if widget is not None else QGuiApplication.palette()
    text, background = _DIFF[(is_dark(palette), added)]
    return QColor(text), QColor(background)


def dark_palette() -> QPalette:
    """A dark palette for the Fusion style, with readable disabled text and visible links."""
    palette = QPalette()
    window, base, text = QColor("#2b2b2b"), QColor("#1e1e1e"), QColor("#e8e8e8")
    roles = {
        QPalette.ColorRole.Window: window,
        QPalette.ColorRole.WindowText: text,
        QPalette.ColorRole.Base: base,
        QPalette.ColorRole.AlternateBase: QColor("#262626"),
        QPalette.ColorRole.ToolTipBase: QColor("#3a3a3a"),
        QPalette.ColorRole.ToolTipText: text,
        QPalette.ColorRole.PlaceholderText: QColor("#9a9a9a"),
        QPalette.ColorRole.Text: text,
        QPalette.ColorRole.Button: QColor("#353535"),
        QPalette.ColorRole.ButtonText: text,
        QPalette.ColorRole.BrightText: QColor("#ff6b6b"),
        QPalette.ColorRole.Light: QColor("#4a4a4a"),
        QPalette.ColorRole.Midlight: QColor("#3f3f3f"),
        QPalette.ColorRole.Mid: QColor("#2f2f2f"),
        QPalette.ColorRole.Dark: QColor("#191919"),
        QPalette.ColorRole.Shadow: QColor("#000000"),
        QPalette.ColorRole.Highlight: QColor("#3d7ad6"),
        QPalette.ColorRole.HighlightedText: QColor("#ffffff"),
        QPalette.ColorRole.Link: QColor("#8ab4f8"),
        QPalette.ColorRole.LinkVisited: QColor("#c58af9"),
    }
    for role, colour in roles.items():
        palette.setColor(role, colour)
    disabled = QColor("#959595")  # 4.7:1 on the dark window
    for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText):
        palette.setColor(QPalette.ColorGroup.Disabled, role, disabled)
    return palette


class OutlinedIndicators(QProxyStyle):
    """Fusion, with check boxes and radio buttons outlined visibly on a dark palette."""

    _INDICATORS: Final = (
        QStyle.PrimitiveElement.PE_IndicatorCheckBox,
        QStyle.PrimitiveElement.PE_IndicatorRadioButton,
    )

    def drawPrimitive(
        self,
        element: QStyle.PrimitiveElement,
        option: QStyleOption,
        painter: QPainter,
        widget: QWidget | None = None,
    ) -> None:
        """Draw as Fusion does; then, on a dark palette, the indicator's border in a visible grey."""
        super().drawPrimitive(element, option, painter, widget)
        if element not in self._INDICATORS or not is_dark(option.palette):
            return
        focused = option.state & QStyle.StateFlag.State_HasFocus and (
            option.state & QStyle.StateFlag.State_KeyboardFocusChange
        )
        if focused:
            return  # Fusion draws the keyboard focus as a highlighted outline: keep it
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(QPen(QColor(INDICATOR_BORDER_ON_DARK), 1))
        if element == QStyle.PrimitiveElement.PE_IndicatorRadioButton:
            # Fusion's circle (qfusionstyle.cpp, PE_IndicatorRadioButton): the rect less one pixel.
            circle = QRectF(option.rect.adjusted(1, 1, -1, -1)).adjusted(0.5, 0.5, -0.5, -0.5)
            painter.drawEllipse(circle)
        else:
            # Fusion's box (PE_IndicatorCheckBox): the rect, its pen on the inner pixel edge.
            painter.drawRect(QRectF(option.rect).adjusted(0.5, 0.5, -0.5, -0.5))
        painter.restore()


def fusion_style() -> QStyle:
    """The style both palettes are drawn with: Fusion, its indicators outlined on dark palettes."""
    return OutlinedIndicators(QStyleFactory.create("Fusion"))


def system_prefers_dark(app: QGuiApplication) -> bool:
    """True when the desktop asks for a dark scheme (Qt 6.5+; older Qt answers False)."""
    hints = app.styleHints()
    scheme = getattr(hints, "colorScheme", None)
    return scheme is not None and scheme() == Qt.ColorScheme.Dark


def apply_theme(app: QApplication, theme: Theme = "system") -> bool:
    """Set the palette for ``theme``; returns True when the result is dark.

    ``system`` keeps the platform's own style and palette, except that a dark system scheme
    gets the Fusion dark palette (the native Windows style draws light whatever the scheme).
    """
    dark = theme == "dark" or (theme == "system" and system_prefers_dark(app))
    if theme == "system" and not dark:
        return False
    app.setStyle(fusion_style())
    app.setPalette(dark_palette() if dark else app.style().standardPalette())
    return dark
