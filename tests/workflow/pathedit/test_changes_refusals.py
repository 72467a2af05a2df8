r"""PATH changes that must be refused, allowed, or left tidy (issue 19, points 2, 8, 9 and 11).

A PATH that is not text, or has a quote that is never closed, is refused before anything is
written; a change that makes the PATH shorter is always allowed, however long it is; an add
that makes the system and user PATH together longer than the one variable Windows makes of them
is refused; undoing a change that created the value deletes it (and a key it leaves empty in a
snapshot); writing keeps the files' modes; the journal and the snapshot are locked for each
read-modify-write.
"""

from __future__ import annotations

import json
import stat
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from gpuwizard.adapters.file_locks import StateBusy
from gpuwizard.adapters.registry import (
    SYSTEM_ENVIRONMENT_KEY,
    USER_ENVIRONMENT_KEY,
    RegistryWriteError,
    RegValue,
    SnapshotFileEnvironment,
)
from gpuwizard.core.pathedit.algebra import ENV_VALUE_MAX_CHARS, JoinedPathTooLong, PathTooLong
from gpuwizard.workflow.pathedit.changes import (
    PathChangeError,
    apply_change,
    change_lock,
    history,
    plan_add,
    plan_remove,
    plan_undo,
)
from gpuwizard.workflow.pathedit.request import PathRequest, apply_request, undo_last
from gpuwizard.workflow.state.path_journal import PathJournal, new_entry
from harness.waits import EVENT_S, QUIET_S

posix_modes = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file modes")


def snapshot(tmp_path: Path, data: dict[str, Any]) -> SnapshotFileEnvironment:
    path = tmp_path / "registry.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return SnapshotFileEnvironment(path)


def user_path(value: Any, kind: str = "REG_EXPAND_SZ") -> dict[str, Any]:
    return {USER_ENVIRONMENT_KEY: {"Path": {"type": kind, "value": value}}}


@pytest.fixture
def journal(tmp_path: Path) -> PathJournal:
    return PathJournal(tmp_path / "home")


# --- a PATH that is not text, or whose quotes do not balance -------------------------------


class OneValueStore(SnapshotFileEnvironment):
    """A store whose user Path reads as ``value``, whatever it is (the snapshot file refuses such
    values when it is read; the PATH steps must refuse them from any store)."""

    def __init__(self, path: Path, value: Any) -> None:
        super().__init__(path)
        self.value = value

    def read_value(self, key: str, name: str) -> RegValue | None:
        return RegValue("REG_EXPAND_SZ", self.value) if key == USER_ENVIRONMENT_KEY else None

    def replace_value(self, key, name, expected, new):  # pragma: no cover - must not be called
        raise AssertionError("written")


@pytest.mark.parametrize(
    ("value", "said"), [(None, "null"), ([r"C:\a"], "a list"), (7, "a number"), ({"a": 1}, "an object")]
)
def test_a_path_that_is_not_text_is_refused_never_stringified(tmp_path: Path, value: Any, said: str):
    store = OneValueStore(tmp_path / "registry.json", value)
    for plan in (lambda: plan_add(store, "user", [r"C:\new"]), lambda: plan_remove(store, "user", [r"C:\a"])):
        with pytest.raises(PathChangeError, match=f"holding {said}, not text") as raised:
            plan()
        assert "\n" not in str(raised.value)


@pytest.mark.parametrize("value", [None, [r"C:\a"], 7])
def test_a_snapshot_whose_path_is_not_text_is_refused_before_planning(tmp_path: Path, value: Any):
    store = snapshot(tmp_path, user_path(value))
    raw = store.path.read_bytes()
    with pytest.raises((PathChangeError, RegistryWriteError), match="text"):
        plan_add(store, "user", [r"C:\new"])
    assert store.path.read_bytes() == raw


def test_the_adapter_never_writes_a_value_that_is_not_text(tmp_path: Path):
    store = snapshot(tmp_path, user_path(r"C:\a"))
    raw = store.path.read_bytes()
    with pytest.raises(Exception, match="must be text"):
        store.replace_value(
            USER_ENVIRONMENT_KEY, "Path", RegValue("REG_EXPAND_SZ", r"C:\a"), RegValue("REG_SZ", None)
        )
    assert store.path.read_bytes() == raw


@pytest.mark.parametrize("value", [r'C:\a;"C:\b', r'"C:\a;C:\b', r'C:\a;C:\b";C:\c'])
def test_a_path_with_a_quote_never_closed_is_refused(tmp_path: Path, value: str):
    store = snapshot(tmp_path, user_path(value))
    raw = store.path.read_bytes()
    with pytest.raises(PathChangeError, match="user PATH has a '\"' that is never closed"):
        plan_add(store, "user", [r"C:\new"])
    with pytest.raises(PathChangeError, match="never closed"):
        plan_remove(store, "user", [r"C:\a"])
    assert store.path.read_bytes() == raw


def test_quoted_entries_that_are_closed_are_fine(tmp_path: Path, journal: PathJournal):
    store = snapshot(tmp_path, user_path(r'C:\a;"C:\b;c";C:\d'))
    apply_change(store, journal, plan_add(store, "user", [r"C:\new"]))
    assert store.read_value(USER_ENVIRONMENT_KEY, "Path") == RegValue(
        "REG_EXPAND_SZ", r'C:\a;"C:\b;c";C:\d;C:\new'
    )


# --- lengths: shrinking always works; the joined PATH is checked --------------------------


def long_value(length: int, prefix: str) -> str:
    entries, index = [], 0
    while len(";".join(entries)) < length:
        entries.append(rf"C:\{prefix}{index:05d}\{'x' * 30}")
        index += 1
    return ";".join(entries)[:length].rstrip(";\\")


def test_removing_from_a_path_over_the_limit_is_allowed(tmp_path: Path, journal: PathJournal):
    value = long_value(40_000, "f")
    assert len(value) > ENV_VALUE_MAX_CHARS
    first = value.split(";")[0]
    store = snapshot(tmp_path, user_path(value))
    with pytest.raises(PathTooLong):  # growing it further is still refused
        plan_add(store, "user", [r"C:\new"])
    applied = apply_change(store, journal, plan_remove(store, "user", [first]))
    assert applied.entry is not None
    now = store.read_value(USER_ENVIRONMENT_KEY, "Path")
    assert now is not None and now.value == value[len(first) + 1 :]


def test_an_add_past_the_joined_limit_of_system_and_user_is_refused_a_remove_is_not(
    tmp_path: Path, journal: PathJournal
):
    # Each fits on its own; Windows joins them (system;user) into one variable, which does not.
    user, system = long_value(30_007, "u"), long_value(30_000, "s")
    store = snapshot(
        tmp_path,
        {
            USER_ENVIRONMENT_KEY: {"Path": {"type": "REG_EXPAND_SZ", "value": user}},
            SYSTEM_ENVIRONMENT_KEY: {"Path": {"type": "REG_EXPAND_SZ", "value": system}},
        },
    )
    raw = store.path.read_bytes()
    for scope in ("user", "system"):
        with pytest.raises(JoinedPathTooLong, match="together") as raised:
            plan_add(store, scope, [r"C:\new"])
        assert raised.value.length > ENV_VALUE_MAX_CHARS
    assert store.path.read_bytes() == raw
    apply_change(store, journal, plan_remove(store, "system", [system.split(";")[-1]]))
    assert len(history(store, journal)) == 1


def test_an_add_within_the_joined_limit_is_made(tmp_path: Path, journal: PathJournal):
    user, system = long_value(16_000, "u"), long_value(16_000, "s")
    store = snapshot(
        tmp_path,
        {
            USER_ENVIRONMENT_KEY: {"Path": {"type": "REG_EXPAND_SZ", "value": user}},
            SYSTEM_ENVIRONMENT_KEY: {"Path": {"type": "REG_EXPAND_SZ", "value": system}},
        },
    )
    assert apply_change(store, journal, plan_add(store, "user", [r"C:\new"])).entry is not None


# --- undo of a change that created the value --------------------------------------------------


def test_undoing_a_change_that_created_the_value_deletes_it_and_the_key_it_left_empty(
    tmp_path: Path, journal: PathJournal
):
    data = {SYSTEM_ENVIRONMENT_KEY: {"Path": {"type": "REG_EXPAND_SZ", "value": r"%SystemRoot%"}}}
    store = snapshot(tmp_path, data)
    apply_change(store, journal, plan_add(store, "user", [r"%USERPROFILE%\bin"]))
    assert store.read_value(USER_ENVIRONMENT_KEY, "Path") == RegValue("REG_EXPAND_SZ", r"%USERPROFILE%\bin")
    apply_change(store, journal, plan_undo(store, journal))
    assert json.loads(store.path.read_text("utf-8")) == data


def test_undoing_a_created_value_keeps_the_keys_other_values(tmp_path: Path, journal: PathJournal):
    data = {USER_ENVIRONMENT_KEY: {"TEMP": {"type": "REG_SZ", "value": "x"}}}
    store = snapshot(tmp_path, data)
    apply_change(store, journal, plan_add(store, "user", [r"C:\new"]))
    apply_change(store, journal, plan_undo(store, journal))
    assert json.loads(store.path.read_text("utf-8")) == data


# --- file modes ------------------------------------------------------------------------------


@posix_modes
def test_writing_a_snapshot_keeps_its_mode(tmp_path: Path, journal: PathJournal):
    store = snapshot(tmp_path, user_path(r"C:\a"))
    store.path.chmod(0o644)
    apply_change(store, journal, plan_add(store, "user", [r"C:\new"]))
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o644
    store.path.chmod(0o664)
    apply_change(store, journal, plan_undo(store, journal))
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o664


@posix_modes
def test_writing_the_journal_keeps_its_mode(tmp_path: Path, journal: PathJournal):
    store = snapshot(tmp_path, user_path(r"C:\a"))
    apply_change(store, journal, plan_add(store, "user", [r"C:\new"]))
    journal.path.chmod(0o644)
    apply_change(store, journal, plan_undo(store, journal))
    assert stat.S_IMODE(journal.path.stat().st_mode) == 0o644


# --- locks -----------------------------------------------------------------------------------


def blocked_while_held(hold: Any, act: Any) -> None:
    """``act`` (in another thread) does not finish while ``hold`` is held here, and does after."""
    finished = threading.Event()

    def run() -> None:
        act()
        finished.set()

    with hold:
        worker = threading.Thread(target=run, daemon=True)
        worker.start()
        # While held, it must wait (however long we look); this only waits, it never races.
        assert not finished.wait(QUIET_S)
    worker.join(EVENT_S)
    assert finished.is_set()


def test_each_journal_update_waits_for_the_journals_lock(tmp_path: Path, journal: PathJournal):
    entry = new_entry(
        registry="file:x", scope="user", key=USER_ENVIRONMENT_KEY, name="Path", action="add",
        folders=[r"C:\new"], old=None, new=RegValue("REG_SZ", r"C:\new"),
    )  # fmt: skip
    blocked_while_held(journal.locked(), lambda: journal.record(entry))
    blocked_while_held(journal.locked(), lambda: journal.mark_applied(entry.id))
    assert json.loads(journal.path.read_text("utf-8"))["entries"][0]["status"] == "applied"
    blocked_while_held(journal.locked(), lambda: journal.drop(entry.id))
    assert json.loads(journal.path.read_text("utf-8"))["entries"] == []


def test_a_snapshot_write_waits_for_the_snapshots_lock(tmp_path: Path):
    store = snapshot(tmp_path, user_path(r"C:\a"))
    other = SnapshotFileEnvironment(store.path)  # another wizard's view of the same file
    old, new = RegValue("REG_EXPAND_SZ", r"C:\a"), RegValue("REG_EXPAND_SZ", r"C:\a;C:\b")
    blocked_while_held(store.exclusive(), lambda: other.replace_value(USER_ENVIRONMENT_KEY, "Path", old, new))
    assert store.read_value(USER_ENVIRONMENT_KEY, "Path") == new
    assert store.path.with_name("registry.json.lock").exists()


def test_a_change_waits_for_another_change_of_the_same_home(tmp_path: Path, journal: PathJournal):
    store = snapshot(tmp_path, user_path(r"C:\a"))
    blocked_while_held(
        change_lock(store, journal),
        lambda: apply_change(store, journal, plan_add(store, "user", [r"C:\new"])),
    )
    assert len(history(store, journal)) == 1


class NoRunner:
    def run(self, argv, *, timeout, env_overrides=None):  # pragma: no cover - must not be called
        raise AssertionError(argv)


def test_the_pages_steps_say_so_in_one_line_when_the_lock_stays_taken(
    tmp_path: Path, journal: PathJournal, monkeypatch: pytest.MonkeyPatch
):
    store = snapshot(tmp_path, user_path(r"C:\a"))
    raw = store.path.read_bytes()
    change = plan_add(store, "user", [r"C:\new"])

    def busy() -> Any:
        raise StateBusy(f"{journal.path}: another gpuwizard has been changing it for 60 s; try again")

    monkeypatch.setattr(journal, "locked", busy)
    outcome = apply_request(store, journal, change, PathRequest((r"C:\new",)), NoRunner())
    assert outcome.applied is None
    assert outcome.error is not None and "nothing was changed" in outcome.error
    assert undo_last(store, journal, NoRunner()).error is not None
    assert store.path.read_bytes() == raw
    assert not journal.path.exists()
