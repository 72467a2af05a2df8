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
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final

from gpuwizard.adapters.atomic_files import remove_stale_temporaries
from gpuwizard.adapters.file_locks import HeldLock, held_elsewhere, try_hold
from gpuwizard.adapters.processes import ProcessIdentity
from gpuwizard.core.events import json_field, value_to_json
from gpuwizard.workflow.state.files import write_json_atomically
from gpuwizard.workflow.state.home import wizard_home

PENDING_SCHEMA: Final = "gpuwizard.env-pending/1"
# A temporary copy of a record as adapters/atomic_files.py names it: ".env-KEY-XXXXXXXX.pidPID.json".
_TEMPORARY: Final = re.compile(r"\.((?:env|remove)-[0-9a-f]{24})-.+\.json")
REMOVAL_SCHEMA: Final = "gpuwizard.env-removal/1"


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
        kernel: The Jupyter kernel folder it registers, once it knows where.
        pid: The process that made it (for the messages only: the lock says whether it lives).
        id: The new environment's id: its marker's, and its entry's in ``environments.json``
            (``workflow/envs/ownership.py``). Recovery touches only folders marked with it.
        replaces_id: The id of the environment being replaced (the marker of the moved-aside copy).
        old_kernel: The replaced environment's own kernel, moved aside (beside it, under the
            same short name as ``backup``) until the new one works.
        tools: The process groups this creation started, recorded as each started: the only
            processes recovery may end (``adapters/processes.py``).
    """

    name: str
    prefix: str
    prefix_existed: bool
    backup: str | None
    log: str
    kernel: str | None = None
    pid: int = 0
    id: str = ""
    replaces_id: str | None = None
    old_kernel: str | None = None
    tools: tuple[ProcessIdentity, ...] = json_field(default=(), write=lambda ts: [t.to_json() for t in ts])

    def to_json(self) -> dict[str, Any]:
        """As stored (read back by hand, strictly: a record may be damaged or planted)."""
        return {"schema": PENDING_SCHEMA, **value_to_json(self)}


@dataclass(frozen=True)
class PendingRemoval:
    """One ``env remove`` under way: the environment's folder is renamed to ``trash`` first.

    The rename is the removal's point of no return: before it, nothing changed (the record is
    dropped); after it, recovery finishes the deletion, marker last, and drops the entry.

    Attributes:
        name, id: The environment and its id (its marker's).
        path: Its folder.
        trash: Where the folder is renamed to before it is deleted (beside it: same disk).
        kernel, kernel_trash: Its Jupyter kernel, and where that is renamed to.
    """

    name: str
    id: str
    path: str
    trash: str
    kernel: str | None = None
    kernel_trash: str | None = None
    #: The folder was an empty one the person gave: it is made again, empty, when the removal ends.
    given: bool = False

    def to_json(self) -> dict[str, Any]:
        """As stored."""
        return {"schema": REMOVAL_SCHEMA, **value_to_json(self)}


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


def removal_file(name: str) -> Path:
    """The record of ``name``'s removal."""
    return pending_folder() / f"remove-{_key(name)}.json"


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
    """The record with the kernel it registers, saved (before the kernel is made)."""
    updated = replace(record, kernel=str(kernel))
    save_pending(updated)
    return updated


def with_tool(record: PendingEnv, tool: ProcessIdentity) -> PendingEnv:
    """The record with one more process group it started, saved."""
    updated = replace(record, tools=(*record.tools, tool))
    save_pending(updated)
    return updated


def save_removal(record: PendingRemoval) -> None:
    """Write the removal's record, atomically; the caller holds the name's lock."""
    write_json_atomically(removal_file(record.name), record.to_json())


def drop_removal(name: str) -> None:
    """Forget the removal's record: it ended (done, or nothing had changed yet)."""
    removal_file(name).unlink(missing_ok=True)


def removal_records() -> list[tuple[Path, PendingRemoval | None]]:
    """Every removal record on disk (None for one that cannot be read)."""
    folder = pending_folder()
    if not folder.is_dir():
        return []
    return [(path, _read_removal(path)) for path in sorted(folder.glob("remove-*.json"))]


def _read_removal(path: Path) -> PendingRemoval | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or data.get("schema") != REMOVAL_SCHEMA:
            return None
        name, owner, folder, trash = (data[key] for key in ("name", "id", "path", "trash"))
        kernel, kernel_trash = data.get("kernel"), data.get("kernel_trash")
        if not all(isinstance(value, str) and value for value in (name, owner, folder, trash)):
            return None
        if not all(value is None or isinstance(value, str) for value in (kernel, kernel_trash)):
            return None
        given = data.get("given", False) is True
        record = PendingRemoval(str(name), str(owner), str(folder), str(trash), kernel, kernel_trash, given)
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
        return None
    return record if path == removal_file(record.name) else None


def drop_pending(name: str) -> None:
    """Forget the record: the creation ended (made, or everything undone)."""
    record_file(name).unlink(missing_ok=True)


def pending_record(name: str) -> PendingEnv | None:
    """The record of ``name``'s creation, if one is on disk and readable."""
    path = record_file(name)
    return _read(path) if path.exists() else None


def pending_records() -> list[tuple[Path, PendingEnv | None]]:
    """Every record on disk (None for one that cannot be read: moved aside by the caller).

    The temporary copies a writer killed mid-write left beside them go first (only those whose
    writer's process is gone: ``adapters/atomic_files.py``).
    """
    folder = pending_folder()
    if not folder.is_dir():
        return []
    names = (entry.name for entry in folder.iterdir())
    for key in sorted({match.group(1) for match in map(_TEMPORARY.fullmatch, names) if match}):
        remove_stale_temporaries(folder / f"{key}.json")
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
            id=str(data.get("id") or ""),
            replaces_id=str(data["replaces_id"]) if data.get("replaces_id") else None,
            old_kernel=str(data["old_kernel"]) if data.get("old_kernel") else None,
            tools=tuple(_tools(data.get("tools", []))),
        )
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
        return None
    return record if path == record_file(record.name) else None


def _tools(value: object) -> list[ProcessIdentity]:
    if not isinstance(value, list):
        raise TypeError("tools")
    found = [ProcessIdentity.from_json(item) for item in value]
    return [tool for tool in found if tool is not None]
