"""A full or read-only GPUWIZARD_HOME: one line and exit 2, never a traceback; verify still reports.

Issue 33: with the wizard's state folder full or read-only, ``env create``, ``path add`` and
``verify`` ended in tracebacks, and ``verify --json`` then had no ``result`` line, so a healthy
machine alerted. Now what cannot be changed is refused with one line naming the folder (exit 2,
nothing made), and ``verify`` says what it checked, exits by what it found (0: healthy) and says
in its ``result`` (``save_error``) and in one warning line that the last good state was not saved.

The faults are real (``harness.faulty_home``): a read-only bind mount (EROFS) and a tmpfs filled
to the last byte (ENOSPC) in a private mount namespace, so they bind root too; and, anywhere, a
home that is not a folder (a path under a file: ENOTDIR). The state they start from is made once
by the real entry point: an environment (the stand-in torch, made outside the home), a PATH
folder added in a registry snapshot, and a recorded last good state.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from builders.wheels import bundled_pip_wheel, tiny_torch
from harness import faulty_home
from harness.entry_point import ENTRY_POINT
from harness.waits import EVENT_S

pytestmark = pytest.mark.slow

USER = "HKCU\\Environment"
CUDA_BIN = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.6\\bin"


class State:
    """A home with something set up, and how to run the entry point on it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.home = root / "home"
        self.registry = root / "registry.json"
        self.wheels = root / "wheels"

    def run(
        self, *args: str, prefix: list[str] | None = None, home: Path | None = None
    ) -> subprocess.CompletedProcess[str]:
        """``gpuwizard ARGS`` on this state's home (or ``home``), behind ``prefix`` (the fault's launcher)."""
        env = {**os.environ, "GPUWIZARD_HOME": str(home or self.home)}
        argv = [*(prefix or []), ENTRY_POINT, *args]
        return subprocess.run(argv, capture_output=True, text=True, timeout=EVENT_S, env=env, check=False)


@pytest.fixture(scope="module")
def state(tmp_path_factory: pytest.TempPathFactory) -> State:
    made = State(tmp_path_factory.mktemp("faulty-home"))
    tiny_torch(made.wheels, "2.13.0")
    shutil.copy(bundled_pip_wheel(), made.wheels)
    made.registry.write_text(json.dumps({USER: {"Path": {"type": "REG_EXPAND_SZ", "value": "C:\\tools"}}}))
    steps = [
        ("env", "create", "demo", "--framework", "pytorch", "--version", "2.13", "--find-links",
         str(made.wheels), "--offline", "--prefix", str(made.root / "envs" / "demo")),
        ("path", "add", CUDA_BIN, "--scope", "user", "--registry", str(made.registry)),
        ("verify", "--no-test", "--registry", str(made.registry)),
    ]  # fmt: skip
    for step in steps:
        done = made.run(*step)
        assert done.returncode == 0, (step, done.stdout[-2000:], done.stderr)
    assert (made.home / "last-good.json").is_file()
    return made


def files_of(folder: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def one_error_line(done: subprocess.CompletedProcess[str], home: Path) -> str:
    assert done.returncode == 2, done.stdout[-2000:] + done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("gpuwizard: error: "), done.stderr
    assert str(home) in lines[0]
    return lines[0]


def refused_then_verified(state: State, prefix: list[str], home: Path) -> None:
    """``env create`` and ``path add`` refused with one line, ``verify`` healthy and saying it saved nothing."""
    registry = state.registry.read_bytes()
    created = state.run(
        "env", "create", "other", "--framework", "pytorch", "--version", "2.13", "--find-links", str(state.wheels),
        "--offline", "--prefix", str(state.root / "envs" / "other"), prefix=prefix, home=home,
    )  # fmt: skip
    one_error_line(created, home)
    assert not (state.root / "envs" / "other").exists()

    added = state.run(
        "path", "add", "C:\\other\\bin", "--registry", str(state.registry), prefix=prefix, home=home
    )
    one_error_line(added, home)
    assert state.registry.read_bytes() == registry

    verified = state.run(
        "verify", "--no-test", "--json", "--registry", str(state.registry), prefix=prefix, home=home
    )
    assert verified.returncode == 0, verified.stdout[-2000:] + verified.stderr
    assert "Traceback" not in verified.stderr
    result = json.loads(verified.stdout.splitlines()[-1])
    assert (result["event"], result["status"], result["healthy"], result["saved"]) == (
        "result",
        "complete",
        True,
        None,
    )
    assert str(home) in result["save_error"]
    assert verified.stderr.splitlines() == [
        f"gpuwizard: warning: the last good state was not saved: {result['save_error']}"
    ]
    assert {check["check_id"]: check["status"] for check in result["checks"]}["env:demo:constraints"] == "ok"


@pytest.mark.parametrize("kind", faulty_home.KINDS)
def test_a_read_only_or_full_home_is_one_line_and_verify_still_reports(state: State, kind: str):
    why = faulty_home.unavailable(kind)
    if why is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must run this test: {why}")
        pytest.skip(why)
    before = files_of(state.home)
    with faulty_home.faulty(kind, state.home) as prefix:
        refused_then_verified(state, prefix, state.home)
    assert files_of(state.home) == before


def test_a_home_that_is_not_a_folder_is_one_line_and_verify_still_reports(state: State, tmp_path: Path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n")
    home = blocker / "home"
    created = state.run(
        "env", "create", "other", "--framework", "pytorch", "--version", "2.13", "--find-links", str(state.wheels),
        "--offline", "--prefix", str(tmp_path / "other"), home=home,
    )  # fmt: skip
    # One line: nothing is damaged (no warning about environments.json), the home is no folder.
    one_error_line(created, home)
    assert created.stderr.startswith(f"gpuwizard: error: the wizard's state cannot be written in {home} ")
    assert not (tmp_path / "other").exists()
    added = state.run("path", "add", "C:\\other\\bin", "--registry", str(state.registry), home=home)
    one_error_line(added, home)
    verified = state.run("verify", "--no-test", "--json", "--registry", str(state.registry), home=home)
    assert "Traceback" not in verified.stderr
    assert "warning" not in verified.stderr, verified.stderr
    assert json.loads(verified.stdout.splitlines()[-1])["event"] == "result"
    assert blocker.read_text() == "not a folder\n"
