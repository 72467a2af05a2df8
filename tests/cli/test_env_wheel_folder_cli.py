"""An offline folder of wheels that lacks something is refused before anything is made (issue 20, point 6).

``gpuwizard env create --find-links DIR --offline`` and ``gpuwizard apply`` with an offline folder
check the folder against the plan (a real offline resolution by the wizard's uv) and refuse it
with exit 2 and one line that names what is missing and how to fetch it. Before, uv failed
part-way ("No solution found ... filelock") after the environment was started, exit 3.
The folders hold small real wheels (``builders.wheels``) with real dependency metadata.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from builders.wheels import build_wheel
from harness.entry_point import gpuwizard


@pytest.fixture
def home() -> Path:
    return Path(os.environ["GPUWIZARD_HOME"])  # a fresh one for every test (tests/conftest.py)


def torch_needing_filelock(folder: Path) -> Path:
    """A small ``torch`` 2.13.0 that, like the real one, depends on filelock (which is not there)."""
    build_wheel(folder, "torch", "2.13.0", requires=["filelock>=3.0"])
    return folder


def everything_under(folder: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(folder)): path.read_bytes() if path.is_file() else b""
        for path in sorted(folder.rglob("*"))
    }


def create(name: str, folder: Path, *extra: str) -> tuple[int, str, str]:
    done = gpuwizard(
        "env", "create", name, "--framework", "pytorch", "--version", "2.13",
        "--find-links", str(folder), "--offline", *extra, timeout=300,
    )  # fmt: skip
    return done.returncode, done.stdout, done.stderr


def test_env_create_refuses_a_folder_without_a_dependency_and_makes_nothing(tmp_path: Path, home: Path):
    folder = torch_needing_filelock(tmp_path / "wheels")

    code, stdout, stderr = create("demo", folder)

    assert code == 2, stdout[-2000:] + stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("gpuwizard: error: the folder of wheels ")
    assert "It has no wheel of filelock" in lines[0]
    assert f"pip download --dest {folder}" in lines[0] and "torch==2.13.0" in lines[0]
    assert "32-bit" not in lines[0]
    assert everything_under(home) == {}  # no environment, no log, no registry, no pending record


def test_the_registry_and_an_existing_environment_stay_as_they_were(tmp_path: Path, home: Path):
    good = tmp_path / "good"
    build_wheel(good, "torch", "2.13.0")  # needs nothing: the folder can install it
    code, stdout, stderr = create("demo", good, "--json")
    assert code == 0, stdout[-2000:] + stderr
    before = everything_under(home)
    assert "environments.json" in before

    code, stdout, stderr = create("demo", torch_needing_filelock(tmp_path / "bad"), "--replace")

    assert code == 2 and "filelock" in stderr, stdout[-2000:] + stderr
    assert everything_under(home) == before
    listed = json.loads(gpuwizard("env", "list", "--json").stdout)
    assert [entry["name"] for entry in listed] == ["demo"]


def test_apply_refuses_an_offline_folder_without_a_dependency(tmp_path: Path, home: Path):
    folder = torch_needing_filelock(tmp_path / "wheels")
    answers = tmp_path / "answers.toml"
    answers.write_text(
        f'framework = "pytorch"\nversion = "2.13"\nenvironment = "lab"\nfind_links = "{folder.as_posix()}"\n'
        "offline = true\n",
        encoding="utf-8",
    )

    done = gpuwizard("apply", "--answers", str(answers), "--yes", "--json", timeout=300)

    assert done.returncode == 2, done.stdout[-2000:] + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "filelock" in lines[0], done.stderr
    assert not (home / "envs").exists() and not (home / "environments.json").exists()
