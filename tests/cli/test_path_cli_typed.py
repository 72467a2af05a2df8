r"""``gpuwizard path add|remove`` with folders as people type them (issue 37, point 8).

Through the real entry point, on a registry snapshot file. In cmd, ``path add "C:\Some Folder\"
--scope user`` reaches the program as ``path``, ``add``, ``C:\Some Folder" --scope user``: the
C runtime reads ``\"`` as a literal quote and the quoted part goes on to the end of the line
(Microsoft Learn, "Parsing C command-line arguments"; ``test_path_cli_wine.py`` does it on a
Windows command line). A quote is in no Windows folder name, so such an argument is refused with
one line that shows the folder as it arrived and how to type it. Whether an added folder exists
is known for the live registry only (``test_path_cli_wine.py``): a snapshot's folders are on
another machine, so ``missing_folders`` is null here and nothing is said.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ENTRY_POINT = shutil.which("gpuwizard", path=str(Path(sys.executable).parent)) or "gpuwizard"
USER = "HKCU\\Environment"
CMD_CUT = 'C:\\Some Folder" --scope user'  # what the C runtime makes of "C:\Some Folder\" --scope user


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
    path.write_text(
        json.dumps({USER: {"Path": {"type": "REG_EXPAND_SZ", "value": r"C:\tools"}}}), encoding="utf-8"
    )
    return path


@pytest.mark.parametrize("action", ["add", "remove"])
@pytest.mark.parametrize("dry_run", [(), ("--dry-run",)], ids=["", "dry-run"])
def test_a_folder_cut_by_a_trailing_backslash_quote_is_refused_with_how_to_type_it(
    snapshot: Path, action: str, dry_run: tuple[str, ...]
):
    raw = snapshot.read_bytes()
    done = gpuwizard(action, CMD_CUT, *dry_run, "--registry", str(snapshot))
    assert done.returncode == 2, done.stdout
    assert done.stderr.count("\n") == 1
    line = done.stderr
    assert line.startswith('gpuwizard: error: the folder C:\\Some Folder" --scope user holds a quote')
    assert "(--scope user) became part of the folder" in line
    assert line.rstrip().endswith(
        'write "C:\\Some Folder" (no backslash at the end) or "C:\\Some Folder\\\\"'
    )
    assert "C:\\\\Some" not in line  # as typed, not as a Python string
    assert done.stdout == ""
    assert snapshot.read_bytes() == raw


def test_a_quote_at_the_end_of_the_line_gets_the_same_hint(snapshot: Path):
    done = gpuwizard("add", "--registry", str(snapshot), 'C:\\Some Folder"')
    assert done.returncode == 2
    assert "so the quote became part of the folder" in done.stderr
    assert 'write "C:\\Some Folder"' in done.stderr


def test_a_snapshots_folders_are_not_looked_for(snapshot: Path):
    done = gpuwizard("add", r"C:\surely\not\here", "--json", "--registry", str(snapshot))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["missing_folders"] is None
    assert "does not exist" not in done.stderr
