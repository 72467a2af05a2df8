"""The Windows icon (.ico) and the installer's side bitmap (.bmp), rendered from the SVG at build time.

Qt renders ``resources/icons/gpuwizard.svg`` at each size Windows asks for; the sizes are
stored as PNG images in one ICO file. PNG entries are part of the ICO format since Windows
Vista, and a 256 x 256 entry is stored as PNG (Microsoft Learn, "Icons", "Icon sizes":
https://learn.microsoft.com/en-us/windows/win32/uxguide/vis-icons). The file layout (ICONDIR,
then one 16-byte ICONDIRENTRY per image, then the images) is Microsoft's "Icons" article,
https://learn.microsoft.com/en-us/previous-versions/ms997538(v=msdn.10). Qt's own ICO writer
stores a single image, and Pillow cannot read SVG, so the container is written here.

The bitmap is the picture on the left of the installer's and uninstaller's Welcome and Finish
pages (NSIS Modern UI's ``MUI_WELCOMEFINISHPAGE_BITMAP``): 164 x 314 pixels at 96 dpi, a BMP
that Windows' ``LoadImage`` reads (24 bits per pixel, no alpha), in place of NSIS's stock one
(https://nsis.sourceforge.io/Docs/Modern%20UI%202/Readme.html, "Interface settings").

Qt (PySide6) does the drawing; a Python without it gets :class:`QtMissing`, one line to show.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

#: The sizes of the Windows shell (16 to 48: lists and the taskbar; 256: large and extra large).
ICON_SIZES = (16, 20, 24, 32, 40, 48, 64, 128, 256)
#: The Welcome/Finish page bitmap's size (Modern UI: 164 x 314 at 96 dpi).
BITMAP_SIZE = (164, 314)
#: The bitmap's background, top to bottom: the icon's own board colours (resources/icons/gpuwizard.svg).
_BITMAP_TOP, _BITMAP_BOTTOM = "#2f6f8f", "#1d4a61"


class QtMissing(Exception):
    """PySide6 (with QtSvg) cannot be imported: nothing can be drawn; the message says what to do."""


def _qt() -> None:
    """Import Qt's drawing modules here, or raise :class:`QtMissing`."""
    # Rendering needs a QGuiApplication; "offscreen" lets it start without a display.
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    try:
        from PySide6.QtGui import QGuiApplication  # noqa: PLC0415 - Qt only here
        from PySide6.QtSvg import QSvgRenderer  # noqa: F401, PLC0415
    except ImportError as error:
        raise QtMissing(
            f"PySide6 cannot be imported ({error}): run build.py with the project's Python, "
            "e.g. `.venv/bin/python installer/build.py ...`, or `pip install .` first"
        ) from None
    _app = QGuiApplication.instance() or QGuiApplication([])  # kept alive by Qt itself


def qt_problem() -> str | None:
    """Why the images cannot be drawn in this Python (one line), or None when they can."""
    try:
        _qt()
    except QtMissing as missing:
        return str(missing)
    return None


def render_png(svg: Path, size: int) -> bytes:
    """The SVG drawn on a transparent ``size`` x ``size`` square, as PNG bytes."""
    _qt()
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt  # noqa: PLC0415 - Qt only here
    from PySide6.QtGui import QImage, QPainter  # noqa: PLC0415
    from PySide6.QtSvg import QSvgRenderer  # noqa: PLC0415

    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise ValueError(f"{svg}: not an SVG image Qt can render")
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    # The stubs say bytes; PySide6 6.11 accepts only str here ("wrong argument values").
    if not image.save(buffer, "PNG"):  # type: ignore[call-overload]
        raise ValueError(f"{svg}: Qt could not encode a {size} px PNG")
    buffer.close()
    return bytes(data.data())


def ico_bytes(images: dict[int, bytes]) -> bytes:
    """An ICO file holding PNG ``images`` by size (each square, at most 256 pixels)."""
    header = struct.pack("<HHH", 0, 1, len(images))  # reserved, type 1 = icon, image count
    offset = len(header) + 16 * len(images)
    entries, blobs = b"", b""
    for size, png in sorted(images.items()):
        if not 0 < size <= 256:
            raise ValueError(f"an icon image is 1 to 256 pixels wide, not {size}")
        side = size % 256  # 0 stands for 256
        entries += struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(png), offset + len(blobs))
        blobs += png
    return header + entries + blobs


def write_icon(svg: Path, ico: Path, sizes: tuple[int, ...] = ICON_SIZES) -> Path:
    """Render ``svg`` at ``sizes`` into the ICO file ``ico``; returns ``ico``."""
    ico.parent.mkdir(parents=True, exist_ok=True)
    ico.write_bytes(ico_bytes({size: render_png(svg, size) for size in sizes}))
    return ico


def write_bitmap(svg: Path, bmp: Path, size: tuple[int, int] = BITMAP_SIZE) -> Path:
    """Draw the Welcome/Finish page bitmap into ``bmp``: the icon on a white tile, on the board's blue.

    Returns ``bmp``. No text is drawn: the page beside it says the name, in the installer's language.
    """
    _qt()
    from PySide6.QtCore import QRectF, Qt  # noqa: PLC0415 - Qt only here
    from PySide6.QtGui import QColor, QImage, QLinearGradient, QPainter  # noqa: PLC0415
    from PySide6.QtSvg import QSvgRenderer  # noqa: PLC0415

    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise ValueError(f"{svg}: not an SVG image Qt can render")
    width, height = size
    image = QImage(width, height, QImage.Format.Format_RGB32)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    gradient = QLinearGradient(0, 0, 0, height)
    gradient.setColorAt(0, QColor(_BITMAP_TOP))
    gradient.setColorAt(1, QColor(_BITMAP_BOTTOM))
    painter.fillRect(0, 0, width, height, gradient)
    side = width - 28  # a tile with 14 px of blue either side, a little below the top
    tile = QRectF(14, 40, side, side)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor("#ffffff"))
    painter.drawRoundedRect(tile, 18, 18)
    renderer.render(painter, tile.adjusted(8, 8, -8, -8))
    painter.end()
    bmp.parent.mkdir(parents=True, exist_ok=True)
    # 24 bits per pixel: what LoadImage reads everywhere (Qt writes RGB888 as a 24-bit BMP).
    if not image.convertToFormat(QImage.Format.Format_RGB888).save(str(bmp), "BMP"):
        raise ValueError(f"{svg}: Qt could not write {bmp}")
    return bmp
