r"""``gpuwizard path`` on registry snapshot files, through the real entry point (issue 6).

The acceptance: on a snapshot whose user ``Path`` is ``REG_EXPAND_SZ`` with ``%USERPROFILE%``
entries, adding CUDA 11.2's ``bin`` keeps the type and every ``%VAR%``, touches no other value,
adding it again changes nothing, and ``undo`` restores value and type byte for byte; an add
over the limit exits 2 and leaves the file untouched; ``--dry-run`` never changes it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ENTRY_POINT = shutil.which("gpuwizard", path=str(Path(sys.executable).parent)) or "gpuwizard"
USER = "HKCU\\Environment"
SYSTEM = "HKLM\\SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Environment"
CUDA = r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA"
V112_BIN = rf"{CUDA}\v11.2\bin"
USER_PATH = r"%USERPROFILE%\AppData\Local\Microsoft\WindowsApps;%USERPROFILE%\.local\bin;C:\tools"
SNAPSHOT: dict[str, Any] = {
    USER: {
        "Path": {"type": "REG_EXPAND_SZ", "value": USER_PATH},
        "TEMP": {"type": "REG_EXPAND_SZ", "value": r"%USERPROFILE%\AppData\Local\Temp"},
        "OneDrive": {"type": "REG_SZ", "value": r"C:\Users\ana\OneDrive"},
    },
    SYSTEM: {
        "Path": {
            "type": "REG_EXPAND_SZ",
            "value": rf"%SystemRoot%\system32;%SystemRoot%;{CUDA}\v12.1\bin;{CUDA}\v12.1\libnvvp",
        },
        "NUMBER_OF_PROCESSORS": {"type": "REG_SZ", "value": "8"},
    },
}


def gpuwizard(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ENTRY_POINT, "path", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ),
        check=False,
    )


@pytest.fixture
def snapshot(tmp_path: Path) -> Path:
    path = tmp_path / "registry.json"
    path.write_text(json.dumps(SNAPSHOT, indent=1), encoding="utf-8")
    return path


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def test_add_keeps_the_type_and_variables_touches_nothing_else_and_undo_restores_it(snapshot: Path):
    before = load(snapshot)
    added = gpuwizard("add", V112_BIN, "--scope", "user", "--registry", str(snapshot))
    assert added.returncode == 0, added.stderr
    after = load(snapshot)
    path = after[USER]["Path"]
    assert path == {"type": "REG_EXPAND_SZ", "value": USER_PATH + ";" + V112_BIN}
    # Every other value, in both keys, is exactly as it was.
    assert {k: v for k, v in after[USER].items() if k != "Path"} == {
        k: v for k, v in before[USER].items() if k != "Path"
    }
    assert after[SYSTEM] == before[SYSTEM]
    # The system PATH's CUDA 12.1 comes first for every program: the user is told.
    assert "PATH_SYSTEM_CUDA_FIRST" not in added.stdout  # text mode prints messages, not codes
    assert "CUDA 12.1" in added.stdout

    again = gpuwizard("add", V112_BIN, "--scope", "user", "--registry", str(snapshot), "--json")
    assert again.returncode == 0
    result = json.loads(again.stdout)
    assert result["changed"] is False
    assert result["journal_id"] is None
    assert result["unchanged"] == [V112_BIN]
    assert load(snapshot) == after

    history = json.loads(gpuwizard("history", "--registry", str(snapshot), "--json").stdout)
    assert [e["action"] for e in history] == ["add"]  # the second add recorded nothing

    undone = gpuwizard("undo", "--registry", str(snapshot), "--json")
    assert undone.returncode == 0, undone.stderr
    assert json.loads(undone.stdout)["reverts"] == history[0]["id"]
    assert load(snapshot)[USER]["Path"] == before[USER]["Path"]
    assert load(snapshot) == before


def test_an_add_over_the_limit_exits_2_and_leaves_the_snapshot_untouched(tmp_path: Path):
    data = json.loads(json.dumps(SNAPSHOT))
    data[USER]["Path"]["value"] = ";".join(rf"C:\folder{i:05d}\{'x' * 40}" for i in range(640))
    path = tmp_path / "long.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    raw = path.read_bytes()
    done = gpuwizard("add", V112_BIN, "--registry", str(path))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert "32766" in done.stderr
    assert path.read_bytes() == raw
    history = gpuwizard("history", "--registry", str(path), "--json")
    assert json.loads(history.stdout) == []


def test_dry_run_prints_the_diff_and_changes_nothing(snapshot: Path):
    raw = snapshot.read_bytes()
    for args in (
        ("add", V112_BIN, "--dry-run"),
        ("remove", r"C:\tools", "--dry-run"),
        ("repair", "--dry-run"),
    ):
        done = gpuwizard(*args, "--registry", str(snapshot))
        assert done.returncode == 0, done.stderr
        assert snapshot.read_bytes() == raw
    shown = gpuwizard("add", V112_BIN, "--dry-run", "--registry", str(snapshot))
    assert f"+ {V112_BIN}" in shown.stdout
    assert "dry run" in shown.stdout
    assert json.loads(gpuwizard("history", "--registry", str(snapshot), "--json").stdout) == []
    # A dry-run undo of a real change shows it and still changes nothing.
    assert gpuwizard("add", V112_BIN, "--registry", str(snapshot)).returncode == 0
    changed = snapshot.read_bytes()
    undo = gpuwizard("undo", "--dry-run", "--registry", str(snapshot), "--json")
    assert json.loads(undo.stdout)["diff"][-1] == {"op": "-", "entry": V112_BIN}
    assert snapshot.read_bytes() == changed


def test_system_scope_cuda_add_goes_before_the_other_version_and_undo_restores(snapshot: Path):
    before = load(snapshot)
    done = gpuwizard(
        "add", V112_BIN, rf"{CUDA}\v11.2\libnvvp", r"C:\tools\cuda\bin", "--scope", "system",
        "--registry", str(snapshot), "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    value = load(snapshot)[SYSTEM]["Path"]["value"]
    assert value.split(";") == [
        r"%SystemRoot%\system32",
        "%SystemRoot%",
        V112_BIN,
        rf"{CUDA}\v11.2\libnvvp",
        r"C:\tools\cuda\bin",
        rf"{CUDA}\v12.1\bin",
        rf"{CUDA}\v12.1\libnvvp",
    ]
    assert gpuwizard("undo", "--registry", str(snapshot)).returncode == 0
    assert load(snapshot) == before


def test_other_cuda_versions_removed_with_consent_and_undone(snapshot: Path):
    before = load(snapshot)
    done = gpuwizard(
        "add", V112_BIN, "--scope", "system", "--other-cuda", "remove", "--registry", str(snapshot)
    )
    assert done.returncode == 0
    assert "v12.1" not in load(snapshot)[SYSTEM]["Path"]["value"]
    assert gpuwizard("undo", "--registry", str(snapshot)).returncode == 0
    assert load(snapshot) == before


def test_undo_walks_back_through_several_changes_then_says_nothing_is_left(snapshot: Path):
    before = load(snapshot)
    assert gpuwizard("add", r"C:\one", "--registry", str(snapshot)).returncode == 0
    middle = load(snapshot)
    assert gpuwizard("remove", r"C:\tools", "--registry", str(snapshot)).returncode == 0
    assert gpuwizard("undo", "--registry", str(snapshot)).returncode == 0
    assert load(snapshot) == middle
    assert gpuwizard("undo", "--registry", str(snapshot)).returncode == 0
    assert load(snapshot) == before
    nothing = gpuwizard("undo", "--registry", str(snapshot))
    assert nothing.returncode == 2
    assert "nothing to undo" in nothing.stderr
    text = gpuwizard("history", "--registry", str(snapshot)).stdout
    assert text.count("(undone)") == 2


def test_undo_refuses_when_the_value_changed_since(snapshot: Path):
    assert gpuwizard("add", r"C:\one", "--registry", str(snapshot)).returncode == 0
    data = load(snapshot)
    data[USER]["Path"]["value"] += r";C:\added-by-an-installer"
    snapshot.write_text(json.dumps(data), encoding="utf-8")
    done = gpuwizard("undo", "--registry", str(snapshot))
    assert done.returncode == 1
    assert "changed after" in done.stderr
    assert load(snapshot) == data


def test_repair_turns_reg_sz_with_variables_into_reg_expand_sz(tmp_path: Path):
    data = json.loads(json.dumps(SNAPSHOT))
    data[USER]["Path"]["type"] = "REG_SZ"
    path = tmp_path / "frozen.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    shown = json.loads(gpuwizard("show", "--registry", str(path), "--json").stdout)
    assert "PATH_REG_SZ_WITH_VARS" in [f["code"] for f in shown["findings"]]
    assert gpuwizard("repair", "--scope", "user", "--registry", str(path)).returncode == 0
    assert load(path)[USER]["Path"] == {"type": "REG_EXPAND_SZ", "value": USER_PATH}
    assert gpuwizard("undo", "--registry", str(path)).returncode == 0
    assert load(path)[USER]["Path"] == {"type": "REG_SZ", "value": USER_PATH}


def test_adding_to_a_user_without_a_path_creates_reg_expand_sz_and_undo_deletes_it(tmp_path: Path):
    path = tmp_path / "new-user.json"
    path.write_text(json.dumps({USER: {"TEMP": {"type": "REG_SZ", "value": "x"}}}), encoding="utf-8")
    assert gpuwizard("add", r"%USERPROFILE%\bin", "--registry", str(path)).returncode == 0
    assert load(path)[USER]["Path"] == {"type": "REG_EXPAND_SZ", "value": r"%USERPROFILE%\bin"}
    assert gpuwizard("undo", "--registry", str(path)).returncode == 0
    assert load(path) == {USER: {"TEMP": {"type": "REG_SZ", "value": "x"}}}


def test_show_marks_problems(snapshot: Path):
    data = load(snapshot)
    data[USER]["Path"]["value"] = rf"C:\tools;c:/TOOLS/;;{V112_BIN};%SystemRoot%"
    snapshot.write_text(json.dumps(data), encoding="utf-8")
    shown = json.loads(gpuwizard("show", "--registry", str(snapshot), "--json").stdout)
    user = shown["scopes"]["user"]
    assert user["type"] == "REG_EXPAND_SZ"
    assert [e["problems"] for e in user["entries"]] == [
        [],
        ["duplicate"],
        ["empty"],
        ["other_cuda_first"],
        ["duplicate"],
    ]
    codes = {f["code"] for f in shown["findings"]}
    assert {"MULTIPLE_CUDA_ON_PATH", "PATH_DUPLICATE_ENTRY"} <= codes
    text = gpuwizard("show", "--scope", "user", "--registry", str(snapshot)).stdout
    # People's words, not the codes (the JSON keeps those); the CUDA that wins is named.
    assert "other_cuda_first" not in text and "<- duplicate" not in text
    assert f"{V112_BIN}   <- CUDA 12.1 comes first on PATH\n" in text
    assert "<- already on PATH earlier: only the first one counts\n" in text
    assert "<- empty entry (an extra ';')\n" in text
    assert "system PATH" not in text


def test_after_moving_other_cuda_to_the_end_show_marks_the_entries_behind_the_new_first(tmp_path: Path):
    # The Windows sample: CUDA 12.1 first on the system PATH; 11.8 added with --other-cuda end.
    sample = (
        Path(__file__).resolve().parents[2] / "resources" / "samples" / "registry" / "windows-cuda12.json"
    )
    registry = tmp_path / "registry.json"
    shutil.copy(sample, registry)
    v118 = rf"{CUDA}\v11.8\bin"
    added = gpuwizard("add", v118, "--scope", "system", "--other-cuda", "end", "--registry", str(registry))
    assert added.returncode == 0, added.stderr
    system = load(registry)[SYSTEM]["Path"]["value"].split(";")
    assert system[-3:] == [v118, rf"{CUDA}\v12.1\bin", rf"{CUDA}\v12.1\libnvvp"]
    shown = json.loads(gpuwizard("show", "--registry", str(registry), "--json").stdout)
    marks = {e["segment"]: e["problems"] for e in shown["scopes"]["system"]["entries"] if e["cuda_version"]}
    assert marks == {
        v118: [],
        rf"{CUDA}\v12.1\bin": ["other_cuda_first"],
        rf"{CUDA}\v12.1\libnvvp": ["other_cuda_first"],
    }
    text = gpuwizard("show", "--scope", "system", "--registry", str(registry)).stdout
    rows = [re.fullmatch(r"\s+\d+  (.*?)(?:   <- (.*))?", line) for line in text.splitlines()]
    said = {row[1]: row[2] for row in rows if row is not None and "CUDA\\v1" in row[1]}
    assert said == {
        v118: None,
        rf"{CUDA}\v12.1\bin": "CUDA 11.8 comes first on PATH",
        rf"{CUDA}\v12.1\libnvvp": "CUDA 11.8 comes first on PATH",
    }


@pytest.mark.parametrize(
    "args",
    [
        ("add", "relative\\bin"),
        ("add", r"C:\a;C:\b"),
        ("add", ""),
        ("add", r"C:\x", "--scope", "machine"),
        ("add", r"C:\x", "--other-cuda", "hide"),
        ("remove",),
        ("frobnicate",),
    ],
)
def test_bad_input_exits_2_with_one_line_and_changes_nothing(snapshot: Path, args: tuple[str, ...]):
    raw = snapshot.read_bytes()
    done = gpuwizard(*args, "--registry", str(snapshot))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert "Traceback" not in done.stderr
    assert snapshot.read_bytes() == raw


@pytest.mark.parametrize("content", [None, "{not json", '{"HKCU\\\\Environment": {"Path": "C:\\\\x"}}', "[]"])
def test_a_missing_or_malformed_snapshot_exits_2(tmp_path: Path, content: str | None):
    path = tmp_path / "registry.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    done = gpuwizard("add", r"C:\x", "--registry", str(path))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert (path.read_text(encoding="utf-8") if content is not None else None) == content


@pytest.mark.skipif(sys.platform == "win32", reason="the live registry exists on Windows")
def test_without_a_snapshot_off_windows_it_says_to_give_one():
    done = gpuwizard("show")
    assert done.returncode == 2
    assert "--registry FILE" in done.stderr
