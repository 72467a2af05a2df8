"""Crash test: ``env create`` and ``env create --replace`` killed with SIGKILL at seeded random points.

The real entry point makes a real venv (uv, offline, from a folder with a small stand-in
``torch`` whose import takes a moment); the test reads its JSON events and sends SIGKILL after
a randomly chosen one, so the kill lands in every phase across the runs (moving aside,
creating, installing, verifying, pinning, recording). Then the next command (``env list``)
must have settled it: nothing lost (the environment being replaced is back and works, or the
replacement had finished and works), nothing stuck (no half-made folder, no moved-aside copy,
no record, no process still running from the folders), and the name can be made again.

The seed is ``GPUWIZARD_CRASH_SEED`` (default 19); each run prints what it tried and found.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from builders.wheels import bundled_pip_wheel, tiny_torch
from harness.entry_point import ENTRY_POINT, gpuwizard
from harness.proc import children_of, gone
from harness.waits import until

pytestmark = [pytest.mark.slow, pytest.mark.skipif(sys.platform == "win32", reason="POSIX SIGKILL")]

SEED = int(os.environ.get("GPUWIZARD_CRASH_SEED", "19"))
KILLS_PER_KIND = 10


@pytest.fixture
def wheels(tmp_path: Path) -> Path:
    folder = tmp_path / "wheels"
    folder.mkdir()
    # The import takes a moment, so some kills land while the probe runs from the new folder.
    tiny_torch(folder, "2.13.0", init="import time; time.sleep(0.3)")
    shutil.copy(bundled_pip_wheel(), folder)
    return folder


def create_argv(wheels: Path, *extra: str) -> list[str]:
    return [
        ENTRY_POINT, "env", "create", "demo", "--framework", "pytorch", "--version", "2.13",
        "--find-links", str(wheels), "--offline", "--json", *extra,
    ]  # fmt: skip


def killed_after(argv: list[str], events_before_kill: int) -> list[dict[str, Any]]:
    """Run ``argv``; SIGKILL it once it has printed ``events_before_kill`` events (or it ended)."""
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert process.stdout is not None
    events: list[dict[str, Any]] = []
    for line in process.stdout:
        events.append(json.loads(line))
        if len(events) >= events_before_kill:
            process.send_signal(signal.SIGKILL)
            break
    process.stdout.close()
    process.wait(120)
    return events


def processes_inside(folders: list[Path]) -> list[str]:
    """Command lines of processes still running from, in, or naming one of ``folders``."""
    roots = [str(folder) for folder in folders]
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            args = (entry / "cmdline").read_bytes().split(b"\0")
            state = (entry / "status").read_text()
        except OSError:
            continue
        if "State:\tZ" in state:
            continue
        text = [os.fsdecode(arg) for arg in args]
        if any(root in arg for arg in text for root in roots):
            found.append(" ".join(text))
    return found


def settled(home: Path, prefix: Path) -> list[dict[str, Any]]:
    """``env list --json`` (which settles what the kill left), then nothing may be stuck."""
    listed = gpuwizard("env", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    assert "Traceback" not in listed.stderr
    # Moved-aside copies, folders being made and trash (workflow/envs/recovery.py, registry.py).
    leftovers = sorted(path.name for path in prefix.parent.glob(".gpuwizard-*"))
    assert leftovers == [], f"moved-aside copies left: {leftovers}"
    pending = (
        sorted(path.name for path in (home / "pending").glob("*")) if (home / "pending").is_dir() else []
    )
    assert pending == [], f"records left: {pending}"
    assert processes_inside([prefix]) == []
    return json.loads(listed.stdout)


def python_of(prefix: Path) -> Path:
    return prefix / "bin" / "python"


def works(prefix: Path) -> bool:
    done = subprocess.run(
        [str(python_of(prefix)), "-c", "import torch; print(torch.__version__)"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    return done.returncode == 0 and done.stdout.strip() == "2.13.0"


def calibrate(argv: list[str]) -> int:
    """How many events a whole creation prints (the range the kills are drawn from)."""
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    return len([line for line in done.stdout.splitlines() if line.strip()])


def test_a_creation_killed_anywhere_is_undone_by_the_next_command(wheels: Path):
    home = Path(os.environ["GPUWIZARD_HOME"])
    prefix = home / "envs" / "demo"
    total = calibrate(create_argv(wheels))
    assert gpuwizard("env", "remove", "demo").returncode == 0
    chance = random.Random(SEED)  # noqa: S311 - seeded kill points, not secrets
    outcomes: dict[str, int] = {"undone": 0, "finished": 0}
    started = time.monotonic()
    for _ in range(KILLS_PER_KIND):
        point = chance.randint(1, total)
        events = killed_after(create_argv(wheels), point)
        listed = settled(home, prefix)
        if listed:  # the kill came after the point of no return: a whole environment
            assert [entry["name"] for entry in listed] == ["demo"]
            assert works(prefix), f"killed after event {point} ({events[-1]}): a broken environment is listed"
            assert gpuwizard("env", "remove", "demo").returncode == 0
            outcomes["finished"] += 1
        else:
            assert not prefix.exists(), f"killed after event {point}: the half-made folder is still there"
            outcomes["undone"] += 1
    made = subprocess.run(create_argv(wheels), capture_output=True, text=True, timeout=600, check=False)
    assert made.returncode == 0, made.stderr
    print(
        f"\ncrash test (create), seed {SEED}: {KILLS_PER_KIND} kills tried, 0 failed "
        f"({outcomes}), {time.monotonic() - started:.1f} s"
    )


def test_a_replacement_killed_anywhere_keeps_the_original_or_the_new_one(wheels: Path):
    home = Path(os.environ["GPUWIZARD_HOME"])
    prefix = home / "envs" / "demo"
    total = calibrate(create_argv(wheels))
    chance = random.Random(SEED + 1)  # noqa: S311 - seeded kill points, not secrets
    outcomes: dict[str, int] = {"original kept": 0, "replacement finished": 0}
    started = time.monotonic()
    for round_number in range(KILLS_PER_KIND):
        marker = prefix / f"original-{round_number}.txt"
        marker.write_text("the user's environment")
        point = chance.randint(1, total + 2)  # --replace prints two more events (the move aside)
        killed_after(create_argv(wheels, "--replace"), point)
        listed = settled(home, prefix)
        assert [entry["name"] for entry in listed] == ["demo"], "the environment was lost"
        assert Path(listed[0]["path"]) == prefix
        assert works(prefix), f"killed after event {point}: what is listed does not work"
        if marker.exists():
            outcomes["original kept"] += 1
        else:
            outcomes["replacement finished"] += 1
    replaced = subprocess.run(
        create_argv(wheels, "--replace"), capture_output=True, text=True, timeout=600, check=False
    )
    assert replaced.returncode == 0, replaced.stderr
    print(
        f"\ncrash test (--replace), seed {SEED}: {KILLS_PER_KIND} kills tried, 0 failed "
        f"({outcomes}), {time.monotonic() - started:.1f} s"
    )


def test_the_tools_die_with_a_killed_wizard(tmp_path: Path):
    # Issue 19: the tools run in their own session, so after `kill -9` of the wizard the import
    # probe (or uv) kept running from the half-made folder, and the name was stuck.
    home = Path(os.environ["GPUWIZARD_HOME"])
    slow = tmp_path / "slow"
    slow.mkdir()
    tiny_torch(slow, "2.13.0", init="import time; time.sleep(300)")
    shutil.copy(bundled_pip_wheel(), slow)
    process = subprocess.Popen(
        create_argv(slow), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    assert process.stdout is not None
    children: list[int] = []
    for line in process.stdout:
        event = json.loads(line)
        if (event["event"], event.get("phase")) == ("phase", "verify"):
            while not children:  # the probe starts right after the phase is announced
                children = children_of(process.pid)
            break
    process.kill()
    process.wait(60)
    for child in children:
        until(lambda child=child: gone(child), "the import probe ended with the wizard")
    assert settled(home, home / "envs" / "demo") == []
    assert not (home / "envs" / "demo").exists()
