"""Atomic replacement and the temporary files killed writers leave (issue 33, point 8)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from gpuwizard.adapters.atomic_files import remove_stale_temporaries, write_text_atomically


@pytest.fixture
def living_pid() -> Iterator[int]:
    """A process that runs until the test ends (it waits on its standard input)."""
    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        yield child.pid
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait()


@pytest.fixture
def dead_pid() -> int:
    """The id of a process that has ended (and been reaped)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_write_leaves_only_the_file_and_names_its_temporary_with_the_writers_pid(tmp_path, monkeypatch):
    target = tmp_path / "snap.json"
    seen: list[str] = []
    real_replace = Path.replace

    def spy(self: Path, other: Path) -> Path:
        seen.append(self.name)
        return real_replace(self, other)

    monkeypatch.setattr(Path, "replace", spy)
    write_text_atomically(target, "{}\n")
    assert target.read_text() == "{}\n"
    assert [p.name for p in tmp_path.iterdir()] == ["snap.json"]
    [name] = seen
    assert name.startswith(".snap-") and name.endswith(f".pid{os.getpid()}.json")


def test_a_lone_surrogate_is_written_as_its_escape_only_when_asked(tmp_path):
    target = tmp_path / "value.json"
    with pytest.raises(UnicodeEncodeError):
        write_text_atomically(target, '"\udc80"')
    assert list(tmp_path.iterdir()) == []  # the temporary file went with the failure
    write_text_atomically(target, '"\udc80"', errors="backslashreplace")
    assert target.read_bytes() == b'"\\udc80"'


def test_only_the_files_own_temporaries_of_gone_writers_are_removed(tmp_path, living_pid, dead_pid):
    target = tmp_path / "snap.json"
    target.write_text("{}")
    stale = [
        f".snap-abcdefgh.pid{dead_pid}.json",  # this version's, its writer dead
        ".snap-k2_9xq0z.json",  # an older version's, made before this run
    ]
    kept = [
        f".snap-abcdefgh.pid{living_pid}.json",  # a writer that still runs
        f".snap-abcdefgh.pid{os.getpid()}.json",  # this process's own
        ".snap-notes.json",  # not a name mkstemp makes
        f".snap-abcdefgh.pid{dead_pid}.json.bak",
        f".other-abcdefgh.pid{dead_pid}.json",  # another file's
        "snap-abcdefgh.json",
    ]
    for name in [*stale, *kept]:
        (tmp_path / name).write_text("{}")
    before_this_run = 1_000_000_000  # 2001: older than any run
    os.utime(tmp_path / ".snap-k2_9xq0z.json", (before_this_run, before_this_run))
    folder = tmp_path / f".snap-abcdefgh.pid{dead_pid + 1}.json"  # a folder of that name: not ours
    folder.mkdir()

    removed = remove_stale_temporaries(target)

    assert sorted(p.name for p in removed) == sorted(stale)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*kept, "snap.json", folder.name])


def test_an_older_versions_temporary_made_during_this_run_is_kept(tmp_path):
    target = tmp_path / "path-journal.json"
    young = tmp_path / ".path-journal-abcdefgh.json"
    young.write_text("{}")  # dated now: after this process started, so possibly a living writer's
    assert remove_stale_temporaries(target) == []
    assert young.exists()
