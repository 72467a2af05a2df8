"""How long a test waits for something it expects: a guard against hangs, never an expectation.

A test waits on events (a signal, a line of output, a condition), and these limits only stop a
test whose event never comes. They are long on purpose: on a loaded 2-core machine, with four
test workers each training a network, a Qt worker or a child process can take many seconds to
do what takes milliseconds alone, and a limit close to the usual time turns a slow run into a
red one (docs/architecture.md, "Tests"). `tests/test_project_rules.py` keeps shorter limits out.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Final, TypeVar

T = TypeVar("T")

#: For ``qtbot.waitUntil`` / ``waitSignal`` and the like, in milliseconds.
EVENT_MS: Final = 120_000
#: For ``threading.Event.wait``, ``Popen.wait``, ``communicate`` and ``join``, in seconds.
EVENT_S: Final = 120
#: What a test lets pass to show that something does *not* happen (a negative check: a slow
#: machine can only make it pass, never fail).
QUIET_S: Final = 0.3


def until(condition: Callable[[], T], what: str, *, limit_s: float = EVENT_S) -> T:
    """Wait for ``condition`` to hold and return its (truthy) value: a condition, not a clock.

    For what no event announces (a process gone, a file written by another process): it is
    polled often, and ``limit_s`` only stops a wait whose condition never comes, failing the
    test with ``what``.
    """
    deadline = time.monotonic() + limit_s
    while not (value := condition()):
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not so after {limit_s:g} s")
        time.sleep(0.01)
    return value


@contextmanager
def set_when(condition: Callable[[], object], event: threading.Event) -> Iterator[None]:
    """Set ``event`` once ``condition`` holds, watched on a thread while the block runs.

    For a cancel that must come at a point no event of the code under test announces (a child
    process has begun its work): the point itself, not a timer started at some earlier event.
    """
    over = threading.Event()

    def watch() -> None:
        while not over.is_set():
            if condition():
                event.set()
                return
            over.wait(0.01)  # not a guess: how often to look, not how long

    watcher = threading.Thread(target=watch, daemon=True, name="set-when")
    watcher.start()
    try:
        yield
    finally:
        over.set()
        watcher.join()
