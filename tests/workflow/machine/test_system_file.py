"""Loading and saving system reports."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest

from gpuwizard.workflow.machine.system_file import SystemFileError, load_system_report
from gpuwizard.workflow.state.files import save_system_report

SAMPLES = sorted(
    p.name
    for p in resources.files("gpuwizard.resources").joinpath("samples").iterdir()
    if p.name.endswith(".json")
)


@pytest.mark.parametrize("name", SAMPLES)
def test_every_shipped_sample_loads(name: str):
    path = Path(str(resources.files("gpuwizard.resources").joinpath("samples", name)))
    report = load_system_report(path)
    assert report.os.family in ("windows", "linux", "darwin")


def test_saving_and_loading_round_trips(tmp_path: Path):
    path = Path(
        str(resources.files("gpuwizard.resources").joinpath("samples", "windows-rtx2080super-two-cuda.json"))
    )
    report = load_system_report(path)
    target = tmp_path / "copy.json"
    save_system_report(report, target)
    assert load_system_report(target) == report
    assert [p.name for p in tmp_path.iterdir()] == ["copy.json"]  # no temporary file left behind


def test_saving_into_a_missing_folder_fails_and_leaves_nothing(tmp_path: Path):
    report = load_system_report(
        Path(str(resources.files("gpuwizard.resources").joinpath("samples", "no-gpu.json")))
    )
    with pytest.raises(OSError, match="missing"):
        save_system_report(report, tmp_path / "missing" / "r.json")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("{", "not valid JSON"),
        ('"text"', "expected a JSON object"),
        ('{"schema": 3}', "its schema is 3"),
        ('{"schema": "gpuwizard.system/1", "driver": {"version": 546}}', "at driver/version"),
    ],
)
def test_errors_say_what_and_where_in_one_line(tmp_path: Path, content: str, says: str):
    path = tmp_path / "r.json"
    path.write_text(content)
    with pytest.raises(SystemFileError) as caught:
        load_system_report(path)
    assert says in str(caught.value) and "\n" not in str(caught.value)


def test_a_utf8_bom_is_accepted(tmp_path: Path):
    # Windows Notepad and PowerShell's Out-File write one.
    path = tmp_path / "bom.json"
    path.write_bytes(b'\xef\xbb\xbf{"schema": "gpuwizard.system/1"}')
    assert load_system_report(path).gpus == ()
