"""The PATH journal: every PATH change, recorded under the wizard's home before it is written.

One JSON file (``GPUWIZARD_HOME/path-journal.json``), replaced atomically on every update. An
entry is written as ``pending`` before the registry is touched and becomes ``applied`` once the
value was read back; a crash in between leaves a ``pending`` entry that :meth:`PathJournal.entries`
settles by looking at the value: still the new one means it was written, the old one means it
was not. A change that changes nothing records nothing (docs/architecture.md,
"The command-line and JSON contract"). Undo appends an entry of its own (``action: undo``,
``reverts: <id>``), so the journal is an audit trail that is only ever added to.

The journal's lock (:meth:`PathJournal.locked`, ``path-journal.json.lock``) is the one lock of
PATH changes for a home: each of :meth:`~PathJournal.record`, :meth:`~PathJournal.mark_applied`
and :meth:`~PathJournal.drop` holds it for its read-modify-write, and a whole change holds it
from reading the value it is planned from to the journal's last update
(:mod:`gpuwizard.workflow.pathedit.changes`), so two processes never interleave.
"""

from __future__ import annotations

import contextlib
import json
import uuid
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Final, Literal

from gpuwizard.adapters.file_locks import locked
from gpuwizard.adapters.registry import RegValue
from gpuwizard.workflow.state.damaged import DamagedFile, read_state_json
from gpuwizard.workflow.state.files import write_text_atomically

JOURNAL_NAME: Final = "path-journal.json"
JOURNAL_SCHEMA: Final = "gpuwizard.path-journal/1"

Status = Literal["pending", "applied"]


class JournalError(Exception):
    """The journal cannot be read or written; the message says why, in one line."""


@dataclass(frozen=True)
class JournalEntry:
    r"""One PATH change.

    Attributes:
        id: A unique identifier.
        time: When the change was made (UTC, ISO 8601).
        registry: ``live`` or ``file:<snapshot path>``: which registry was changed.
        scope: ``user`` or ``system``.
        key: The registry key (``HKCU\Environment``...).
        name: The value's name (``Path``).
        action: ``add``, ``remove``, ``repair`` or ``undo``.
        folders: The folders the command named.
        old: The value and type before (None: the value did not exist).
        new: The value and type after (None: the value was deleted).
        status: ``pending`` until the write was read back, then ``applied``.
        reverts: For an undo, the id of the entry it reverted.
    """

    id: str
    time: str
    registry: str
    scope: str
    key: str
    name: str
    action: str
    folders: tuple[str, ...]
    old: RegValue | None
    new: RegValue | None
    status: Status = "pending"
    reverts: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def _value_from_json(data: Any) -> RegValue | None:  # noqa: ANN401 - JSON
    if data is None:
        return None
    return RegValue(str(data["type"]), data["value"])


_ENTRY_TEXT: Final = ("id", "time", "registry", "scope", "key", "name", "action")


def _journal_problem(data: object) -> str | None:
    """What makes ``data`` no journal (checked before any entry is used), or None."""
    entries = data.get("entries") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        return 'expected {"entries": [...]}'
    for number, item in enumerate(entries, 1):
        problem = _entry_problem(item)
        if problem is not None:
            return f"entry {number}: {problem}"
    return None


def _entry_problem(item: object) -> str | None:
    if not isinstance(item, dict):
        return "not an object"
    folders = item.get("folders", [])
    checks = [
        *((f"{name!r} must be text", isinstance(item.get(name), str)) for name in _ENTRY_TEXT),
        (
            "'folders' must be a list of text",
            isinstance(folders, list) and all(isinstance(folder, str) for folder in folders),
        ),
        *(
            (f'{side!r} must be null or {{"type": ..., "value": ...}}', _is_value(item.get(side)))
            for side in ("old", "new")
        ),
        ("'reverts' must be text or null", isinstance(item.get("reverts"), (str, type(None)))),
        ("'extra' must be an object or null", isinstance(item.get("extra"), (dict, type(None)))),
    ]
    return next((problem for problem, ok in checks if not ok), None)


def _is_value(value: object) -> bool:
    return value is None or (
        isinstance(value, dict) and isinstance(value.get("type"), str) and "value" in value
    )


def _entry_from_json(data: dict[str, Any]) -> JournalEntry:
    return JournalEntry(
        id=str(data["id"]),
        time=str(data["time"]),
        registry=str(data["registry"]),
        scope=str(data["scope"]),
        key=str(data["key"]),
        name=str(data["name"]),
        action=str(data["action"]),
        folders=tuple(data.get("folders", ())),
        old=_value_from_json(data.get("old")),
        new=_value_from_json(data.get("new")),
        status="applied" if data.get("status") == "applied" else "pending",
        reverts=data.get("reverts"),
        extra=dict(data.get("extra") or {}),
    )


def entry_to_json(entry: JournalEntry) -> dict[str, Any]:
    """The JSON form of an entry (as stored, and as ``path history --json`` prints it)."""
    data = asdict(entry)
    data["folders"] = list(entry.folders)
    return data


class PathJournal:
    """The journal file under a home folder."""

    def __init__(self, home: Path) -> None:
        self.path = home / JOURNAL_NAME

    def _read(self) -> list[JournalEntry]:
        # Unlike the other state files, a damaged journal is not moved aside: undo depends on it,
        # so PATH commands stop with one line until the person moves it (workflow/state/damaged.py).
        try:
            data = read_state_json(self.path)
        except FileNotFoundError:
            return []
        except OSError as error:
            raise JournalError(f"{self.path}: the PATH journal {error}") from None
        except DamagedFile as error:
            raise JournalError(self._damaged(str(error))) from None
        problem = _journal_problem(data)
        if problem is not None:
            raise JournalError(self._damaged(problem))
        return [_entry_from_json(item) for item in data["entries"]]

    def _damaged(self, why: str) -> str:
        return f"{self.path}: the PATH journal is damaged ({why}); move it aside to start a new one"

    def _write(self, entries: Sequence[JournalEntry]) -> None:
        text = json.dumps(
            {"schema": JOURNAL_SCHEMA, "entries": [entry_to_json(e) for e in entries]},
            indent=2,
            ensure_ascii=False,
        )
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_text_atomically(self.path, text + "\n")
        except OSError as error:
            raise JournalError(
                f"{self.path}: cannot write the PATH journal ({error.strerror or error})"
            ) from None

    def entries(
        self, registry: str | None = None, *, current: Callable[[JournalEntry], RegValue | None] | None = None
    ) -> list[JournalEntry]:
        """The entries, oldest first; only those of ``registry`` when given.

        ``current`` reads an entry's value as it is now; with it, pending entries are settled:
        an entry whose new value is in place counts as applied, one whose old value is still in
        place never happened and is left out.
        """
        found = [e for e in self._read() if registry is None or e.registry == registry]
        if current is None:
            return [e for e in found if e.status == "applied"]
        settled: list[JournalEntry] = []
        for entry in found:
            if entry.status == "pending":
                now = current(entry)
                if now != entry.new or now == entry.old:
                    continue
                entry = replace(entry, status="applied")  # noqa: PLW2901 - settled in place
            settled.append(entry)
        return settled

    def locked(self) -> contextlib.AbstractContextManager[None]:
        """Hold the journal's lock: this home's one lock of PATH changes (re-entrant).

        Raises:
            StateBusy: Another process held it for a minute; nothing was changed.
        """
        return locked(self.path)

    def record(self, entry: JournalEntry) -> None:
        """Add an entry (normally pending, before the value is written)."""
        with self.locked():
            self._write([*self._read(), entry])

    def mark_applied(self, entry_id: str) -> None:
        """The entry's value was written and read back."""
        with self.locked():
            self._write([replace(e, status="applied") if e.id == entry_id else e for e in self._read()])

    def drop(self, entry_id: str) -> None:
        """Forget an entry whose write did not happen (refused, changed meanwhile, failed)."""
        with self.locked():
            self._write([e for e in self._read() if e.id != entry_id])


def new_entry(
    *,
    registry: str,
    scope: str,
    key: str,
    name: str,
    action: str,
    folders: Sequence[str],
    old: RegValue | None,
    new: RegValue | None,
    reverts: str | None = None,
) -> JournalEntry:
    """A pending entry stamped with a new id and the time now."""
    return JournalEntry(
        id=uuid.uuid4().hex,
        time=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        registry=registry,
        scope=scope,
        key=key,
        name=name,
        action=action,
        folders=tuple(folders),
        old=old,
        new=new,
        reverts=reverts,
    )


def undoable(entries: Sequence[JournalEntry]) -> list[JournalEntry]:
    """The changes that no undo has reverted, newest first (undos themselves are not undone).

    The order in which repeated undos revert them.
    """
    reverted = {e.reverts for e in entries if e.action == "undo"}
    return [e for e in reversed(entries) if e.action != "undo" and e.id not in reverted]


def last_undoable(entries: Sequence[JournalEntry]) -> JournalEntry | None:
    """The most recent change that no later undo has reverted (undos themselves are not undone)."""
    return next(iter(undoable(entries)), None)
