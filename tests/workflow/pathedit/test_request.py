"""The PATH page's request and steps, without Qt (the page itself: tests/ui/test_path_page.py)."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest

from gpuwizard.adapters.registry import SnapshotFileEnvironment
from gpuwizard.core.compat.plan import parse_wish
from gpuwizard.core.compat.recommend import recommend
from gpuwizard.workflow.compat.data import load_bundled
from gpuwizard.workflow.machine.system_file import load_system_report
from gpuwizard.workflow.pathedit.request import (
    REG_SZ_WITH_VARS,
    PathRequest,
    apply_request,
    path_overview,
    path_request_from_plan,
    undo_last,
)
from gpuwizard.workflow.state.path_journal import PathJournal

SAMPLES = resources.files("gpuwizard.resources").joinpath("samples")
USER_KEY = "HKCU\\Environment"
SYSTEM_KEY = "HKLM\\SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Environment"


class NoRunner:
    def run(self, argv, *, timeout, env_overrides=None):  # pragma: no cover - must not be called
        raise AssertionError(f"a snapshot file needs no process: {argv}")


def test_the_request_of_the_tensorflow_2_10_plan_on_windows():
    report = load_system_report(Path(str(SAMPLES.joinpath("windows-rtx2080super-two-cuda.json"))))
    rec = recommend(report, parse_wish("tensorflow", "2.10", manager="venv"), load_bundled())
    plans = [rec.plan, *rec.alternatives]
    with_path = next(p for p in plans if p.path_entries)
    request = path_request_from_plan(with_path)
    assert request is not None
    assert request.folders == with_path.path_entries and "cudart64_110.dll" in request.dlls
    assert (request.scope, request.other_cuda) == ("user", "keep")


def test_a_plan_without_path_entries_makes_no_request():
    report = load_system_report(Path(str(SAMPLES.joinpath("linux-h200.json"))))
    rec = recommend(report, parse_wish("pytorch"), load_bundled())
    assert path_request_from_plan(rec.plan) is None


@pytest.fixture
def snapshot(tmp_path: Path) -> Path:
    path = tmp_path / "registry.json"
    data = {
        USER_KEY: {"Path": {"type": "REG_SZ", "value": "%USERPROFILE%\\bin;C:\\tools"}},
        SYSTEM_KEY: {"Path": {"type": "REG_EXPAND_SZ", "value": "%SystemRoot%\\system32"}},
    }
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return path


def test_overview_marks_variables_in_a_reg_sz_path(snapshot: Path, tmp_path: Path):
    store = SnapshotFileEnvironment(snapshot)
    overview = path_overview(store, PathRequest(("C:\\CUDA\\v11.2\\bin",)), PathJournal(tmp_path))
    system, user = overview.reviews
    assert [e.problems for e in system.entries] == [()]  # REG_EXPAND_SZ expands its %VARS%
    assert [e.problems for e in user.entries] == [(REG_SZ_WITH_VARS,), ()]
    assert overview.change is not None and overview.change.changed and not overview.needs_admin
    assert not overview.undo_available and overview.plan_error is None


def test_failures_come_back_as_one_line_and_change_nothing(snapshot: Path, tmp_path: Path):
    store = SnapshotFileEnvironment(snapshot)
    journal = PathJournal(tmp_path / "home")
    assert path_overview(store, PathRequest(("relative\\bin",)), journal).plan_error == (
        "'relative\\\\bin': not an absolute Windows folder (C:\\..., \\\\server\\share\\..., or %VAR%\\...)"
    )
    undone = undo_last(store, journal, NoRunner())
    assert undone.applied is None and undone.error is not None
    assert undone.error.startswith("nothing to undo") and undone.error.endswith("; nothing was changed")

    request = PathRequest(("C:\\CUDA\\v11.2\\bin",))
    change = path_overview(store, request, journal).change
    assert change is not None
    snapshot.unlink()
    outcome = apply_request(store, journal, change, request, NoRunner())
    assert (
        outcome.applied is None and outcome.error is not None and "no such registry snapshot" in outcome.error
    )
    assert journal.entries() == []
