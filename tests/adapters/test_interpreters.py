"""Finding Python interpreters: real interpreters on a temporary PATH, launchers and managed installs."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from fakes.runner import FakeRunner
from gpuwizard.adapters.interpreters import find_interpreters, own_python
from gpuwizard.adapters.runner import SubprocessRunner

REAL = os.path.realpath(sys.executable)


def test_own_python():
    own = own_python()
    assert own.version == ".".join(map(str, sys.version_info[:3]))
    assert own.bits in (32, 64) and own.source == "self" and not own.ms_store


def test_real_interpreters_on_path_are_asked_and_deduplicated(tmp_path: Path):
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    (first / "python3").symlink_to(REAL)
    (second / "python3.11").symlink_to(REAL)  # the same interpreter under another name
    found = find_interpreters("linux", [str(first), str(second)], SubprocessRunner(), {}, home=tmp_path)
    assert len(found) == 1
    assert found[0].version == ".".join(map(str, sys.version_info[:3])) and found[0].source == "path"
    assert os.path.realpath(found[0].executable) == REAL


def test_launcher_scripts_such_as_pyenv_shims_are_not_run(tmp_path: Path):
    shims = tmp_path / "shims"
    shims.mkdir()
    shim = shims / "python3"
    shim.write_text('#!/usr/bin/env bash\nexec pyenv exec python3 "$@"\n')
    shim.chmod(0o755)
    runner = FakeRunner()
    assert find_interpreters("linux", [str(shims)], runner, {}, home=tmp_path) == []
    assert runner.calls == []


def install(path: Path) -> None:
    """A separate interpreter binary (never started: the folder name tells its version)."""
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\x7fELF")
    path.chmod(0o755)


def test_pyenv_and_uv_installs_are_named_by_their_folders(tmp_path: Path):
    for version in ("3.10.13", "3.9.18"):
        install(tmp_path / ".pyenv" / "versions" / version / "bin" / "python")
    install(
        tmp_path
        / ".local"
        / "share"
        / "uv"
        / "python"
        / "cpython-3.12.7-linux-x86_64-gnu"
        / "bin"
        / "python3"
    )
    runner = FakeRunner()
    found = find_interpreters("linux", [], runner, {}, home=tmp_path)
    assert [(p.version, p.source, p.bits) for p in found] == [
        ("3.9.18", "pyenv", None),
        ("3.10.13", "pyenv", None),
        ("3.12.7", "uv", 64),
    ]
    assert runner.calls == []  # named by folder: nothing had to be started


def test_windows_py_launcher_listing_is_used_default_first(tmp_path: Path):
    windows = tmp_path / "Windows"
    windows.mkdir()
    (windows / "py.exe").write_bytes(b"MZ")
    listing = (
        " -V:3.12          C:\\Python312\\python.exe\n"
        " -V:3.11 *        C:\\Users\\a\\AppData\\Local\\Programs\\Python\\Python311\\python.exe\n"
    )
    runner = FakeRunner().when("py", "-0p").answer(listing)
    runner.when("python", "sys.version_info").answer(
        "3.11.9 64 C:\\Users\\a\\AppData\\Local\\Programs\\Python\\Python311\\python.exe"
    )
    found = find_interpreters("windows", [], runner, {"SystemRoot": str(windows)}, home=tmp_path)
    # Both listed paths are asked (the fake answers both with the 3.11 interpreter's reply).
    assert [p.source for p in found] == ["py-launcher"]
    assert found[0].executable.endswith("Python311\\python.exe")
    assert [call[0] for call in runner.calls][1:] == [
        "C:\\Users\\a\\AppData\\Local\\Programs\\Python\\Python311\\python.exe",
        "C:\\Python312\\python.exe",
    ]


def test_the_store_python_alias_is_marked(tmp_path: Path):
    apps = tmp_path / "AppData" / "Local" / "Microsoft" / "WindowsApps"
    apps.mkdir(parents=True)
    (apps / "python.exe").write_bytes(b"")
    store = "C:\\Program Files\\WindowsApps\\PythonSoftwareFoundation.Python.3.11_3.11.2544.0_x64__qbz5n2kfra8p0\\python.exe"
    runner = FakeRunner().when("python", "sys.version_info").answer(f"3.11.9 64 {store}")
    (found,) = find_interpreters(
        "windows", [str(apps)], runner, {"SystemRoot": str(tmp_path / "none")}, home=tmp_path
    )
    assert found.ms_store and found.executable == store


def test_an_interpreter_that_does_not_answer_is_left_out(tmp_path: Path):
    folder = tmp_path / "bin"
    folder.mkdir()
    broken = folder / "python3"
    broken.write_bytes(b"\x7fELF broken")
    broken.chmod(0o755)
    assert find_interpreters("linux", [str(folder)], SubprocessRunner(), {}, home=tmp_path) == []
