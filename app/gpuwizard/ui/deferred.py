"""Calling a page's method once control is back in the event loop, unless the page is gone by then."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer


def call_soon(context: QObject, function: Callable[[], object]) -> None:
    """Call ``function`` from the event loop, after what is queued now; never once ``context`` is destroyed.

    The timer is a child of ``context``, so it dies with it. ``QTimer.singleShot(0, context,
    functor)`` says the same, but PySide6 6.4 (the Windows installer's build under Wine pins it,
    and pyproject allows it) has no such overload and raises TypeError.
    """
    timer = QTimer(context)
    timer.setSingleShot(True)
    timer.timeout.connect(function)
    timer.timeout.connect(timer.deleteLater)
    timer.start(0)
