r"""Many ``gpuwizard path`` processes at the same moment on one registry snapshot (issue 19, point 2).

A tester ran 240 concurrent pairs of ``path add`` on one snapshot: both exited 0 and both said
"Recorded in the PATH journal", yet folders went missing from PATH, journal entries were lost,
and ``path undo --all`` (what the uninstaller runs) then refused or left entries behind.

Here at least eight real processes of the entry point's ``main`` start together: each imports
everything first, says it is ready, and then blocks reading its standard input until the test
has heard every one of them and writes to them all, so their changes really overlap. Then:
every process exited 0; every added folder is on PATH and every removed one is gone; the
journal holds exactly one applied entry per command; and ``path undo --all`` gives back the
snapshot's Path values byte for byte, value and type. Seeded, a few rounds; the counts are
printed (``-s`` shows them). Sized for CI: a loaded 2-core machine, well under a minute.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow

USER = "HKCU\\Environment"
SYSTEM = "HKLM\\SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Environment"
SEED = int(os.environ.get("GPUWIZARD_CONCURRENCY_SEED", "19"))
ROUNDS = int(os.environ.get("GPUWIZARD_CONCURRENCY_ROUNDS", "4"))
PROCESSES = 8

# A child: import everything the command needs, say "ready", wait for the word, run main().
CHILD = r"""
import sys
import gpuwizard.cli.main
import gpuwizard.cli.path
import gpuwizard.workflow.pathedit.changes
import gpuwizard.workflow.pathedit.machine
import gpuwizard.workflow.pathedit.request
import gpuwizard.workflow.state.home
import gpuwizard.workflow.state.path_journal
import gpuwizard.adapters.runner

print("ready", flush=True)
sys.stdin.read(1)
sys.exit(gpuwizard.cli.main.main(sys.argv[1:]))
"""


@dataclass(frozen=True)
class Command:
    action: str  # add or remove
    scope: str
    folder: str

    def argv(self, snapshot: Path) -> list[str]:
        return ["path", self.action, self.folder, "--scope", self.scope, "--registry", str(snapshot)]


def run_cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", CHILD, *args],
        input="g",
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "GPUWIZARD_HOME": str(home)},
        check=False,
    )


def run_together(commands: list[tuple[list[str], Path]]) -> list[subprocess.CompletedProcess[str]]:
    """Start every command, wait until each says it is ready, then let them all go at once."""
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", CHILD, *argv],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "GPUWIZARD_HOME": str(home)},
        )
        for argv, home in commands
    ]
    try:
        for process in processes:
            assert process.stdout is not None
            line = process.stdout.readline()
            assert line == "ready\n", line + (process.stderr.read() if process.stderr else "")
        for process in processes:  # the barrier opens: one byte to each, as fast as that goes
            assert process.stdin is not None
            process.stdin.write("g")
            process.stdin.flush()
        done = []
        for process, (argv, _home) in zip(processes, commands, strict=True):
            out, err = process.communicate(timeout=120)
            done.append(subprocess.CompletedProcess(argv, process.returncode, out, err))
        return done
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()


def entries(value: str) -> list[str]:
    return value.split(";") if value else []


def make_round(rng: random.Random, folder: Path) -> tuple[Path, dict[str, Any], list[Command]]:
    """A snapshot, and PROCESSES commands on it: adds of new folders and removes of present ones."""
    tag = f"{rng.randrange(16**6):06x}"
    removes = rng.randint(2, 4)
    commands: list[Command] = []
    present: dict[str, list[str]] = {"user": [], "system": []}
    for index in range(PROCESSES):
        scope = rng.choice(["user", "user", "system"])  # both keys of the one file
        if index < removes:
            name = rf"C:\present\{tag}-{index}"
            present[scope].append(name)
            commands.append(Command("remove", scope, name))
        else:
            commands.append(Command("add", scope, rf"C:\added\{tag}-{index}\bin"))
    rng.shuffle(commands)
    user = [r"%USERPROFILE%\bin", *present["user"], r"C:\tools"]
    system = [r"%SystemRoot%\system32", "%SystemRoot%", *present["system"]]
    rng.shuffle(user)
    data = {
        USER: {
            "Path": {"type": "REG_EXPAND_SZ", "value": ";".join(user)},
            "TEMP": {"type": "REG_EXPAND_SZ", "value": r"%USERPROFILE%\AppData\Local\Temp"},
        },
        SYSTEM: {"Path": {"type": rng.choice(["REG_SZ", "REG_EXPAND_SZ"]), "value": ";".join(system)}},
    }
    snapshot = folder / "registry.json"
    snapshot.write_text(json.dumps(data, indent=1), encoding="utf-8")
    return snapshot, data, commands


@dataclass
class Outcome:
    """What went wrong in one round."""

    failed: set[int]  # the commands that failed: exit code, PATH, or journal entry
    problems: list[str]
    undo_failed: bool = False


def check_round(
    snapshot: Path,
    before: dict[str, Any],
    commands: list[Command],
    done: list[subprocess.CompletedProcess[str]],
    homes: list[Path],
    *,
    undo: bool = True,
) -> Outcome:
    """Check one round; with ``undo``, then undo it all and compare with the snapshot before."""
    outcome = Outcome(set(), [])

    def fail(index: int, why: str) -> None:
        outcome.failed.add(index)
        outcome.problems.append(f"{commands[index].action} {commands[index].folder}: {why}")

    after = json.loads(snapshot.read_text(encoding="utf-8"))
    journals: dict[Path, list[dict[str, Any]]] = {}
    for home in set(homes):
        journals[home] = json.loads((home / "path-journal.json").read_text(encoding="utf-8"))["entries"]
        if len(journals[home]) != homes.count(home):
            outcome.problems.append(
                f"{home.name}: {len(journals[home])} journal entries for {homes.count(home)} commands"
            )
    for index, (command, result, home) in enumerate(zip(commands, done, homes, strict=True)):
        if result.returncode:
            fail(index, f"exited {result.returncode}: {result.stderr.strip()}")
        key = USER if command.scope == "user" else SYSTEM
        on_path = command.folder in entries(after[key]["Path"]["value"])
        if on_path != (command.action == "add"):
            fail(index, f"{'still' if on_path else 'not'} on PATH")
        mine = [
            e for e in journals[home] if e["action"] == command.action and e["folders"] == [command.folder]
        ]
        if [e["status"] for e in mine] != ["applied"]:
            fail(index, f"journal entries {[e['status'] for e in mine]}, not one applied")
    if not undo:
        return outcome
    undone = run_cli(homes[0], "path", "undo", "--all", "--registry", str(snapshot), "--json")
    if undone.returncode != 0:
        outcome.problems.append(f"undo --all exited {undone.returncode}: {undone.stderr.strip()}")
    restored = json.loads(snapshot.read_text(encoding="utf-8"))
    for key in (USER, SYSTEM):
        path, wanted = restored.get(key, {}).get("Path"), before[key]["Path"]
        if path != wanted or path["value"].encode("utf-8") != wanted["value"].encode("utf-8"):
            outcome.problems.append(f"undo --all left {key}\\Path as {path}, not {wanted}")
    if restored != before:
        outcome.problems.append("undo --all did not give the snapshot back as it was")
    outcome.undo_failed = undone.returncode != 0 or restored != before
    return outcome


def test_simultaneous_adds_and_removes_of_one_home_lose_nothing_and_undo_all_restores(tmp_path: Path):
    started = time.monotonic()
    tried = failed = undo_failed = 0
    report: list[str] = []
    for round_number in range(ROUNDS):
        rng = random.Random(SEED * 1000 + round_number)  # noqa: S311 - seeded test data
        folder = tmp_path / f"round-{round_number}"
        folder.mkdir()
        snapshot, before, commands = make_round(rng, folder)
        home = folder / "home"
        homes = [home] * len(commands)
        done = run_together([([*c.argv(snapshot), "--json"], home) for c in commands])
        outcome = check_round(snapshot, before, commands, done, homes)
        tried += len(commands)
        failed += len(outcome.failed)
        undo_failed += outcome.undo_failed
        report.extend(f"round {round_number}: {p}" for p in outcome.problems)
    print(
        f"\npath concurrency, one home: {ROUNDS} rounds of {PROCESSES} processes (seed {SEED}): "
        f"{tried} commands tried, {failed} failed; undo --all failed in {undo_failed} of {ROUNDS} rounds; "
        f"{time.monotonic() - started:.1f} s"
    )
    assert not report, "\n".join(report)


def test_simultaneous_changes_from_different_homes_on_one_snapshot_lose_nothing(tmp_path: Path):
    # Two homes' journals are separate, so only the snapshot file's own lock keeps them apart.
    # (Their changes interleave on one value, so neither home's undo --all may revert its own
    # without losing the other's: undo is not part of this one.)
    started = time.monotonic()
    tried = failed = 0
    report: list[str] = []
    rounds = max(1, ROUNDS // 2)
    for round_number in range(rounds):
        rng = random.Random(SEED * 1000 + 500 + round_number)  # noqa: S311 - seeded test data
        folder = tmp_path / f"round-{round_number}"
        folder.mkdir()
        snapshot, before, commands = make_round(rng, folder)
        homes = [folder / f"home-{index % 2}" for index in range(len(commands))]
        done = run_together([(c.argv(snapshot), h) for c, h in zip(commands, homes, strict=True)])
        outcome = check_round(snapshot, before, commands, done, homes, undo=False)
        tried += len(commands)
        failed += len(outcome.failed)
        report.extend(f"round {round_number}: {p}" for p in outcome.problems)
    print(
        f"\npath concurrency, two homes: {rounds} rounds of {PROCESSES} processes (seed {SEED}): "
        f"{tried} commands tried, {failed} failed; {time.monotonic() - started:.1f} s"
    )
    assert not report, "\n".join(report)
