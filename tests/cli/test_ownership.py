"""Ownership: the wizard deletes, moves or kills only what it can prove it made (issue 33).

Every command that deletes, moves or kills (``env create --replace``, ``env remove``, the
recovery that ``env list``, ``verify``, ``report`` and ``export`` run first) is fed folders
the wizard did not make (a person's own venv, a conda base installation with ``envs/``, a
symlink, ``/``, the home folder), planted or stale pending records (a restored backup, a synced
home) and hand-edited entries; nothing outside what the wizard made may change, byte for byte,
and a process the wizard did not start is never ended. Each case prints what it tried.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from builders.wheels import bundled_pip_wheel, tiny_torch
from gpuwizard.workflow.state.env_pending import record_file, removal_file
from harness.entry_point import ENTRY_POINT, gpuwizard

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX folders and signals"),
]


def tree(folder: Path) -> dict[str, str]:
    """Every entry under ``folder`` with its kind, mode and content hash (byte for byte)."""
    found: dict[str, str] = {}
    for path in sorted([folder, *folder.rglob("*")]):
        relative = str(path.relative_to(folder))
        info = path.lstat()
        if path.is_symlink():
            found[relative] = f"link {path.readlink()}"
        elif path.is_dir():
            found[relative] = f"dir {oct(info.st_mode)}"
        else:
            found[relative] = f"file {oct(info.st_mode)} {hashlib.sha256(path.read_bytes()).hexdigest()}"
    return found


@pytest.fixture
def wheels(tmp_path: Path) -> Path:
    folder = tmp_path / "wheels"
    folder.mkdir()
    tiny_torch(folder, "2.13.0")
    shutil.copy(bundled_pip_wheel(), folder)
    return folder


def create(wheels: Path, name: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return gpuwizard(
        "env", "create", name, "--framework", "pytorch", "--version", "2.13",
        "--find-links", str(wheels), "--offline", *extra,
    )  # fmt: skip


def user_venv(tmp_path: Path) -> Path:
    folder = tmp_path / "P"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    (folder / "src").mkdir()
    (folder / "src" / "train.py").write_text("w\n")
    return folder


def conda_base(tmp_path: Path) -> Path:
    folder = tmp_path / "B"
    (folder / "conda-meta").mkdir(parents=True)
    (folder / "conda-meta" / "history").write_text("==> 2026-01-01 <==\n")
    (folder / "envs" / "research").mkdir(parents=True)
    (folder / "envs" / "research" / "results.csv").write_text("epoch,loss\n1,0.5\n")
    return folder


def test_replace_never_deletes_a_folder_the_wizard_did_not_make(wheels: Path, tmp_path: Path):
    home_like = tmp_path / "home"
    (home_like / "Documents").mkdir(parents=True)
    (home_like / "Documents" / "thesis.tex").write_text("years of work")
    target = user_venv(tmp_path)
    link = tmp_path / "link-to-P"
    link.symlink_to(target)
    foreign = {
        "a person's venv": target,
        "a conda base installation": conda_base(tmp_path),
        "a home folder": home_like,
        "a symlink to a venv": link,
    }
    before = {why: tree(folder.resolve()) for why, folder in foreign.items()}
    tried = 0
    for why, folder in foreign.items():
        for extra in ((), ("--replace",)):
            done = create(wheels, "x", "--prefix", str(folder), *extra)
            tried += 1
            assert done.returncode == 2, (why, extra, done.stdout[-500:], done.stderr)
            message = done.stderr.strip()
            assert message.count("\n") == 0, (why, message)
            assert "--replace" not in message, f"{why}: --replace suggested for a folder it never replaces"
            assert "Traceback" not in done.stderr
            assert tree(folder.resolve()) == before[why], f"{why} changed by {extra}"
    assert (
        "conda installation"
        in create(wheels, "x", "--prefix", str(foreign["a conda base installation"])).stderr
    )
    assert "pyvenv.cfg" in create(wheels, "x", "--prefix", str(target)).stderr
    print(f"replace refusals: {tried} tried, 0 changed")


def test_replace_of_the_wizards_own_environment_works_and_a_foreign_marker_is_refused(
    wheels: Path, tmp_path: Path
):
    prefix = tmp_path / "mine"
    assert create(wheels, "mine", "--prefix", str(prefix)).returncode == 0
    refused = create(wheels, "mine", "--prefix", str(prefix))
    assert refused.returncode == 2
    assert "--replace" in refused.stderr  # its own environment: replacing is offered
    assert create(wheels, "mine", "--prefix", str(prefix), "--replace").returncode == 0
    # Another name may not take this folder over, even with --replace.
    other = create(wheels, "other", "--prefix", str(prefix), "--replace")
    assert other.returncode == 2
    assert "env remove mine" in other.stderr
    # A marker copied into a person's folder names an id the wizard's list does not have for it.
    theirs = user_venv(tmp_path)
    shutil.copy(prefix / "gpuwizard-env.json", theirs / "gpuwizard-env.json")
    before = tree(theirs)
    assert create(wheels, "mine", "--prefix", str(theirs), "--replace").returncode == 2
    assert tree(theirs) == before


@pytest.fixture
def sleeper(tmp_path: Path) -> Iterator[tuple[Path, subprocess.Popen[bytes]]]:
    victim = tmp_path / "VICTIM"
    (victim / "data").mkdir(parents=True)
    (victim / "data" / "results.csv").write_text("precious\n")
    (victim / "pyvenv.cfg").write_text("home = /usr/bin\n")
    process = subprocess.Popen(["sleep", "300"], cwd=victim, start_new_session=True)
    yield victim, process
    process.kill()
    process.wait()


def _start_ticks(pid: int) -> int:
    text = Path(f"/proc/{pid}/stat").read_text()
    return int(text[text.rfind(")") + 2 :].split()[19])


def _boot() -> str:
    return Path("/proc/sys/kernel/random/boot_id").read_text().strip()


def planted_records(victim: Path, pid: int) -> dict[str, dict[str, object]]:
    """Records a restored backup, a synced home or a hand could leave, all naming ``victim``."""
    base = {"schema": "gpuwizard.env-pending/1", "prefix_existed": False, "log": "x.log", "pid": 1}
    return {
        "an old record without an id": {**base, "prefix": str(victim), "backup": None},
        "a record with an id": {**base, "prefix": str(victim), "backup": None, "id": "f" * 32},
        "a record whose backup is the victim": {
            **base, "prefix": str(victim.parent / "nowhere"), "backup": str(victim), "id": "e" * 32,
            "replaces_id": "d" * 32,
        },
        "a record whose kernel is the victim": {
            **base, "prefix": str(victim.parent / "nowhere"), "backup": None, "kernel": str(victim),
            "id": "c" * 32,
        },
        "a record of /": {**base, "prefix": "/", "backup": None, "id": "b" * 32},
        "a record of the home folder": {**base, "prefix": str(Path.home()), "backup": None, "id": "a" * 32},
        # The sleep's own process id, recorded with another start time: a recycled id.
        "a record naming the process with another start": {
            **base, "prefix": str(victim), "backup": None, "id": "9" * 32,
            "tools": [[pid, _start_ticks(pid) + 1, _boot()]],
        },
        # ... and exactly, as a record restored after the id was reused would: no folder of the
        # record's carries its id, so its run is not known to have happened.
        "a record naming the process exactly": {
            **base, "prefix": str(victim), "backup": None, "id": "8" * 32,
            "tools": [[pid, _start_ticks(pid), _boot()]],
        },
    }  # fmt: skip


COMMANDS = (
    ("env", "list"),
    ("verify", "--no-test"),
    ("report", "--no-probe", "--out", "{out}/r.json"),
    ("export", "--format", "requirements", "--out", "{out}/req.txt", "--framework", "pytorch"),
)


def test_planted_pending_records_delete_nothing_and_kill_nothing(
    sleeper: tuple[Path, subprocess.Popen[bytes]], tmp_path: Path
):
    victim, process = sleeper
    before = tree(victim)
    out = tmp_path / "out"
    out.mkdir()
    started = time.monotonic()
    records = planted_records(victim, process.pid)
    for command in COMMANDS:
        planted = []
        for number, record in enumerate(records.values()):
            name = f"p{number}"
            path = record_file(name)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps({**record, "name": name}))
            planted.append(path)
        done = gpuwizard(*(part.format(out=out) for part in command))
        assert "Traceback" not in done.stderr, (command, done.stderr)
        assert process.poll() is None, f"{command[0]} ended a process the wizard did not start"
        assert tree(victim) == before, f"{command[0]} changed the victim"
        left = [path.name for path in planted if path.exists()]
        assert left == [], f"{command[0]}: records stay to be tried again by every command: {left}"
    print(
        f"planted records: {len(records) * len(COMMANDS)} tried, 0 changed, {time.monotonic() - started:.1f} s"
    )


def test_a_planted_removal_record_deletes_nothing(sleeper: tuple[Path, subprocess.Popen[bytes]]):
    victim, _process = sleeper
    before = tree(victim)
    path = removal_file("p")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(
            {
                "schema": "gpuwizard.env-removal/1",
                "name": "p",
                "id": "f" * 32,
                "path": str(victim),
                "trash": str(victim),
                "kernel": str(victim),
                "kernel_trash": str(victim),
            }
        )
    )
    done = gpuwizard("env", "list")
    assert done.returncode == 0, done.stderr
    assert tree(victim) == before


def test_a_hand_edited_entry_makes_remove_delete_nothing_of_anyone_elses(
    wheels: Path, sleeper: tuple[Path, subprocess.Popen[bytes]], tmp_path: Path
):
    victim, process = sleeper
    before = tree(victim)
    prefix = tmp_path / "env"
    assert create(wheels, "demo", "--prefix", str(prefix)).returncode == 0
    registry = Path(os.environ["GPUWIZARD_HOME"]) / "environments.json"
    original = json.loads(registry.read_text())
    for field, value in (("jupyter_kernel", str(victim)), ("path", str(victim)), ("path", "/")):
        if field == "path":
            # The environment's marker copied into the victim too: made for another folder, it
            # proves nothing about this one.
            shutil.copy(prefix / "gpuwizard-env.json", victim / "gpuwizard-env.json")
            before = tree(victim)
        data = json.loads(json.dumps(original))
        data["environments"][0][field] = value
        registry.write_text(json.dumps(data))
        done = gpuwizard("env", "remove", "demo")
        assert "Traceback" not in done.stderr
        assert tree(victim) == before, f"env remove with {field}={value} changed the victim"
        assert process.poll() is None
        if field == "jupyter_kernel":
            assert done.returncode == 0  # the environment went; the kernel it names is kept and said
            assert "kept" in done.stderr
            assert not prefix.exists()
            assert create(wheels, "demo", "--prefix", str(prefix)).returncode == 0
            original = json.loads(registry.read_text())
        else:
            assert done.returncode == 2, done.stderr
            assert "nothing was removed" in done.stderr
    registry.write_text(json.dumps(original))
    assert gpuwizard("env", "remove", "demo").returncode == 0
    assert not prefix.exists()


def test_an_environment_made_before_markers_is_never_deleted(wheels: Path, tmp_path: Path):
    prefix = tmp_path / "old"
    assert create(wheels, "old", "--prefix", str(prefix)).returncode == 0
    (prefix / "gpuwizard-env.json").unlink()  # as an earlier version left it
    registry = Path(os.environ["GPUWIZARD_HOME"]) / "environments.json"
    data = json.loads(registry.read_text())
    del data["environments"][0]["id"]
    registry.write_text(json.dumps(data))
    before = tree(prefix)
    done = gpuwizard("env", "remove", "old")
    assert done.returncode == 2
    assert "earlier version" in done.stderr
    assert tree(prefix) == before
    replaced = create(wheels, "old", "--prefix", str(prefix), "--replace")
    assert replaced.returncode == 2
    assert tree(prefix) == before
    shutil.rmtree(prefix)  # the person deletes it, as told; then the entry is forgotten
    assert gpuwizard("env", "remove", "old").returncode == 0
    assert json.loads(registry.read_text())["environments"] == []


REMOVING_CALLS = ("unlink", "unlinkat", "rmdir", "rename", "renameat", "renameat2")


def _kill_at(argv: list[str], syscall: str, when: int) -> int:
    """Run ``argv`` under strace, SIGKILLed at the ``when``-th ``syscall``; returns its exit status."""
    done = subprocess.run(
        ["strace", "-f", "-qq", "-o", "/dev/null", "-e", f"trace={syscall}",
         "-e", f"inject={syscall}:signal=SIGKILL:when={when}", *argv],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    return done.returncode


def _calls(argv: list[str]) -> dict[str, int]:
    """How many times ``argv`` makes each of :data:`REMOVING_CALLS` (``strace -c``'s table)."""
    done = subprocess.run(
        ["strace", "-f", "-c", "-e", f"trace={','.join(REMOVING_CALLS)}", *argv],
        capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    # "% time  seconds  usecs/call  calls  [errors]  syscall": calls is the fourth column.
    rows = [line.split() for line in done.stderr.splitlines()]
    return {row[-1]: int(row[3]) for row in rows if len(row) >= 5 and row[-1] in REMOVING_CALLS}


@pytest.mark.skipif(shutil.which("strace") is None and os.environ.get("CI") != "true", reason="needs strace")
def test_a_removal_killed_at_any_unlink_or_rename_is_finished_by_the_next_command(
    wheels: Path, tmp_path: Path
):
    prefix = tmp_path / "env"
    home = Path(os.environ["GPUWIZARD_HOME"])
    assert create(wheels, "demo", "--prefix", str(prefix)).returncode == 0
    calls = _calls([ENTRY_POINT, "env", "remove", "demo"])
    assert not prefix.exists()
    assert calls, "strace counted no removing calls"
    # Kill points spread over every call of every kind: the first few, the middle, the last.
    points = [
        (name, when)
        for name, total in sorted(calls.items())
        for when in sorted({1, 2, 3, total // 3, total // 2, total - 1, total})
        if 1 <= when <= total
    ]
    started = time.monotonic()
    for name, when in points:
        assert create(wheels, "demo", "--prefix", str(prefix)).returncode == 0
        status = _kill_at([ENTRY_POINT, "env", "remove", "demo"], name, when)
        listed = gpuwizard("env", "list", "--json")
        assert listed.returncode == 0, listed.stderr
        assert "Traceback" not in listed.stderr
        entries = json.loads(listed.stdout)
        if entries:  # killed before the point of no return: all there, and it still works
            assert [entry["name"] for entry in entries] == ["demo"], (name, when)
            assert (prefix / "pyvenv.cfg").is_file(), (name, when)
            assert gpuwizard("env", "remove", "demo").returncode == 0, (name, when)
        assert not prefix.exists(), (name, when, status)
        assert list(tmp_path.glob(".gpuwizard-*")) == [], (name, when)
        # Records (a temporary copy a kill left beside them is the atomic writer's to clear).
        assert not list(home.glob("pending/[!.]*")), (name, when)
    print(f"env remove killed: {len(points)} tried, 0 stuck, {time.monotonic() - started:.1f} s")


def test_a_process_the_wizard_did_not_start_survives_a_cancelled_creation(
    wheels: Path, sleeper: tuple[Path, subprocess.Popen[bytes]], tmp_path: Path
):
    """The old recovery ended every process running in the folder; a person's must survive."""
    _victim, process = sleeper
    prefix = tmp_path / "env"
    creation = subprocess.Popen(
        [ENTRY_POINT, "env", "create", "demo", "--framework", "pytorch", "--version", "2.13", "--find-links", str(wheels),
         "--offline", "--json", "--prefix", str(prefix)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    assert creation.stdout is not None
    for line in creation.stdout:
        if json.loads(line).get("phase") == "install":
            # A person's program starts working in the new environment's folder.
            helper = subprocess.Popen(["sleep", "300"], cwd=prefix, start_new_session=True)
            creation.send_signal(signal.SIGKILL)
            break
    creation.wait(60)
    try:
        assert gpuwizard("env", "list").returncode == 0
        assert helper.poll() is None, "recovery ended a process the wizard did not start"
        assert process.poll() is None
    finally:
        helper.kill()
        helper.wait()


def test_an_entry_edited_to_another_environments_id_and_folder_removes_nothing(wheels: Path, tmp_path: Path):
    first, second = tmp_path / "first", tmp_path / "second"
    assert create(wheels, "first", "--prefix", str(first)).returncode == 0
    assert create(wheels, "second", "--prefix", str(second)).returncode == 0
    registry = Path(os.environ["GPUWIZARD_HOME"]) / "environments.json"
    data = json.loads(registry.read_text())
    entries = {entry["name"]: entry for entry in data["environments"]}
    entries["first"]["id"], entries["first"]["path"] = entries["second"]["id"], entries["second"]["path"]
    registry.write_text(json.dumps(data))
    before = tree(second)
    done = gpuwizard("env", "remove", "first")
    assert done.returncode == 2, done.stderr
    assert tree(second) == before


def test_a_planted_removal_record_of_a_real_environment_forgets_nothing(wheels: Path, tmp_path: Path):
    prefix = tmp_path / "kept"
    assert create(wheels, "kept", "--prefix", str(prefix)).returncode == 0
    registry = Path(os.environ["GPUWIZARD_HOME"]) / "environments.json"
    entry = json.loads(registry.read_text())["environments"][0]
    victim = tmp_path / "elsewhere"
    victim.mkdir()
    path = removal_file("kept")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(
            {
                "schema": "gpuwizard.env-removal/1",
                "name": "kept",
                "id": entry["id"],
                "path": str(victim),
                "trash": str(tmp_path / ".gpuwizard-removing-x"),
            }
        )
    )
    listed = gpuwizard("env", "list", "--json")
    assert [item["name"] for item in json.loads(listed.stdout)] == ["kept"]
    assert (prefix / "pyvenv.cfg").is_file()


def test_the_empty_folder_a_person_gave_stays_after_remove(wheels: Path, tmp_path: Path):
    given = tmp_path / "given"
    given.mkdir()
    assert create(wheels, "given", "--prefix", str(given)).returncode == 0
    assert gpuwizard("env", "remove", "given").returncode == 0
    assert given.is_dir() and not any(given.iterdir())
    assert not list(tmp_path.glob(".gpuwizard-*"))


def test_records_copied_from_a_living_environment_touch_nothing(
    wheels: Path, sleeper: tuple[Path, subprocess.Popen[bytes]], tmp_path: Path
):
    """Second outside check: the id, folder and log of a living environment are readable in
    environments.json; a record made of them must not delete it, forget it or kill anything."""
    _victim, process = sleeper
    prefix = tmp_path / "alive"
    assert create(wheels, "alive", "--prefix", str(prefix)).returncode == 0
    registry = Path(os.environ["GPUWIZARD_HOME"]) / "environments.json"
    entry = json.loads(registry.read_text())["environments"][0]
    notes = tmp_path / "mine" / "notes"
    notes.mkdir(parents=True)
    (tmp_path / "mine" / "notes.marker").write_text("a person's file\n")
    base = {
        "schema": "gpuwizard.env-pending/1",
        "name": "alive",
        "prefix": str(prefix),
        "prefix_existed": False,
        "pid": 1,
        "id": entry["id"],
    }
    pending = {
        "another log (an undo of the living environment)": {
            **base,
            "log": "other.log",
            "backup": None,
            "tools": [[process.pid, _start_ticks(process.pid), _boot()]],
        },
        "its own log, its folder as the backup": {
            **base,
            "log": entry["log"],
            "backup": str(prefix),
            "replaces_id": entry["id"],
        },
    }
    removal = {"schema": "gpuwizard.env-removal/1", "name": "alive", "id": entry["id"]}
    removals = {
        "the trash is the environment": {**removal, "path": str(prefix), "trash": str(prefix)},
        "the trash is a person's folder": {**removal, "path": str(prefix), "trash": str(notes)},
    }  # fmt: skip
    before, mine = tree(prefix), tree(tmp_path / "mine")
    for why, record in [*pending.items(), *removals.items()]:
        path = record_file("alive") if record["schema"] == base["schema"] else removal_file("alive")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(record))
        listed = gpuwizard("env", "list", "--json")
        assert listed.returncode == 0, (why, listed.stderr)
        assert [item["name"] for item in json.loads(listed.stdout)] == ["alive"], why
        assert tree(prefix) == before, why
        assert tree(tmp_path / "mine") == mine, why
        assert process.poll() is None, why


@pytest.mark.skipif(shutil.which("strace") is None and os.environ.get("CI") != "true", reason="needs strace")
@pytest.mark.parametrize(("syscall", "when"), [("rmdir", -1), ("mkdir", -1), ("unlinkat", -1)])
def test_the_empty_folder_a_person_gave_stays_whenever_remove_is_killed(
    wheels: Path, tmp_path: Path, syscall: str, when: int
):
    given = tmp_path / "given"
    given.mkdir()
    assert create(wheels, "given", "--prefix", str(given)).returncode == 0
    total = _calls_of([ENTRY_POINT, "env", "remove", "given"], syscall)
    given.mkdir(exist_ok=True)
    assert create(wheels, "given", "--prefix", str(given)).returncode == 0
    _kill_at([ENTRY_POINT, "env", "remove", "given"], syscall, total if when == -1 else when)
    assert gpuwizard("env", "list").returncode == 0
    assert gpuwizard("env", "list").returncode == 0
    assert given.is_dir(), f"killed at the last {syscall}: the folder the person gave is gone"
    assert not list(tmp_path.glob(".gpuwizard-*"))


def _calls_of(argv: list[str], syscall: str) -> int:
    done = subprocess.run(
        ["strace", "-f", "-c", "-e", f"trace={syscall}", *argv],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    rows = [line.split() for line in done.stderr.splitlines()]
    return next(int(row[3]) for row in rows if len(row) >= 5 and row[-1] == syscall)


def test_a_file_system_mounted_inside_an_environment_is_kept_whole(wheels: Path, tmp_path: Path):
    """Second outside check: rmtree descends into mount points, so a person's data set bind-mounted
    into the environment lost every file on `env remove`."""
    from harness.faulty_home import _unshare, unavailable

    why = unavailable("full")
    if why is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(why)
        pytest.skip(why)
    unshare = _unshare()
    assert unshare is not None
    prefix = tmp_path / "env"
    assert create(wheels, "mounted", "--prefix", str(prefix)).returncode == 0
    data = prefix / "data"
    data.mkdir()
    script = (
        f'mount -t tmpfs -o size=64k datasets "{data}" && echo precious > "{data}/set.csv" && '
        f'"{ENTRY_POINT}" env remove mounted; echo "rc=$?"; cat "{data}/set.csv"'
    )
    done = subprocess.run(
        [*unshare, "sh", "-c", script], capture_output=True, text=True, timeout=300, check=False
    )
    assert "precious" in done.stdout, done.stdout + done.stderr
    assert "rc=2" in done.stdout
    assert f"a file system is mounted at {data}" in done.stderr
    assert "Traceback" not in done.stderr
