"""The PATH journal: every PATH change, recorded under the wizard's home before it is written.

One JSON file (``GPUWIZARD_HOME/path-journal.json``), replaced atomically on every update. An
entry is written as ``pending`` before the registry is touched and becomes ``applied`` once the
value was read back; a crash in between leaves a ``pending`` entry. The next command settles it
for good (:meth:`PathJournal.settle`, under the lock, so its maker is surely dead) by the value
it finds: the value the next recorded change of that key started from, else the value now. The
entry's new value there means it was written (``applied``), its old value means it was not (the
entry is dropped, as a refused write's is); anything else cannot prove either, so the entry
becomes ``unproven`` and undo never reverts it: the wizard only takes away what it can prove it
put there. Settled at once, a later program that happens to write the same value (CUDA's
installer appending the same folder) is never taken for the wizard's write. A change that
changes nothing records nothing (docs/architecture.md, "The command-line and JSON contract").
Undo appends an entry of its own (``action: undo``, ``reverts: <id>``), so the journal is an
audit trail that is only ever added to.

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
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Final, Literal

from gpuwizard.adapters.atomic_files import remove_stale_temporaries
from gpuwizard.adapters.file_locks import WAIT_S, StateBusy, locked
from gpuwizard.adapters.registry import RegValue
from gpuwizard.core.events import value_from_json, value_to_json
from gpuwizard.workflow.state.damaged import DamagedFile, read_state_json
from gpuwizard.workflow.state.files import write_text_atomically

JOURNAL_NAME: Final = "path-journal.json"
JOURNAL_SCHEMA: Final = "gpuwizard.path-journal/1"

#: ``pending`` before the write; ``applied`` once read back (or settled as written);
#: ``unproven``: left pending by a crash, and the value then proved neither way.
Status = Literal["pending", "applied", "unproven"]
#: How a pending entry was settled.
Outcome = Literal["written", "not_written", "unproven"]


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
        status: ``pending`` until the write was read back, then ``applied``; ``unproven``
            when a crash left it pending and the value could not show whether it was written.
        reverts: For an undo, the id of the entry it reverted.
        extra: Anything else (``settled``: how a crash's pending entry was settled).
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


def entry_to_json(entry: JournalEntry) -> dict[str, Any]:
    """The JSON form of an entry (as stored, and as ``path history --json`` prints it)."""
    return value_to_json(entry)


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
        # Every entry was checked above, so reading by the fields adds nothing a check did not allow.
        return [value_from_json(JournalEntry, item) for item in data["entries"]]

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
            # A registry value may hold a lone surrogate: escaped in JSON, never refused.
            write_text_atomically(self.path, text + "\n", errors="backslashreplace")
        except OSError as error:
            raise JournalError(
                f"{self.path}: cannot write the PATH journal ({error.strerror or error})"
            ) from None

    def entries(
        self,
        registry: str | None = None,
        *,
        current: Callable[[JournalEntry], RegValue | None] | None = None,
        statuses: Sequence[Status] = ("applied",),
    ) -> list[JournalEntry]:
        """The entries of ``statuses`` (applied ones by default), oldest first; of ``registry`` if given.

        ``current`` reads an entry's value as it is now; with it (and ``registry``), pending
        entries are seen as :meth:`settle` would settle them, without writing anything: one
        proven written counts as applied, one not written is left out.
        """
        found = self._read()
        if current is not None and registry is not None:
            found, _settled = settle_entries(found, registry, current)
        return [e for e in found if (registry is None or e.registry == registry) and e.status in statuses]

    def settle(
        self,
        registry: str,
        current: Callable[[JournalEntry], RegValue | None],
        *,
        wait_s: float = WAIT_S,
    ) -> list[Settlement]:
        """Settle for good the pending entries of ``registry`` that a killed change left.

        Holds the journal's lock, which every change holds from its pending entry to its last
        word, so a pending entry seen here has no living maker. ``current`` reads an entry's
        value now. With ``wait_s`` 0 it settles nothing while another process holds the lock
        (a reader that must not wait, such as ``path show``). Returns what was settled.

        Raises:
            StateBusy: Another process held the lock for ``wait_s`` seconds (not with 0).
            JournalError: The journal cannot be read or written.
        """
        if not self.path.exists():
            return []  # nothing recorded: nothing to settle, and no lock file made for nothing
        try:
            with self.locked(wait_s=wait_s):
                found = self._read()
                if not any(e.status == "pending" and e.registry == registry for e in found):
                    return []
                kept, settled = settle_entries(found, registry, current, stamp=_now())
                self._write(kept)
                return settled
        except StateBusy:
            if wait_s > 0:
                raise
            return []

    @contextlib.contextmanager
    def locked(self, *, wait_s: float = WAIT_S) -> Iterator[None]:
        """Hold the journal's lock: this home's one lock of PATH changes (re-entrant).

        Taking it also removes the journal's temporary files that killed writers left
        (:func:`remove_stale_temporaries`): every writer holds this lock while its file exists.

        Raises:
            StateBusy: Another process held it for ``wait_s`` seconds; nothing was changed.
        """
        with locked(self.path, wait_s=wait_s):
            remove_stale_temporaries(self.path)
            yield

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


@dataclass(frozen=True)
class Settlement:
    """How one pending entry was settled: ``written``, ``not_written`` (dropped) or ``unproven``."""

    entry: JournalEntry
    outcome: Outcome


def _same_value_slot(a: JournalEntry, b: JournalEntry) -> bool:
    # Registry key paths and value names compare without case, as Windows compares them.
    return a.key.casefold() == b.key.casefold() and a.name.casefold() == b.name.casefold()


def settle_entries(
    entries: Sequence[JournalEntry],
    registry: str,
    current: Callable[[JournalEntry], RegValue | None],
    *,
    stamp: str | None = None,
) -> tuple[list[JournalEntry], list[Settlement]]:
    """The journal with the pending entries of ``registry`` settled, and what became of each.

    The value a pending entry is judged by is the one the next recorded change of the same
    value started from (its ``old``: read under the same lock, after the crash), else the value
    now (``current``). That value being the entry's new one means it was written; its old one,
    that it was not (dropped); anything else proves neither (``unproven``). Entries are matched
    by position, never by id, so a hand-edited journal with an id twice settles each once.
    ``stamp`` (a time) is recorded in a settled entry's ``extra``.
    """
    kept: list[JournalEntry] = []
    settled: list[Settlement] = []
    for index, entry in enumerate(entries):
        if entry.status != "pending" or entry.registry != registry:
            kept.append(entry)
            continue
        later = next(
            (e for e in entries[index + 1 :] if e.registry == registry and _same_value_slot(e, entry)), None
        )
        seen = later.old if later is not None else current(entry)
        evidence = "next_change" if later is not None else "value"
        if seen == entry.new and entry.new != entry.old:
            outcome: Outcome = "written"
        elif seen == entry.old:
            outcome = "not_written"
        else:
            outcome = "unproven"
        settled.append(Settlement(entry, outcome))
        if outcome == "not_written":
            continue  # as a refused write's entry is: the change never happened
        extra = {**entry.extra, "settled": {"outcome": outcome, "evidence": evidence, "time": stamp}}
        status: Status = "applied" if outcome == "written" else "unproven"
        kept.append(replace(entry, status=status, extra=extra if stamp is not None else entry.extra))
    return kept, settled


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


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
        time=_now(),
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
    reverted = {e.reverts for e in entries if e.action == "undo" and e.status == "applied"}
    return [
        e for e in reversed(entries) if e.action != "undo" and e.status == "applied" and e.id not in reverted
    ]


def last_undoable(entries: Sequence[JournalEntry]) -> JournalEntry | None:
    """The most recent change that no later undo has reverted (undos themselves are not undone)."""
    return next(iter(undoable(entries)), None)
