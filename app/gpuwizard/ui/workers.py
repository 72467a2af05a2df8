"""Running work off the UI thread and bringing its result back as a Qt signal.

The UI never blocks: a page hands a plain function to :class:`FunctionWorker`, which runs it
on its own QThread and emits ``succeeded(result)`` or ``failed(message)`` on the UI thread;
:class:`StreamedWork` adds a cancel event and the step's events, batched, for the long steps.

A running thread must never be destroyed: Qt aborts the process ("QThread: Destroyed while
thread is still running"). So a worker's thread has no parent that could take it down (a page
deleted with its window, say), and every started worker is held by :class:`_Keeper` until its
thread has ended; the keeper lets go of it on the UI thread. A process that ends without
running the event loop to its end (a script, a test) waits at exit for the threads still
finishing: a function that has returned still has its thread to stop.
"""

from __future__ import annotations

import atexit
import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, Qt, QThread, Signal, SignalInstance, Slot

from gpuwizard.ui.event_bridge import Event, EventBridge


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

    def wait_for_all(self, milliseconds: int = 30_000) -> None:
        """Block until every held worker's thread has ended (at process exit)."""
        for worker in list(self.running):
            worker.wait(milliseconds)


_keeper: _Keeper | None = None


def _the_keeper() -> _Keeper:
    global _keeper  # noqa: PLW0603 - one keeper per process, made on the UI thread
    if _keeper is None:
        _keeper = _Keeper()
        # Runs before the interpreter tears down the workers; aboutToQuit covers only an
        # event loop that ran, and a thread destroyed while it runs aborts the process.
        atexit.register(_keeper.wait_for_all)
    return _keeper


class _Relay(QObject):
    """Where a worker's outcome arrives: on the UI thread, a child of the page that asked.

    Deleted with its page, so an outcome that comes after the page is gone goes nowhere: Qt
    drops queued calls to a deleted receiver. (PySide6 6.4, which the installer's Wine build
    pins, kept the page's bound slots connected past the page's end.)
    """

    succeeded = Signal(object)
    failed = Signal(str)
    done = Signal()


class FunctionWorker(QObject):
    """Runs one function on a worker thread, once.

    Signals (of the relay, on the UI thread; none once ``parent`` is destroyed):
        succeeded(object): The function's return value.
        failed(str): ``ExceptionName: message`` when the function raised.
        done(): After either of the above.
    """

    _succeeded = Signal(object)
    _failed = Signal(str)
    _done = Signal()

    def __init__(self, function: Callable[[], Any], parent: QObject | None = None) -> None:
        """``parent``: the page the outcome is for; the thread deliberately has no parent."""
        super().__init__()
        self._function = function
        self._relay = _Relay(parent)
        # Signal to signal, queued to the relay's (UI) thread.
        self._succeeded.connect(self._relay.succeeded)
        self._failed.connect(self._relay.failed)
        self._done.connect(self._relay.done)
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

    @property
    def succeeded(self) -> SignalInstance:
        """The function's return value, on the UI thread."""
        return self._relay.succeeded

    @property
    def failed(self) -> SignalInstance:
        """``ExceptionName: message`` when the function raised, on the UI thread."""
        return self._relay.failed

    @property
    def done(self) -> SignalInstance:
        """After either of the above."""
        return self._relay.done

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
            self._failed.emit(f"{type(error).__name__}: {error}")
        else:
            self._succeeded.emit(result)
        finally:
            self._done.emit()
            # Called here, in the worker thread, rather than through a queued signal: the thread
            # stops even if the UI thread's event loop ends first (QThread.quit is thread-safe).
            self._thread.quit()


class StreamedWork(QObject):
    """A long step that reports events as it runs: on a worker, cancellable, events in batches.

    The step is a plain function ``step(sink, cancel)``: it sends events to ``sink`` (from its
    worker thread) and stops soon after ``cancel`` is set. The events reach ``on_events`` on the
    UI thread through an :class:`EventBridge`; its last batch is delivered before ``on_result``
    (or ``on_failure``, with ``ExceptionName: message``) is called, so a page has seen every
    event before it shows the outcome.
    """

    def __init__(
        self,
        parent: QObject,
        on_events: Callable[[list[Event]], None],
        on_result: Callable[[Any], None],
        on_failure: Callable[[str], None],
    ) -> None:
        super().__init__(parent)
        self._on_events = on_events
        self._on_result = on_result
        self._on_failure = on_failure
        self.cancel_event = threading.Event()
        self.bridge: EventBridge | None = None
        self.workers: list[FunctionWorker] = []

    def start(self, step: Callable[[Callable[[Event], None], threading.Event], Any]) -> None:
        """Run ``step`` on a worker with a fresh cancel event."""
        cancel = threading.Event()
        self.cancel_event = cancel
        bridge = EventBridge(self._on_events, self)
        self.bridge = bridge
        worker = FunctionWorker(lambda: step(bridge.sink, cancel), self)
        worker.succeeded.connect(self._succeeded)
        worker.failed.connect(self._failed)
        self.workers = [w for w in self.workers if w.is_running()] + [worker]
        bridge.start()
        worker.start()

    def cancel(self) -> bool:
        """Ask the running step to stop; False when nothing runs or it was asked already."""
        if not self.is_running() or self.cancel_event.is_set():
            return False
        self.cancel_event.set()
        return True

    def is_running(self) -> bool:
        """True while the step runs."""
        return any(worker.is_running() for worker in self.workers)

    def wait(self, milliseconds: int) -> None:
        """Cancel a running step and wait for it (when the wizard closes)."""
        if self.is_running():
            self.cancel_event.set()
        for worker in self.workers:
            worker.wait(milliseconds)

    @Slot(object)
    def _succeeded(self, result: object) -> None:
        self._flush()
        self._on_result(result)

    @Slot(str)
    def _failed(self, message: str) -> None:
        self._flush()
        self._on_failure(message)

    def _flush(self) -> None:
        if self.bridge is not None:
            self.bridge.stop()
