r"""A lone surrogate in a registry value (issue 33, point 13a).

The registry stores UTF-16 without checking it, so a value can hold half of a surrogate pair,
and a snapshot writes it as the valid JSON escape ``"\udc80"``. ``path add`` and ``report``
crashed on it (UTF-8 cannot encode it). Through the real entry point: ``path add`` keeps it,
writes it back as the same escape, and ``path undo`` gives back the snapshot byte for byte;
``report`` writes every format, the JSON one holding the same character.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.entry_point import gpuwizard

pytestmark = pytest.mark.slow

USER = "HKCU\\Environment"
ODD = "C:\\odd\udc80name"  # a low surrogate alone (U+DC80): no UTF-8 for it
START = {USER: {"Path": {"type": "REG_EXPAND_SZ", "value": rf"%USERPROFILE%\bin;{ODD};C:\tools"}}}
REPORT = Path(__file__).parents[1] / "fixtures" / "reports" / "windows-rtx3060-546.33.json"


@pytest.fixture
def snapshot(tmp_path: Path) -> Path:
    file = tmp_path / "registry.json"
    # As the wizard writes one (json.dumps(indent=2), ASCII escapes): undo must give back these bytes.
    file.write_text(json.dumps(START, indent=2) + "\n", encoding="ascii")
    return file


def test_path_add_and_undo_keep_a_lone_surrogate_byte_for_byte(snapshot: Path):
    start = snapshot.read_bytes()
    assert b"\\udc80" in start
    added = gpuwizard("path", "add", r"C:\CUDA\v12.4\bin", "--registry", str(snapshot))
    assert added.returncode == 0, added.stderr
    value = json.loads(snapshot.read_text(encoding="utf-8"))[USER]["Path"]["value"]
    assert value == rf"%USERPROFILE%\bin;{ODD};C:\tools;C:\CUDA\v12.4\bin"
    undone = gpuwizard("path", "undo", "--registry", str(snapshot))
    assert undone.returncode == 0, undone.stderr
    assert snapshot.read_bytes() == start


def test_path_json_output_carries_a_lone_surrogate_as_its_escape(snapshot: Path):
    shown = gpuwizard("path", "show", "--json", "--registry", str(snapshot))
    assert shown.returncode == 0, shown.stderr
    assert "\\udc80" in shown.stdout  # ASCII on any console, whatever its encoding
    assert json.loads(shown.stdout)["scopes"]["user"]["value"] == START[USER]["Path"]["value"]
    added = gpuwizard("path", "add", r"C:\CUDA\v12.4\bin", "--json", "--registry", str(snapshot))
    assert added.returncode == 0, added.stderr
    assert json.loads(added.stdout)["old"]["value"] == START[USER]["Path"]["value"]


@pytest.mark.parametrize("suffix", [".json", ".md", ".html"])
def test_report_writes_a_path_with_a_lone_surrogate(snapshot: Path, tmp_path: Path, suffix: str):
    out = tmp_path / f"report{suffix}"
    done = gpuwizard(
        "report", "--out", str(out), "--system", str(REPORT), "--registry", str(snapshot), "--no-probe"
    )
    assert done.returncode == 0, done.stderr
    text = out.read_text(encoding="utf-8")  # valid UTF-8: the character is written as its escape
    assert "odd\\udc80name" in text
    if suffix == ".json":
        [user] = [scope for scope in json.loads(text)["path"]["scopes"] if scope["scope"] == "user"]
        assert ODD in user["value"].split(";")
