"""Cross-process locks: one lock file beside each file that is read, changed and written back.

Two wizards, or the wizard and a CLI, may run at once. Every read-modify-write of a state file
(the PATH journal with the registry value it records, ``environments.json``, the last good
state, ``last-tests.json``) and of a registry snapshot holds that file's lock for the whole
read-change-write, so no update is lost; the write itself is still a temporary file renamed
over the old one (:mod:`.atomic_files`), so a kill at any instant leaves the old file or the
new one, never half.

The locks are :class:`filelock.FileLock`: ``fcntl.flock`` on POSIX and ``msvcrt.locking`` on
Windows, both released by the operating system when the holder dies, so a killed wizard never
leaves a lock behind (py-filelock.readthedocs.io). A held lock is also how a later run knows
that a half-made environment still has a living maker (:func:`held_elsewhere`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from filelock import FileLock, Timeout

#: How long a command waits for another one's read-modify-write before saying so. Every such
#: update takes milliseconds; a minute covers a slow disk and a loaded machine.
WAIT_S: Final = 60.0


class StateBusy(Exception):
    """Another wizard held a state file's lock too long; nothing was changed (one line)."""


def lock_path(state_file: Path) -> Path:
    """The lock file of ``state_file``: the same name with ``.lock`` added, in the same folder."""
    return state_file.with_name(state_file.name + ".lock")


@contextmanager
def locked(state_file: Path, *, wait_s: float = WAIT_S) -> Iterator[None]:
    """Hold ``state_file``'s lock while inside (re-entrant in the same thread).

    Raises:
        StateBusy: Another process kept it locked for ``wait_s`` seconds.
    """
    state_file.parent.mkdir(parents=True, exist_ok=True)
    key = str(lock_path(state_file).resolve())
    with _registry_guard:
        pair = _process_locks.get(key)
        if pair is None:
            # thread_local=False: the threading lock in front keeps the threads of this process
            # apart, and the one file lock then counts re-entries of the thread holding it.
            pair = _process_locks[key] = (threading.RLock(), FileLock(key, thread_local=False))
    in_process, between_processes = pair
    deadline = time.monotonic() + wait_s
    if not in_process.acquire(timeout=wait_s):
        raise StateBusy(_busy(state_file, wait_s))
    try:
        try:
            between_processes.acquire(timeout=max(0.0, deadline - time.monotonic()))
        except Timeout:
            raise StateBusy(_busy(state_file, wait_s)) from None
        try:
            yield
        finally:
            between_processes.release()
    finally:
        in_process.release()


_registry_guard = threading.Lock()
_process_locks: dict[str, tuple[threading.RLock, FileLock]] = {}


def _busy(state_file: Path, wait_s: float) -> str:
    return f"{state_file}: another gpuwizard has been changing it for {wait_s:g} s; try again when it is done"


class HeldLock:
    """A lock taken without waiting and held until :meth:`release` (or until this process dies)."""

    def __init__(self, path: Path) -> None:
        self._lock = FileLock(str(path))
        self.path = path

    def release(self) -> None:
        """Let it go (the lock file stays; it is the lock, not a marker)."""
        self._lock.release(force=True)


def try_hold(path: Path) -> HeldLock | None:
    """Take the lock file ``path`` now and keep it; None when another process holds it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    held = HeldLock(path)
    try:
        held._lock.acquire(timeout=0)
    except Timeout:
        return None
    return held


def held_elsewhere(path: Path) -> bool:
    """Whether a living process holds the lock file ``path`` (tried and let go at once)."""
    if not path.exists():
        return False
    held = try_hold(path)
    if held is None:
        return True
    held.release()
    return False
