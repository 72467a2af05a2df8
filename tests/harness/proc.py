"""Looking at running processes through Linux's ``/proc``, for tests of what a kill leaves behind."""

from __future__ import annotations

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
