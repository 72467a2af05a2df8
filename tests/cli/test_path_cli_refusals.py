r"""``gpuwizard path`` refuses what it cannot edit safely, and shrinks what is too long (issue 19).

Through the real entry point, on registry snapshot files: a Path that is not text (``null``, a
list, a number) or has a quote that is never closed exits 2 with one line and leaves the file
as it was; a remove on a PATH over the limit is made; an add that makes the system and the user
PATH together too long exits 2; writing keeps the snapshot's mode; the undo of a change that
created the value gives the snapshot back exactly; the elevated helper needs the request's hash.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow

ENTRY_POINT = shutil.which("gpuwizard", path=str(Path(sys.executable).parent)) or "gpuwizard"
USER = "HKCU\\Environment"
SYSTEM = "HKLM\\SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Environment"


def gpuwizard(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ENTRY_POINT, "path", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ),
        check=False,
    )


def write(tmp_path: Path, data: dict[str, Any]) -> Path:
    path = tmp_path / "registry.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def long_value(entries: int, prefix: str) -> str:
    return ";".join(rf"C:\{prefix}{i:05d}\{'x' * 40}" for i in range(entries))  # 50 characters each


@pytest.mark.parametrize("value", [None, [r"C:\a"], 7])
def test_a_path_that_is_not_text_exits_2_and_is_never_written(tmp_path: Path, value: Any):
    path = write(tmp_path, {USER: {"Path": {"type": "REG_EXPAND_SZ", "value": value}}})
    raw = path.read_bytes()
    done = gpuwizard("add", r"C:\new", "--registry", str(path))
    assert done.returncode == 2, done.stdout
    assert done.stderr.count("\n") == 1
    assert "text" in done.stderr  # "...Path: ... must be text, not int" or "... holding null, not text"
    assert "Recorded" not in done.stdout
    assert path.read_bytes() == raw


def test_a_quote_never_closed_exits_2_for_add_and_remove(tmp_path: Path):
    path = write(tmp_path, {USER: {"Path": {"type": "REG_EXPAND_SZ", "value": r'C:\a;"C:\b;C:\c'}}})
    raw = path.read_bytes()
    for args in (("add", r"C:\new"), ("remove", r"C:\c")):
        done = gpuwizard(*args, "--registry", str(path))
        assert done.returncode == 2, done.stdout
        assert done.stderr.count("\n") == 1
        assert "never closed" in done.stderr
        assert path.read_bytes() == raw
    assert json.loads(gpuwizard("history", "--registry", str(path), "--json").stdout) == []


def test_a_path_over_the_limit_can_be_shrunk_and_the_shrinking_undone(tmp_path: Path):
    value = long_value(800, "f")  # 40,799 characters
    path = write(tmp_path, {USER: {"Path": {"type": "REG_EXPAND_SZ", "value": value}}})
    first = value.split(";")[0]
    done = gpuwizard("remove", first, "--registry", str(path), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["removed"] == [first]
    assert load(path)[USER]["Path"]["value"] == value[len(first) + 1 :]
    assert gpuwizard("undo", "--registry", str(path)).returncode == 0
    assert load(path)[USER]["Path"]["value"] == value


def test_an_add_past_the_joined_limit_exits_2_and_a_remove_is_made(tmp_path: Path):
    user, system = long_value(600, "u"), long_value(600, "s")  # 29,999 characters each
    path = write(
        tmp_path,
        {
            USER: {"Path": {"type": "REG_EXPAND_SZ", "value": user + r";C:\u8"}},
            SYSTEM: {"Path": {"type": "REG_EXPAND_SZ", "value": system + r";C:\s"}},
        },
    )
    raw = path.read_bytes()
    for scope in ("user", "system"):
        done = gpuwizard("add", r"C:\new", "--scope", scope, "--registry", str(path))
        assert done.returncode == 2, done.stdout
        assert done.stderr.count("\n") == 1
        assert "together" in done.stderr and "32766" in done.stderr
        assert path.read_bytes() == raw
    done = gpuwizard("remove", r"C:\u8", "--registry", str(path))
    assert done.returncode == 0, done.stderr
    assert load(path)[USER]["Path"]["value"] == user


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX file modes")
def test_writing_keeps_the_snapshots_mode(tmp_path: Path):
    path = write(tmp_path, {USER: {"Path": {"type": "REG_EXPAND_SZ", "value": r"C:\a"}}})
    path.chmod(0o644)
    assert gpuwizard("add", r"C:\new", "--registry", str(path)).returncode == 0
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


def test_undoing_the_creation_of_a_users_first_path_gives_the_snapshot_back(tmp_path: Path):
    data = {SYSTEM: {"Path": {"type": "REG_EXPAND_SZ", "value": r"%SystemRoot%\system32"}}}
    path = write(tmp_path, data)
    assert gpuwizard("add", r"%USERPROFILE%\bin", "--registry", str(path)).returncode == 0
    assert load(path)[USER] == {"Path": {"type": "REG_EXPAND_SZ", "value": r"%USERPROFILE%\bin"}}
    assert gpuwizard("undo", "--all", "--registry", str(path)).returncode == 0
    assert load(path) == data


def test_the_elevated_helper_is_not_started_without_the_requests_hash(tmp_path: Path):
    request, result = tmp_path / "request.json", tmp_path / "result.json"
    request.write_text("{}", encoding="utf-8")
    done = gpuwizard("_elevated-write", str(request), str(result))
    assert done.returncode == 2
    assert "--sha256" in done.stderr
    assert not result.exists()
