"""Finishing or undoing a creation or removal that was killed part-way, touching only what it made.

Every ``env create`` writes a record before it touches the disk and holds a lock while it
runs (:mod:`gpuwizard.workflow.state.env_pending`). A record whose lock is free was left by a
maker that died; :func:`recover_interrupted` settles it by what is on disk, in this order:

1. the process groups that run recorded as it started them (and only those, while provably
   the same: ``adapters/processes.py``) are ended, so nothing writes into its folders;
2. if ``environments.json`` records this run (its entry names the run's log and id), the
   creation had finished: only the moved-aside original is left to delete;
3. otherwise it is undone: the half-made folder and kernel are removed and the original, if
   one was moved aside, is put back.

A record proves nothing by itself: it may be stale (a home restored from a backup, a synced
home) or planted. So every folder is removed or moved only if it carries the wizard's marker
with the record's id (``ownership.py``); anything else is kept, and the line said names it.

Each step can itself be interrupted: the record stays until the last one is done, and every
step is safe to repeat (a missing folder is nothing to remove, a missing backup means the
original never left or is already back). A removal (``env remove``) renames the folder into a
trash name first: a record of one whose folder is in the trash is finished, marker last.
Any env command, ``verify``, ``test``, ``report`` and the wizard's start run this first.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

from gpuwizard.adapters.file_locks import try_hold
from gpuwizard.adapters.processes import end_started
from gpuwizard.workflow.envs.ownership import (
    Kind,
    loose_marker,
    owned_by,
    remove_owned,
    same_folder,
)
from gpuwizard.workflow.state.env_pending import (
    PendingEnv,
    PendingRemoval,
    drop_pending,
    drop_removal,
    name_lock,
    pending_records,
    prefix_lock,
    record_file,
    removal_file,
    removal_records,
    set_aside,
)
from gpuwizard.workflow.state.env_registry import drop_record, find_record, load_records

Note = Callable[[str], None]


def making_folder(prefix: Path, owner_id: str) -> Path:
    """Where a new venv is made and marked before it is renamed into place (beside it: same disk)."""
    return prefix.with_name(f".gpuwizard-making-{owner_id[:16]}")


def backup_folder(prefix: Path, owner_id: str) -> Path:
    """Where the environment being replaced waits (a short name of this run's: fits any folder name)."""
    return prefix.with_name(f".gpuwizard-replaced-{owner_id[:16]}")


def kernel_staging(kernel: Path, owner_id: str) -> Path:
    """Where a new kernel spec is written and marked before it is renamed into place."""
    return kernel.with_name(f".gpuwizard-kernel-{owner_id[:16]}")


def recover_interrupted(note: Note | None = None, *, only: str | None = None) -> list[str]:
    """Settle every creation or removal a dead wizard left (only those of name ``only`` when given).

    Records whose maker still runs are left alone. Returns one line per record settled
    (also given to ``note``), saying what was done and what was kept.
    """
    # Each record as (its file, its name, its folder, what settles it); None: unreadable.
    records: list[tuple[Path, tuple[str, str, Callable[[], str]] | None]] = [
        (path, None if record is None else (record.name, record.prefix, partial(settle, record)))
        for path, record in pending_records()
    ]
    records += [
        (path, None if removal is None else (removal.name, removal.path, partial(finish_removal, removal)))
        for path, removal in removal_records()
    ]
    said: list[str] = []
    for path, found in records:
        if found is None:
            set_aside(path)
            continue
        name, folder, step = found
        if only is not None and name != only:
            continue
        line = _with_locks(name, folder, path, step)
        if line is not None:
            said.append(line)
            if note is not None:
                note(line)
    return said


def _with_locks(name: str, prefix: str, record: Path, step: Callable[[], str]) -> str | None:
    held = try_hold(name_lock(name))
    if held is None:
        return None  # a living gpuwizard is working on it
    try:
        folder_lock = try_hold(prefix_lock(prefix))
        if folder_lock is None:
            return None
        try:
            if not record.exists():  # settled by another recovery meanwhile
                return None
            try:
                return step()
            except OSError as error:  # a file in use: the record stays for the next run
                return f"an interrupted change of {name!r} could not be settled yet: {error}"
        finally:
            folder_lock.release()
    finally:
        held.release()


def settle(record: PendingEnv) -> str:
    """Finish or undo one creation whose maker is gone; the caller holds its locks.

    Raises:
        OSError: A folder of the run's could not be removed or put back (the record stays).
    """
    if not _credible(record):
        # Written by a version without markers, naming no folder the wizard makes (``/``), or
        # contradicting the wizard's own list: nothing in it can be proven the wizard's.
        set_aside(_record_path(record))
        return (
            f"a record of an interrupted creation of {record.name!r} that proves nothing was set aside "
            f"(pending/*.bad); nothing was removed: check {record.prefix} yourself"
        )
    prefix = Path(record.prefix)
    backup = Path(record.backup) if record.backup else None
    made = find_record(record.name)
    kept: list[str] = []
    if made is not None and made.log == record.log and made.id == record.id:
        problems = _remove(backup, record.replaces_id, "environment", kept, empty_ok=True, place=prefix)
        problems += _remove(
            _kernel_backup(record),
            record.replaces_id,
            "kernel",
            kept,
            empty_ok=True,
            place=_path(record.old_kernel),
        )
        _raise_if(problems)
        drop_pending(record.name)
        return _said(
            f"the interrupted creation of {record.name!r} had finished; its old copy was removed", kept
        )
    if owned_by(prefix, "environment", record.id) or owned_by(
        making_folder(prefix, record.id), "environment", record.id, place=prefix
    ):
        # Undone only: a finished run's tools are done. And only a run whose folder carries its
        # id (which no entry claims: _credible) is known to have run at all: the processes a
        # stale or planted record names may by now be anyone's (a process id is reused).
        end_started(record.tools)
    problems = _remove(_path(record.kernel), record.id, "kernel", kept)
    if record.kernel:
        problems += _remove(
            kernel_staging(Path(record.kernel), record.id),
            record.id,
            "kernel",
            kept,
            empty_ok=True,
            loose=True,
        )
    problems += _remove(
        making_folder(prefix, record.id),
        record.id,
        "environment",
        kept,
        empty_ok=True,
        place=prefix,
        loose=True,
    )
    problems += _remove(prefix, record.id, "environment", kept, keep_folder=record.prefix_existed)
    _raise_if(problems)
    back = _put_back(backup, prefix, record.replaces_id, "environment", kept)
    if back:
        _put_back(_kernel_backup(record), _path(record.old_kernel), record.replaces_id, "kernel", kept)
    if record.prefix_existed and not prefix.exists():
        prefix.mkdir(parents=True, exist_ok=True)
    drop_pending(record.name)
    if back:
        return _said(
            f"an interrupted replacement of {record.name!r} was undone: the original is back at {prefix}",
            kept,
        )
    return _said(f"an interrupted creation of {record.name!r} was undone", kept)


def finish_removal(record: PendingRemoval) -> str:
    """Finish one ``env remove`` whose remover is gone; the caller holds its locks.

    Before the folder was renamed to the trash nothing had changed: the record just goes.

    Raises:
        OSError: What is in the trash could not be deleted yet (the record stays).
    """
    if not _credible_removal(record):
        set_aside(removal_file(record.name))
        return f"a record of an interrupted removal of {record.name!r} that proves nothing was set aside"
    trash, folder = Path(record.trash), Path(record.path)
    kernel, kernel_trash = _path(record.kernel), _path(record.kernel_trash)
    kept: list[str] = []
    if not trash.exists() and owned_by(folder, "environment", record.id):
        drop_removal(record.name)
        return f"an interrupted removal of {record.name!r} had not begun: it is still at {record.path}"
    began = owned_by(trash, "environment", record.id, place=folder)
    # The environment went first, so its kernel may still be in place: it goes too.
    if (
        began
        and kernel is not None
        and kernel_trash is not None
        and not kernel_trash.exists()
        and owned_by(kernel, "kernel", record.id)
    ):
        kernel.replace(kernel_trash)
    problems = _remove(trash, record.id, "environment", kept, empty_ok=True, place=folder)
    problems += _remove(kernel_trash, record.id, "kernel", kept, empty_ok=True, place=kernel)
    _raise_if(problems)
    found = find_record(record.name)
    # The entry goes only if it is this one and its folder is really gone from its place (a
    # planted record of a real name and id must not make the wizard forget a living environment).
    if (
        found is not None
        and found.id == record.id
        and same_folder(found.path, folder)
        and not owned_by(folder, "environment", record.id)
    ):
        drop_record(record.name)
    if record.given and not folder.exists() and not folder.is_symlink():
        folder.mkdir(parents=True, exist_ok=True)  # the empty folder the person gave stays theirs
    drop_removal(record.name)
    return _said(f"the interrupted removal of {record.name!r} was finished", kept)


def _remove(
    folder: Path | None,
    owner_id: str | None,
    kind: Kind,
    kept: list[str],
    *,
    empty_ok: bool = False,
    keep_folder: bool = False,
    place: Path | None = None,
    loose: bool = False,
) -> list[str]:
    """Remove ``folder`` if it is ``owner_id``'s; a folder that is not is added to ``kept``."""
    if folder is not None and loose:
        loose_marker(folder).unlink(missing_ok=True)  # a marker not yet moved in: a file of the run's name
    if folder is None or (not folder.exists() and not folder.is_symlink()):
        return []
    if owned_by(folder, kind, owner_id, place=place):
        return remove_owned(folder, kind, owner_id, place=place, keep_folder=keep_folder)
    if keep_folder and folder.is_dir() and not any(folder.iterdir()):
        return []  # the empty folder the person gave, as it was
    if empty_ok and folder.is_dir() and not folder.is_symlink() and not any(folder.iterdir()):
        # A name only this run makes (its id), left empty by a kill before its marker was
        # written or after it was removed last: nothing in it to lose.
        folder.rmdir()
        return []
    kept.append(str(folder))
    return []


def _put_back(
    backup: Path | None, target: Path | None, owner_id: str | None, kind: Kind, kept: list[str]
) -> bool:
    """Move the replaced copy back, if it is provably the one moved aside and its place is free."""
    if backup is None or target is None or not backup.exists():
        return False
    if not owned_by(backup, kind, owner_id, place=target):
        kept.append(str(backup))
        return False
    if target.exists():
        kept.append(f"{backup} (the original: {target} is taken)")
        return False
    backup.replace(target)
    return True


def _said(line: str, kept: list[str]) -> str:
    if not kept:
        return line
    return (
        f"{line}; kept, since they do not carry the wizard's marker for it: {', '.join(kept)} "
        "(check them and delete what you do not need yourself)"
    )


def _kernel_backup(record: PendingEnv) -> Path | None:
    return backup_folder(Path(record.old_kernel), record.id) if record.old_kernel else None


def _credible(record: PendingEnv) -> bool:
    """Whether ``record`` could have been written by a creation of this home, as it says.

    Its folders are absolute, named, and the moved-aside copy has the name this run gives it;
    and the wizard's list agrees: no entry claims its id, or exactly one, the finished run it
    names (same name, folder and log). A record copied from a living environment's entry, or a
    stale one whose run finished long ago under another log, contradicts it.
    """
    if not record.id or not _folders(record.prefix, record.backup, record.kernel, record.old_kernel):
        return False
    prefix = Path(record.prefix)
    if record.backup is not None and Path(record.backup) != backup_folder(prefix, record.id):
        return False
    claims = [entry for entry in load_records() if entry.id == record.id]
    if not claims:
        return True
    (entry, *others) = claims
    return (
        not others
        and entry.name == record.name
        and entry.log == record.log
        and same_folder(entry.path, prefix)
    )


def _credible_removal(record: PendingRemoval) -> bool:
    """Whether ``record``'s trash names are the ones ``env remove`` gives (registry.trash_folder)."""
    if not _folders(record.path, record.trash, record.kernel, record.kernel_trash):
        return False
    if Path(record.trash) != _trash(Path(record.path), record.id):
        return False
    if (record.kernel is None) != (record.kernel_trash is None):
        return False
    return record.kernel is None or Path(str(record.kernel_trash)) == _trash(Path(record.kernel), record.id)


def _trash(folder: Path, owner_id: str) -> Path:
    return folder.with_name(f".gpuwizard-removing-{owner_id[:16]}")


def _folders(*paths: str | None) -> bool:
    """Whether each path given could be a folder the wizard made: absolute, with a name (not ``/``)."""
    return all(Path(path).is_absolute() and Path(path).name for path in paths if path is not None)


def _path(text: str | None) -> Path | None:
    return Path(text) if text else None


def _record_path(record: PendingEnv) -> Path:
    return record_file(record.name)


def _raise_if(problems: list[str]) -> None:
    if problems:
        raise OSError("; ".join(problems))
