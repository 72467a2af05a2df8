"""Ending what a killed creation left running: only process groups the wizard started itself.

The tools ``env create`` starts lead their own process group, so a ``kill -9`` of the wizard
does not reach them, and their own children (pip's build backends, the interpreter uv runs)
do not get the parent-death signal the runner gives its direct child. The creation records
each tool it starts (:func:`process_identity`, in its pending record) the moment it starts;
before a later run removes a half-made environment it ends those groups and nothing else
(:func:`end_started`). A process is never chosen by the folder it runs in or names: a record
restored from a backup, or planted, must not end a person's own programs.

A recorded group is ended only while it is provably the same: the machine has not restarted
since (``/proc/sys/kernel/random/boot_id``), and the group's leader, if it still runs, started
at the recorded instant (field 22 of ``/proc/PID/stat``, clock ticks since boot, ``man 5
proc``). A process id is not reused while a group of that id has members (POSIX, "Process ID
Reuse"), so a group whose leader is gone but whose members remain is still the recorded one.

On Windows the runner puts each tool in a job object that is killed when the wizard's handle
closes (:mod:`gpuwizard.adapters.runner`), so nothing is left to find there.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

_PROC = Path("/proc")


@dataclass(frozen=True)
class ProcessIdentity:
    """A started tool as recorded: its group id (= its pid), start time in ticks, and the boot."""

    group: int
    started: int
    boot: str

    def to_json(self) -> list[object]:
        """As stored in a pending record."""
        return [self.group, self.started, self.boot]

    @classmethod
    def from_json(cls, value: object) -> ProcessIdentity | None:
        """Read back; None for anything that is not exactly what :meth:`to_json` wrote."""
        if not isinstance(value, list) or len(value) != 3:
            return None
        group, started, boot = value
        if type(group) is not int or type(started) is not int or not isinstance(boot, str) or group <= 1:
            return None
        return cls(group, started, boot)


def process_identity(pid: int, *, proc: Path = _PROC) -> ProcessIdentity | None:
    """How to know ``pid``'s group again later; None where there is no ``/proc`` (Windows, macOS)."""
    if sys.platform == "win32":
        return None
    fields = _stat_fields(proc / str(pid))
    boot = _boot_id(proc)
    if fields is None or boot is None:
        return None
    return ProcessIdentity(pid, fields[1], boot)


def end_started(identities: Iterable[ProcessIdentity], *, proc: Path = _PROC) -> list[int]:
    """SIGKILL the recorded groups that are provably still the ones recorded; returns the groups ended.

    This process's own group and its parent's are never touched.
    """
    if sys.platform == "win32" or not proc.is_dir():
        return []
    boot = _boot_id(proc)
    spared = {os.getpgrp(), os.getpid(), os.getppid()}
    ended: list[int] = []
    for identity in identities:
        if identity.boot != boot or identity.group in spared:
            continue
        members = [(pid, started) for pid, group, started in _own_processes(proc) if group == identity.group]
        leader = next((started for pid, started in members if pid == identity.group), None)
        if not members or (leader is not None and leader != identity.started):
            continue  # gone, or the id now belongs to another group
        if any(started < identity.started for _pid, started in members):
            continue  # a member older than the recorded tool: not its group
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(identity.group, signal.SIGKILL)
            ended.append(identity.group)
    return ended


def _boot_id(proc: Path) -> str | None:
    try:
        return (proc / "sys" / "kernel" / "random" / "boot_id").read_text(encoding="ascii").strip()
    except OSError:
        return None


def _stat_fields(folder: Path) -> tuple[int, int] | None:
    """The process group (field 5) and start time (field 22) of ``/proc/PID/stat``."""
    try:
        text = (folder / "stat").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    # The command name (field 2) is in parentheses and may hold spaces and ')'; the rest follow
    # its last ')'. After it: state (3), ppid (4), pgrp (5), ... starttime (22).
    rest = text[text.rfind(")") + 2 :].split()
    try:
        return int(rest[2]), int(rest[19])
    except (IndexError, ValueError):
        return None


def _own_processes(proc: Path) -> Iterator[tuple[int, int, int]]:
    """This user's processes: (pid, group, start time)."""
    uid = os.getuid()
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            if entry.stat().st_uid != uid:
                continue
            fields = _stat_fields(entry)
            if fields is not None:
                yield int(entry.name), fields[0], fields[1]
