"""The Windows icon (.ico) of the programs and the installer, rendered from the SVG at build time.

Qt renders ``resources/icons/gpuwizard.svg`` at each size Windows asks for; the sizes are
stored as PNG images in one ICO file. PNG entries are part of the ICO format since Windows
Vista, and a 256 x 256 entry is stored as PNG (Microsoft Learn, "Icons", "Icon sizes":
https://learn.microsoft.com/en-us/windows/win32/uxguide/vis-icons). The file layout (ICONDIR,
then one 16-byte ICONDIRENTRY per image, then the images) is Microsoft's "Icons" article,
https://learn.microsoft.com/en-us/previous-versions/ms997538(v=msdn.10). Qt's own ICO writer
stores a single image, and Pillow cannot read SVG, so the container is written here.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

#: The sizes of the Windows shell (16 to 48: lists and the taskbar; 256: large and extra large).
ICON_SIZES = (16, 20, 24, 32, 40, 48, 64, 128, 256)


def render_png(svg: Path, size: int) -> bytes:
    """The SVG drawn on a transparent ``size`` x ``size`` square, as PNG bytes."""
    # Rendering needs a QGuiApplication; "offscreen" lets it start without a display.
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt  # noqa: PLC0415 - Qt only here
    from PySide6.QtGui import QGuiApplication, QImage, QPainter  # noqa: PLC0415
    from PySide6.QtSvg import QSvgRenderer  # noqa: PLC0415

    _app = QGuiApplication.instance() or QGuiApplication([])
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
