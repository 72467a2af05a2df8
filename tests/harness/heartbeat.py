"""A heartbeat on the UI thread: the longest gap between its ticks is the worst UI stall."""

from __future__ import annotations

import time

from PySide6.QtCore import Qt, QTimer


class Heartbeat:
    """A 10 ms timer on the UI thread; the longest gap between two ticks is the worst stall.

    Anything that keeps the UI thread busy (work done on it, a flood of updates) delays the
    next tick, so ``worst_ms`` is the longest the window could not repaint or take input.
    """

    def __init__(self, interval_ms: int = 10) -> None:
        self.interval_ms = interval_ms
        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self._tick)
        self.last = 0.0
        self.started = 0.0
        self.worst_ms = 0.0
        self.ticks = 0

    def start(self) -> None:
        self.worst_ms, self.ticks = 0.0, 0
        self.started = self.last = time.perf_counter()
        self.timer.start()

    def stop(self) -> float:
        """Stop; returns the worst stall in milliseconds."""
        self.timer.stop()
        return self.worst_ms

    @property
    def elapsed_ms(self) -> float:
        return (self.last - self.started) * 1000

    def _tick(self) -> None:
        now = time.perf_counter()
        self.worst_ms = max(self.worst_ms, (now - self.last) * 1000)
        self.last = now
        self.ticks += 1
