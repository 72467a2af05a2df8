"""``gpuwizard env create --manager conda`` on a machine without conda: the acceptance of issue 23.

No conda, mamba or micromamba is on PATH, so py-rattler (inside the wizard) makes the conda
environment, for real, from a local channel the tests build (``builders.conda_channels``:
conda-forge is not reachable here) whose ``python`` package makes a working interpreter of the
test's own, and ``pip`` inside it then installs a small stand-in ``torch`` from a folder of
wheels, as the wizard installs frameworks into every conda environment.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from builders.conda_channels import python_channel
from builders.wheels import tiny_torch
from harness.conda_channel_server import held_channel
from harness.entry_point import ENTRY_POINT, gpuwizard

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the test channel's python is POSIX")

#: Only the system's folders: no conda, mamba or micromamba is found (Debian ships none).
#: NO_PROXY: a developer's proxy must not take the requests to the test server.
NO_CONDA = {
    "PATH": os.pathsep.join(["/usr/bin", "/bin"]),
    "CONDA_EXE": "",
    "MAMBA_EXE": "",
    "CONDA_PREFIX": "",
    "MAMBA_ROOT_PREFIX": "",
    "NO_PROXY": "127.0.0.1,localhost",
    "no_proxy": "127.0.0.1,localhost",
}
PYTHON_MINOR = "{}.{}".format(*sys.version_info[:2])


def events_of(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


@pytest.fixture(autouse=True)
def own_package_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # rattler's package cache (default ~/.cache/rattler, shared with pixi) stays the test's own.
    monkeypatch.setenv("RATTLER_CACHE_DIR", str(tmp_path / "rattler-cache"))


@pytest.fixture
def torch_wheels(tmp_path: Path) -> Path:
    folder = tmp_path / "wheels"
    folder.mkdir()
    tiny_torch(folder, "2.13.0")
    return folder


def create_argv(name: str, channel: str, wheels: Path, *more: str) -> list[str]:
    return [
        "env", "create", name, "--framework", "pytorch", "--version", "2.13", "--python", PYTHON_MINOR,
        "--manager", "conda", "--channel", channel, "--find-links", str(wheels), "--json", *more,
    ]  # fmt: skip


@pytest.mark.slow
def test_acceptance_conda_without_conda_create_list_remove(torch_wheels: Path) -> None:
    detected = json.loads(gpuwizard("detect", "--json", env=NO_CONDA).stdout)
    assert [detected["managers"][tool] for tool in ("conda", "mamba", "micromamba")] == [None] * 3

    channel = python_channel()
    done = gpuwizard(*create_argv("lab", str(channel), torch_wheels, "--offline"), env=NO_CONDA)

    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    events = events_of(done.stdout)
    start, result = events[0], events[-1]
    assert (start["manager"], start["tool"]) == ("conda", "rattler")
    assert start["conda_channels"] == [channel.as_uri()]
    assert (result["status"], result["manager"], result["tool"]) == ("ok", "conda", "rattler")
    prefix = Path(result["path"])
    # A conda-format environment: conda-meta records each package py-rattler linked.
    records = {path.name.rsplit("-", 2)[0] for path in (prefix / "conda-meta").glob("*.json")}
    assert {"python", "pip"} <= records
    # The engine's progress arrives as the progress events every tool gives.
    create_actions = {e["action"] for e in events if e["event"] == "progress" and e["phase"] == "create"}
    assert {"solve", "link", "installed"} <= create_actions
    assert result["python"] == str(prefix / "bin" / "python")
    check = subprocess.run(
        [result["python"], "-c", "import sys, torch; print(sys.prefix, torch.__version__)"],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    assert check.stdout.split() == [str(prefix), "2.13.0"]
    # Started without conda: its activation script sets what `conda activate` would.
    activated = subprocess.run(
        ["bash", "-c", f'source "{prefix}/bin/activate" && command -v python && echo "$CONDA_PREFIX"'],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    assert activated.stdout.split() == [str(prefix / "bin" / "python"), str(prefix)]

    listed = json.loads(gpuwizard("env", "list", "--json").stdout)
    assert [(entry["name"], entry["manager"], entry["path"]) for entry in listed] == [
        ("lab", "conda", str(prefix))
    ]
    removed = gpuwizard("env", "remove", "lab")
    assert removed.returncode == 0, removed.stderr
    assert not prefix.exists()
    assert json.loads(gpuwizard("env", "list", "--json").stdout) == []


def test_offline_conda_without_a_local_channel_is_refused(torch_wheels: Path, tmp_path: Path) -> None:
    done = gpuwizard(
        "env", "create", "lab", "--framework", "pytorch", "--version", "2.13", "--manager", "conda",
        "--find-links", str(torch_wheels), "--offline", env=NO_CONDA,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0
    assert "--channel" in done.stderr
    not_a_channel = gpuwizard(*create_argv("lab", str(tmp_path), torch_wheels, "--offline"), env=NO_CONDA)
    assert not_a_channel.returncode == 2
    assert "not an indexed conda channel" in not_a_channel.stderr
    assert json.loads(gpuwizard("env", "list", "--json").stdout) == []


def wait_for_download(process: subprocess.Popen[str]) -> list[dict[str, Any]]:
    """The events up to the engine's first download progress (the held package is then on its way)."""
    assert process.stdout is not None
    events: list[dict[str, Any]] = []
    for line in process.stdout:
        events.append(json.loads(line))
        event = events[-1]
        if (event["event"], event.get("phase"), event.get("package")) == (
            "progress",
            "create",
            "pip",
        ) and event["action"] == "download":
            return events
    raise AssertionError(f"no download progress: {events[-3:]}")


@pytest.mark.slow
@pytest.mark.parametrize("signal_number", [signal.SIGTERM])
def test_sigterm_while_py_rattler_downloads_exits_3_and_leaves_nothing(
    signal_number: int, torch_wheels: Path, tmp_path: Path
) -> None:
    # pip's archive is held back by the server until the context ends: the signal lands while
    # py-rattler downloads it, after python was linked into the prefix.
    with held_channel(python_channel(), hold=["pip"]) as served:
        process = subprocess.Popen(
            [ENTRY_POINT, *create_argv("lab", served.url, torch_wheels)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, **NO_CONDA},
        )  # fmt: skip
        events = wait_for_download(process)
        process.send_signal(signal_number)
        assert process.stdout is not None
        events += [json.loads(line) for line in process.stdout]
        assert process.wait(60) == 3
    result = events[-1]
    assert (result["event"], result["status"]) == ("result", "cancelled")
    assert not Path(result["path"]).exists()
    assert json.loads(gpuwizard("env", "list", "--json").stdout) == []
