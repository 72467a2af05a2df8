"""The Windows installer's PATH entry and the uninstaller's undo, as ``verify`` sees them (issue 37).

The installer puts the folder of the installed wizard on PATH through the wizard's own journal;
that is no setup of the wizard's, so a fresh install must not open on Verify for it, nor check it.
The uninstaller's ``path undo --all`` puts PATH back as it was: after a reinstall, ``verify``
must not report what it undid as drift.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from gpuwizard.adapters.registry import USER_ENVIRONMENT_KEY, SnapshotFileEnvironment
from gpuwizard.workflow.health.good_state import journal_ownership, load_last_good, something_to_verify
from gpuwizard.workflow.pathedit.changes import apply_change, plan_add
from gpuwizard.workflow.state.home import wizard_home
from gpuwizard.workflow.state.path_journal import PathJournal
from harness.entry_point import gpuwizard

REPO = Path(__file__).resolve().parents[3]
SYSTEM = REPO / "resources" / "samples" / "windows-rtx2080super-two-cuda.json"
CUDA_BIN = "C:\\tools\\cuda\\bin"


def registry_file(tmp_path: Path) -> SnapshotFileEnvironment:
    path = tmp_path / "registry.json"
    path.write_text(
        json.dumps({USER_ENVIRONMENT_KEY: {"Path": {"type": "REG_EXPAND_SZ", "value": "C:\\tools"}}})
    )
    return SnapshotFileEnvironment(path)


def test_the_folder_the_installed_wizard_runs_from_is_not_a_setup_to_verify(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    store = registry_file(tmp_path)
    program = "C:\\Users\\Ana\\AppData\\Local\\Programs\\GPU Setup Wizard"
    journal = PathJournal(wizard_home())
    apply_change(store, journal, plan_add(store, "user", [program]))  # what the installer does
    assert something_to_verify([], None, store)  # run from source: any folder it added counts

    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", program + "\\gpuwizard.exe")
    assert journal_ownership(store).owned == {}
    assert not something_to_verify([], None, store)
    apply_change(store, journal, plan_add(store, "user", [CUDA_BIN]))  # one the person asked for
    assert list(journal_ownership(store).owned.values()) == [CUDA_BIN]
    assert something_to_verify([], None, store)


def test_after_undo_all_verify_reports_no_drift_of_what_was_undone(tmp_path: Path):
    registry = str(registry_file(tmp_path).path)
    common = ("--no-test", "--system", str(SYSTEM), "--registry", registry)
    assert gpuwizard("path", "add", CUDA_BIN, "--registry", registry).returncode == 0
    recorded = gpuwizard("verify", *common, "--json")
    assert recorded.returncode == 0, recorded.stderr
    snapshot = load_last_good()
    assert snapshot is not None and [entry.folder for entry in snapshot.path_entries] == [CUDA_BIN]

    undone = gpuwizard("path", "undo", "--all", "--registry", registry)
    assert undone.returncode == 0, undone.stderr
    snapshot = load_last_good()
    assert snapshot is not None and snapshot.path_entries == ()  # the rest of the state is kept
    done = gpuwizard("verify", *common, "--json")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    assert events and events[-1]["event"] == "result"
    assert [e for e in events if e.get("kind") == "path"] == []
    assert CUDA_BIN not in done.stdout
