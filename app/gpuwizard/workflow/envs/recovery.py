"""Finishing or undoing a creation that was killed part-way, whatever killed it and when.

Every ``env create`` writes a record before it touches the disk and holds a lock while it
runs (:mod:`gpuwizard.workflow.state.env_pending`). A record whose lock is free was left by a
maker that died; :func:`recover_interrupted` settles it by what is on disk, in this order:

1. processes still running from the folders (the dead maker's tools) are ended, so nothing
   writes into them while they are cleaned up;
2. if ``environments.json`` records this run (its entry names the run's log), the creation
   had finished: only the moved-aside original is left to delete;
3. otherwise it is undone: the half-made folder is removed and the original, if one was
   moved aside, is put back; a Jupyter kernel it registered is removed.

Each step can itself be interrupted: the record stays until the last one is done, and every
step is safe to repeat (a missing folder is nothing to remove, a missing backup means the
original never left or is already back). Any env command, ``verify``, ``test``, ``report``
and the wizard's start run this first.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from gpuwizard.adapters.file_locks import try_hold
from gpuwizard.adapters.processes import end_processes_inside
from gpuwizard.workflow.envs.trees import remove_tree
from gpuwizard.workflow.state.env_pending import (
    PendingEnv,
    drop_pending,
    name_lock,
    pending_records,
    prefix_lock,
    set_aside,
)
from gpuwizard.workflow.state.env_registry import find_record

Note = Callable[[str], None]


def recover_interrupted(note: Note | None = None, *, only: str | None = None) -> list[str]:
    """Settle every creation a dead maker left (only the one of name ``only`` when given).

    Records whose maker still runs are left alone. Returns one line per creation settled
    (also given to ``note``), saying what was done.
    """
    said: list[str] = []
    for path, record in pending_records():
        if record is None:
            set_aside(path)
            continue
        if only is not None and record.name != only:
            continue
        held = try_hold(name_lock(record.name))
        if held is None:
            continue  # a living gpuwizard is making it
        try:
            folder_lock = try_hold(prefix_lock(record.prefix))
            if folder_lock is None:
                continue
            try:
                if not path.exists():  # settled by another recovery meanwhile
                    continue
                try:
                    line = settle(record)
                except OSError as error:  # a file in use: the record stays for the next run
                    line = f"an interrupted creation of {record.name!r} could not be undone yet: {error}"
            finally:
                folder_lock.release()
        finally:
            held.release()
        said.append(line)
        if note is not None:
            note(line)
    return said


def settle(record: PendingEnv) -> str:
    """Finish or undo one creation whose maker is gone; the caller holds its locks.

    Raises:
        OSError: A folder could not be removed or put back (the record stays for the next run).
    """
    prefix = Path(record.prefix)
    backup = Path(record.backup) if record.backup else None
    end_processes_inside([prefix, *([backup] if backup else [])])
    made = find_record(record.name)
    if made is not None and made.log == record.log:
        problems = remove_tree(backup) if backup is not None else []
        _raise_if(problems)
        drop_pending(record.name)
        return f"the interrupted creation of {record.name!r} had finished; its old copy was removed"
    problems = remove_tree(Path(record.kernel)) if record.kernel else []
    if backup is not None and backup.exists():
        # The original is in the backup, so whatever is at the folder is the half-made one.
        problems += remove_tree(prefix)
        _raise_if(problems)
        backup.replace(prefix)
        drop_pending(record.name)
        return f"an interrupted replacement of {record.name!r} was undone: the original is back at {prefix}"
    if backup is None:
        problems += remove_tree(prefix)
        _raise_if(problems)
        if record.prefix_existed:
            prefix.mkdir(parents=True, exist_ok=True)
        drop_pending(record.name)
        return f"an interrupted creation of {record.name!r} was undone: {prefix} was removed"
    # A replacement killed before the original was moved aside (or after it was put back).
    _raise_if(problems)
    drop_pending(record.name)
    return f"an interrupted replacement of {record.name!r} was undone: the original was never moved"


def _raise_if(problems: list[str]) -> None:
    if problems:
        raise OSError("; ".join(problems))
