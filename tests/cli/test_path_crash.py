r"""``gpuwizard path`` killed at every write, rename and unlink it makes (issue 33, points 6 and 8).

A tester killed ``path add 'C:\CUDA\v12.4\bin' --registry SNAP.json`` at its second rename (the
snapshot's): the journal entry stayed ``pending`` for good, and ``path undo --all`` (what the
uninstaller runs) then exited 1 for ever; the kills also left 74 temporary copies of PATH
beside the snapshot and in the home.

Here strace's fault injection (``-e inject=NAME:signal=SIGKILL:when=N``, strace(1)) kills the
real command on entry to its N-th call of each of those system calls, for every N the command
makes, in a seeded sample of scenarios: a snapshot with awkward PATH values (quotes, empty
segments, ``%VARS%``, non-ASCII, sometimes a lone surrogate), and ``path add``, ``path remove``
and ``path undo --all`` one after the other, each killed in turn. After each kill the next
command (the same one again, ``undo --all`` straight away, or ``show``; sometimes killed too)
exits 0 and leaves no pending entry, and then ``path undo --all`` gives back the starting
snapshot byte for byte, with no temporary file left anywhere. Tried and failed kills and the
time are printed (``-s``). Sized for CI: a few seconds of strace per command, well under a
minute in all.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow

ENTRY_POINT = shutil.which("gpuwizard", path=str(Path(sys.executable).parent)) or "gpuwizard"
USER = "HKCU\\Environment"
SYSTEM = "HKLM\\SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Environment"
SEED = int(os.environ.get("GPUWIZARD_PATH_CRASH_SEED", "33"))
SCENARIOS = int(os.environ.get("GPUWIZARD_PATH_CRASH_SCENARIOS", "1"))
#: The calls a kill lands on: every way this libc may rename, unlink or write a file.
SYSCALLS = ("rename", "renameat", "renameat2", "unlink", "unlinkat", "write")
#: The wizard's temporary files (adapters/atomic_files.py), of this version and older ones.
TEMPORARY = re.compile(r"\.(?:snap|path-journal)-.+\.json")
_TRACED = re.compile(r"^\d+\s+(\w+)\((\d+)?")


def need_strace() -> str:
    """strace that can trace here; skipped without it, failed in CI (``CI=true``), as .ci/run installs it."""
    found = shutil.which("strace")
    why = "strace is not installed (apt-get install strace)" if found is None else None
    if found is not None:
        probe = subprocess.run(
            [found, "-f", "-o", os.devnull, "true"], capture_output=True, text=True, timeout=120, check=False
        )
        if probe.returncode != 0:
            why = f"strace cannot trace here: {probe.stderr.strip()[:200]}"
    if why is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(why)
        pytest.skip(why)
    assert found is not None
    return found


def snapshot_bytes(data: dict[str, Any]) -> bytes:
    """A snapshot as the wizard writes one (adapters/registry.py), so undo can give back its bytes."""
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8", "backslashreplace")


@dataclass
class Work:
    """One folder where every trial runs: the journal names the snapshot by its absolute path."""

    folder: Path
    strace: str
    env: dict[str, str] = field(default_factory=dict)

    @property
    def snapshot(self) -> Path:
        return self.folder / "snap.json"

    @property
    def home(self) -> Path:
        return self.folder / "home"

    @property
    def journal(self) -> Path:
        return self.home / "path-journal.json"

    def argv(self, *args: str) -> list[str]:
        return [ENTRY_POINT, "path", *args, "--registry", str(self.snapshot)]

    def run(self, argv: list[str], kill: tuple[str, int] | None = None) -> subprocess.CompletedProcess[str]:
        prefix = []
        if kill is not None:
            name, when = kill
            prefix = [self.strace, "-f", "-o", os.devnull, "-e", f"trace={name}"]
            prefix += ["-e", f"inject={name}:signal=SIGKILL:when={when}", "--"]
        return subprocess.run(
            [*prefix, *argv],
            capture_output=True,
            text=True,
            errors="backslashreplace",  # text output may carry a lone surrogate as a stray byte
            timeout=120,
            env=self.env,
            check=False,
        )

    def kill_points(self, argv: list[str]) -> list[tuple[str, int]]:
        """Each (call, ordinal) the command makes, in order, traced on the state as it is.

        Writes to standard output and error count (the ordinals are strace's) but are no kill
        points: the command's work is done by then, so a kill there is no different.
        """
        trace = self.folder.parent / "trace.txt"
        done = subprocess.run(
            [self.strace, "-f", "-o", str(trace), "-e", f"trace={','.join(SYSCALLS)}", "--", *argv],
            capture_output=True,
            text=True,
            errors="backslashreplace",
            timeout=120,
            env=self.env,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        counts: dict[str, int] = {}
        points = []
        for line in trace.read_text(encoding="utf-8", errors="replace").splitlines():
            match = _TRACED.match(line)
            if match and match.group(1) in SYSCALLS:
                counts[match.group(1)] = counts.get(match.group(1), 0) + 1
                if not (match.group(1) == "write" and match.group(2) in ("1", "2")):
                    points.append((match.group(1), counts[match.group(1)]))
        return points

    def state(self) -> tuple[bytes, bytes | None]:
        journal = self.journal.read_bytes() if self.journal.exists() else None
        return self.snapshot.read_bytes(), journal

    def restore(self, state: tuple[bytes, bytes | None]) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)
        self.home.mkdir(parents=True)
        self.snapshot.write_bytes(state[0])
        if state[1] is not None:
            self.journal.write_bytes(state[1])

    def temporaries(self) -> list[str]:
        return sorted(
            p.name
            for folder in (self.folder, self.home)
            for p in folder.iterdir()
            if TEMPORARY.fullmatch(p.name)
        )

    def pending(self) -> list[str]:
        if not self.journal.exists():
            return []
        entries = json.loads(self.journal.read_text(encoding="utf-8"))["entries"]
        return [e["id"] for e in entries if e["status"] != "applied"]


def scenario(rng: random.Random) -> tuple[dict[str, Any], list[list[str]]]:
    """A snapshot with awkward values, and the commands: add, remove, undo --all."""
    pool = [
        r"%USERPROFILE%\bin",
        r"C:\tools",
        r'"C:\Program Files\odd;name"',
        "",
        r"C:\Users\José\bin",
        r"C:\trailing\\",
        r"%LOCALAPPDATA%\Microsoft\WindowsApps",
        r"c:/forward/slashes",
        r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v11.8\bin",
    ]
    if rng.random() < 0.5:
        pool.append("C:\\odd\udc80name")  # a lone surrogate, as a real registry can hold
    user = rng.sample(pool, k=rng.randint(3, len(pool)))
    present = next(s for s in user if s and not s.startswith('"') and s.isprintable() and s.isascii())
    system = [r"%SystemRoot%\system32", "%SystemRoot%", r"%SystemRoot%\System32\Wbem"]
    data = {
        USER: {
            "Path": {"type": rng.choice(["REG_SZ", "REG_EXPAND_SZ"]), "value": ";".join(user)},
            "TEMP": {"type": "REG_EXPAND_SZ", "value": r"%USERPROFILE%\AppData\Local\Temp"},
        },
        SYSTEM: {"Path": {"type": "REG_EXPAND_SZ", "value": ";".join(system)}},
    }
    version = rng.choice(["12.4", "12.1", "11.2"])
    scope = rng.choice(["user", "system"])
    commands = [
        ["add", rf"C:\CUDA\v{version}\bin", rf"C:\CUDA\v{version}\libnvvp", "--scope", scope],
        ["remove", present.strip().replace('"', ""), "--scope", "user"],
        ["undo", "--all"],
    ]
    return data, commands


@dataclass
class Tally:
    tried: int = 0
    failed: int = 0
    not_killed: int = 0
    problems: list[str] = field(default_factory=list)


def trial(  # noqa: PLR0917 - one kill's whole situation
    work: Work,
    rng: random.Random,
    start: bytes,
    state: tuple[bytes, bytes | None],
    command: list[str],
    kill: tuple[str, int],
    tally: Tally,
) -> None:
    """Kill ``command`` at ``kill``, let the next command recover, undo everything, check."""
    work.restore(state)
    problems: list[str] = []
    killed = work.run(work.argv(*command, "--json"), kill)
    if killed.returncode == 0:
        tally.not_killed += 1  # the call never came (nothing to recover): still checked below
    elif killed.returncode not in (-9, 137):
        problems.append(f"exited {killed.returncode} before the kill: {killed.stderr.strip()}")
    next_command = rng.choice([command, ["undo", "--all"], ["show"]])
    if rng.random() < 0.25:  # the recovering command is killed too, early on
        work.run(work.argv(*next_command), rng.choice([("rename", 1), ("unlink", 1), ("write", 1)]))
    recovered = work.run(work.argv(*next_command))
    if recovered.returncode != 0:
        problems.append(f"the next command {next_command} exited {recovered.returncode}: {recovered.stderr}")
    if work.pending():
        problems.append(f"the next command {next_command} left pending entries {work.pending()}")
    undone = work.run(work.argv("undo", "--all", "--json"))
    if undone.returncode != 0:
        problems.append(f"undo --all exited {undone.returncode}: {undone.stderr.strip()}")
    if work.snapshot.read_bytes() != start:
        problems.append(f"undo --all left {work.snapshot.read_bytes()!r}")
    if work.temporaries():
        problems.append(f"temporary files left: {work.temporaries()}")
    tally.tried += 1
    if problems:
        tally.failed += 1
        tally.problems.append(f"{' '.join(command)} killed at {kill[0]} #{kill[1]}: " + "; ".join(problems))


def test_a_kill_at_any_write_rename_or_unlink_is_recovered_and_undo_all_restores_the_start(tmp_path: Path):
    work = Work(tmp_path / "work", need_strace())
    work.env = {**os.environ, "GPUWIZARD_HOME": str(work.home), "PYTHONDONTWRITEBYTECODE": "1"}
    started = time.monotonic()
    tally = Tally()
    for number in range(SCENARIOS):
        rng = random.Random(SEED * 1000 + number)  # noqa: S311 - seeded test data
        data, commands = scenario(rng)
        start = snapshot_bytes(data)
        state: tuple[bytes, bytes | None] = (start, None)
        work.restore(state)
        for command in commands:
            points = work.kill_points(work.argv(*command, "--json"))
            assert points, f"{command} made no call to kill"
            for kill in points:
                trial(work, rng, start, state, command, kill, tally)
            work.restore(state)
            done = work.run(work.argv(*command, "--json"))
            assert done.returncode == 0, done.stderr
            state = work.state()
        assert work.snapshot.read_bytes() == start  # the sequence ends with undo --all
    print(
        f"\npath crash (seed {SEED}, {SCENARIOS} scenario(s)): {tally.tried} kills tried, {tally.failed} failed, "
        f"{tally.not_killed} never reached; {time.monotonic() - started:.1f} s"
    )
    assert tally.tried > 0
    assert not tally.problems, "\n".join(tally.problems)
