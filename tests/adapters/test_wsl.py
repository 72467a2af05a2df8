"""The WSL adapter against a stand-in ``wsl.exe`` run for real (tests/fakes/wsl_exe.py)."""

from __future__ import annotations

import itertools
import sys
import sysconfig
from pathlib import Path, PureWindowsPath

import pytest

from fakes.wsl_exe import stand_in_wsl
from gpuwizard.adapters.runner import SubprocessRunner
from gpuwizard.adapters.wsl import WslProbeFailed, WslSource, find_wsl_exe, probe_command
from gpuwizard.core.machine.system_report import WslDistroFacts
from harness.waits import EVENT_S

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the stand-in is a #! script")

LISTING = {"--list --verbose": "en-list-verbose", "--status": "en-status", "--version": "en-version"}


def source(wsl: Path, deadline_s: float = EVENT_S) -> WslSource:
    return WslSource(SubprocessRunner(), wsl, deadline_s=deadline_s)


def test_facts_from_the_three_commands_run_as_argument_lists(tmp_path: Path):
    wsl = stand_in_wsl(tmp_path / "bin", LISTING)
    facts = source(wsl.path).facts(windows_build=22631, driver_version="581.57", has_nvidia_gpu=True)
    assert [call["argv"] for call in wsl.calls()] == [["--list", "--verbose"], ["--status"], ["--version"]]
    assert all(call["WSL_UTF8"] == "1" for call in wsl.calls())
    assert facts.installed and facts.gpu_compute is True and facts.windows_build == 22631
    assert [(d.name, d.version, d.state) for d in facts.distros][:2] == [
        ("Ubuntu", 2, "running"),
        ("Legacy", 1, "stopped"),
    ]
    assert (facts.default_version, facts.wsl_version, facts.kernel_version) == (2, "2.2.4.0", "5.15.153.1-2")


def test_utf16_in_other_languages_is_decoded(tmp_path: Path):
    wsl = stand_in_wsl(
        tmp_path / "bin",
        {
            "--list --verbose": "ru-list-no-distros",
            "--status": "resw-ko-KR-status-no-virtualization",
            "--version": "ru-version",
        },
    )
    facts = source(wsl.path).facts()
    assert facts.installed and facts.distros == () and facts.virtualization is False
    assert (facts.wsl_version, facts.kernel_version, facts.default_version) == ("2.4.11.0", "5.15.167.4-1", 2)
    assert facts.detail == "подсистема Windows для Linux не имеет установленных дистрибутивов."
    assert facts.gpu_compute is None  # not asked: detection decides it once it knows the driver


def test_an_old_wsl_without_status_and_version(tmp_path: Path):
    wsl = stand_in_wsl(
        tmp_path / "bin", {"--list --verbose": "en-list-wsl1", "--status": "de-status-invalid-option"}
    )
    facts = source(wsl.path).facts()
    assert facts.installed and [d.version for d in facts.distros] == [1]
    assert (facts.default_version, facts.wsl_version) == (None, None)


def test_wsl_not_installed(tmp_path: Path):
    fixture = "en-not-installed-component"
    wsl = stand_in_wsl(
        tmp_path / "bin", {"--list --verbose": fixture, "--status": fixture, "--version": fixture}
    )
    facts = source(wsl.path).facts(windows_build=19045)
    assert not facts.installed and facts.windows_build == 19045
    assert facts.detail == "This application requires the Windows Subsystem for Linux Optional Component."


def test_no_wsl_exe_at_all():
    facts = WslSource(SubprocessRunner(), None).facts(
        windows_build=19045, driver_version="560.94", has_nvidia_gpu=True
    )
    assert (facts.installed, facts.detail, facts.gpu_compute) == (False, "wsl.exe not found", True)


def test_a_missing_executable_is_not_installed(tmp_path: Path):
    facts = source(tmp_path / "nowhere" / "wsl.exe").facts()
    assert not facts.installed and facts.detail is not None and facts.detail.startswith("wsl.exe: ")


def test_a_hanging_wsl_exe_is_given_up_at_the_deadline(tmp_path: Path):
    wsl = stand_in_wsl(tmp_path / "bin", {"--list --verbose": None})
    # The limit under test, not a guess: the stand-in never answers.
    facts = source(wsl.path, deadline_s=1.0).facts()
    assert not facts.installed
    assert facts.detail == "wsl.exe --list --verbose: no answer within the 1 s for WSL"
    assert [call["argv"] for call in wsl.calls()] == [["--list", "--verbose"]]  # nothing after


def test_one_deadline_for_all_three_commands(tmp_path: Path):
    wsl = stand_in_wsl(tmp_path / "bin", LISTING)
    ticks = itertools.count(0.0, 3.0)  # each look at the clock: 3 s later
    facts = WslSource(SubprocessRunner(), wsl.path, deadline_s=8.0, clock=lambda: next(ticks)).facts()
    # Asked at 3 s and 6 s of 8; the third would start at 9 s: not asked.
    assert [call["argv"] for call in wsl.calls()] == [["--list", "--verbose"], ["--status"]]
    assert facts.installed and facts.wsl_version is None and facts.default_version == 2


# --- inside a distribution -------------------------------------------------------------------


def distro_layout(root: Path, *, linux_driver: bool) -> Path:
    """A recorded-shape WSL 2 distribution: the Windows driver's files, os-release, meminfo."""
    wsl_lib = root / "usr" / "lib" / "wsl" / "lib"
    wsl_lib.mkdir(parents=True)
    for name in ("libcuda.so", "libcuda.so.1", "libcuda.so.1.1", "libnvidia-ml.so.1", "nvidia-smi"):
        (wsl_lib / name).write_bytes(b"")
    multiarch = root / "usr" / "lib" / "x86_64-linux-gnu"
    multiarch.mkdir(parents=True)
    # Some images link the Windows driver's libcuda here: that is no Linux driver.
    (multiarch / "libcuda.so.1").symlink_to(wsl_lib / "libcuda.so.1")
    if linux_driver:
        (multiarch / "libnvidia-ml.so.1").write_bytes(b"")
    (root / "etc").mkdir()
    (root / "etc" / "os-release").write_text('NAME="Ubuntu"\nPRETTY_NAME="Ubuntu 24.04.1 LTS"\nID=ubuntu\n')
    (root / "proc").mkdir()
    (root / "proc" / "meminfo").write_text("MemTotal:       16318412 kB\nMemFree:        15118412 kB\n")
    stdlib = root / sysconfig.get_path("stdlib").lstrip("/")
    stdlib.mkdir(parents=True)
    (stdlib / "EXTERNALLY-MANAGED").write_text("[externally-managed]\nError=use a virtual environment\n")
    return root


@pytest.mark.parametrize("linux_driver", [False, True])
def test_distro_facts_from_the_probe_run_inside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, linux_driver: bool
):
    root = distro_layout(tmp_path / "distro", linux_driver=linux_driver)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("GPUWIZARD_WSL_ROOT", str(root))
    monkeypatch.setenv("HOME", str(home))
    wsl = stand_in_wsl(tmp_path / "bin", LISTING)
    listed = WslDistroFacts("Ubuntu-24.04", 2, True, "stopped")
    facts = source(wsl.path).distro_facts("Ubuntu-24.04", listed)
    (call,) = wsl.calls()
    assert call["argv"] == [
        "--distribution",
        "Ubuntu-24.04",
        "--exec",
        "/usr/bin/python3",
        "-I",
        "-c",
        probe_command(),
    ]
    assert (facts.name, facts.version, facts.default, facts.state) == ("Ubuntu-24.04", 2, True, "stopped")
    assert (facts.libcuda, facts.nvidia_smi, facts.externally_managed) == (True, True, True)
    assert facts.linux_driver == ("/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1" if linux_driver else None)
    assert facts.python == ".".join(map(str, sys.version_info[:3]))
    assert (facts.os_name, facts.memory_total_mib) == ("Ubuntu 24.04.1 LTS", 15935)
    assert facts.home_free_mib is not None and facts.home_free_mib > 0


def test_distro_without_a_probe_answer(tmp_path: Path):
    with pytest.raises(WslProbeFailed) as failed:
        source(tmp_path / "bin" / "missing.exe").distro_facts("Ubuntu")
    assert failed.value.distro == "Ubuntu"
    with pytest.raises(WslProbeFailed, match=r"wsl\.exe not found"):
        WslSource(SubprocessRunner(), None).distro_facts("Ubuntu")


@pytest.mark.parametrize("name", ["--exec", "Ubuntu 24.04", "", "-d"])
def test_distro_names_that_wsl_refuses_are_never_passed(tmp_path: Path, name: str):
    wsl = stand_in_wsl(tmp_path / "bin", LISTING)
    with pytest.raises(ValueError, match="not a WSL distribution name"):
        source(wsl.path).distro_facts(name)
    assert wsl.calls() == []


# --- finding wsl.exe -------------------------------------------------------------------------


def test_wsl_exe_is_found_by_full_path_only():
    env = {"SystemRoot": r"D:\Win", "ProgramFiles": r"D:\Programs", "PATH": r"C:\evil"}
    seen: list[str] = []

    def exists_at(*names: str):
        def exists(path: Path) -> bool:
            seen.append(str(PureWindowsPath(path)))
            return str(PureWindowsPath(path)) in names

        return exists

    for place in (r"D:\Win\System32\wsl.exe", r"D:\Win\Sysnative\wsl.exe", r"D:\Programs\WSL\wsl.exe"):
        found = find_wsl_exe(env, exists_at(place))
        assert found is not None and str(PureWindowsPath(found)) == place
    seen.clear()
    assert find_wsl_exe(env, exists_at()) is None
    assert all(not place.startswith(r"C:\evil") for place in seen)


# --- the route's Windows step ------------------------------------------------------------------


def test_the_windows_steps_run_where_the_person_sees_them_installing_wsl_elevated():
    from gpuwizard.adapters.wsl import run_windows_step, windows_step_argv

    exe = r"C:\Windows\System32\wsl.exe"
    elevated: list[list[str]] = []
    in_console: list[list[str]] = []

    def elevate(argv):
        elevated.append(list(argv))
        return 0

    def console(argv):
        in_console.append(list(argv))
        return 0

    for step in ("install_wsl", "install_distro", "convert"):
        assert run_windows_step(exe, step, "Ubuntu-24.04", elevated=elevate, in_console=console) == 0
    assert elevated == [[exe, "--install", "--distribution", "Ubuntu-24.04"]]
    assert in_console == [
        [exe, "--install", "--distribution", "Ubuntu-24.04"],
        [exe, "--set-version", "Ubuntu-24.04", "2"],
    ]
    with pytest.raises(ValueError, match="distribution name"):
        windows_step_argv(exe, "convert", "--help")
    with pytest.raises(ValueError, match="no Windows step"):
        windows_step_argv(exe, "format", "Ubuntu")


def test_a_program_run_in_the_console_gives_its_exit_status(tmp_path: Path):
    from gpuwizard.adapters.runner import run_in_console

    assert (
        run_in_console([sys.executable, "-c", "raise SystemExit(7)"], timeout=EVENT_S, own_window=True) == 7
    )
