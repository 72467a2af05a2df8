"""Running work off the UI thread and bringing its result back as a Qt signal.

The UI never blocks: a page hands a plain function to :class:`FunctionWorker`, which runs it
on its own QThread and emits ``succeeded(result)`` or ``failed(message)`` on the UI thread.

A running thread must never be destroyed: Qt aborts the process ("QThread: Destroyed while
thread is still running"). So a worker's thread has no parent that could take it down (a page
deleted with its window, say), and every started worker is held by :class:`_Keeper` until its
thread has ended; the keeper lets go of it on the UI thread.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, Qt, QThread, Signal, Slot


class _Keeper(QObject):
    """Holds started workers until their threads have ended (lives on the UI thread)."""

    def __init__(self) -> None:
        super().__init__()
        self.running: set[FunctionWorker] = set()

    @Slot()
    def collect(self) -> None:
        """Let go of the workers whose threads have ended (their own signals queued this call)."""
        for worker in [w for w in self.running if w.has_ended()]:
            self.running.discard(worker)


_keeper: _Keeper | None = None


def _the_keeper() -> _Keeper:
    global _keeper  # noqa: PLW0603 - one keeper per process, made on the UI thread
    if _keeper is None:
        _keeper = _Keeper()
    return _keeper


class FunctionWorker(QObject):
    """Runs one function on a worker thread, once.

    Signals:
        succeeded(object): The function's return value.
        failed(str): ``ExceptionName: message`` when the function raised.
        done(): After either of the above.
    """

    succeeded = Signal(object)
    failed = Signal(str)
    done = Signal()

    def __init__(self, function: Callable[[], Any], parent: QObject | None = None) -> None:
        """``parent`` is accepted for the callers' symmetry; the thread deliberately has none."""
        super().__init__()
        del parent
        self._function = function
        self._thread = QThread()
        self._thread.setObjectName("gpuwizard-worker")
        self.moveToThread(self._thread)
        self._thread.started.connect(self._run)
        keeper = _the_keeper()
        self._thread.finished.connect(keeper.collect, Qt.ConnectionType.QueuedConnection)
        app = QCoreApplication.instance()
        if app is not None:
            # Quitting the app must not destroy a thread that is still running.
            app.aboutToQuit.connect(self.wait)

    def start(self) -> None:
        """Start the function on the worker thread."""
        _the_keeper().running.add(self)
        self._thread.start()

    def is_running(self) -> bool:
        """True until the function has returned or raised."""
        return self._thread.isRunning()

    def has_ended(self) -> bool:
        """True once the thread has run and stopped."""
        return self._thread.isFinished()

    def wait(self, milliseconds: int = 30_000) -> bool:
        """Block until the thread has finished (for shutdown and tests only)."""
        return self._thread.wait(milliseconds)

    @Slot()
    def _run(self) -> None:
        try:
            result = self._function()
        except Exception as error:  # noqa: BLE001 - every failure reaches the page as a message
            self.failed.emit(f"{type(error).__name__}: {error}")
        else:
            self.succeeded.emit(result)
        finally:
            self.done.emit()
            # Called here, in the worker thread, rather than through a queued signal: the thread
            # stops even if the UI thread's event loop ends first (QThread.quit is thread-safe).
            self._thread.quit()
