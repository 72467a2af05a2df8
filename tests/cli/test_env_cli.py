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
from harness.http_server import asking, ca_certificate, closed_port, serve
from harness.proc import children_of, wait_for_children

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
            children = wait_for_children(process.pid)  # the probe, importing the sleepy torch
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


# --- package indexes (issue 20, point 1) ------------------------------------------------------


def nothing_made(home: Path) -> None:
    for name in ("envs", "environments.json", "logs", "pending"):
        assert not (home / name).exists(), name


def test_acceptance_an_index_on_a_closed_port_exits_2_before_anything_is_made(isolated_home: Path):
    port = closed_port()
    with serve(tls=True) as pypi:
        pypi.put("/simple/torch/", "<html></html>", content_type="text/html")
        pypi.put("/simple/pip/", "<html></html>", content_type="text/html")
        variables = asking(
            GPUWIZARD_PYTORCH_INDEX_URL=f"https://127.0.0.1:{port}/whl", UV_DEFAULT_INDEX=f"{pypi.url}/simple"
        )
        done = gpuwizard(
            "env", "create", "newcomer", "--framework", "pytorch", "--version", "2.13", env=variables
        )
        as_json = gpuwizard(
            "env",
            "create",
            "newcomer",
            "--framework",
            "pytorch",
            "--version",
            "2.13",
            "--json",
            env=variables,
        )
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.splitlines() == [
        f"gpuwizard: error: your mirror of PyTorch's index https://127.0.0.1:{port}/whl/cpu cannot be reached: "
        f"127.0.0.1:{port} refused the connection"
    ]
    # The explanation, with the ways forward: a proxy, a mirror, a folder of wheels, PyPI's build.
    said = " ".join(done.stdout.split())
    assert (
        f"https://127.0.0.1:{port}/whl/cpu (your mirror of PyTorch's index, from GPUWIZARD_PYTORCH_INDEX_URL)"
        in said
    )
    assert "CANNOT BE REACHED: 127.0.0.1:" in said
    for way in ("HTTPS_PROXY", "GPUWIZARD_PYTORCH_INDEX_URL", "--find-links DIR --offline", "--from-pypi"):
        assert way in said, way
    assert as_json.returncode == 2 and len(as_json.stderr.splitlines()) == 1
    (sources,) = events_of(as_json.stdout)
    assert (sources["event"], sources["ok"], sources["checked"]) == ("sources", False, True)
    assert [index["failure"] for index in sources["indexes"]] == ["refused", None]
    codes = [finding["code"] for finding in sources["findings"]]
    assert codes == ["PACKAGE_INDEX_UNREACHABLE", "PYPI_BUILD_AVAILABLE"]
    nothing_made(isolated_home)


def test_a_wheel_folder_without_offline_is_told_to_add_offline(isolated_home: Path, sleepy_torch: Path):
    done = gpuwizard(
        "env", "create", "demo", "--framework", "pytorch", "--version", "2.13", "--find-links", str(sleepy_torch),
        env=asking(GPUWIZARD_PYTORCH_INDEX_URL=f"https://127.0.0.1:{closed_port()}/whl"),
    )  # fmt: skip
    assert done.returncode == 2
    assert len(done.stderr.splitlines()) == 1
    assert (
        f"the folder {sleepy_torch} is used beside the index: add --offline to install from it alone"
        in done.stderr
    )
    assert "WHEEL_FOLDER_NEEDS_OFFLINE" in done.stdout
    nothing_made(isolated_home)


@pytest.mark.parametrize(
    ("variables", "said"),
    [
        ({"GPUWIZARD_PYTORCH_INDEX_URL": "http://mirror.example/whl"}, "GPUWIZARD_PYTORCH_INDEX_URL: http://mirror.example/whl is not an https:// URL"),
        ({"UV_DEFAULT_INDEX": "http://mirror.example/simple"}, "UV_DEFAULT_INDEX: http://mirror.example/simple is not an https:// URL"),
    ],
)  # fmt: skip
def test_a_plain_http_mirror_is_refused_in_one_line(
    variables: dict[str, str], said: str, isolated_home: Path
):
    done = gpuwizard(
        "env", "create", "demo", "--framework", "pytorch", "--version", "2.13", env=asking(**variables)
    )
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"gpuwizard: error: {said} (plain http is allowed only to this machine: localhost, 127.0.0.1, ::1)"
    ]
    nothing_made(isolated_home)


def test_from_pypi_is_for_pytorch_only(isolated_home: Path):
    done = gpuwizard("env", "create", "demo", "--framework", "tensorflow", "--from-pypi")
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "gpuwizard: error: --from-pypi is for PyTorch: the other frameworks always come from PyPI"
    ]
    nothing_made(isolated_home)


@pytest.mark.slow
def test_from_pypi_installs_the_release_from_the_reachable_pypi_mirror(isolated_home: Path, tmp_path: Path):
    # PyTorch's index (here a closed port) is not asked at all; the release comes from the PyPI
    # mirror, served by a test server with https (uv trusts its CA through SSL_CERT_FILE).
    pip_only = tmp_path / "pip-only"
    pip_only.mkdir()
    shutil.copy(bundled_pip_wheel(), pip_only)
    wheel = tiny_torch(tmp_path, "2.13.0")
    with serve(tls=True) as pypi:
        page = f'<html><body><a href="../../files/{wheel.name}">{wheel.name}</a></body></html>'
        pypi.put("/simple/torch/", page, content_type="text/html")
        pypi.put(f"/files/{wheel.name}", wheel.read_bytes())
        variables = asking(
            GPUWIZARD_PYTORCH_INDEX_URL=f"https://127.0.0.1:{closed_port()}/whl",
            UV_DEFAULT_INDEX=f"{pypi.url}/simple",
            SSL_CERT_FILE=str(ca_certificate()),
        )
        done = gpuwizard(
            "env", "create", "demo", "--framework", "pytorch", "--version", "2.13", "--from-pypi",
            "--find-links", str(pip_only), "--json", env=variables,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr
        assert "/simple/torch/" in pypi.seen
    events = events_of(done.stdout)
    sources = events[0]
    assert (sources["event"], sources["ok"]) == ("sources", True)
    assert [(index["url"], index["origin"]) for index in sources["indexes"]] == [
        (f"{pypi.url}/simple", "UV_DEFAULT_INDEX")
    ]
    start = next(event for event in events if event["event"] == "start")
    assert start["index_url"] == f"{pypi.url}/simple"
    assert start["package_sources"]["install_command"].startswith(
        f"uv pip install torch==2.13.0 --index-url {pypi.url}/simple"
    )
    assert events[-1]["status"] == "ok"
