r"""``path undo`` takes away only what the wizard can prove it put on PATH (issue 33, points 5 and 15c).

Through the real entry point on registry snapshot files. The journal is edited here the way a
crash, a person or another program could leave it: a ``pending`` entry as a kill between the
journal's write and the registry's leaves it (``tests/cli/test_path_crash.py`` makes that state
for real with strace), entries edited by hand or planted, and snapshot values another program
changed afterwards. Whatever the wizard cannot prove it added stays, byte for byte, and is said
on stderr; two homes (two ``GPUWIZARD_HOME``) whose changes interleave on one snapshot get one
line saying why nothing was undone and what to do, exit 1, nothing changed.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness.entry_point import ENTRY_POINT

pytestmark = pytest.mark.slow

USER = "HKCU\\Environment"
SYSTEM = "HKLM\\SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Environment"
START = r"%USERPROFILE%\bin;C:\tools"
CUDA_BIN = r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.4\bin"


def path(*args: str, home: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ) if home is None else {**os.environ, "GPUWIZARD_HOME": str(home)}
    return subprocess.run(
        [ENTRY_POINT, "path", *args], capture_output=True, text=True, timeout=120, env=env, check=False
    )


def journal_file(home: Path | None = None) -> Path:
    return (home or Path(os.environ["GPUWIZARD_HOME"])) / "path-journal.json"


def edit_journal(edit: Callable[[list[dict[str, Any]]], None], home: Path | None = None) -> None:
    file = journal_file(home)
    data = json.loads(file.read_text(encoding="utf-8"))
    edit(data["entries"])
    file.write_text(json.dumps(data, indent=2), encoding="utf-8")


def set_user_path(snapshot: Path, value: str) -> None:
    """Another program writes the user PATH (keeping the wizard's layout of the file)."""
    data = json.loads(snapshot.read_text(encoding="utf-8"))
    data[USER]["Path"]["value"] = value
    snapshot.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def user_path(snapshot: Path) -> str:
    return json.loads(snapshot.read_text(encoding="utf-8"))[USER]["Path"]["value"]


@pytest.fixture
def snapshot(tmp_path: Path) -> Path:
    file = tmp_path / "registry.json"
    data = {
        USER: {"Path": {"type": "REG_EXPAND_SZ", "value": START}},
        SYSTEM: {"Path": {"type": "REG_EXPAND_SZ", "value": r"%SystemRoot%\system32;%SystemRoot%"}},
    }
    file.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return file


def interrupted_add(snapshot: Path, folder: str) -> None:
    """What a kill between the journal's write and the registry's leaves: a pending add, PATH as it was."""
    before = snapshot.read_bytes()
    assert path("add", folder, "--registry", str(snapshot)).returncode == 0
    snapshot.write_bytes(before)

    def to_pending(entries: list[dict[str, Any]]) -> None:
        entries[-1]["status"] = "pending"

    edit_journal(to_pending)


def test_an_interrupted_add_is_settled_at_once_so_the_same_folder_added_later_by_another_program_stays(
    snapshot: Path,
):
    registry = ("--registry", str(snapshot))
    interrupted_add(snapshot, CUDA_BIN)
    shown = path("show", *registry)  # the next command, whatever it is, settles the entry
    assert shown.returncode == 0, shown.stderr
    # CUDA's installer then appends the same folder to PATH.
    set_user_path(snapshot, f"{START};{CUDA_BIN}")
    theirs = snapshot.read_bytes()
    undone = path("undo", "--all", *registry)
    assert undone.returncode == 0, undone.stderr
    assert snapshot.read_bytes() == theirs
    assert "was never written" in shown.stderr
    assert json.loads(journal_file().read_text(encoding="utf-8"))["entries"] == []


def test_an_interrupted_add_that_the_value_cannot_settle_is_kept_and_said(snapshot: Path):
    registry = ("--registry", str(snapshot))
    interrupted_add(snapshot, CUDA_BIN)
    # Before any wizard command runs again, another program rewrites PATH: neither the value the
    # add started from nor the one it would have written is there, so whether it wrote proves nothing.
    set_user_path(snapshot, rf"{START};{CUDA_BIN};C:\other\bin")
    theirs = snapshot.read_bytes()
    undone = path("undo", "--all", "--json", *registry)
    assert undone.returncode == 0, undone.stderr
    assert snapshot.read_bytes() == theirs
    assert "cannot be proven written" in undone.stderr
    result = json.loads(undone.stdout)
    assert result["changes"] == [] and len(result["kept"]) == 1
    history = path("history", *registry)
    assert "cannot be proven" in history.stdout
    assert path("undo", "--all", *registry).returncode == 0  # stays kept: never an exit 1 for good
    assert snapshot.read_bytes() == theirs


def _claims_another_folder(entries: list[dict[str, Any]]) -> None:
    entries[-1]["new"]["value"] += r";C:\theirs"


def _claims_path_was_empty(entries: list[dict[str, Any]]) -> None:
    entries[-1]["old"] = None


def _turned_into_a_remove(entries: list[dict[str, Any]]) -> None:
    entries[-1]["action"] = "remove"


def _planted_after(entries: list[dict[str, Any]]) -> None:
    planted = dict(entries[-1], id="f" * 32, folders=[r"C:\planted"])
    planted["old"] = dict(entries[-1]["new"])
    planted["new"] = {"type": "REG_EXPAND_SZ", "value": entries[-1]["new"]["value"] + r";C:\theirs"}
    entries.append(planted)


@pytest.mark.parametrize(
    ("edit", "value_after"),
    [
        (_claims_another_folder, rf"{START};{CUDA_BIN};C:\theirs"),
        (_claims_path_was_empty, f"{START};{CUDA_BIN}"),
        (_turned_into_a_remove, f"{START};{CUDA_BIN}"),
        (_planted_after, rf"{START};{CUDA_BIN};C:\theirs"),
    ],
    ids=["new-value-claims-another-folder", "old-value-emptied", "add-turned-remove", "entry-planted"],
)
def test_a_hand_edited_or_planted_entry_never_takes_away_what_it_was_not_asked_to_add(
    snapshot: Path, edit: Callable[[list[dict[str, Any]]], None], value_after: str
):
    registry = ("--registry", str(snapshot))
    assert path("add", CUDA_BIN, *registry).returncode == 0
    edit_journal(edit)
    set_user_path(snapshot, value_after)  # the value the edited journal says the wizard left
    before = snapshot.read_bytes()
    undone = path("undo", "--all", *registry)
    # Kept and said; where the kept entry hides an older one of the wizard's, that one is refused
    # as a conflict (exit 1). Either way nothing the wizard cannot prove it added is taken away.
    assert undone.returncode in (0, 1), undone.stderr
    assert snapshot.read_bytes() == before
    assert all(segment in user_path(snapshot).split(";") for segment in value_after.split(";"))
    assert "cannot prove" in undone.stderr


def test_an_entry_settled_applied_by_hand_whose_write_never_landed_removes_nothing(snapshot: Path):
    registry = ("--registry", str(snapshot))
    interrupted_add(snapshot, CUDA_BIN)

    def to_applied(entries: list[dict[str, Any]]) -> None:
        entries[-1]["status"] = "applied"

    edit_journal(to_applied)
    before = snapshot.read_bytes()
    undone = path("undo", "--all", *registry)
    assert undone.returncode == 1
    assert "changed after" in undone.stderr and len(undone.stderr.strip().splitlines()) == 1
    assert snapshot.read_bytes() == before


def test_two_homes_whose_changes_interleave_say_why_and_what_to_do_and_change_nothing(
    snapshot: Path, tmp_path: Path
):
    registry = ("--registry", str(snapshot))
    start = snapshot.read_bytes()
    first, second = tmp_path / "home-1", tmp_path / "home-2"
    assert path("add", r"C:\one", *registry, home=first).returncode == 0
    assert path("add", r"C:\two", *registry, home=second).returncode == 0
    assert path("add", r"C:\three", *registry, home=first).returncode == 0
    before = snapshot.read_bytes()
    for home in (first, second):
        refused = path("undo", "--all", *registry, home=home)
        assert refused.returncode == 1
        lines = refused.stderr.strip().splitlines()
        assert len(lines) == 1, refused.stderr
        assert "GPUWIZARD_HOME" in lines[0] and "nothing was changed" in lines[0]
        assert snapshot.read_bytes() == before
    # What the line says to do works: this home's later change first, then the other home's, then the rest.
    # Named with the registry it works on (issue 37, point 2: the advice runs as printed).
    assert (
        f"'gpuwizard path undo --registry {snapshot}' still reverts"
        in path("undo", "--all", *registry, home=first).stderr
    )
    assert path("undo", *registry, home=first).returncode == 0
    assert path("undo", "--all", *registry, home=second).returncode == 0
    assert path("undo", "--all", *registry, home=first).returncode == 0
    assert snapshot.read_bytes() == start
