"""An offline folder of wheels that lacks something is refused before anything is made (issue 20, point 6).

``gpuwizard env create --find-links DIR --offline`` and ``gpuwizard apply`` with an offline folder
check the folder against the plan (a real offline resolution by the wizard's uv) and refuse it
with exit 2 and one line that names what is missing and how to fetch it. Before, uv failed
part-way ("No solution found ... filelock") after the environment was started, exit 3.
The folders hold small real wheels (``builders.wheels``) with real dependency metadata.

Issue 41, point 8: a folder of another release the wizard knows is offered as the same command
with ``--version X.Y`` (printed on a line of its own, and it runs); the fetch command is short,
takes the framework wheel the folder has from the folder and the rest from PyPI, and says which
machine can run it when the build is only on PyTorch's index.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest

from builders.wheels import build_wheel
from gpuwizard.core.envs.wheel_folder import DOWNLOAD_LIMIT
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


def create(name: str, folder: Path, *extra: str, version: str | None = "2.13") -> tuple[int, str, str]:
    asked = ("--version", version) if version is not None else ()
    done = gpuwizard(
        "env", "create", name, "--framework", "pytorch", *asked,
        "--find-links", str(folder), "--offline", *extra, timeout=300,
    )  # fmt: skip
    return done.returncode, done.stdout, done.stderr


def planned(*wish: str) -> dict[str, Any]:
    """The plan ``env create`` makes here for the wish (this machine's: a CPU or a GPU build)."""
    done = gpuwizard("recommend", "--framework", "pytorch", *wish, "--json")
    assert done.returncode == 0, done.stderr
    plan: dict[str, Any] = json.loads(done.stdout)["plan"]
    return plan


def fetch_command(stdout: str) -> str:
    """The one ``pip download`` line the refusal printed (indented, whole)."""
    commands = [line.strip() for line in stdout.splitlines() if line.lstrip().startswith("pip download ")]
    assert len(commands) == 1, stdout
    return commands[0]


def test_a_folder_of_another_known_release_is_offered_and_the_offered_command_runs(
    tmp_path: Path, home: Path
):
    newest, older = planned(), planned("--version", "2.13")
    assert newest["framework_version"] != "2.13.0", "the default plan must be another release"
    folder = tmp_path / "wheels"
    build_wheel(folder, "torch", f"2.13.0+{older['torch_variant']}")  # needs nothing else

    code, stdout, stderr = create("demo", folder, version=None)

    assert code == 2, stdout[-2000:] + stderr
    assert "ask for version 2.13 (--version 2.13)." in stderr and len(stderr.strip().splitlines()) == 1
    offered = [line.strip() for line in stdout.splitlines() if " env create " in line]
    assert len(offered) == 1, stdout
    argv = shlex.split(offered[0])
    assert argv[argv.index("--version") + 1] == "2.13" and "--offline" in argv
    assert argv[argv.index("--find-links") + 1] == str(folder)
    # The other way, the plan's own release, is fetched from where that build is.
    command = fetch_command(stdout)
    assert f"torch=={newest['framework_version']}" in command
    assert everything_under(home) == {}

    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, check=False)

    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    listed = json.loads(gpuwizard("env", "list", "--json").stdout)
    assert [(entry["name"], entry["framework_version"]) for entry in listed] == [("demo", "2.13.0")]


def test_the_fetch_command_is_short_names_no_blocked_index_and_says_where_it_runs(tmp_path: Path):
    plan = planned("--version", "2.13")
    with_torch = tmp_path / "with torch"  # a space: the path is quoted in the command
    build_wheel(with_torch, "torch", f"2.13.0+{plan['torch_variant']}", requires=["filelock>=3.0", "sympy"])

    code, stdout, stderr = create("demo", with_torch)

    assert code == 2 and "It has no wheel of filelock, sympy" in stderr, stdout + stderr
    command = fetch_command(stdout)
    # torch is in the folder: the command takes it from there and the rest from PyPI, whichever
    # index the plan names (PyTorch's may be the one that cannot be reached).
    assert "--index-url" not in command and "download.pytorch.org" not in command
    assert command.count(f'"{with_torch}"') == 2
    assert len(command) - 2 * len(f'"{with_torch}"') <= DOWNLOAD_LIMIT
    assert "downloads from PyPI" in stdout

    without_torch = tmp_path / "empty"
    build_wheel(without_torch, "filelock", "3.16.1")

    code, stdout, stderr = create("demo", without_torch)

    assert code == 2, stdout + stderr
    command = fetch_command(stdout)
    assert len(command) - len(str(without_torch)) <= DOWNLOAD_LIMIT
    if plan["pip"]["index_url"]:  # this build is not on PyPI: say which machine fetches it
        assert f"--index-url {plan['pip']['index_url']}" in command
        assert "is not on PyPI): run it on a machine that reaches download.pytorch.org." in " ".join(
            stdout.split()
        )
    else:
        assert "--index-url" not in command and "downloads from PyPI" in stdout


def test_env_create_refuses_a_folder_without_a_dependency_and_makes_nothing(tmp_path: Path, home: Path):
    folder = torch_needing_filelock(tmp_path / "wheels")

    code, stdout, stderr = create("demo", folder)

    assert code == 2, stdout[-2000:] + stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("gpuwizard: error: the folder of wheels ")
    assert "It has no wheel of filelock" in lines[0]
    assert "32-bit" not in lines[0]
    # The fetch command is on stdout, a line of its own to copy (and whole on stderr with --json).
    command = fetch_command(stdout)
    assert command.startswith(f"pip download --dest {folder} ") and "torch==2.13.0" in command
    assert everything_under(home) == {}  # no environment, no log, no registry, no pending record

    code, stdout, stderr = create("demo", folder, "--json")
    assert code == 2 and stdout == "", stdout
    assert f"pip download --dest {folder} " in stderr and len(stderr.strip().splitlines()) == 1


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
