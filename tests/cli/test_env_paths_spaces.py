"""An environment in a folder with spaces and letters outside ASCII: its pin holds for pip and uv.

Issue 33: ``env create --prefix "/home/Ana María/envs/x y"`` wrote ``constraint = /home/Ana
María/...`` into the environment's ``pip.conf`` and the same path into ``UV_CONSTRAINT``; pip splits
a config value at whitespace and uv splits ``UV_CONSTRAINT`` at spaces, so every later ``pip
install`` and ``uv pip install`` there failed ("Could not open requirements file: /home/Ana",
"File not found: Ana") while ``verify`` said Healthy. Here the real entry point makes the
environment (uv, offline, the stand-in ``torch``), then the environment's own pip, and uv with
the activation script sourced, install another wheel, refuse another torch, and ``verify`` is
healthy; with the pin broken as the old version wrote it, ``verify`` names it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from builders.wheels import build_wheel, bundled_pip_wheel, tiny_torch
from harness.entry_point import gpuwizard
from harness.waits import EVENT_S

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform == "win32", reason="sources the POSIX activation script in bash"),
]

UV = shutil.which("uv", path=str(Path(sys.executable).parent))
BASH = shutil.which("bash")
NAME = "torch-2.13 cu126"


@pytest.fixture
def wheels(tmp_path: Path) -> Path:
    folder = tmp_path / "wheels"
    tiny_torch(folder, "2.13.0")
    tiny_torch(folder, "2.12.0")  # another build, which the pin must refuse
    build_wheel(folder, "tinyextra", "1.0")
    build_wheel(folder, "tinyother", "1.0")
    shutil.copy(bundled_pip_wheel(), folder)
    return folder


def tool_env() -> dict[str, str]:
    """This environment without settings that would point pip or uv elsewhere than the pin."""
    return {
        name: value
        for name, value in os.environ.items()
        if name
        not in {"PIP_CONSTRAINT", "PIP_CONFIG_FILE", "UV_CONSTRAINT", "VIRTUAL_ENV", "PIP_REQUIRE_VIRTUALENV"}
    }


def run(argv: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, timeout=EVENT_S, env=tool_env(), check=False)


def pip(prefix: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run([str(prefix / "bin" / "python"), "-m", "pip", "install", "--no-index", *args])


def uv_activated(prefix: Path, wheels: Path, requirement: str) -> subprocess.CompletedProcess[str]:
    """``uv pip install`` as a person runs it: the environment's activation script sourced first."""
    assert BASH is not None and UV is not None
    script = 'source "$1" && exec "$2" pip install --offline --no-index --find-links "$3" "$4"'
    return run([BASH, "-c", script, "bash", str(prefix / "bin" / "activate"), UV, str(wheels), requirement])


def torch_version(prefix: Path) -> str:
    done = run([str(prefix / "bin" / "python"), "-c", "import torch; print(torch.__version__)"])
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def verify() -> tuple[int, dict[str, Any]]:
    """``verify --json`` of the environment, no live test: the exit code and its constraints check."""
    done = gpuwizard("verify", "--env", NAME, "--no-test", "--no-record", "--json", timeout=EVENT_S)
    assert done.returncode in (0, 1), done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    assert events[-1]["event"] == "result", done.stdout
    (check,) = [event for event in events if event["event"] == "check" and event["kind"] == "constraints"]
    return done.returncode, check


def test_the_pin_holds_for_pip_and_uv_in_a_folder_with_spaces_and_other_letters(tmp_path: Path, wheels: Path):
    # A user folder with a space and a Latin letter outside ASCII, a folder in Chinese, a space last.
    prefix = tmp_path / "Ana María" / "训练 数据" / "envs" / "x y"
    made = gpuwizard(
        "env", "create", NAME, "--framework", "pytorch", "--version", "2.13",
        "--find-links", str(wheels), "--offline", "--prefix", str(prefix), "--json", timeout=EVENT_S,
    )  # fmt: skip
    assert made.returncode == 0, made.stdout[-2000:] + made.stderr

    # The environment's own pip: another package installs, another torch is refused by the pin.
    assert (done := pip(prefix, "--find-links", str(wheels), "tinyextra")).returncode == 0, done.stderr
    refused = pip(prefix, "--find-links", str(wheels), "torch==2.12.0")
    assert refused.returncode != 0
    assert "torch==2.13.0" in refused.stdout + refused.stderr  # the pin is what refuses it
    # uv, with the activation's variables: the same.
    assert (done := uv_activated(prefix, wheels, "tinyother")).returncode == 0, done.stderr
    refused = uv_activated(prefix, wheels, "torch==2.12.0")
    assert refused.returncode != 0
    assert "torch==2.13.0" in refused.stderr, refused.stderr
    assert torch_version(prefix) == "2.13.0"

    code, check = verify()
    assert (code, check["status"]) == (0, "ok")

    # The pin broken as the old version wrote it: the path, spaces and all, in pip's config.
    config = prefix / "pip.conf"
    written = config.read_text(encoding="utf-8")
    pin = prefix / "gpuwizard-constraints.txt"
    config.write_text(f"[install]\nconstraint = {pin}\n", encoding="utf-8")
    assert pip(prefix, "--find-links", str(wheels), "tinyextra").returncode != 0  # what a person saw
    code, check = verify()
    assert (code, check["status"]) == (1, "broken"), check
    assert check["finding"]["code"] == "DRIFT_CONSTRAINTS_UNREAD"
    assert check["finding"]["params"]["tool"] == "pip"
    assert check["finding"]["params"]["source"] == str(config)
    config.write_text(written, encoding="utf-8")

    # And in UV_CONSTRAINT, as the old activation script set it.
    activate = prefix / "bin" / "activate"
    script = activate.read_text(encoding="utf-8")
    lines = [
        f"export UV_CONSTRAINT='{pin}'" if line.startswith("export UV_CONSTRAINT=") else line
        for line in script.splitlines()
    ]
    activate.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert uv_activated(prefix, wheels, "tinyextra").returncode != 0
    code, check = verify()
    assert (code, check["status"]) == (1, "broken"), check
    assert check["finding"]["code"] == "DRIFT_CONSTRAINTS_UNREAD"
    assert (check["finding"]["params"]["tool"], check["finding"]["params"]["source"]) == ("uv", str(activate))
    activate.write_text(script, encoding="utf-8")
    assert verify()[0] == 0
