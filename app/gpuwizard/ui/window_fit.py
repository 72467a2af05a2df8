"""The wizard window's size and place: what it would like, made to fit the screen it opens on.

A laptop at 125 % on 1366 × 768 pixels leaves about 1093 × 566 logical pixels above the
taskbar; 1920 × 1080 at 150 % and 1280 × 720 at 100 % leave 1280 × 672. The window opens at
its preferred size or the size the person last gave it, never larger than that room less the
window's frame, and its smallest size fits the smallest of them, so Back, Next and Cancel are
always on the screen; the pages scroll what they cannot show (issue 37).

:func:`fitted_geometry` is plain arithmetic on rectangles, so the sizes for any screen can be
checked without one; :func:`opening_screen` picks the screen.
"""

from __future__ import annotations

from typing import Final

from PySide6.QtCore import QMargins, QPoint, QRect, QSize
from PySide6.QtGui import QCursor, QGuiApplication, QScreen

from gpuwizard.workflow.state.window_geometry import WindowGeometry

#: The size the window would like (inside its frame), in logical pixels.
PREFERRED_SIZE: Final = QSize(880, 700)
#: The smallest size the window can be made: inside 1093 × 566 with a Windows frame around it.
MINIMUM_SIZE: Final = QSize(640, 480)
#: The frame a window gets before it is shown, when its real frame is not known yet: Windows
#: 10 and 11 draw a title bar of about 31 logical pixels and count about 8 of invisible resize
#: border on the other sides in the frame (the largest of the desktops the wizard runs on).
ESTIMATED_FRAME: Final = QMargins(8, 32, 8, 8)


def fitted_minimum(minimum: QSize, available: QRect, frame: QMargins = ESTIMATED_FRAME) -> QSize:
    """``minimum``, made smaller where the screen's ``available`` room less ``frame`` is smaller."""
    return minimum.boundedTo(available.marginsRemoved(frame).size())


def fitted_geometry(
    preferred: QSize,
    minimum: QSize,
    available: QRect,
    saved: QRect | None = None,
    frame: QMargins = ESTIMATED_FRAME,
) -> QRect:
    """The window's geometry (inside its frame) so that the framed window fits ``available``.

    Args:
        preferred: The size to open at when nothing was saved.
        minimum: The smallest size (made smaller still where the screen is smaller).
        available: The screen's available geometry: the screen less the taskbar and docks.
        saved: The geometry the window had when it last closed, or None. Its size is used,
            made to fit; its place only when its centre is inside ``available`` (the screen it
            was on may be gone or smaller now), moved as little as needed to fit.
        frame: The window frame's margins (title bar and borders).

    Otherwise the window is centred in ``available``.
    """
    room = available.marginsRemoved(frame)
    smallest = fitted_minimum(minimum, available, frame)
    known = saved if saved is not None and saved.isValid() else None
    wanted = known.size() if known is not None else preferred
    size = wanted.boundedTo(room.size()).expandedTo(smallest)
    if known is not None and available.contains(known.center()):
        left = min(max(known.left(), room.left()), room.left() + room.width() - size.width())
        top = min(max(known.top(), room.top()), room.top() + room.height() - size.height())
    else:
        left = room.left() + (room.width() - size.width()) // 2
        top = room.top() + (room.height() - size.height()) // 2
    return QRect(QPoint(left, top), size)


def opening_screen(saved: QRect | None) -> QScreen:
    """The screen to open on: the one the saved window was on, else the one with the mouse pointer.

    The pointer's screen is where the person started the wizard from, as QDialog places a
    window with no parent (Qt documentation, QDialog); the primary screen when neither is known.
    """
    if saved is not None:
        screen = QGuiApplication.screenAt(saved.center())
        if screen is not None:
            return screen
    return QGuiApplication.screenAt(QCursor.pos()) or QGuiApplication.primaryScreen()


def to_rect(geometry: WindowGeometry | None) -> QRect | None:
    """A kept geometry as a QRect."""
    if geometry is None:
        return None
    return QRect(geometry.x, geometry.y, geometry.width, geometry.height)


def to_geometry(rect: QRect) -> WindowGeometry:
    """A QRect as a geometry to keep."""
    return WindowGeometry(rect.x(), rect.y(), rect.width(), rect.height())
