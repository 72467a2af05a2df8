"""Concurrency test: many gpuwizard processes at the same moment on one home, nothing lost.

Real processes of the real entry point, all released at once by a barrier (each waits for a
file to appear, then execs gpuwizard), on one ``GPUWIZARD_HOME``:

- environments: 8 ``env create`` of different names (plus two of one name, of which exactly one
  may make it), then 8 ``env remove`` at once;
- PATH, at the same moment as the creations: 8 ``path add`` of different folders on one
  registry snapshot, then 8 ``path remove``, then ``path undo --all`` (what the uninstaller runs).

Then every environment is listed and works, no entry of ``environments.json`` or of the PATH
journal was lost, and ``undo --all`` gives back the snapshot's ``Path`` byte for byte.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from builders.wheels import bundled_pip_wheel, tiny_torch
from harness.entry_point import ENTRY_POINT, gpuwizard

pytestmark = pytest.mark.slow

WORKERS = 8
USER = "HKCU\\Environment"
SYSTEM = "HKLM\\SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Environment"
USER_PATH = r"%USERPROFILE%\AppData\Local\Microsoft\WindowsApps;C:\tools"
SNAPSHOT: dict[str, Any] = {
    USER: {"Path": {"type": "REG_EXPAND_SZ", "value": USER_PATH}},
    SYSTEM: {"Path": {"type": "REG_EXPAND_SZ", "value": r"%SystemRoot%\system32;%SystemRoot%"}},
}

# Waits for the barrier file, then becomes the gpuwizard command (same pid: a kill reaches it).
_GATE = "import os, sys, time\nwhile not os.path.exists(sys.argv[1]): time.sleep(0.005)\nos.execv(sys.argv[2], sys.argv[2:])\n"


def start_together(commands: list[list[str]], gate: Path) -> list[subprocess.CompletedProcess[str]]:
    """Start every command, let them all go at once, and wait for each."""
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", _GATE, str(gate), ENTRY_POINT, *command],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for command in commands
    ]
    gate.touch()
    done = []
    for command, process in zip(commands, processes, strict=True):
        stdout, stderr = process.communicate(timeout=900)
        done.append(subprocess.CompletedProcess([ENTRY_POINT, *command], process.returncode, stdout, stderr))
    gate.unlink()
    return done


@pytest.fixture
def wheels(tmp_path: Path) -> Path:
    folder = tmp_path / "wheels"
    folder.mkdir()
    tiny_torch(folder, "2.13.0")
    shutil.copy(bundled_pip_wheel(), folder)
    return folder


def create(name: str, wheels: Path) -> list[str]:
    return [
        "env", "create", name, "--framework", "pytorch", "--version", "2.13",
        "--find-links", str(wheels), "--offline", "--json",
    ]  # fmt: skip


def journal_entries(home: Path) -> list[dict[str, Any]]:
    return json.loads((home / "path-journal.json").read_text(encoding="utf-8"))["entries"]


def first_round(
    home: Path, snapshot: Path, wheels: Path, *, names: list[str], folders: list[str]
) -> list[str]:
    """Creations (two of one name among them) and PATH adds, all at once; what went wrong."""
    failures: list[str] = []
    commands = [create(name, wheels) for name in names] + [create("twin", wheels), create("twin", wheels)]
    commands += [["path", "add", folder, "--registry", str(snapshot)] for folder in folders]
    done = start_together(commands, home.parent / "go-1")
    for result in done[:WORKERS] + done[WORKERS + 2 :]:
        if result.returncode != 0:
            failures.append(
                f"{' '.join(result.args[1:4])}: exit {result.returncode}: {result.stderr.strip()[-300:]}"
            )
    twins = sorted(result.returncode for result in done[WORKERS : WORKERS + 2])
    if twins != [0, 2]:
        failures.append(f"two creates of one name: exits {twins} (one must make it, one be refused)")
    assert "Traceback" not in "".join(result.stderr for result in done)

    listed = json.loads(gpuwizard("env", "list", "--json").stdout)
    if sorted(entry["name"] for entry in listed) != sorted([*names, "twin"]):
        failures.append(f"environments.json lost entries: {sorted(entry['name'] for entry in listed)}")
    for entry in listed:
        check = subprocess.run(
            [entry["python"], "-c", "import torch"], capture_output=True, timeout=60, check=False
        )
        if check.returncode != 0:
            failures.append(f"{entry['name']} does not work")
    value = json.loads(snapshot.read_text(encoding="utf-8"))[USER]["Path"]["value"]
    missing = [folder for folder in folders if folder not in value.split(";")]
    if missing:
        failures.append(f"PATH lost {missing}")
    adds = [entry for entry in journal_entries(home) if entry["action"] == "add"]
    if len(adds) != WORKERS or any(entry["status"] != "applied" for entry in adds):
        failures.append(f"journal: {len(adds)} add entries for {WORKERS} adds")

    return failures


def test_many_wizards_at_once_lose_nothing(wheels: Path, tmp_path: Path):
    home = Path(os.environ["GPUWIZARD_HOME"])
    snapshot = tmp_path / "registry.json"
    snapshot.write_text(json.dumps(SNAPSHOT, indent=1), encoding="utf-8")
    original = json.loads(snapshot.read_text(encoding="utf-8"))[USER]["Path"]
    gate = tmp_path / "go"
    names = [f"env{index}" for index in range(WORKERS)]
    folders = [rf"C:\tool{index}\bin" for index in range(WORKERS)]
    started = time.monotonic()
    failures: list[str] = []

    failures += first_round(home, snapshot, wheels, names=names, folders=folders)

    # Round 2: removals of everything, at once.
    commands = [["env", "remove", name] for name in [*names, "twin"]]
    commands += [
        ["path", "remove", folder, "--registry", str(snapshot)] for folder in folders[: WORKERS // 2]
    ]
    done = start_together(commands, gate)
    failures += [
        f"{' '.join(result.args[1:4])}: exit {result.returncode}: {result.stderr.strip()[-300:]}"
        for result in done
        if result.returncode != 0
    ]
    if json.loads(gpuwizard("env", "list", "--json").stdout) != []:
        failures.append("environments left after removing them all")
    leftovers = sorted(path.name for path in (home / "envs").iterdir()) if (home / "envs").is_dir() else []
    if leftovers:
        failures.append(f"folders left: {leftovers}")
    removes = [entry for entry in journal_entries(home) if entry["action"] == "remove"]
    if len(removes) != WORKERS // 2:
        failures.append(f"journal: {len(removes)} remove entries for {WORKERS // 2} removes")

    # What the uninstaller runs: every change undone, the value as it was, byte for byte.
    undo = gpuwizard("path", "undo", "--all", "--registry", str(snapshot))
    if undo.returncode != 0:
        failures.append(f"undo --all: exit {undo.returncode}: {undo.stderr.strip()}")
    if json.loads(snapshot.read_text(encoding="utf-8"))[USER]["Path"] != original:
        failures.append("undo --all did not restore the Path value")

    tried = 2 * len(names) + 2 + WORKERS + WORKERS // 2 + 1
    print(
        f"\nconcurrency test: {tried} commands in {WORKERS}-process rounds, {len(failures)} failed, "
        f"{time.monotonic() - started:.1f} s"
    )
    assert failures == []
