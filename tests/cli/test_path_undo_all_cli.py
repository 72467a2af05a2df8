r"""``gpuwizard path undo --all``: the uninstaller's "undo the wizard's PATH changes" (issue 9).

Through the real entry point, on registry snapshot files: every change the wizard made is
reverted, newest first, each journaled like a single undo; changes already undone are skipped;
one conflict anywhere refuses the whole thing before anything is written; nothing to undo is
not an error (the uninstaller runs it whatever the journal holds).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ENTRY_POINT = shutil.which("gpuwizard", path=str(Path(sys.executable).parent)) or "gpuwizard"
USER = "HKCU\\Environment"
SYSTEM = "HKLM\\SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Environment"
SNAPSHOT: dict[str, Any] = {
    USER: {
        "Path": {"type": "REG_EXPAND_SZ", "value": r"%USERPROFILE%\bin;C:\tools"},
        "TEMP": {"type": "REG_EXPAND_SZ", "value": r"%USERPROFILE%\AppData\Local\Temp"},
    },
    SYSTEM: {"Path": {"type": "REG_EXPAND_SZ", "value": r"%SystemRoot%\system32;%SystemRoot%"}},
}


def path(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ENTRY_POINT, "path", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ),
        check=False,
    )


def load(file: Path) -> dict[str, Any]:
    return json.loads(file.read_text(encoding="utf-8"))


@pytest.fixture
def snapshot(tmp_path: Path) -> Path:
    file = tmp_path / "registry.json"
    file.write_text(json.dumps(SNAPSHOT), encoding="utf-8")
    return file


def test_undo_all_reverts_every_change_of_both_scopes_newest_first(snapshot: Path):
    registry = ("--registry", str(snapshot))
    assert path("add", r"C:\one", *registry).returncode == 0
    assert path("add", r"C:\two", "--scope", "system", *registry).returncode == 0
    assert path("remove", r"C:\tools", *registry).returncode == 0
    assert path("repair", *registry).returncode == 0  # changes nothing: records nothing

    preview = path("undo", "--all", "--dry-run", "--json", *registry)
    assert preview.returncode == 0, preview.stderr
    planned = json.loads(preview.stdout)
    assert planned["schema"] == "gpuwizard.path-undo-all/1"
    assert planned["dry_run"] is True
    assert [(c["scope"], c["written"]) for c in planned["changes"]] == [
        ("user", False),
        ("system", False),
        ("user", False),
    ]
    assert load(snapshot)[USER]["Path"]["value"] == r"%USERPROFILE%\bin;C:\one"  # dry run: untouched

    done = path("undo", "--all", "--json", *registry)
    assert done.returncode == 0, done.stderr
    changes = json.loads(done.stdout)["changes"]
    assert [c["written"] for c in changes] == [True, True, True]
    # Undo of the remove first: C:\tools comes back before C:\one goes.
    assert changes[0]["added"] == [] and r"C:\tools" in changes[0]["new"]["value"]
    assert load(snapshot) == SNAPSHOT

    history = json.loads(path("history", "--json", *registry).stdout)
    undos = [e for e in history if e["action"] == "undo"]
    assert len(undos) == 3
    assert {e["reverts"] for e in undos} == {e["id"] for e in history if e["action"] != "undo"}


def test_changes_undone_already_are_skipped_and_then_nothing_is_left(snapshot: Path):
    registry = ("--registry", str(snapshot))
    assert path("add", r"C:\one", *registry).returncode == 0
    assert path("add", r"C:\two", *registry).returncode == 0
    assert path("undo", *registry).returncode == 0  # reverts the add of C:\two
    done = path("undo", "--all", *registry)
    assert done.returncode == 0, done.stderr
    assert "Reverted the add" in done.stdout
    assert load(snapshot) == SNAPSHOT

    again = path("undo", "--all", *registry)
    assert again.returncode == 0, again.stderr
    assert "Nothing to undo" in again.stdout
    assert load(snapshot) == SNAPSHOT


def test_a_conflict_anywhere_refuses_every_undo_before_writing(snapshot: Path):
    registry = ("--registry", str(snapshot))
    assert path("add", r"C:\one", "--scope", "system", *registry).returncode == 0
    assert path("add", r"C:\two", *registry).returncode == 0
    data = load(snapshot)
    # Someone else changed the system PATH after the wizard: the newest undo (user) would be
    # fine, the older one (system) would lose that change. Neither is made.
    data[SYSTEM]["Path"]["value"] += r";C:\from-another-installer"
    snapshot.write_text(json.dumps(data), encoding="utf-8")
    done = path("undo", "--all", *registry)
    assert done.returncode == 1
    assert "changed after" in done.stderr
    assert load(snapshot) == data
    assert not [e for e in json.loads(path("history", "--json", *registry).stdout) if e["action"] == "undo"]


def test_undo_all_with_an_empty_journal_is_not_an_error(snapshot: Path):
    done = path("undo", "--all", "--json", "--registry", str(snapshot))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["changes"] == []
    assert load(snapshot) == SNAPSHOT


def test_a_pending_entry_left_before_later_changes_never_blocks_undo_all(snapshot: Path):
    # Issue 33, point 6: `path remove` killed between the journal's write and the snapshot's, then
    # run again. An older version kept the pending entry for ever and judged it by the value now,
    # which the second remove had made equal to the pending entry's new value; undo --all then
    # exited 1 for good. The next change it recorded started from the pending entry's old value,
    # which proves it was never written.
    registry = ("--registry", str(snapshot))
    assert path("add", r"C:\one", *registry).returncode == 0
    assert path("remove", r"C:\one", *registry).returncode == 0
    journal = Path(os.environ["GPUWIZARD_HOME"]) / "path-journal.json"
    data = load(journal)
    killed = dict(data["entries"][-1], id="0" * 32, status="pending")
    data["entries"].insert(-1, killed)  # the killed remove, recorded before the one run again
    journal.write_text(json.dumps(data), encoding="utf-8")

    done = path("undo", "--all", *registry)
    assert done.returncode == 0, done.stderr
    assert load(snapshot) == SNAPSHOT
    assert "was never written" in done.stderr
    assert [e["id"] for e in load(journal)["entries"] if e["status"] != "applied"] == []
