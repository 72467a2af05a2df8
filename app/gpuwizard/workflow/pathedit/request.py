r"""What the wizard's PATH page asks for, and the steps it runs, without Qt (issue 6, point 5).

A :class:`PathRequest` names the folders a plan adds to PATH and the DLLs that must then be
found. The page reads the two PATH values with their problems and the planned diff
(:func:`path_overview`), applies the change or undoes the last one (:func:`apply_request`,
:func:`undo_last`), and checks from a freshly started process which DLLs now load
(:func:`check_dlls`). These are the steps ``gpuwizard path`` runs (``path_cli``), each turned
into a value the page can show: a failure comes back as one readable line, never an exception,
and nothing was changed when there is one.

>>> from gpuwizard.core.compat.plan import Plan
>>> plan = Plan("tensorflow", "2.10.1", "3.10", False, "11.2", "8.1", None, ("tensorflow==2.10.1",), None,
...             path_entries=("C:\\CUDA\\v11.2\\bin",), dlls_expected=("cudart64_110.dll",))
>>> path_request_from_plan(plan)
PathRequest(folders=('C:\\CUDA\\v11.2\\bin',), dlls=('cudart64_110.dll',), scope='user', other_cuda='keep')
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import Final

from gpuwizard.adapters.file_locks import StateBusy
from gpuwizard.adapters.registry import EnvironmentStore, RegistryWriteError, ValueChanged
from gpuwizard.adapters.runner import Runner
from gpuwizard.core.compat.plan import Plan
from gpuwizard.core.findings.model import Finding, make_finding
from gpuwizard.core.pathedit.algebra import OtherCuda, PathEditError, has_variable_references
from gpuwizard.core.pathedit.review import ScopeReview, ScopeValue, review_paths, system_cuda_shadowing
from gpuwizard.workflow.pathedit.changes import (
    AppliedChange,
    PathChange,
    PathChangeError,
    apply_change,
    change_lock,
    history,
    plan_add,
    plan_undo,
    read_path,
)
from gpuwizard.workflow.pathedit.dll_check import DllResolution, resolve_dlls
from gpuwizard.workflow.pathedit.machine import (
    elevated_write,
    missing_folder_keys,
    needs_elevation,
    programs_to_restart,
)
from gpuwizard.workflow.state.path_journal import JournalError, PathJournal, last_undoable

#: The problem name of an entry holding ``%VARIABLES%`` in a ``REG_SZ`` PATH, which Windows
#: never expands (Microsoft Learn, "Registry value types"); the others are those of
#: :func:`entry_problems`.
REG_SZ_WITH_VARS: Final = "reg_sz_with_vars"

#: The errors a PATH step can end with; each means nothing was changed.
PATH_ERRORS: Final = (
    PathEditError,
    PathChangeError,
    ValueChanged,
    RegistryWriteError,
    JournalError,
    StateBusy,
)


@dataclass(frozen=True)
class PathRequest:
    """Folders to add to PATH and the DLLs a program must then find.

    Attributes:
        folders: The folders, in the order they go on PATH.
        dlls: The DLLs the framework loads by name (TensorFlow 2.10 and older on Windows).
        scope: ``user`` or ``system``.
        other_cuda: Another CUDA version's entries: ``keep``, move to the ``end``, ``remove``.
    """

    folders: tuple[str, ...]
    dlls: tuple[str, ...] = ()
    scope: str = "user"
    other_cuda: OtherCuda = "keep"


def path_request_from_plan(plan: Plan) -> PathRequest | None:
    """The request of a recommendation plan, or None when the plan adds nothing to PATH."""
    if not plan.path_entries:
        return None
    return PathRequest(folders=tuple(plan.path_entries), dlls=tuple(plan.dlls_expected))


def comparison_env(store: EnvironmentStore) -> dict[str, str] | None:
    """The variables that expand ``%VARS%`` for comparing entries (None: none).

    This machine's, for the live registry only; a snapshot's variables belong to another machine.
    """
    return dict(os.environ) if store.identity == "live" else None


def error_text(error: Exception) -> str:
    """One line for a failed PATH step, saying that nothing was changed."""
    if isinstance(error, ValueChanged):
        return "PATH kept changing while it was being written; nothing was changed"
    text = str(error)
    return text if "nothing was changed" in text.casefold() else f"{text}; nothing was changed"


@dataclass(frozen=True)
class PathOverview:
    """The PATH values as they are, and the planned change of a request.

    Attributes:
        registry: Which registry (``live`` or ``file:<path>``).
        reviews: The system and the user PATH, entry by entry, with problems marked.
        findings: What is wrong with them.
        change: The planned change (None when it cannot be planned, see ``plan_error``).
        change_findings: What to know about the change (the system PATH's CUDA comes first...).
        needs_admin: Applying the change asks for administrator rights (UAC).
        undo_available: The journal holds a change of this registry that undo would revert.
        read_error: The PATH could not be read at all (then everything else is empty).
        plan_error: The change cannot be made (a folder that is no folder, a PATH too long).
    """

    registry: str
    reviews: tuple[ScopeReview, ...] = ()
    findings: tuple[Finding, ...] = ()
    change: PathChange | None = None
    change_findings: tuple[Finding, ...] = ()
    needs_admin: bool = False
    undo_available: bool = False
    read_error: str | None = None
    plan_error: str | None = None


def _mark_reg_sz_variables(review: ScopeReview) -> ScopeReview:
    if review.type != "REG_SZ":
        return review
    entries = tuple(
        replace(entry, problems=(*entry.problems, REG_SZ_WITH_VARS))
        if has_variable_references(entry.segment)
        else entry
        for entry in review.entries
    )
    return replace(review, entries=entries)


def review_store(store: EnvironmentStore) -> tuple[list[ScopeValue], list[ScopeReview], list[Finding]]:
    """Read both PATH values and mark their problems (both scopes: the user's follow the system's).

    It only reads, but may be slow: on the live registry it looks for every folder (a dead
    network share can take a while to answer).

    Raises:
        PathChangeError: A PATH value is not a string.
        RegistryWriteError: The snapshot file cannot be read.
    """
    env = comparison_env(store)
    values = []
    for scope in ("system", "user"):
        value = read_path(store, scope)
        values.append(ScopeValue(scope, value.type if value else None, str(value.value) if value else ""))
    missing = missing_folder_keys([v.value for v in values], env) if env is not None else set()
    reviews, findings = review_paths(values, missing=missing, env=env)
    return values, [_mark_reg_sz_variables(r) for r in reviews], findings


def change_findings_of(store: EnvironmentStore, change: PathChange) -> list[Finding]:
    """What to know about a planned add: the system PATH's other CUDA comes first for the user's."""
    if change.action != "add" or change.scope != "user":
        return []
    system = read_path(store, "system")
    shadow = system_cuda_shadowing(str(system.value) if system else "", change.folders, comparison_env(store))
    return [shadow] if shadow is not None else []


def path_overview(store: EnvironmentStore, request: PathRequest, journal: PathJournal) -> PathOverview:
    """Read both PATH values, mark their problems and plan ``request`` (run it on a worker)."""
    try:
        _values, reviews, findings = review_store(store)
    except PATH_ERRORS as error:
        return PathOverview(store.identity, read_error=str(error))
    try:
        undo_available = last_undoable(history(store, journal)) is not None
    except JournalError:
        undo_available = False
    overview = PathOverview(store.identity, tuple(reviews), tuple(findings), undo_available=undo_available)
    try:
        change = plan_add(
            store, request.scope, request.folders, other_cuda=request.other_cuda, env=comparison_env(store)
        )
        change_findings = change_findings_of(store, change)
    except PATH_ERRORS as error:
        return replace(overview, plan_error=str(error))
    return replace(
        overview,
        change=change,
        change_findings=tuple(change_findings),
        needs_admin=change.changed and needs_elevation(store, change),
    )


@dataclass(frozen=True)
class PathOutcome:
    """What applying or undoing did.

    Attributes:
        applied: The change as made (None on failure); ``applied.entry`` is None when there
            was nothing to change.
        error: Why nothing was changed.
        restart: Which running programs keep the old PATH (the live registry only).
    """

    applied: AppliedChange | None = None
    error: str | None = None
    restart: Finding | None = None


def restart_finding(store: EnvironmentStore, runner: Runner) -> Finding | None:
    """The running programs that keep the PATH they started with.

    None for a snapshot file, which no running program reads.
    """
    if store.identity != "live":
        return None
    running = programs_to_restart(runner)
    return make_finding("PATH_RESTART_PROGRAMS", programs=running or ["none found"])


def apply_request(
    store: EnvironmentStore,
    journal: PathJournal,
    change: PathChange,
    request: PathRequest,
    runner: Runner,
) -> PathOutcome:
    """Apply the planned ``change`` of ``request`` (planned again if PATH changed meanwhile).

    The change was planned for the page to show; :func:`apply_change` holds the change lock
    and, under it, still writes only over the value the change was planned from, planning again
    when another change came first.
    """
    env = comparison_env(store)

    def replan() -> PathChange:
        return plan_add(store, request.scope, request.folders, other_cuda=request.other_cuda, env=env)

    try:
        writer = elevated_write if needs_elevation(store, change) else None
        applied = apply_change(store, journal, change, replan=replan, write=writer)
    except PATH_ERRORS as error:
        return PathOutcome(error=error_text(error))
    return PathOutcome(applied, restart=restart_finding(store, runner) if applied.entry else None)


def undo_last(store: EnvironmentStore, journal: PathJournal, runner: Runner) -> PathOutcome:
    """Revert the most recent recorded change of this registry, value and type exactly."""
    try:
        with change_lock(store, journal):  # from reading the journal and the value to the last entry
            change = plan_undo(store, journal)
            writer = elevated_write if needs_elevation(store, change) else None
            applied = apply_change(store, journal, change, write=writer)
    except PATH_ERRORS as error:
        return PathOutcome(error=error_text(error))
    return PathOutcome(applied, restart=restart_finding(store, runner) if applied.entry else None)


def check_dlls(store: EnvironmentStore, dlls: tuple[str, ...], runner: Runner) -> DllResolution:
    """Which of ``dlls`` a program started now loads, and from where (see :func:`resolve_dlls`)."""
    try:
        return resolve_dlls(store, dlls, runner)
    except PATH_ERRORS as error:
        return DllResolution(missing=dict.fromkeys(dlls, str(error)))
