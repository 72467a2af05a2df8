"""The state files' JSON, derived from their fields: keys in their order, read back as careful as before."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from gpuwizard.adapters.processes import ProcessIdentity
from gpuwizard.adapters.registry import RegValue
from gpuwizard.workflow.state.env_pending import (
    PendingEnv,
    PendingRemoval,
    pending_record,
    record_file,
    save_pending,
)
from gpuwizard.workflow.state.env_registry import EnvRecord, load_records, registry_path, save_record
from gpuwizard.workflow.state.path_journal import JournalEntry, JournalError, PathJournal, entry_to_json


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GPUWIZARD_HOME", str(tmp_path))
    return tmp_path


ENTRY = JournalEntry(
    id="e1",
    time="2026-01-01T00:00:00+00:00",
    registry="live",
    scope="user",
    key="HKCU\\Environment",
    name="Path",
    action="add",
    folders=("C:\\CUDA\\bin",),
    old=None,
    new=RegValue("REG_EXPAND_SZ", "C:\\CUDA\\bin"),
    status="applied",
    extra={"settled": {"outcome": "written", "evidence": "value", "time": None}},
)


def test_journal_entry_json_keeps_its_keys_in_order(home: Path) -> None:
    data = entry_to_json(ENTRY)
    assert list(data) == [
        "id", "time", "registry", "scope", "key", "name", "action", "folders", "old", "new", "status",
        "reverts", "extra",
    ]  # fmt: skip
    assert data["folders"] == ["C:\\CUDA\\bin"] and data["old"] is None
    assert data["new"] == {"type": "REG_EXPAND_SZ", "value": "C:\\CUDA\\bin"}
    journal = PathJournal(home)
    journal.record(ENTRY)
    stored = json.loads(journal.path.read_text(encoding="utf-8"))
    assert list(stored) == ["schema", "entries"] and stored["entries"] == [data]
    assert journal.entries(statuses=("applied", "pending", "unproven")) == [ENTRY]


@pytest.mark.parametrize(
    ("field", "value"),
    [("folders", ["ok", 3]), ("old", {"value": "x"}), ("id", 7), ("extra", []), ("reverts", 1)],
)
def test_journal_refuses_an_entry_of_the_wrong_shape(home: Path, field: str, value: object) -> None:
    journal = PathJournal(home)
    journal.path.write_text(
        json.dumps({"entries": [{**entry_to_json(ENTRY), field: value}]}), encoding="utf-8"
    )
    with pytest.raises(JournalError, match="damaged"):
        journal.entries()


def test_journal_reads_an_unknown_status_as_pending(home: Path) -> None:
    journal = PathJournal(home)
    journal.path.write_text(
        json.dumps({"entries": [{**entry_to_json(ENTRY), "status": "??"}]}), encoding="utf-8"
    )
    assert [entry.status for entry in journal.entries(statuses=("pending",))] == ["pending"]


def test_env_record_json_and_reading() -> None:
    record = EnvRecord(
        "demo", "/envs/demo", "/envs/demo/bin/python", "venv", "pytorch", "2.13.0", variables={"A": "1"}
    )
    assert list(record.to_json()) == [
        "name", "path", "python", "manager", "framework", "framework_version", "framework_build", "tool",
        "python_version", "created", "constraints", "variables", "jupyter_kernel", "log", "id", "device",
        "distro", "wsl_home", "wsl_home_id", "find_links", "offline",
    ]  # fmt: skip
    save_record(record)
    assert load_records() == [record]
    offline = replace(record, name="offline", find_links="/srv/wheels", offline=True)
    save_record(offline)
    assert load_records() == [record, offline]
    # An older entry without a manager was a venv, and without a source was made from the index;
    # unknown keys are left out.
    registry_path().write_text(json.dumps({"environments": [{"name": "old", "path": "/o", "x": 1}]}))
    assert load_records() == [EnvRecord("old", "/o", "", "venv", "", "")]
    assert (load_records()[0].find_links, load_records()[0].offline) == (None, False)


@pytest.mark.parametrize(("field", "value"), [("offline", "yes"), ("find_links", 3)])
def test_env_registry_refuses_a_source_of_the_wrong_type(field: str, value: object) -> None:
    registry_path().write_text(json.dumps({"environments": [{"name": "n", "path": "/p", field: value}]}))
    assert load_records() == []
    assert registry_path().with_name("environments.json.bad").exists()


def test_env_registry_sets_aside_an_entry_of_the_wrong_type() -> None:
    registry_path().write_text(json.dumps({"environments": [{"name": "n", "path": "/p", "manager": 3}]}))
    assert load_records() == []
    assert registry_path().with_name("environments.json.bad").exists()


def test_pending_records_as_stored() -> None:
    record = PendingEnv(
        "demo",
        "/envs/demo",
        False,
        None,
        "/logs/run.jsonl",
        id="id1",
        tools=(ProcessIdentity(41, 900, "boot"),),
    )
    data = record.to_json()
    assert list(data) == [
        "schema", "name", "prefix", "prefix_existed", "backup", "log", "kernel", "pid", "id", "replaces_id",
        "old_kernel", "tools",
    ]  # fmt: skip
    assert data["schema"] == "gpuwizard.env-pending/1" and data["tools"] == [[41, 900, "boot"]]
    save_pending(record)
    assert pending_record("demo") == record
    # Read strictly, as before: a tool of another shape is dropped, a wrong name makes no record.
    record_file("demo").write_text(json.dumps({**data, "tools": [[41, 900, "boot"], [True, 1, "b"]]}))
    assert pending_record("demo") == record
    record_file("demo").write_text(json.dumps({**data, "name": "other"}))
    assert pending_record("demo") is None
    removal = PendingRemoval("demo", "id1", "/envs/demo", "/envs/.demo-trash", given=True)
    assert removal.to_json() == {
        "schema": "gpuwizard.env-removal/1",
        "name": "demo",
        "id": "id1",
        "path": "/envs/demo",
        "trash": "/envs/.demo-trash",
        "kernel": None,
        "kernel_trash": None,
        "given": True,
    }
    assert list(removal.to_json()) == [
        "schema",
        "name",
        "id",
        "path",
        "trash",
        "kernel",
        "kernel_trash",
        "given",
    ]
