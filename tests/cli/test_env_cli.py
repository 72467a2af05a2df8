"""``gpuwizard env`` through the real entry point: the issue's acceptance, as a user runs it.

The PyTorch test installs the real CPU build of torch 2.13.0 and its dependencies offline from
a local folder (``builders.wheelhouses``); the cancel tests use a small stand-in ``torch`` whose
import sleeps, so the signal lands while the wizard is working.
"""

from __future__ import annotations

import json
import os
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
from harness.http_server import serve
from harness.proc import children_of

CONTRACT_FIELDS = {"name", "path", "python", "manager", "framework", "framework_version"}


@pytest.fixture
def isolated_home() -> Path:
    return Path(os.environ["GPUWIZARD_HOME"])  # set for every test by tests/conftest.py


def events_of(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


@pytest.mark.slow
def test_acceptance_create_list_remove_real_torch_offline(torch_folder: Path):
    # Any index or proxy use would show up on this server: offline means nothing is asked.
    with serve() as site:
        no_network = {
            "PIP_INDEX_URL": f"{site.url}/simple",
            "UV_INDEX_URL": f"{site.url}/simple",
            "HTTP_PROXY": site.url,
            "HTTPS_PROXY": site.url,
            "ALL_PROXY": site.url,
        }
        done = gpuwizard(
            "env", "create", "demo", "--framework", "pytorch", "--version", "2.13",
            "--find-links", str(torch_folder), "--offline", "--json",
            env=no_network,
        )  # fmt: skip
        assert site.seen == []
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    events = events_of(done.stdout)
    result = events[-1]
    assert result["event"] == "result"
    assert result["status"] == "ok"
    assert result["name"] == "demo"
    assert result["framework_version"] == "2.13.0"
    kinds = {event["event"] for event in events}
    assert {"start", "phase", "log", "progress", "result"} <= kinds
    python = result["python"]
    check = subprocess.run(
        [python, "-c", "import torch; print(torch.__version__, float(torch.ones(3).sum()))"],
        capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    assert check.stdout.split() == ["2.13.0+cpu", "3.0"]

    listed = gpuwizard("env", "list", "--json")
    assert listed.returncode == 0
    entries = json.loads(listed.stdout)
    assert [entry["name"] for entry in entries] == ["demo"]
    assert entries[0].keys() >= CONTRACT_FIELDS
    assert entries[0]["path"] == result["path"]
    assert entries[0]["python"] == python
    assert (entries[0]["manager"], entries[0]["framework"]) == ("venv", "pytorch")

    removed = gpuwizard("env", "remove", "demo")
    assert removed.returncode == 0, removed.stderr
    assert not Path(result["path"]).exists()
    assert json.loads(gpuwizard("env", "list", "--json").stdout) == []


@pytest.fixture
def sleepy_torch(tmp_path: Path) -> Path:
    folder = tmp_path / "wheels"
    folder.mkdir()
    tiny_torch(folder, "2.13.0", init="import time; time.sleep(120)")
    shutil.copy(bundled_pip_wheel(), folder)
    return folder


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("signal_number", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_part_way_exits_3_and_leaves_nothing(
    signal_number: int, sleepy_torch: Path, isolated_home: Path
):
    process = subprocess.Popen(
        [ENTRY_POINT, "env", "create", "demo", "--framework", "pytorch", "--version", "2.13",
         "--find-links", str(sleepy_torch), "--offline", "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert process.stdout is not None
    events: list[dict[str, Any]] = []
    children: list[int] = []
    for line in process.stdout:
        events.append(json.loads(line))
        if events[-1].get("phase") == "verify" and events[-1]["event"] == "phase":
            time.sleep(0.5)  # the probe is now importing the sleepy torch
            children = children_of(process.pid)
            process.send_signal(signal_number)
    assert process.wait(60) == 3
    assert events[-1]["event"] == "result"
    assert events[-1]["status"] == "cancelled"
    assert not Path(events[-1]["path"]).exists()
    assert json.loads(gpuwizard("env", "list", "--json").stdout) == []
    assert children, "the probe was not running when the signal was sent"
    for child in children:
        assert not Path(f"/proc/{child}").exists() or "State:\tZ" in Path(f"/proc/{child}/status").read_text()


@pytest.mark.parametrize("name", ["../x", "con", ""])
def test_invalid_names_exit_2_and_create_nothing(name: str, sleepy_torch: Path, isolated_home: Path):
    done = gpuwizard(
        "env",
        "create",
        name,
        "--framework",
        "pytorch",
        "--find-links",
        str(sleepy_torch),
        "--offline",
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (isolated_home / "envs").exists()
    assert not (isolated_home / "environments.json").exists()


def test_usage_errors_exit_2(sleepy_torch: Path, isolated_home: Path):
    cases = [
        ("env", "create", "demo", "--framework", "pytorch", "--offline"),
        ("env", "create", "demo", "--framework", "caffe"),
        ("env", "create", "demo", "--framework", "pytorch", "--find-links", "/no/such/folder", "--offline"),
        ("env", "remove", "never-made"),
        ("env",),
    ]
    for args in cases:
        done = gpuwizard(*args, timeout=120)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert not (isolated_home / "envs").exists()


def test_list_is_empty_json_before_anything_is_made():
    done = gpuwizard("env", "list", "--json", timeout=60)
    assert (done.returncode, json.loads(done.stdout)) == (0, [])


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("signal_number", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_while_the_machine_is_detected_cancels_with_3(
    signal_number: int, sleepy_torch: Path, isolated_home: Path
):
    # Detection asks each interpreter for its facts in a child process: the signal is sent
    # while the first one runs, long before anything is made (issue 19: this exited 130 for
    # SIGINT, and SIGTERM killed the command outright).
    process = subprocess.Popen(
        [ENTRY_POINT, "env", "create", "demo", "--framework", "pytorch", "--version", "2.13",
         "--find-links", str(sleepy_torch), "--offline", "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    while not children_of(process.pid) and process.poll() is None:
        time.sleep(0.001)
    process.send_signal(signal_number)
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 3, stderr
    assert "Traceback" not in stderr
    result = events_of(stdout)[-1]
    assert (result["event"], result["status"]) == ("result", "cancelled")
    assert not (isolated_home / "envs" / "demo").exists()
    assert json.loads(gpuwizard("env", "list", "--json").stdout) == []


@pytest.mark.slow
def test_a_folder_that_is_not_an_environment_is_not_told_to_add_replace(sleepy_torch: Path, tmp_path: Path):
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "thesis.txt").write_text("mine")
    for extra in ((), ("--replace",)):
        done = gpuwizard(
            "env", "create", "demo", "--framework", "pytorch", "--version", "2.13", "--prefix", str(folder),
            "--find-links", str(sleepy_torch), "--offline", *extra,
        )  # fmt: skip
        assert done.returncode == 2
        assert "not an environment" in done.stderr and "--replace" not in done.stderr
    assert (folder / "thesis.txt").read_text() == "mine"
