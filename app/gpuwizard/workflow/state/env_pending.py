"""Environments being made right now: one record and one lock per name, under ``GPUWIZARD_HOME``.

``env create`` takes the name's lock (``locks/env-KEY.lock``) and its folder's lock
(``locks/prefix-KEY.lock``) without waiting, and holds them until it is done; a second create
of the same name or folder is refused while they are held. Before it changes anything on disk
it writes ``pending/env-KEY.json``: the name, the folder, where an environment being replaced
is moved aside, the run's log (its id), and later the Jupyter kernel it registered. The record
goes when the creation ends, after its entry in ``environments.json`` (a success) or after
the rollback (a failure or cancel).

A record whose lock nobody holds is what a killed creation left: the operating system released
its locks when the process died. :mod:`gpuwizard.workflow.envs.recovery` finishes or undoes
it, whatever killed the maker and at whichever instant.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Final

from gpuwizard.adapters.file_locks import HeldLock, held_elsewhere, try_hold
from gpuwizard.workflow.state.files import write_json_atomically
from gpuwizard.workflow.state.home import wizard_home

PENDING_SCHEMA: Final = "gpuwizard.env-pending/1"


class NameBusy(Exception):
    """Another gpuwizard is making (or recovering) this environment; nothing was changed."""


@dataclass(frozen=True)
class PendingEnv:
    """One creation under way, as recorded before it changed anything.

    Attributes:
        name: The environment's name.
        prefix: Its folder.
        prefix_existed: The folder existed (empty) before the creation began.
        backup: Where the environment being replaced is moved aside (None: nothing replaced).
        log: The run's log file: also its id, as ``environments.json`` records it on success.
        kernel: The Jupyter kernel folder it registered, once it did.
        pid: The process that made it (for the messages only: the lock says whether it lives).
    """

    name: str
    prefix: str
    prefix_existed: bool
    backup: str | None
    log: str
    kernel: str | None = None
    pid: int = 0

    def to_json(self) -> dict[str, Any]:
        """As stored."""
        return {"schema": PENDING_SCHEMA, **asdict(self)}


def _key(text: str) -> str:
    # Names and folders are compared as Windows would (case-insensitively, one separator).
    return hashlib.sha256(os.path.normcase(text).casefold().encode("utf-8", "surrogatepass")).hexdigest()[:24]


def pending_folder() -> Path:
    """Where the records live."""
    return wizard_home() / "pending"


def _locks_folder() -> Path:
    return wizard_home() / "locks"


def record_file(name: str) -> Path:
    """The record of ``name``'s creation."""
    return pending_folder() / f"env-{_key(name)}.json"


def name_lock(name: str) -> Path:
    """The lock held while ``name`` is made or recovered."""
    return _locks_folder() / f"env-{_key(name)}.lock"


def prefix_lock(prefix: Path | str) -> Path:
    """The lock held while the folder ``prefix`` is made or recovered."""
    return _locks_folder() / f"prefix-{_key(str(prefix))}.lock"


@dataclass
class CreationLocks:
    """The two locks of one creation; released together."""

    name: HeldLock
    prefix: HeldLock

    def release(self) -> None:
        """Let both go."""
        self.prefix.release()
        self.name.release()


def hold_creation(name: str, prefix: Path) -> CreationLocks:
    """Take the name's and the folder's locks now, or refuse.

    Raises:
        NameBusy: Another gpuwizard holds either.
    """
    held_name = try_hold(name_lock(name))
    if held_name is None:
        raise NameBusy(f"the environment {name!r} is being made by another gpuwizard; wait for it to finish")
    held_prefix = try_hold(prefix_lock(prefix))
    if held_prefix is None:
        held_name.release()
        raise NameBusy(f"{prefix} is being made by another gpuwizard; wait for it to finish")
    return CreationLocks(held_name, held_prefix)


def being_made(name: str) -> bool:
    """Whether a living gpuwizard is making ``name`` now."""
    return record_file(name).exists() and held_elsewhere(name_lock(name))


def save_pending(record: PendingEnv) -> None:
    """Write (or rewrite) the record, atomically; the caller holds the name's lock."""
    write_json_atomically(record_file(record.name), record.to_json())


def with_kernel(record: PendingEnv, kernel: Path) -> PendingEnv:
    """The record with the kernel it registered, saved."""
    updated = replace(record, kernel=str(kernel))
    save_pending(updated)
    return updated


def drop_pending(name: str) -> None:
    """Forget the record: the creation ended (made, or everything undone)."""
    record_file(name).unlink(missing_ok=True)


def pending_record(name: str) -> PendingEnv | None:
    """The record of ``name``'s creation, if one is on disk and readable."""
    path = record_file(name)
    return _read(path) if path.exists() else None


def pending_records() -> list[tuple[Path, PendingEnv | None]]:
    """Every record on disk (None for one that cannot be read: moved aside by the caller)."""
    folder = pending_folder()
    if not folder.is_dir():
        return []
    found: list[tuple[Path, PendingEnv | None]] = []
    for path in sorted(folder.glob("env-*.json")):
        found.append((path, _read(path)))
    return found


def set_aside(path: Path) -> None:
    """Move an unreadable record aside (``.bad``), keeping the evidence."""
    with contextlib.suppress(OSError):
        path.replace(path.with_suffix(".json.bad"))


def _read(path: Path) -> PendingEnv | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or data.get("schema") != PENDING_SCHEMA:
            return None
        record = PendingEnv(
            name=str(data["name"]),
            prefix=str(data["prefix"]),
            prefix_existed=bool(data.get("prefix_existed", False)),
            backup=str(data["backup"]) if data.get("backup") else None,
            log=str(data["log"]),
            kernel=str(data["kernel"]) if data.get("kernel") else None,
            pid=int(data.get("pid") or 0),
        )
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
        return None
    return record if path == record_file(record.name) else None
