"""``gpuwizard env remove --all``: what the Windows uninstaller runs to remove the environments (issue 37, point 4).

Each recorded environment goes as ``env remove NAME`` would take it, marker checked; one the
wizard cannot prove it made is kept, byte for byte, and said, and the others still go.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from builders.wheels import bundled_pip_wheel, tiny_torch
from harness.entry_point import gpuwizard

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX venvs made offline"),
]


def digest(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` with its content hash."""
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


@pytest.fixture
def wheels(tmp_path: Path) -> Path:
    folder = tmp_path / "wheels"
    folder.mkdir()
    tiny_torch(folder, "2.13.0")
    shutil.copy(bundled_pip_wheel(), folder)
    return folder


def create(wheels: Path, name: str, *extra: str) -> None:
    done = gpuwizard(
        "env", "create", name, "--framework", "pytorch", "--version", "2.13",
        "--find-links", str(wheels), "--offline", *extra,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr


def test_every_environment_the_wizard_made_goes_and_one_it_cannot_prove_is_kept(wheels: Path, tmp_path: Path):
    home = Path(os.environ["GPUWIZARD_HOME"])
    create(wheels, "first")  # in its default place, under the home
    elsewhere = tmp_path / "elsewhere"
    create(wheels, "second", "--prefix", str(elsewhere))
    # A person's folder that a hand-edited entry names: no marker of the wizard's in it.
    theirs = tmp_path / "theirs"
    (theirs / "data").mkdir(parents=True)
    (theirs / "data" / "results.csv").write_text("epoch,loss\n1,0.5\n")
    before = digest(theirs)
    registry = home / "environments.json"
    data = json.loads(registry.read_text())
    edited = {**data["environments"][0], "name": "edited", "path": str(theirs), "id": "0" * 32}
    data["environments"].append(edited)
    registry.write_text(json.dumps(data))

    done = gpuwizard("env", "remove", "--all")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert not (home / "envs" / "first").exists()
    assert not elsewhere.exists()
    assert digest(theirs) == before
    assert "kept edited:" in done.stderr and "nothing was removed" in done.stderr
    assert "Removed first" in done.stdout and "Removed second" in done.stdout
    listed = json.loads(gpuwizard("env", "list", "--json").stdout)
    assert [env["name"] for env in listed] == ["edited"]

    # The person deletes their folder as told; then --all forgets the entry and has nothing left.
    shutil.rmtree(theirs)
    again = gpuwizard("env", "remove", "--all", "--json")
    assert again.returncode == 0, again.stderr
    assert [json.loads(line)["removed"] for line in again.stdout.splitlines()] == ["edited"]
    empty = gpuwizard("env", "remove", "--all")
    assert (empty.returncode, empty.stdout) == (0, "No environments made by the wizard: nothing to remove.\n")


@pytest.mark.parametrize("argv", [("env", "remove"), ("env", "remove", "first", "--all")])
def test_a_name_or_all_exactly_one_of_them(argv: tuple[str, ...]):
    done = gpuwizard(*argv)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "gpuwizard: error: env remove: give the environment's NAME or --all (not both)"
    ]
