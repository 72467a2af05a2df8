"""The window's kept geometry: written and read back, a damaged file moved aside (issue 37)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpuwizard.workflow.state.window_geometry import (
    WINDOW_NAME,
    WINDOW_SCHEMA,
    WindowGeometry,
    load_window_geometry,
    save_window_geometry,
    window_geometry_path,
)


def test_the_file_lives_in_the_wizard_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("GPUWIZARD_HOME", str(tmp_path))
    assert window_geometry_path() == tmp_path / WINDOW_NAME


def test_a_kept_geometry_reads_back(tmp_path: Path):
    path = tmp_path / "home" / WINDOW_NAME
    assert load_window_geometry(path) is None
    save_window_geometry(path, WindowGeometry(-1200, 40, 900, 640))
    assert json.loads(path.read_text(encoding="utf-8"))["schema"] == WINDOW_SCHEMA
    assert load_window_geometry(path) == WindowGeometry(-1200, 40, 900, 640)


@pytest.mark.parametrize(
    "content",
    [
        "not json",
        "[1, 2, 3, 4]",
        '{"x": 1, "y": 2, "width": 300}',
        '{"x": 1, "y": 2, "width": 0, "height": 200}',
        '{"x": 1, "y": 2, "width": true, "height": 200}',
        '{"x": 1.5, "y": 2, "width": 300, "height": 200}',
        '{"x": 1, "y": 2, "width": 300000000, "height": 200}',
    ],
)
def test_a_damaged_file_counts_as_nothing_kept_and_is_moved_aside(
    tmp_path: Path, content: str, caplog: pytest.LogCaptureFixture
):
    path = tmp_path / WINDOW_NAME
    path.write_text(content, encoding="utf-8")
    assert load_window_geometry(path) is None
    assert not path.exists()
    assert (tmp_path / (WINDOW_NAME + ".bad")).read_text(encoding="utf-8") == content
    assert "moved aside" in caplog.text
