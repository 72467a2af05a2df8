"""Finding and ending what a killed creation left running inside a folder (Linux ``/proc``).

The tools ``env create`` starts lead their own process group, so a ``kill -9`` of the wizard
does not reach them, and their own children (pip's build backends, the interpreter uv runs)
do not get the parent-death signal the runner gives its direct child. Before a later run
removes a half-made environment it ends every process of this user that still runs from it,
works in it, or names it in its arguments, so nothing writes into the folder as it goes.

On Windows the runner puts each tool in a job object that is killed when the wizard's handle
closes (:mod:`gpuwizard.adapters.runner`), so nothing is left to find there.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

_PROC = Path("/proc")


def end_processes_inside(folders: Sequence[Path], *, proc: Path = _PROC) -> list[int]:
    """SIGKILL this user's processes tied to any of ``folders``; returns their ids.

    Tied means: its executable, its working folder, or one of its arguments (or the value of a
    ``--option=VALUE`` argument) is the folder or lies inside it. This process and its parent
    are never touched. Does nothing where there is no ``/proc``.
    """
    if sys.platform == "win32" or not proc.is_dir():
        return []
    roots = sorted({str(folder) for folder in folders} | {os.path.realpath(folder) for folder in folders})
    spared = {os.getpid(), os.getppid()}
    ended: list[int] = []
    # Two rounds: a process killed in the first may have started another as it went.
    for _round in range(2):
        found = [pid for pid in _own_processes(proc) if pid not in spared and _tied(proc / str(pid), roots)]
        for pid in found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
                ended.append(pid)
        if not found:
            break
    return ended


def _own_processes(proc: Path) -> Iterator[int]:
    uid = os.getuid()
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            if entry.stat().st_uid == uid:
                yield int(entry.name)


def _inside(candidate: str, roots: Sequence[str]) -> bool:
    if not candidate.startswith("/"):
        return False
    return any(candidate == root or candidate.startswith(root.rstrip("/") + "/") for root in roots)


def _tied(folder: Path, roots: Sequence[str]) -> bool:
    places: list[str] = []
    for link in ("exe", "cwd"):
        with contextlib.suppress(OSError):
            places.append(str((folder / link).readlink()).removesuffix(" (deleted)"))
    with contextlib.suppress(OSError):
        for argument in (folder / "cmdline").read_bytes().split(b"\0"):
            text = os.fsdecode(argument)
            places += [text, text.split("=", 1)[-1]]
    return any(_inside(place, roots) for place in places)
