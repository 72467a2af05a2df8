"""PATH changes through the workflow: journal before write, compare-and-write, re-plan, undo."""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpuwizard.adapters.registry import (
    USER_ENVIRONMENT_KEY,
    RegistryWriteError,
    RegValue,
    SnapshotFileEnvironment,
    ValueChanged,
)
from gpuwizard.workflow.pathedit.changes import (
    PathChangeError,
    UndoConflict,
    apply_change,
    history,
    plan_add,
    plan_remove,
    plan_undo,
)
from gpuwizard.workflow.pathedit.dll_check import fresh_process_path
from gpuwizard.workflow.pathedit.machine import serve_elevated_request
from gpuwizard.workflow.state.path_journal import JournalError, PathJournal
from harness.hypothesis_examples import examples

USER_PATH = r"%USERPROFILE%\bin;C:\tools"


@pytest.fixture
def store(tmp_path: Path) -> SnapshotFileEnvironment:
    path = tmp_path / "registry.json"
    path.write_text(
        json.dumps({USER_ENVIRONMENT_KEY: {"Path": {"type": "REG_EXPAND_SZ", "value": USER_PATH}}}),
        encoding="utf-8",
    )
    return SnapshotFileEnvironment(path)


@pytest.fixture
def journal(tmp_path: Path) -> PathJournal:
    return PathJournal(tmp_path / "home")


class MeddlingStore(SnapshotFileEnvironment):
    """Another program appends to PATH between the wizard's read and its write, ``times`` times."""

    def __init__(self, path: Path, times: int) -> None:
        super().__init__(path)
        self.times = times
        self.broadcasts = 0
        self.write_threads: list[threading.Thread] = []

    def replace_value(self, key, name, expected, new):
        self.write_threads.append(threading.current_thread())
        if self.times > 0:
            self.times -= 1
            current = self.read_value(key, name)
            assert current is not None
            super().replace_value(
                key, name, current, RegValue(current.type, f"{current.value};C:\\meddler{self.times}")
            )
        return super().replace_value(key, name, expected, new)

    def broadcast_environment_change(self) -> bool:
        self.broadcasts += 1
        return True


def test_a_change_is_journaled_then_written_then_broadcast(store, journal):
    change = plan_add(store, "user", [r"C:\new"])
    applied = apply_change(store, journal, change)
    assert applied.read_back == RegValue("REG_EXPAND_SZ", USER_PATH + r";C:\new")
    [entry] = history(store, journal)
    assert entry.status == "applied"
    assert entry.old == RegValue("REG_EXPAND_SZ", USER_PATH)
    assert entry.new == applied.read_back
    assert entry.registry == store.identity


def test_a_change_that_changes_nothing_records_nothing(store, journal):
    change = plan_add(store, "user", [r"%USERPROFILE%\bin"])
    assert not change.changed
    assert apply_change(store, journal, change).entry is None
    assert not journal.path.exists()


def test_a_value_changed_since_reading_is_read_again_and_the_plan_made_anew(tmp_path, journal):
    path = tmp_path / "registry.json"
    path.write_text(
        json.dumps({USER_ENVIRONMENT_KEY: {"Path": {"type": "REG_SZ", "value": "C:\\a"}}}), "utf-8"
    )
    store = MeddlingStore(path, times=1)
    change = plan_add(store, "user", [r"C:\new"])
    applied = apply_change(store, journal, change, replan=lambda: plan_add(store, "user", [r"C:\new"]))
    # The meddler's entry survives, and the new folder is added after it.
    assert store.read_value(USER_ENVIRONMENT_KEY, "Path") == RegValue("REG_SZ", r"C:\a;C:\meddler0;C:\new")
    assert applied.entry is not None
    assert [e.old for e in history(store, journal)] == [RegValue("REG_SZ", r"C:\a;C:\meddler0")]
    assert store.broadcasts == 1


def test_a_value_that_keeps_changing_is_given_up_with_nothing_written_or_recorded(tmp_path, journal):
    path = tmp_path / "registry.json"
    path.write_text(
        json.dumps({USER_ENVIRONMENT_KEY: {"Path": {"type": "REG_SZ", "value": "C:\\a"}}}), "utf-8"
    )
    store = MeddlingStore(path, times=10)
    with pytest.raises(ValueChanged):
        apply_change(
            store,
            journal,
            plan_add(store, "user", [r"C:\new"]),
            replan=lambda: plan_add(store, "user", [r"C:\new"]),
        )
    assert r"C:\new" not in str(store.read_value(USER_ENVIRONMENT_KEY, "Path"))
    assert history(store, journal) == []


def test_a_failed_write_records_nothing(store, journal, monkeypatch):
    def refuse(*_args, **_kwargs):
        raise RegistryWriteError("no permission")

    monkeypatch.setattr(store, "replace_value", refuse)
    with pytest.raises(RegistryWriteError):
        apply_change(store, journal, plan_add(store, "user", [r"C:\new"]))
    assert history(store, journal) == []
    assert json.loads(journal.path.read_text())["entries"] == []


def test_a_pending_entry_left_by_a_crash_is_settled_by_the_value(store, journal, monkeypatch):
    # The process dies after the write and before marking the entry applied.
    monkeypatch.setattr(journal, "mark_applied", lambda _id: (_ for _ in ()).throw(SystemExit(9)))
    with pytest.raises(SystemExit):
        apply_change(store, journal, plan_add(store, "user", [r"C:\new"]))
    raw = json.loads(journal.path.read_text())["entries"]
    assert [e["status"] for e in raw] == ["pending"]
    monkeypatch.undo()
    [entry] = history(store, journal)  # the new value is in place: it happened
    assert entry.status == "applied"
    assert plan_undo(store, journal).new == RegValue("REG_EXPAND_SZ", USER_PATH)


def test_a_pending_entry_whose_write_never_happened_is_left_out(store, journal, monkeypatch):
    monkeypatch.setattr(store, "replace_value", lambda *a, **k: (_ for _ in ()).throw(SystemExit(9)))
    with pytest.raises(SystemExit):
        apply_change(store, journal, plan_add(store, "user", [r"C:\new"]))
    monkeypatch.undo()
    assert history(store, journal) == []
    with pytest.raises(PathChangeError, match="nothing to undo"):
        plan_undo(store, journal)


def test_undo_is_refused_when_someone_changed_the_value_after(store, journal):
    apply_change(store, journal, plan_add(store, "user", [r"C:\new"]))
    later = store.read_value(USER_ENVIRONMENT_KEY, "Path")
    assert later is not None
    store.replace_value(USER_ENVIRONMENT_KEY, "Path", later, RegValue(later.type, f"{later.value};C:\\later"))
    with pytest.raises(UndoConflict):
        plan_undo(store, journal)


def test_journals_of_different_registries_do_not_mix(tmp_path, store, journal):
    other_path = tmp_path / "other.json"
    other_path.write_text(json.dumps({USER_ENVIRONMENT_KEY: {}}), "utf-8")
    other = SnapshotFileEnvironment(other_path)
    apply_change(store, journal, plan_add(store, "user", [r"C:\new"]))
    with pytest.raises(PathChangeError, match="nothing to undo"):
        plan_undo(other, journal)
    assert len(history(store, journal)) == 1


def test_a_damaged_journal_is_a_clear_error(store, journal):
    journal.path.parent.mkdir(parents=True)
    journal.path.write_text("{broken", "utf-8")
    with pytest.raises(JournalError, match="damaged"):
        history(store, journal)


def test_the_fresh_process_path_expands_only_reg_expand_sz(tmp_path):
    path = tmp_path / "registry.json"
    system = "HKLM\\SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Environment"
    path.write_text(
        json.dumps({
            system: {"Path": {"type": "REG_EXPAND_SZ", "value": r"%SystemRoot%\system32"}},
            USER_ENVIRONMENT_KEY: {"Path": {"type": "REG_SZ", "value": r"%USERPROFILE%\bin;C:\x"}},
        }),
        "utf-8",
    )  # fmt: skip
    env = {"SYSTEMROOT": r"C:\Windows", "USERPROFILE": r"C:\Users\ana"}
    assert (
        fresh_process_path(SnapshotFileEnvironment(path), env)
        == r"C:\Windows\system32;%USERPROFILE%\bin;C:\x"
    )


@pytest.mark.parametrize(
    "request_data",
    [
        {
            "key": "HKLM\\SOFTWARE\\Evil",
            "name": "Path",
            "expected": None,
            "new": {"type": "REG_SZ", "value": "x"},
        },
        {
            "key": USER_ENVIRONMENT_KEY,
            "name": "ComSpec",
            "expected": None,
            "new": {"type": "REG_SZ", "value": "x"},
        },
        {"nonsense": True},
    ],
)
def test_the_elevated_helper_writes_nothing_but_an_environment_path(tmp_path, request_data):
    request = tmp_path / "request.json"
    body = json.dumps(request_data).encode("utf-8")
    request.write_bytes(body)
    assert serve_elevated_request(request, hashlib.sha256(body).hexdigest()) == 4  # refused
    assert sorted(path.name for path in tmp_path.iterdir()) == ["request.json"]


# --- apply-then-undo is the identity, byte for byte and type (hypothesis) ------------------

_segments = st.sampled_from(
    [r"C:\a", r"%USERPROFILE%\bin", r'"C:\q;r"', "", " ", r"c:/A/", r"C:\CUDA\v12.1\bin", r"D:\x\\", "ü"]
)
_values = st.lists(_segments, max_size=8).map(";".join)
_folders = st.lists(
    st.sampled_from([r"C:\a", r"C:\new", r"C:\CUDA\v11.2\bin", r"%X%\y"]), min_size=1, max_size=3
)


@settings(
    max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    value=st.one_of(st.none(), _values),
    kind=st.sampled_from(["REG_SZ", "REG_EXPAND_SZ"]),
    folders=_folders,
    action=st.sampled_from(["add", "remove"]),
    other_cuda=st.sampled_from(["keep", "end", "remove"]),
)
def test_apply_then_undo_gives_back_the_value_and_type_exactly(
    tmp_path_factory, *, value, kind, folders, action, other_cuda
):
    folder = tmp_path_factory.mktemp("undo")
    values = {} if value is None else {"Path": {"type": kind, "value": value}}
    path = folder / "registry.json"
    path.write_text(json.dumps({USER_ENVIRONMENT_KEY: values}), "utf-8")
    store, journal = SnapshotFileEnvironment(path), PathJournal(folder / "home")
    before = store.read_value(USER_ENVIRONMENT_KEY, "Path")
    if action == "add":
        change = plan_add(store, "user", folders, other_cuda=other_cuda)
    else:
        change = plan_remove(store, "user", folders)
    applied = apply_change(store, journal, change)
    if not change.changed:
        assert applied.entry is None
        assert store.read_value(USER_ENVIRONMENT_KEY, "Path") == before
        return
    assert store.read_value(USER_ENVIRONMENT_KEY, "Path") == change.new
    apply_change(store, journal, plan_undo(store, journal))
    after = store.read_value(USER_ENVIRONMENT_KEY, "Path")
    assert after == before
    if before is not None and after is not None:
        assert after.value.encode("utf-8") == before.value.encode("utf-8")
