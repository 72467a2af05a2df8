"""``gpuwizard verify`` notices an NVIDIA wheel removed or replaced (issue 21, point 4).

A real environment made by ``gpuwizard env create`` (a stand-in ``torch 2.13.0+cu126``: no GPU
here), into which the environment's own pip installs real wheels named as NVIDIA's are
(``nvidia-cudnn-cu11``, ``nvidia-cublas-cu11``; built here, tiny). A healthy ``verify`` records
them in the last good state; then the person uninstalls one with the environment's pip, and
``verify --json`` exits 1 with the broken ``cuda_wheels`` check and the pip command that puts it
back; then cuDNN 9 in place of cuDNN 8 is a replacement; the recorded version back is healthy.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from builders.torch_builds import torch_build
from builders.wheels import build_wheel, bundled_pip_wheel
from harness.entry_point import gpuwizard
from harness.waits import EVENT_S

UV = shutil.which("uv", path=str(Path(sys.executable).parent))


def home() -> Path:
    return Path(os.environ["GPUWIZARD_HOME"])  # a fresh one for every test (tests/conftest.py)


def events_of(done: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    events = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    assert events and events[-1]["event"] == "result", done.stdout[-2000:] + done.stderr[-2000:]
    return events


def run_as_printed(command: str) -> None:
    """Run a fix the way a person pastes it into a POSIX shell."""
    done = subprocess.run(shlex.split(command), capture_output=True, text=True, timeout=EVENT_S, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def checks(events: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {event["check_id"]: event for event in events if event["event"] == "check"}


def pip(python: str, *args: str) -> None:
    done = subprocess.run(
        [python, "-m", "pip", "--disable-pip-version-check", *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]


def nvidia_wheel(folder: Path, name: str, version: str) -> None:
    """A real installable wheel named like NVIDIA's, with a package where theirs keeps its files."""
    library = name.removeprefix("nvidia-").rsplit("-cu", 1)[0].replace("-", "_")
    build_wheel(
        folder, name, version, files={f"nvidia/{library}/__init__.py": f'__version__ = "{version}"\n'}
    )


@pytest.mark.slow
@pytest.mark.skipif(UV is None, reason="uv is a project dependency")
def test_a_removed_or_replaced_nvidia_wheel_breaks_verify_with_the_command_that_puts_it_back(tmp_path: Path):
    wheels = tmp_path / "wheels"
    torch_build(wheels, "2.13.0+cu126", "12.6")
    shutil.copy(bundled_pip_wheel(), wheels)
    for name, version in [
        ("nvidia-cudnn-cu11", "8.9.5.29"),
        ("nvidia-cudnn-cu11", "9.1.0.70"),
        ("nvidia-cublas-cu11", "11.11.3.6"),
    ]:
        nvidia_wheel(wheels, name, version)
    made = gpuwizard(
        "env", "create", "gpu", "--framework", "pytorch", "--version", "2.13",
        "--find-links", str(wheels), "--offline", "--json",
    )  # fmt: skip
    assert made.returncode == 0, made.stdout[-2000:] + made.stderr
    env = json.loads(made.stdout.splitlines()[-1])
    python = env["python"]
    offline = ("--no-index", "--find-links", str(wheels))
    pip(python, "install", *offline, "nvidia-cudnn-cu11==8.9.5.29", "nvidia-cublas-cu11==11.11.3.6")

    # Nothing recorded yet (no live test ran): no check, and this healthy run records them.
    first = gpuwizard("verify", "--json", "--no-test")
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr
    assert "env:gpu:cuda_wheels" not in checks(events_of(first))
    again = gpuwizard("verify", "--json", "--no-test")
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr
    check = checks(events_of(again))["env:gpu:cuda_wheels"]
    assert (check["kind"], check["status"], check["finding"]) == ("cuda_wheels", "ok", None)
    assert check["after"] == "nvidia-cublas-cu11==11.11.3.6, nvidia-cudnn-cu11==8.9.5.29"
    snapshot = json.loads((home() / "last-good.json").read_text())
    (recorded,) = snapshot["environments"]
    assert recorded["cuda_wheels"] == [
        {"name": "nvidia-cublas-cu11", "version": "11.11.3.6"},
        {"name": "nvidia-cudnn-cu11", "version": "8.9.5.29"},
    ]
    assert recorded["dll_hook_active"] is False  # Linux: env create writes no hook

    pip(python, "uninstall", "--yes", "nvidia-cudnn-cu11")  # "I cleaned up some packages"
    removed = gpuwizard("verify", "--json", "--no-test")
    assert removed.returncode == 1, removed.stdout[-3000:] + removed.stderr
    events = events_of(removed)
    check = checks(events)["env:gpu:cuda_wheels"]
    assert (check["status"], check["finding"]["code"]) == ("broken", "CUDA_WHEEL_REMOVED")
    assert (check["before"], check["after"]) == (
        "nvidia-cublas-cu11==11.11.3.6, nvidia-cudnn-cu11==8.9.5.29", "nvidia-cublas-cu11==11.11.3.6",
    )  # fmt: skip
    # The wheel back from the folder the environment was made from, offline, with the tool that
    # made it (uv: core/health/install_commands.py); recreating it keeps the folder too.
    fix = check["finding"]["params"]["reinstall"]
    assert fix in check["finding"]["hint"]
    words = shlex.split(fix)
    assert words[1:4] == ["pip", "install", "--python"] and words[4] == python
    assert "nvidia-cudnn-cu11==8.9.5.29" in words and words[-4:] == [
        "--find-links", str(wheels), "--offline", "--no-index",
    ]  # fmt: skip
    assert (
        f"gpuwizard env create gpu --framework pytorch --version 2.13.0 --find-links {shlex.quote(str(wheels))} "
        "--offline --replace" in check["finding"]["hint"]
    )
    assert events[-1]["healthy"] is False and events[-1]["saved"] is None
    assert "env:gpu:cuda_wheels" in events[-1]["drifted"]

    text = gpuwizard("verify", "--no-test")
    assert text.returncode == 1
    assert "BROKEN   env:gpu:cuda_wheels" in text.stdout and fix in text.stdout

    pip(python, "install", *offline, "nvidia-cudnn-cu11==9.1.0.70")  # cuDNN 9 for a cuDNN 8 build
    replaced = gpuwizard("verify", "--json", "--no-test")
    assert replaced.returncode == 1
    check = checks(events_of(replaced))["env:gpu:cuda_wheels"]
    assert (check["status"], check["finding"]["code"]) == ("broken", "CUDA_WHEEL_REPLACED")
    assert check["finding"]["params"]["after"] == "nvidia-cudnn-cu11==9.1.0.70"

    # The hint's own command, run as printed.
    run_as_printed(checks(events_of(replaced))["env:gpu:cuda_wheels"]["finding"]["params"]["reinstall"])
    healed = gpuwizard("verify", "--json", "--no-test")
    assert healed.returncode == 0, healed.stdout[-3000:]
    assert checks(events_of(healed))["env:gpu:cuda_wheels"]["status"] == "ok"
