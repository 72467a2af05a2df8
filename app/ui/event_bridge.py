"""Carrying a worker's events to the UI thread, in batches, without a Qt call per event.

The long steps (``create_env``, ``run_test``) report through a plain callback on their worker
thread. :class:`EventBridge` gives them :meth:`EventBridge.sink`, which only appends to a
queue (``collections.deque.append`` is atomic in CPython: no lock, no Qt). A timer on the UI
thread drains the queue every ``interval_ms`` and hands the page everything that came in one
list, so a tool that prints a thousand lines a second costs the UI thread one update per
tick, never one per line.

Why not one queued signal per event: with PySide6 6.12 on CPython 3.11 every ``emit()`` from
Python drops one reference to ``True`` and every call of a void Qt method one to ``None``
(measured here: 100 emits take 100 from ``sys.getrefcount(True)``, which starts near 600; the
process then aborts with "Fatal Python error: bool_dealloc", at the latest when it exits).
A signal per event would end the wizard a few hundred events into an install.
:func:`keep_singletons_alive` makes up for the references those calls lose.
"""

from __future__ import annotations

import sys
import threading
from collections import deque
from collections.abc import Callable
from typing import Any, Final

from PySide6.QtCore import QObject, Qt, QTimer

Event = dict[str, Any]

#: Below this many references to None, True or False, more are added (see keep_singletons_alive).
_FLOOR: Final = 100_000
_TOP_UP: Final = 250_000
_SINGLETONS: Final = (None, True, False)

# Tuples of None/True/False are untracked by the garbage collector after its first pass, so
# the ballast costs a full collection nothing (a list of 750,000 items cost 5 ms per pass).
_ballast: list[tuple[object, ...]] = []
_holder: threading.Thread | None = None
_holder_lock = threading.Lock()


def keep_singletons_alive() -> None:
    """Keep ``None``, ``True`` and ``False`` far from a reference count of zero.

    PySide6 6.12 on CPython 3.11 drops a reference to ``None`` on every call of a void Qt
    method and one to ``True`` on every ``emit()`` made from Python (immortal objects, which
    make this harmless, arrive only in CPython 3.12, PEP 683). This function holds extra
    references, topped up whenever fewer than ``_FLOOR`` are left, in a list that a daemon
    thread keeps alive until the process ends: interpreter shutdown never releases a daemon
    thread's frame, so the references the bug took are never given back twice at exit. Cheap
    enough for every timer tick (three ``sys.getrefcount`` calls).
    """
    global _holder  # noqa: PLW0603 - one holder thread for the whole process
    for value in _SINGLETONS:
        if sys.getrefcount(value) < _FLOOR:
            _ballast.append((value,) * _TOP_UP)
    with _holder_lock:
        if _holder is None:
            _holder = threading.Thread(target=_hold, args=(_ballast,), daemon=True, name="refcount-ballast")
            _holder.start()


def _hold(ballast: list[tuple[object, ...]]) -> None:
    # This frame's reference to ``ballast`` outlives interpreter shutdown (see above).
    threading.Event().wait()


class EventBridge(QObject):
    """A thread-safe event sink whose events reach ``on_batch`` on the UI thread, in order.

    Create it on the UI thread, :meth:`start` it before the work starts, hand :meth:`sink` to
    the worker, and :meth:`stop` it when the work has returned (``stop`` delivers what is
    left, so ``on_batch`` has seen every event before the result is shown).
    """

    def __init__(
        self,
        on_batch: Callable[[list[Event]], None],
        parent: QObject | None = None,
        interval_ms: int = 50,
    ) -> None:
        super().__init__(parent)
        self._on_batch = on_batch
        self._queue: deque[Event] = deque()
        self._timer = QTimer(self)
        self._timer.setTimerType(Qt.TimerType.CoarseTimer)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.flush)
        keep_singletons_alive()

    def sink(self, event: Event) -> None:
        """Take one event; safe from any thread, and never blocks."""
        self._queue.append(event)

    def start(self) -> None:
        """Begin delivering batches."""
        self._timer.start()

    def stop(self) -> None:
        """Deliver what is left and stop."""
        self._timer.stop()
        self.flush()

    def is_active(self) -> bool:
        """True between :meth:`start` and :meth:`stop`."""
        return self._timer.isActive()

    def flush(self) -> None:
        """Deliver every event queued so far as one batch (nothing when there is none)."""
        keep_singletons_alive()
        if not self._queue:
            return
        batch: list[Event] = []
        while True:
            try:
                batch.append(self._queue.popleft())
            except IndexError:
                break
        self._on_batch(batch)
