r"""PATH changes, planned and applied the way a careful administrator would (issue 6).

Plan: read the value and its type, compute the new value with the pure algebra
(:mod:`gpuwizard.core.pathedit.algebra`), and show the diff. Apply: record the change in the
journal, write it only if the value is still the one planned from (else re-read and re-plan),
read it back, mark it applied, and broadcast ``WM_SETTINGCHANGE`` so that Explorer, and every
program started from it afterwards, sees it. The type is kept: ``REG_EXPAND_SZ`` stays, and
``%VARS%`` are never expanded on the way (a tool that rewrote PATH as ``REG_SZ`` "froze
references like %SystemRoot%": laurentiu021/SystemManager, CHANGELOG 1.33.3). Undo writes the
old value and type back exactly, and only if nobody changed the value since.

Two wizards may change PATH at the same moment (issue 19). A change holds :func:`change_lock`
(the home's journal lock, then the store's own lock) from reading the value it is planned from
until the journal says it was applied, so the plan, the pending entry, the write and the
"applied" mark of one process never interleave with another's.

Any of them may be killed at any instant (issue 33). Taking the lock first settles what a killed
change left (:func:`recover`): its pending journal entry, by the value, and the temporary
copies of the journal and of a snapshot file. Undo takes away only what the wizard can prove it
put there: a change the value cannot prove written, or whose journal entry says it added more
than the folders it was asked to add (:mod:`gpuwizard.core.pathedit.provenance`), is kept and
said, never reverted.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Final

from gpuwizard.adapters.file_locks import WAIT_S
from gpuwizard.adapters.registry import (
    SYSTEM_ENVIRONMENT_KEY,
    USER_ENVIRONMENT_KEY,
    EnvironmentStore,
    RegistryWriteError,
    RegValue,
    ValueChanged,
)
from gpuwizard.adapters.wizard_program import wizard_command
from gpuwizard.core.pathedit.algebra import (
    DiffLine,
    OtherCuda,
    PathEdit,
    UnbalancedQuote,
    add_entries,
    check_joined_length,
    diff_entries,
    has_variable_references,
    joined_length,
    remove_entries,
)
from gpuwizard.core.pathedit.provenance import unowned_removals
from gpuwizard.core.wizard_command import registry_option
from gpuwizard.workflow.state.path_journal import (
    JournalEntry,
    PathJournal,
    Settlement,
    Status,
    new_entry,
    undoable,
)

#: The registry keys of the two scopes (Microsoft Learn, "Environment Variables").
SCOPE_KEYS: Final = {"user": USER_ENVIRONMENT_KEY, "system": SYSTEM_ENVIRONMENT_KEY}
PATH_NAME: Final = "Path"
#: A new user PATH is REG_EXPAND_SZ, as Windows itself creates it.
NEW_VALUE_TYPE: Final = "REG_EXPAND_SZ"
#: How often a change is planned again when the value changed between reading and writing.
REPLAN_ATTEMPTS: Final = 3


class PathChangeError(Exception):
    """A change that cannot be made as asked; nothing was changed. One line, exit code 2."""


class UndoConflict(PathChangeError):
    """The value changed after the change to undo; undoing would lose that later change."""


@dataclass(frozen=True)
class PathChange:
    """A planned change of one PATH value.

    Attributes:
        scope: ``user`` or ``system``.
        key: The registry key.
        action: ``add``, ``remove``, ``repair`` or ``undo``.
        folders: The folders the command named.
        old: The value now (None: there is none).
        new: The value after the change (None: deleted).
        edit: What the algebra did, for add and remove.
        reverts: For an undo, the journal entry it reverts.
        notes: Things to tell the user about the plan (English; the catalog has the codes).
    """

    scope: str
    key: str
    action: str
    folders: tuple[str, ...]
    old: RegValue | None
    new: RegValue | None
    edit: PathEdit | None = None
    reverts: JournalEntry | None = None
    notes: tuple[str, ...] = field(default=())

    @property
    def changed(self) -> bool:
        """Whether applying it would change anything."""
        return self.old != self.new

    def diff(self) -> list[DiffLine]:
        """The entries before and after, lined up."""
        before = self.old.value if self.old else ""
        after = self.new.value if self.new else ""
        return diff_entries(str(before), str(after))


def _scope_key(scope: str) -> str:
    try:
        return SCOPE_KEYS[scope]
    except KeyError:
        raise PathChangeError(f"unknown scope {scope!r} (user or system)") from None


@dataclass(frozen=True)
class Recovery:
    """What a killed change had left and taking the lock settled (see :func:`recover`)."""

    settled: tuple[Settlement, ...] = ()

    def notes(self) -> list[str]:
        """One English line per settled entry, for the person."""
        return [_settlement_note(s) for s in self.settled]


def _settlement_note(settlement: Settlement) -> str:
    entry = settlement.entry
    what = (
        f"an interrupted {entry.action} of {entry.time} ({_folders_text(entry)}) on {entry.key}\\{entry.name}"
    )
    if settlement.outcome == "written":
        return f"{what} had been written: it is recorded as made"
    if settlement.outcome == "not_written":
        return f"{what} was never written: it is forgotten"
    remove = wizard_command().line("path remove" + registry_option(entry.registry))
    return (
        f"{what} cannot be proven written, since the value has changed since: undo leaves it "
        f"alone; take its folders off with '{remove}' if they are the wizard's"
    )


def _folders_text(entry: JournalEntry) -> str:
    if entry.reverts is not None:
        return f"reverting {entry.reverts[:8]}"
    return ", ".join(entry.folders) or "no folders"


def recover(store: EnvironmentStore, journal: PathJournal, *, wait_s: float = WAIT_S) -> Recovery:
    """Settle for good what killed changes of this home left on ``store``.

    Their pending journal entries are settled by the value (:meth:`PathJournal.settle`), and the
    temporary copies of the journal they left are removed (taking the journal's lock does it;
    the store's lock, taken by :func:`change_lock`, does the same for a snapshot file's). With
    ``wait_s`` 0 nothing waits: while another process holds the journal, nothing is settled.

    Raises:
        StateBusy: Another process of this home held the journal for ``wait_s`` seconds.
        JournalError: The journal cannot be read or written.
        RegistryWriteError: The snapshot file cannot be read.
    """
    settled = journal.settle(store.identity, lambda e: store.read_value(e.key, e.name), wait_s=wait_s)
    return Recovery(tuple(settled))


@contextmanager
def change_lock(store: EnvironmentStore, journal: PathJournal) -> Iterator[Recovery]:
    """Hold what one PATH change needs to itself: the home's journal lock, then the store's lock.

    Held from reading the value a change is planned from until the journal's last update;
    re-entrant, and always taken in this order, so two holders never wait for each other. What
    killed changes left is settled first (:func:`recover`); the context gives what was.

    Raises:
        StateBusy: Another process of this home held the journal for a minute.
        RegistryWriteError: Another process held the snapshot file for a minute.
        JournalError: The journal cannot be read or written.
    """
    with journal.locked(), store.exclusive():
        yield recover(store, journal)


#: What a snapshot's JSON value is, by its Python type, for saying why a PATH is not text.
_JSON_KINDS: Final = {
    type(None): "null",
    bool: "true or false",
    int: "a number",
    float: "a number",
    list: "a list",
    dict: "an object",
}


def read_path(store: EnvironmentStore, scope: str) -> RegValue | None:
    """The PATH value of a scope, or None when there is none.

    Raises:
        PathChangeError: The value is not a string (a type other than REG_SZ or REG_EXPAND_SZ,
            or a snapshot holding null, a list or a number); it is never written.
    """
    value = store.read_value(_scope_key(scope), PATH_NAME)
    if value is not None and value.type not in ("REG_SZ", "REG_EXPAND_SZ"):
        raise PathChangeError(
            f"{_scope_key(scope)}\\{PATH_NAME} is {value.type}, not a string; it is left alone"
        )
    if value is not None and not isinstance(value.value, str):
        kind = _JSON_KINDS.get(type(value.value), f"a {type(value.value).__name__}")
        raise PathChangeError(
            f"{_scope_key(scope)}\\{PATH_NAME} is {value.type} holding {kind}, not text; it is left alone"
        )
    return value


def _string_of(value: RegValue | None) -> str:
    return str(value.value) if value is not None else ""


def plan_add(
    store: EnvironmentStore,
    scope: str,
    folders: Sequence[str],
    *,
    other_cuda: OtherCuda = "keep",
    env: Mapping[str, str] | None = None,
) -> PathChange:
    """Plan adding ``folders`` to the scope's PATH (see :func:`add_entries`).

    Raises:
        PathEditError: A folder is not a usable entry, or the value would be too long.
        PathChangeError: The scope is unknown or its PATH is not a string.
    """
    old = read_path(store, scope)
    edit = _edited(scope, lambda: add_entries(_string_of(old), folders, other_cuda=other_cuda, env=env))
    new = RegValue(old.type if old else NEW_VALUE_TYPE, edit.value) if edit.changed else old
    if edit.changed:
        # Windows gives programs the system PATH and the user PATH joined as one variable.
        other = _string_of(read_path(store, "user" if scope == "system" else "system"))
        pair = (edit.value, other) if scope == "system" else (other, edit.value)
        before = (edit.old_value, other) if scope == "system" else (other, edit.old_value)
        check_joined_length(*pair, before=joined_length(*before))
    return PathChange(scope, _scope_key(scope), "add", tuple(folders), old, new, edit)


def _edited(scope: str, edit: Callable[[], PathEdit]) -> PathEdit:
    try:
        return edit()
    except UnbalancedQuote as error:
        raise PathChangeError(f"the {scope} {error}") from None


def plan_remove(
    store: EnvironmentStore, scope: str, folders: Sequence[str], *, env: Mapping[str, str] | None = None
) -> PathChange:
    """Plan removing ``folders`` (every spelling, every duplicate) from the scope's PATH."""
    old = read_path(store, scope)
    edit = _edited(scope, lambda: remove_entries(_string_of(old), folders, env=env))
    new = RegValue(old.type, edit.value) if old is not None and edit.changed else old
    return PathChange(scope, _scope_key(scope), "remove", tuple(folders), old, new, edit)


def plan_repair(store: EnvironmentStore, scope: str) -> PathChange:
    r"""Plan turning a ``REG_SZ`` PATH that holds ``%VARS%`` into ``REG_EXPAND_SZ``, value unchanged.

    A REG_SZ value is never expanded, so its ``%SystemRoot%\system32`` reaches programs as
    that literal text and the folder is not searched (Microsoft Learn, "Registry value types").
    """
    old = read_path(store, scope)
    if old is None or old.type != "REG_SZ" or not has_variable_references(_string_of(old)):
        return PathChange(scope, _scope_key(scope), "repair", (), old, old)
    return PathChange(scope, _scope_key(scope), "repair", (), old, RegValue("REG_EXPAND_SZ", old.value))


@dataclass(frozen=True)
class KeptChange:
    """A recorded change that undo leaves alone, and why (one English line)."""

    entry: JournalEntry
    reason: str


@dataclass(frozen=True)
class UndoPlan:
    """The undos of :func:`plan_undo_all`, newest first, and the recorded changes it keeps."""

    changes: tuple[PathChange, ...]
    kept: tuple[KeptChange, ...] = ()

    def notes(self) -> list[str]:
        """What was kept, one English line each."""
        return [kept.reason for kept in self.kept]


def plan_undo(store: EnvironmentStore, journal: PathJournal) -> PathChange:
    """Plan reverting the most recent change recorded for this registry, whatever its scope.

    Changes whose undo would take away what the wizard cannot prove it put there are skipped
    (said in the change's ``notes``), as :func:`plan_undo_all` keeps them.

    Raises:
        PathChangeError: Nothing to undo.
        UndoConflict: The value is not the one the change left; undoing would lose what came after.
    """
    plan = _plan_undos(store, journal, limit=1)
    if not plan.changes:
        kept = f" ({'; '.join(plan.notes())})" if plan.kept else ""
        raise PathChangeError(f"nothing to undo: the journal holds no PATH change of this registry{kept}")
    change = plan.changes[0]
    return replace(change, notes=(*change.notes, *plan.notes()))


def plan_undo_all(store: EnvironmentStore, journal: PathJournal) -> UndoPlan:
    """Plan reverting every change recorded for this registry that is not undone yet, newest first.

    The same undos, in the same order, as repeating :func:`plan_undo` until nothing is left (the
    uninstaller's "undo the wizard's PATH changes"), but checked as a whole before anything is
    written: each undo must find the value that the undos before it leave. No changes: nothing
    to undo. A change the wizard cannot prove it made (:class:`KeptChange`) is kept, not undone.

    Raises:
        UndoConflict: A value changed after the change that set it; undoing would lose that later
            change, so none of the undos may be made.
    """
    return _plan_undos(store, journal)


def _value_text(value: RegValue | None) -> str | None:
    return None if value is None else str(value.value)


def _slot(entry: JournalEntry) -> tuple[str, str]:
    # Registry key paths and value names compare without case, as Windows compares them.
    return entry.key.casefold(), entry.name.casefold()


def _plan_undos(store: EnvironmentStore, journal: PathJournal, *, limit: int | None = None) -> UndoPlan:
    ordered = journal.entries(
        store.identity, current=lambda e: store.read_value(e.key, e.name), statuses=("applied", "unproven")
    )
    position = {id(entry): index for index, entry in enumerate(ordered)}
    kept = [
        KeptChange(entry, _settlement_note(Settlement(entry, "unproven")))
        for entry in ordered
        if entry.status == "unproven"
    ]
    planned: list[PathChange] = []
    values: dict[tuple[str, str], RegValue | None] = {}
    later: dict[tuple[str, str], list[JournalEntry]] = {}  # this registry's newer changes, per value
    for target in undoable([entry for entry in ordered if entry.status == "applied"]):
        where = _slot(target)
        now = values[where] if where in values else store.read_value(target.key, target.name)
        if now != target.new:
            # Kept changes of this value made after the target stand between it and the value now.
            blocking = [
                k.entry
                for k in kept
                if _slot(k.entry) == where and position[id(k.entry)] > position[id(target)]
            ]
            raise UndoConflict(_conflict_text(target, now, later.get(where, []), blocking))
        later.setdefault(where, []).append(target)
        theirs = unowned_removals(
            target.action, target.folders, _value_text(target.old), _value_text(target.new)
        )
        if theirs:
            # Hand-edited or planted: what it says it added is more than it was asked to add.
            kept.append(KeptChange(target, _unowned_note(target, theirs)))
            continue
        planned.append(
            PathChange(target.scope, target.key, "undo", target.folders, now, target.old, reverts=target)
        )
        values[where] = target.old
        if limit is not None and len(planned) >= limit:
            break
    return UndoPlan(tuple(planned), tuple(kept))


def _unowned_note(entry: JournalEntry, theirs: Sequence[str]) -> str:
    return (
        f"kept the {entry.action} of {entry.time} on {entry.key}\\{entry.name}: undoing it would take away "
        f"{', '.join(theirs)}, which it was not asked to add, so the wizard cannot prove it put "
        "that there (its journal entry was edited or planted)"
    )


def _conflict_text(
    target: JournalEntry,
    now: RegValue | None,
    newer: Sequence[JournalEntry],
    blocking: Sequence[JournalEntry],
) -> str:
    """Why undoing ``target`` would lose a later change, and what to do, in one line.

    ``newer`` are this home's changes of the same value made after ``target`` (undone first in
    the plan); ``blocking`` the later ones it keeps (unproven, or not provably its own). A value
    changed between two of this home's changes was changed by a writer this journal does not
    know: another program, or a wizard of another GPUWIZARD_HOME on the same registry (each home
    keeps its own journal), so neither home can undo all its changes until the other's are undone.
    """
    where = f"{target.key}\\{target.name}"
    wizard, registry = wizard_command(), registry_option(target.registry)
    remove, undo = wizard.line("path remove" + registry), wizard.line("path undo" + registry)
    if blocking:
        return (
            f"{where} changed after the {target.action} of {target.time}: the wizard keeps the later "
            f"{blocking[0].action} of {blocking[0].time}, which it cannot prove it made, and "
            "undoing the earlier change would take that away too, so nothing was changed; "
            f"take the wizard's folders off with '{remove}' ('{wizard.line('path history' + registry)}' lists them)"
        )
    found = [
        f"{d.op} {d.entry}" for d in diff_entries(_string_of(target.new), _string_of(now)) if d.op != " "
    ]
    what = f" ({', '.join(found)})" if found else (" (its type)" if now is not None else " (it was deleted)")
    between = f" and before its {newer[-1].action} of {newer[-1].time}" if newer else ""
    first = (
        f"; '{undo}' still reverts this home's {_count(len(newer), 'later change')} one at a time"
        if newer
        else ""
    )
    return (
        f"{where} changed after this home's {target.action} of {target.time}{between} by something its "
        f"PATH journal does not record{what}: another program, or a gpuwizard of another GPUWIZARD_HOME "
        "on the same registry; undoing it would lose that later change, so nothing was changed. "
        f"Undo that change first where it was made (for another home: '{undo}' with its "
        f"GPUWIZARD_HOME), or take this home's folders off with '{remove}'{first}"
    )


@dataclass(frozen=True)
class AppliedChange:
    """What :func:`apply_change` did."""

    change: PathChange
    entry: JournalEntry | None
    read_back: RegValue | None
    broadcast: bool


def apply_change(
    store: EnvironmentStore,
    journal: PathJournal,
    change: PathChange,
    *,
    replan: Callable[[], PathChange] | None = None,
    write: Callable[[EnvironmentStore, PathChange], RegValue | None] | None = None,
) -> AppliedChange:
    """Journal, write, read back and broadcast a planned change.

    A change that changes nothing writes and records nothing. When the value changed since it
    was read, the change is planned again from the new value (``replan``) and retried.
    ``write`` replaces the plain write (the elevated helper for the system scope). It holds
    :func:`change_lock` throughout; a caller that plans the change holds it from before planning.

    Raises:
        ValueChanged: The value kept changing (or there is no ``replan``); nothing was written.
        RegistryWriteError: The write failed; nothing was written and nothing recorded.
        JournalError: The journal cannot be written; nothing was written.
        StateBusy: Another process kept the journal locked; nothing was written.
    """
    with change_lock(store, journal):
        made = _apply_locked(store, journal, change, replan, write or _plain_write)
    if made.entry is None:
        return made
    # Telling running programs may wait on hung windows; nobody needs the lock for that.
    return AppliedChange(
        made.change, made.entry, made.read_back, broadcast=store.broadcast_environment_change()
    )


def _apply_locked(
    store: EnvironmentStore,
    journal: PathJournal,
    change: PathChange,
    replan: Callable[[], PathChange] | None,
    writer: Callable[[EnvironmentStore, PathChange], RegValue | None],
) -> AppliedChange:
    for attempt in range(REPLAN_ATTEMPTS):
        if not change.changed:
            return AppliedChange(change, None, change.old, broadcast=False)
        entry = new_entry(
            registry=store.identity,
            scope=change.scope,
            key=change.key,
            name=PATH_NAME if change.reverts is None else change.reverts.name,
            action=change.action,
            folders=change.folders,
            old=change.old,
            new=change.new,
            reverts=change.reverts.id if change.reverts else None,
        )
        journal.record(entry)
        try:
            read_back = writer(store, change)
        except ValueChanged:
            journal.drop(entry.id)
            if replan is None or attempt == REPLAN_ATTEMPTS - 1:
                raise
            change = replan()
            continue
        except BaseException:
            journal.drop(entry.id)
            raise
        journal.mark_applied(entry.id)
        return AppliedChange(change, entry, read_back, broadcast=False)
    raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises


def _plain_write(store: EnvironmentStore, change: PathChange) -> RegValue | None:
    name = change.reverts.name if change.reverts else PATH_NAME
    read_back = store.replace_value(change.key, name, change.old, change.new)
    if read_back != change.new:
        # Written but not what was asked for: put the old value back rather than leave a surprise.
        store.replace_value(change.key, name, read_back, change.old)
        raise RegistryWriteError(
            f"{change.key}\\{name} read back differently from what was written; put back"
        )
    return read_back


def history(
    store: EnvironmentStore, journal: PathJournal, *, with_unproven: bool = False
) -> list[JournalEntry]:
    """The changes recorded for this registry, oldest first (pending ones settled).

    With ``with_unproven``, also those a crash left that the value could not settle.
    """
    statuses: tuple[Status, ...] = ("applied", "unproven") if with_unproven else ("applied",)
    return journal.entries(
        store.identity, current=lambda e: store.read_value(e.key, e.name), statuses=statuses
    )


def _count(n: int, noun: str) -> str:
    """``n`` with ``noun`` in English's singular or plural ("1 later change", "2 later changes")."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
