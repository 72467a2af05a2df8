"""Ctrl+C and SIGTERM close the wizard the way its Close button does (issue 41, point 1).

Qt's event loop runs in C++, and Python runs a signal handler only when it next runs Python
code, which an idle wizard never does: SIGINT and SIGTERM did nothing, and only SIGKILL ended
it. So the signal is handed to the event loop through a socket pair: Python's own C-level
handler writes the signal's number to it (``signal.set_wakeup_fd``; a socket, so it works on
Windows too) and a ``QSocketNotifier`` wakes the loop, with no timer polling.

What a signal does, as a person pressing Ctrl+C in the terminal expects:

1. The first closes the wizard as its Close button does: at once when nothing runs, and while
   an install runs it asks first ("Stop the install?"); Keep installing leaves it running, and
   the wizard goes on as if no signal had come.
2. One more while that question is open answers it Stop: the install is cancelled and rolled
   back, then the window closes.
3. Once the window is closing (waiting for running work to stop or roll back), the signals get
   the system's default action back, so one more ends the process at once; an environment left
   half made is finished or undone by the next ``gpuwizard`` command, as after any kill.

A wizard that a signal closed makes ``gpuwizard`` exit 130 (cancelled), like every command
(docs/architecture.md, "Exit codes"); one closed by its own buttons exits 0.
"""

from __future__ import annotations

import contextlib
import signal
import socket
import threading
from collections.abc import Callable
from types import FrameType, TracebackType
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QSocketNotifier, Slot
from PySide6.QtWidgets import QApplication

if TYPE_CHECKING:
    from signal import _HANDLER

    from gpuwizard.ui.wizard import SetupWizard

#: The signals that ask the wizard to close: Ctrl+C, what ``kill`` and session managers send,
#: and Ctrl+Break in a Windows console. A platform without one leaves it out.
STOP_SIGNALS = tuple(
    number
    for name in ("SIGINT", "SIGTERM", "SIGBREAK")
    if (number := getattr(signal, name, None)) is not None
)


def _noted(_signum: int, _frame: FrameType | None) -> None:
    """Python's handler does nothing: the wakeup socket already carries the signal to Qt."""


class StopSignals:
    """While entered, the stop signals are written to a socket instead of ending the process.

    Entered before Qt starts, so a signal that comes while the window is being built waits in
    the socket and closes the wizard as soon as the event loop runs. Outside the main thread
    (where Python cannot set handlers) it does nothing.
    """

    def __init__(self) -> None:
        self._reader: socket.socket | None = None
        self._writer: socket.socket | None = None
        self._previous: dict[int, _HANDLER] = {}
        self._previous_fd = -1
        self._closer: _WizardCloser | None = None

    def __enter__(self) -> StopSignals:
        if threading.current_thread() is not threading.main_thread():
            return self
        self._reader, self._writer = socket.socketpair()
        for end in (self._reader, self._writer):
            end.setblocking(False)  # set_wakeup_fd needs a writer that never blocks
        self._previous_fd = signal.set_wakeup_fd(self._writer.fileno(), warn_on_full_buffer=False)
        for number in STOP_SIGNALS:
            self._previous[number] = signal.signal(number, _noted)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        for number, handler in self._previous.items():
            # None: a handler set outside Python, which Python cannot put back; the default is the closest.
            signal.signal(number, signal.SIG_DFL if handler is None else handler)
        self._previous.clear()
        if self._writer is not None:
            signal.set_wakeup_fd(self._previous_fd)
        for end in (self._reader, self._writer):
            if end is not None:
                end.close()
        self._reader = self._writer = None

    def close_on_signals(self, wizard: SetupWizard) -> None:
        """From now on a stop signal closes ``wizard`` (its Close button's path); needs the QApplication."""
        if self._reader is not None:
            self._closer = _WizardCloser(wizard, self._reader, self._give_back_the_signals)

    @property
    def closed_the_wizard(self) -> bool:
        """True once the wizard closed because a signal asked it to (not the person's own answer to keep it)."""
        return self._closer is not None and self._closer.closed

    def run(self, app: QApplication, wizard: SetupWizard) -> int:
        """Show ``wizard`` and run the event loop until it closes; returns the loop's exit code.

        Raises:
            KeyboardInterrupt: a stop signal closed the wizard; the command line ends as on any
                other Ctrl+C, with exit code 130.
        """
        self.close_on_signals(wizard)
        wizard.show()
        code = app.exec()
        if self.closed_the_wizard:
            raise KeyboardInterrupt
        return code

    def _give_back_the_signals(self) -> None:
        # The window is closing and may wait for running work; from now one more signal must
        # end the process at once, which only the system's own action does while Qt waits.
        for number in self._previous:
            signal.signal(number, signal.SIG_DFL)


class _WizardCloser(QObject):
    """Reads the signals from the socket on the UI thread and closes the wizard for them."""

    def __init__(self, wizard: SetupWizard, reader: socket.socket, give_back: Callable[[], None]) -> None:
        super().__init__(wizard)
        self.wizard = wizard
        self.reader = reader
        self.give_back = give_back
        self.asked = False  # a signal asked the wizard to close and it has not said no
        self.closed = False
        self.notifier = QSocketNotifier(reader.fileno(), QSocketNotifier.Type.Read, self)
        self.notifier.activated.connect(self._signalled)
        wizard.finished.connect(self._finished)

    @Slot()
    def _signalled(self) -> None:
        for _number in self._drain():
            self._stop()

    def _drain(self) -> bytes:
        taken = b""
        with contextlib.suppress(BlockingIOError, InterruptedError):
            while chunk := self.reader.recv(64):
                taken += chunk
        return taken

    def _stop(self) -> None:
        wizard = self.wizard
        if not wizard.isVisible():
            return  # already closed or closing
        self.asked = True
        question = wizard.stop_question
        if question is not None and question.isVisible():
            self._closing()
            question.stop_button.click()  # a second Ctrl+C: stop the install, roll it back, close
            return
        if not wizard.installing():
            self._closing()  # closing waits for running work (a test stops, a check ends)
        wizard.close()  # closeEvent -> reject(): asks first while the install runs
        question = wizard.stop_question
        if question is not None:
            question.finished.connect(self._answered)

    def _closing(self) -> None:
        self.give_back()

    @Slot(int)
    def _answered(self, _result: int) -> None:
        # Runs after the wizard's own slot: when the person kept the install (or it ended while
        # asked), the wizard is still open and a later Close or Finish is theirs, not the signal's.
        if self.wizard.isVisible():
            self.asked = False

    @Slot(int)
    def _finished(self, _result: int) -> None:
        if self.asked:
            self.closed = True
            # Ends every event loop, a file dialog's too, even if some other window is still open.
            QApplication.exit()
