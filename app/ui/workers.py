"""Running work off the UI thread and bringing its result back as a Qt signal.

The UI never blocks: a page hands a plain function to :class:`FunctionWorker`, which runs it
on its own QThread and emits ``succeeded(result)`` or ``failed(message)`` on the UI thread.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, QThread, Signal, Slot


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
        super().__init__()
        self._function = function
        self._thread = QThread(parent)
        self._thread.setObjectName("gpuwizard-worker")
        self.moveToThread(self._thread)
        self._thread.started.connect(self._run)
        app = QCoreApplication.instance()
        if app is not None:
            # Quitting the app must not destroy a thread that is still running.
            app.aboutToQuit.connect(self.wait)

    def start(self) -> None:
        """Start the function on the worker thread."""
        self._thread.start()

    def is_running(self) -> bool:
        """True until the function has returned or raised."""
        return self._thread.isRunning()

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
