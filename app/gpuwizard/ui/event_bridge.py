"""Carrying a worker's events to the UI thread, in batches, without a Qt call per event.

The long steps (``create_env``, ``run_test``, ``verify``) report their typed events
(:class:`gpuwizard.core.events.Event`) through a plain callback on their worker thread. :class:`EventBridge` gives them :meth:`EventBridge.sink`, which only appends to a
queue (``collections.deque.append`` is atomic in CPython: no lock, no Qt). A timer on the UI
thread drains the queue every ``interval_ms`` and hands the page everything that came in one
list, so a tool that prints a thousand lines a second costs the UI thread one update per
tick, never one per line.

Why not one queued signal per event: a tool printing fast would queue thousands of signals,
each a separate delivery and relayout; a batch per tick keeps the UI thread's work bounded
whatever the tool does (tests/bench/bench_ui_stall.py measures the worst stall).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, QTimer

from gpuwizard.core.events import Event

__all__ = ["Event", "EventBridge"]


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

    def sink(self, event: Event) -> None:
        """Take one event; safe from any thread, and never blocks (an :data:`~gpuwizard.core.events.EventSink`)."""
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
        if not self._queue:
            return
        batch: list[Event] = []
        while True:
            try:
                batch.append(self._queue.popleft())
            except IndexError:
                break
        self._on_batch(batch)
