r"""The temporary copies of PATH that killed ``gpuwizard path`` runs left are cleaned up (issue 33, point 8).

Kills had left 74 ``.snap-*.json`` and ``.path-journal-*.json`` files beside a snapshot and in
the home. Through the real entry point: the next ``path`` command removes those of this
snapshot and this home whose writers are gone (named with their process id, or older than the
run for an older version's names), and keeps a living writer's and every file not named as
the wizard names its temporaries. ``tests/cli/test_path_crash.py`` leaves them for real.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.entry_point import gpuwizard

pytestmark = pytest.mark.slow

USER = "HKCU\\Environment"
OLDER_THAN_ANY_RUN = 1_000_000_000  # 2001


@pytest.fixture
def living_pid() -> Iterator[int]:
    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        yield child.pid
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait()


def dead_pids(count: int) -> list[int]:
    pids = []
    for _ in range(count):
        child = subprocess.Popen([sys.executable, "-c", "pass"])
        child.wait()
        pids.append(child.pid)
    return pids


def plant(folder: Path, stem: str, pids: list[int]) -> list[str]:
    """Temporary copies as killed writers of this version and of older ones leave them."""
    names = [f".{stem}-{index:08d}.pid{pid}.json" for index, pid in enumerate(pids)]
    older = [f".{stem}-old{index:05d}.json" for index in range(len(pids))]
    for name in [*names, *older]:
        (folder / name).write_text('{"partial": ', encoding="utf-8")
    for name in older:
        os.utime(folder / name, (OLDER_THAN_ANY_RUN, OLDER_THAN_ANY_RUN))
    return [*names, *older]


def test_the_next_path_command_removes_the_temporaries_of_gone_writers_only(tmp_path, living_pid):
    home = Path(os.environ["GPUWIZARD_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "path-journal.json").write_text('{"schema": "gpuwizard.path-journal/1", "entries": []}')
    snapshot = tmp_path / "snap.json"
    snapshot.write_text(json.dumps({USER: {"Path": {"type": "REG_SZ", "value": r"C:\a"}}}), encoding="utf-8")
    pids = dead_pids(19)
    stale_beside = plant(tmp_path, "snap", pids)
    stale_home = plant(home, "path-journal", pids[:18])
    assert len(stale_beside) + len(stale_home) == 74
    living = [f".snap-livewrit.pid{living_pid}.json", f".path-journal-livewrit.pid{living_pid}.json"]
    (tmp_path / living[0]).write_text("{")
    (home / living[1]).write_text("{")
    others = ["snap.json.bak", ".snap-notes-of-mine.json", ".environments-abcdefgh.json"]
    for name in others:
        (tmp_path / name).write_text("mine")

    # `show` takes the journal's lock (without waiting) but never the snapshot's.
    shown = gpuwizard("path", "show", "--registry", str(snapshot))
    assert shown.returncode == 0, shown.stderr
    assert not [name for name in stale_home if (home / name).exists()]
    added = gpuwizard("path", "add", r"C:\CUDA\v12.4\bin", "--registry", str(snapshot))
    assert added.returncode == 0, added.stderr

    assert not [name for name in stale_beside if (tmp_path / name).exists()]
    assert (tmp_path / living[0]).exists() and (home / living[1]).exists()
    assert all((tmp_path / name).read_text() == "mine" for name in others)
