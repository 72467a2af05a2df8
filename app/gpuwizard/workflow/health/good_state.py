"""The last good state on disk (``GPUWIZARD_HOME/last-good.json``), and how it is recorded.

A state is recorded when an environment's live test passes (``gpuwizard test``, the wizard's
Test page: :func:`record_good_state`) and when ``verify`` finds everything healthy. The file is
written atomically (a temporary file renamed over the old one), as the environment registry
is; an unreadable file is moved aside as ``.bad`` and counts as none.

The PATH folders it keeps are the ones the PATH journal says the wizard added (``add``
entries that were applied, minus later removals and undos) and that are still on PATH.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path, PureWindowsPath

from gpuwizard.adapters.file_locks import locked
from gpuwizard.adapters.registry import EnvironmentStore, RegistryWriteError, RegValue
from gpuwizard.core.health.env_drift import EnvObservation
from gpuwizard.core.health.snapshot import (
    Snapshot,
    SnapshotEnv,
    SnapshotError,
    SnapshotPathEntry,
    parse_constraints,
    snapshot_from_json,
    snapshot_gpus,
    snapshot_to_json,
    torch_index_for,
    with_environment,
)
from gpuwizard.core.livetest.events import LiveTestResult
from gpuwizard.core.livetest.libraries import CudaWheel
from gpuwizard.core.livetest.verdicts import passed
from gpuwizard.core.machine.readiness import machine_has_nvidia_gpu
from gpuwizard.core.machine.system_report import SystemReport
from gpuwizard.core.pathedit.algebra import entry_key
from gpuwizard.core.pathedit.pathlist import split_segments
from gpuwizard.workflow.pathedit.changes import PathChangeError, history, read_path
from gpuwizard.workflow.state.damaged import DamagedFile, read_state_json, set_aside
from gpuwizard.workflow.state.env_registry import EnvRecord, find_record, load_records
from gpuwizard.workflow.state.files import write_json_atomically
from gpuwizard.workflow.state.home import SNAPSHOT_NAME, wizard_home
from gpuwizard.workflow.state.path_journal import JournalEntry, JournalError, PathJournal


def snapshot_path() -> Path:
    """Where the last good state lives."""
    return wizard_home() / SNAPSHOT_NAME


def load_last_good() -> Snapshot | None:
    """The last good state; None when none was recorded or the file cannot be read.

    An unreadable or damaged file (not JSON, nested too deep, a key twice, of the wrong shape)
    is moved aside (``last-good.json.bad``) with one line saying so, so the next good state can
    be recorded and the evidence is kept (``workflow/state/damaged.py``).
    """
    path = snapshot_path()
    try:
        return snapshot_from_json(read_state_json(path))
    except FileNotFoundError:
        return None
    except (OSError, DamagedFile, SnapshotError) as error:
        set_aside(path, str(error), counts_as="no last good state")  # one it cannot move: said, kept
        return None


def holds_something_to_verify(snapshot: Snapshot | None) -> bool:
    """True when ``snapshot`` records something the wizard set up: an environment or a PATH folder.

    A state with neither, only the driver and the GPUs (what an older version recorded when
    ``verify`` ran on a machine the wizard had not set up), has nothing of the wizard's to
    compare: it must not make the wizard open on Verify, nor serve as a baseline.
    """
    return snapshot is not None and bool(snapshot.environments or snapshot.path_entries)


def something_to_verify(
    records: Sequence[EnvRecord], snapshot: Snapshot | None, path_store: EnvironmentStore | None
) -> bool:
    """True when ``verify`` has something of the wizard's to check on this machine.

    That is an environment the wizard made (``records``), or, where PATH can be checked
    (``path_store``), a folder the wizard added to that registry's PATH: one the last good
    state records, or one the PATH journal says it added and did not take away.

    Args:
        records: The environments verify would check.
        snapshot: The last good state (None: none, or nothing verifiable in it).
        path_store: The registry whose PATH the wizard edits; None where there is none.
    """
    if records:
        return True
    if path_store is None:
        return False
    if snapshot is not None and any(entry.registry == path_store.identity for entry in snapshot.path_entries):
        return True
    return bool(journal_ownership(path_store).owned)


def setup_to_verify(path_store: EnvironmentStore | None) -> bool:
    """True when the wizard set something up on this machine that ``verify`` can check.

    The wizard opens on its Verify page only then; otherwise on its first-run path.
    """
    snapshot = load_last_good()
    usable = snapshot if holds_something_to_verify(snapshot) else None
    return something_to_verify(load_records(), usable, path_store)


def save_last_good(snapshot: Snapshot) -> Path:
    """Write ``snapshot`` as the last good state, atomically; returns the file."""
    path = snapshot_path()
    with locked(path):
        write_json_atomically(path, snapshot_to_json(snapshot))
    return path


def update_last_good(change: Callable[[Snapshot | None], Snapshot]) -> Path:
    """Read the last good state, change it and write it back, holding its lock throughout.

    ``change`` gets the state as it is on disk now (None: none) and returns the one to save. A
    writer that works for minutes (``verify``) calls this at the end rather than saving what it
    read at the start, so a test another wizard recorded meanwhile is not lost
    (docs/architecture.md, "Crashes and races").

    Returns:
        The file written.
    """
    with locked(snapshot_path()):
        return save_last_good(change(load_last_good()))


def now_utc() -> str:
    """The time now, ISO 8601 in UTC (the snapshot's ``recorded``)."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


# --- environments --------------------------------------------------------------------------------


def read_constraints(path: str | None) -> str | None:
    """The text of a constraints file; None when there is none or it cannot be read."""
    if not path:
        return None
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def torch_index_template() -> str:
    """The PyTorch index URL pattern from the compatibility data (``.../whl/{variant}``)."""
    from gpuwizard.workflow.compat.data import load_compat  # noqa: PLC0415 - only when recording

    return load_compat().torch_index_url


def baseline_env(record: EnvRecord, snapshot: Snapshot | None, *, index_template: str) -> SnapshotEnv:
    """What ``verify`` compares an environment with.

    The snapshot's entry, unless there is none or the environment was made again since (its
    registry entry is newer): then the registry's record of how it was made.
    """
    recorded = snapshot.environment(record.name) if snapshot is not None else None
    if recorded is not None and _same_making(recorded, record):
        return recorded
    return SnapshotEnv(
        name=record.name,
        path=record.path,
        python=record.python,
        manager=record.manager,
        framework=record.framework,
        framework_version=record.framework_version,
        framework_build=record.framework_build or None,
        constraints=record.constraints,
        python_version=record.python_version or None,
        index_url=_index_url(record.framework, record.framework_build, index_template),
        created=record.created or None,
    )


def _same_making(recorded: SnapshotEnv, record: EnvRecord) -> bool:
    return recorded.path == record.path and (recorded.created or "") == (record.created or "")


def _index_url(framework: str, build: str | None, template: str) -> str | None:
    return torch_index_for(build, template) if framework == "pytorch" else None


def snapshot_env(
    record: EnvRecord,
    *,
    observed: EnvObservation | None,
    test: LiveTestResult | None,
    previous: SnapshotEnv | None,
    index_template: str,
    fingerprint: str | None = None,
) -> SnapshotEnv:
    """The snapshot entry of an environment found good.

    ``observed``: what verify's env probe found (None when only a live test ran); ``test``:
    the live test's result (None: keep the previous verdict when the build is the same);
    ``previous``: the entry in the last good state. The NVIDIA wheels and the DLL hook's state
    come from the probe, else from the live test's ``libraries`` event, else stay as recorded.
    ``fingerprint``: the environment's fingerprint when the probe gave ``observed``
    (``env_fingerprint.py``), recorded with the probe's answer so ``verify --no-test`` can reuse
    it; a probe without one records none. A live test alone keeps the recorded pair: the
    fingerprint is checked against the files whenever it is used, so an old one reuses nothing.
    """
    base = baseline_env(record, None, index_template=index_template)
    if previous is not None and not _same_making(previous, record):
        previous = None
    gpu_names: tuple[str, ...] = ()
    wheels, hook = _cuda_wheels(observed, test)
    if wheels is None and previous is not None:
        # Not known now (a test recorded by an older probe): the recorded ones still stand.
        wheels, hook = previous.cuda_wheels, previous.dll_hook_active
    if observed is not None:
        build = observed.framework_build or base.framework_build
        built_with_cuda, cuda_build = observed.built_with_cuda, observed.cuda_build
        gpus_visible, python_version = observed.gpus_visible, observed.python_version
        gpu_names = observed.gpu_names
        pins = observed.constraints_pins or ()
    else:
        build = (test.framework_version if test is not None else None) or base.framework_build
        built_with_cuda = test.built_with_cuda if test is not None else None
        cuda_build = test.cuda_build if test is not None else None
        gpus_visible = _gpus_visible(test)
        gpu_names = test.gpu_names if test is not None else ()
        python_version = base.python_version
        pins = parse_constraints(read_constraints(record.constraints) or "")
    same_build = previous is not None and previous.framework_build == build
    if gpus_visible is None and same_build and previous is not None:
        gpus_visible, gpu_names = previous.gpus_visible, previous.gpu_names
    kept = previous if (test is None and same_build) else None
    if observed is not None:
        vouched = fingerprint is not None and observed.probe_facts is not None
        probe_fingerprint, probe = (fingerprint, observed.probe_facts) if vouched else (None, None)
    else:
        probe_fingerprint = previous.probe_fingerprint if previous is not None else None
        probe = previous.probe if previous is not None else None
    return replace(
        base,
        framework_build=build,
        built_with_cuda=built_with_cuda,
        cuda_build=cuda_build or None,
        pins=tuple(pins),
        gpus_visible=gpus_visible,
        gpu_names=tuple(gpu_names),
        python_version=python_version or base.python_version,
        index_url=_index_url(record.framework, build, index_template),
        test_verdict=test.verdict if test is not None else (kept.test_verdict if kept else None),
        samples_per_s=(
            {"gpu": test.samples_per_s_gpu, "cpu": test.samples_per_s_cpu}
            if test is not None
            else (kept.samples_per_s if kept else None)
        ),
        tested=now_utc() if test is not None else (kept.tested if kept else None),
        cuda_wheels=wheels,
        dll_hook_active=hook,
        probe_fingerprint=probe_fingerprint,
        probe=probe,
    )


def _cuda_wheels(
    observed: EnvObservation | None, test: LiveTestResult | None
) -> tuple[tuple[CudaWheel, ...] | None, bool | None]:
    """The NVIDIA wheels and whether the DLL hook was active: from verify's probe, else the live test.

    Unknown (None, None) when neither listed the wheels; when they did, no hook means inactive.
    """
    wheels = observed.cuda_wheels if observed is not None else None
    hook = observed.dll_hook if observed is not None else None
    if wheels is None and test is not None:
        wheels, hook = test.cuda_wheels, test.dll_hook
    if wheels is None:
        return None, None
    return wheels, hook is not None and hook.active


def _gpus_visible(test: LiveTestResult | None) -> int | None:
    # The GPUs the framework saw while the test ran (its `device` events); a cpu_only verdict
    # trained on none: the probe trains on any GPU it sees.
    if test is None:
        return None
    if test.gpus_visible is not None:
        return test.gpus_visible
    return 0 if test.verdict == "cpu_only" else None


def build_snapshot(
    report: SystemReport,
    records: Sequence[EnvRecord],
    env_facts: Mapping[str, EnvObservation],
    tests: Mapping[str, LiveTestResult],
    path_entries: Sequence[SnapshotPathEntry],
    *,
    previous: Snapshot | None = None,
    fingerprints: Mapping[str, str] | None = None,
) -> Snapshot:
    """A last good state of this machine (``report``) with the environments in ``records``.

    ``env_facts`` and ``tests`` are verify's findings per environment name (a missing test
    keeps the previous verdict while the build is the same); ``fingerprints`` the fingerprint
    of each environment whose probe answer may be reused (see :func:`snapshot_env`).
    """
    template = torch_index_template()
    environments = tuple(
        snapshot_env(
            record,
            observed=env_facts.get(record.name),
            test=tests.get(record.name),
            previous=previous.environment(record.name) if previous is not None else None,
            index_template=template,
            fingerprint=(fingerprints or {}).get(record.name),
        )
        for record in records
    )
    return Snapshot(
        recorded=now_utc(),
        driver_version=report.driver.version if report.driver else None,
        driver_cuda_max=report.driver.cuda_max if report.driver else None,
        gpus=snapshot_gpus(report),
        environments=environments,
        path_entries=tuple(path_entries),
    )


def record_good_state(
    report: SystemReport,
    env_name: str,
    test_result: LiveTestResult,
    path_store: EnvironmentStore | None = None,
) -> Snapshot | None:
    """Record the last good state after a live test of a wizard-made environment.

    When the verdict passes on this machine (:func:`gpuwizard.core.livetest.verdicts.passed`), the
    environment is merged into the last good state (others are kept, this one is replaced),
    with the GPUs its framework saw; driver and GPUs are refreshed from ``report``, and the PATH
    folders from the journal (only with ``path_store``; otherwise the recorded ones stay); the
    state is saved and returned. Otherwise, or when the wizard did not make ``env_name``,
    nothing changes and None is returned. Every path that tests (``gpuwizard test``, the Test
    page, ``apply``) records through here, with the same result.

    Args:
        report: This machine, as detected now.
        env_name: The environment that was tested.
        test_result: The live test's result.
        path_store: The registry whose PATH the wizard edits (live on Windows).
    """
    if not passed(
        test_result.verdict,
        machine_has_nvidia_gpu(report),
        gpu_expected=test_result.device_expected is not None,
    ):
        return None
    record = find_record(env_name)
    if record is None:
        return None
    # Read, merge and write under the file's lock: a test recorded by another wizard meanwhile stays.
    with locked(snapshot_path()):
        previous = load_last_good()
        env = snapshot_env(
            record,
            observed=None,
            test=test_result,
            previous=previous.environment(env_name) if previous is not None else None,
            index_template=torch_index_template(),
        )
        base = previous or Snapshot(recorded=now_utc())
        registered = {existing.name for existing in load_records()}
        kept = tuple(existing for existing in base.environments if existing.name in registered)
        snapshot = with_environment(replace(base, environments=kept), env)
        entries = base.path_entries
        if path_store is not None:
            entries = refreshed_path_entries(base.path_entries, path_store)
        snapshot = replace(
            snapshot,
            recorded=now_utc(),
            driver_version=report.driver.version if report.driver else None,
            driver_cuda_max=report.driver.cuda_max if report.driver else None,
            gpus=snapshot_gpus(report),
            path_entries=entries,
        )
        save_last_good(snapshot)
    return snapshot


# --- PATH folders the wizard added ----------------------------------------------------------------


@dataclass(frozen=True)
class PathOwnership:
    """What the PATH journal of one registry says about the folders the wizard added.

    Attributes:
        owned: ``(scope, comparison key) -> folder`` for folders the wizard added and did
            not take away again.
        dropped: ``(scope, comparison key)`` of folders it added and later removed itself
            (``path remove`` or ``undo``).
    """

    owned: Mapping[tuple[str, str], str]
    dropped: frozenset[tuple[str, str]]


def path_ownership(entries: Sequence[JournalEntry]) -> PathOwnership:
    """Replay the journal entries of one registry, oldest first (applied entries only)."""
    owned: dict[tuple[str, str], str] = {}
    dropped: set[tuple[str, str]] = set()
    added: dict[str, list[tuple[tuple[str, str], str]]] = {}
    removed: dict[str, list[tuple[tuple[str, str], str]]] = {}
    for entry in entries:
        if entry.status != "applied":
            continue
        if entry.action == "add":
            # Only folders that were not on PATH before are the wizard's: an add of a folder
            # already present changed nothing for it.
            before, after = _keys(entry.old), _keys(entry.new)
            mine = [(key, folder) for folder in entry.folders if (key := entry_key(folder)) in after - before]
            added[entry.id] = [((entry.scope, key), folder) for key, folder in mine]
            for slot, folder in added[entry.id]:
                owned[slot] = folder
                dropped.discard(slot)
        elif entry.action == "remove":
            gone = [(entry.scope, entry_key(folder)) for folder in entry.folders]
            removed[entry.id] = [(slot, owned.pop(slot)) for slot in gone if slot in owned]
            dropped.update(slot for slot, _ in removed[entry.id])
        elif entry.action == "undo" and entry.reverts:
            for slot, _folder in added.get(entry.reverts, []):
                if owned.pop(slot, None) is not None:
                    dropped.add(slot)
            for slot, folder in removed.get(entry.reverts, []):
                owned[slot] = folder
                dropped.discard(slot)
    return PathOwnership(owned, frozenset(dropped))


def _keys(value: RegValue | None) -> set[str]:
    text = str(value.value) if value is not None else ""
    return {key for key in (entry_key(segment) for segment in split_segments(text)) if key}


def journal_ownership(store: EnvironmentStore) -> PathOwnership:
    """:func:`path_ownership` of ``store``'s journal; nothing owned when it cannot be read.

    The folder the installed wizard runs from is left out (issue 37): the Windows installer puts
    it on PATH with the journal, so that ``gpuwizard`` runs in cmd, and the uninstaller takes it
    away again. It is the installer's, not part of a setup: it must neither make a fresh install
    open on Verify nor be checked, recorded or reported as drift there.
    """
    try:
        ownership = path_ownership(history(store, PathJournal(wizard_home())))
    except JournalError:
        return PathOwnership({}, frozenset())
    program = installed_program_key()
    if program is None:
        return ownership
    return PathOwnership(
        {slot: folder for slot, folder in ownership.owned.items() if slot[1] != program},
        frozenset(slot for slot in ownership.dropped if slot[1] != program),
    )


def installed_program_key() -> str | None:
    """The comparison key of the folder of the running frozen wizard (PyInstaller); None when not frozen.

    A frozen wizard is the Windows build (installer/gpuwizard.spec): its path is a Windows one.
    """
    if not getattr(sys, "frozen", False):
        return None
    return entry_key(str(PureWindowsPath(sys.executable).parent))


def forget_undone_path_entries(store: EnvironmentStore) -> None:
    """Take out of the last good state the PATH folders of ``store`` that the wizard itself took away.

    ``path undo --all`` (what the uninstaller runs) puts PATH back as it was before the wizard:
    the folders it undid are then no part of the setup, and a later ``verify`` (after a
    reinstall, say) must not report them as changed. Nothing is written when no state holds one.
    """
    if not snapshot_path().is_file():
        return
    dropped = journal_ownership(store).dropped
    with locked(snapshot_path()):
        current = load_last_good()
        if current is None:
            return
        kept = tuple(
            entry
            for entry in current.path_entries
            if entry.registry != store.identity or (entry.scope, entry_key(entry.folder)) not in dropped
        )
        if kept != current.path_entries:
            save_last_good(replace(current, path_entries=kept))


def path_keys(store: EnvironmentStore, scope: str) -> set[str]:
    """Comparison keys of the entries on the PATH of ``scope`` now (empty when it has none)."""
    try:
        return _keys(read_path(store, scope))
    except (PathChangeError, RegistryWriteError):
        return set()


def refreshed_path_entries(
    recorded: Sequence[SnapshotPathEntry], store: EnvironmentStore
) -> tuple[SnapshotPathEntry, ...]:
    """The recorded entries of other registries, plus ``store``'s wizard-added folders still on PATH."""
    ownership = journal_ownership(store)
    present: dict[str, set[str]] = {}
    current = []
    for (scope, key), folder in ownership.owned.items():
        keys = present.setdefault(scope, path_keys(store, scope))
        if key in keys:
            current.append(SnapshotPathEntry(store.identity, scope, folder))
    others = [entry for entry in recorded if entry.registry != store.identity]
    return (*others, *current)
