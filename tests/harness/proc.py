"""Looking at running processes through Linux's ``/proc``, for tests of what a kill leaves behind."""

from __future__ import annotations

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
