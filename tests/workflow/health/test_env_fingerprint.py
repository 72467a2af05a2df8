"""An environment's fingerprint on a folder shaped like a venv: what changes it, and what must not."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

import pytest

from builders.reports import machine
from gpuwizard.core.machine.system_report import SystemReport
from gpuwizard.workflow.health.env_fingerprint import environment_fingerprint
from gpuwizard.workflow.state.env_registry import EnvRecord

RTX = ("NVIDIA GeForce RTX 3060", "8.6")
MACHINE = machine(gpus=[RTX], driver="560.35.03", cuda_max="12.6")


@pytest.fixture
def env(tmp_path: Path) -> EnvRecord:
    """A venv's shape: pyvenv.cfg, its interpreter a link to this one, torch and its dist-info."""
    root = tmp_path / "lab"
    (root / "bin").mkdir(parents=True)
    (root / "bin" / "python").symlink_to(sys.executable)
    (root / "pyvenv.cfg").write_text("home = /usr/bin\ninclude-system-site-packages = false\n")
    site = root / "lib" / "python3.11" / "site-packages"
    (site / "torch").mkdir(parents=True)
    (site / "torch" / "__init__.py").write_text('__version__ = "2.13.0+cpu"\n')
    (site / "torch-2.13.0+cpu.dist-info").mkdir()
    (site / "torch-2.13.0+cpu.dist-info" / "RECORD").write_text("torch/__init__.py,,\n")
    (root / "lib64").symlink_to("lib")  # as venv makes it on Linux: not followed twice
    return EnvRecord("lab", str(root), str(root / "bin" / "python"), "venv", "pytorch", "2.13.0")


def site(env: EnvRecord) -> Path:
    return Path(env.path) / "lib" / "python3.11" / "site-packages"


def fingerprint(
    env: EnvRecord, *, report: SystemReport = MACHINE, environ: Mapping[str, str] | None = None
) -> str | None:
    return environment_fingerprint(env, report, environ=environ or {})


def test_the_same_environment_has_the_same_fingerprint_and_bytecode_is_no_change(env: EnvRecord):
    first = fingerprint(env)
    assert first is not None and first.startswith("sha256:")
    cache = site(env) / "torch" / "__pycache__"
    cache.mkdir()
    (cache / "__init__.cpython-311.pyc").write_bytes(b"\0" * 16)  # what an import writes
    assert fingerprint(env) == first


@pytest.mark.parametrize(
    "change",
    ["edit", "touch", "remove", "add", "new-distribution", "relink"],
)
def test_any_change_of_what_is_installed_changes_it(env: EnvRecord, change: str):
    before = fingerprint(env)
    init = site(env) / "torch" / "__init__.py"
    if change == "edit":
        init.write_text('__version__ = "2.13.0+cu126"\n')
    elif change == "touch":  # same bytes, another time: a file written again
        info = init.stat()
        os.utime(init, ns=(info.st_atime_ns, info.st_mtime_ns + 1))
    elif change == "remove":
        init.unlink()
    elif change == "add":
        (site(env) / "torch" / "_C.so").write_bytes(b"\x7fELF")
    elif change == "new-distribution":
        (site(env) / "extra-1.0.dist-info").mkdir()
    else:
        (Path(env.path) / "lib64").unlink()
        (Path(env.path) / "lib64").symlink_to("elsewhere")
    assert fingerprint(env) != before


def test_the_machine_and_the_variables_that_steer_the_framework_change_it(env: EnvRecord):
    before = fingerprint(env)
    assert fingerprint(env, report=machine(gpus=[RTX], driver="565.57.01", cuda_max="12.7")) != before
    assert fingerprint(env, environ={"CUDA_VISIBLE_DEVICES": "1"}) != before
    assert fingerprint(env, environ={"HOME": "/elsewhere", "TERM": "dumb"}) == before


def test_none_where_it_cannot_vouch(env: EnvRecord, tmp_path: Path):
    assert fingerprint(replace(env, manager="wsl", distro="Ubuntu")) is None  # files inside the distribution
    assert fingerprint(replace(env, python=str(tmp_path / "gone" / "python"))) is None
    assert fingerprint(replace(env, path=str(tmp_path / "gone"))) is None
    (Path(env.path) / "pyvenv.cfg").write_text("home = /usr/bin\ninclude-system-site-packages = true\n")
    assert fingerprint(env) is None  # the base interpreter's packages count too: outside the folder
