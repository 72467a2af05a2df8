"""Looking at running processes through Linux's ``/proc``, for tests of what a kill leaves behind."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path


def children_of(pid: int) -> list[int]:
    """The ids of the processes whose parent is ``pid``."""
    found = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            text = status.read_text()
        except OSError:
            continue
        if f"\nPPid:\t{pid}\n" in text:
            found.append(int(status.parent.name))
    return found


def gone(pid: int) -> bool:
    """Whether ``pid`` has ended (a zombie waiting to be reaped counts as ended)."""
    try:
        return "State:\tZ" in Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True


def wait_for_children(pid: int) -> list[int]:
    """The children of ``pid`` once it has one: waits on the event, not on a clock.

    Polls ``/proc`` until a child appears; a child that never comes is ended by the suite's
    per-test timeout.
    """
    while not (found := children_of(pid)):
        time.sleep(0.02)
    return found


def hang_after_saying_who(marker: Path) -> str:
    """Python code that writes its process id to ``marker``, then hangs for an hour.

    A stuck import or tool stand-in: the test waits for ``marker`` (an event, not a clock),
    cancels, and then checks with :func:`said` and :func:`gone` that the process was ended, not
    waited for.
    """
    return (
        "import os as _os, time as _time\n"
        f"open({str(marker)!r}, 'w').write(str(_os.getpid()))\n"
        "_time.sleep(3600)\n"
    )


def said(marker: Path) -> int | None:
    """The process id :func:`hang_after_saying_who` wrote to ``marker``; None before it has."""
    written = marker.read_text().strip() if marker.is_file() else ""
    return int(written) if written else None


def end(pid: int | None) -> None:
    """Kill a process the test started that a failure left running (Linux; nothing elsewhere)."""
    if pid is not None and sys.platform == "linux" and not gone(pid):
        os.kill(pid, signal.SIGKILL)
