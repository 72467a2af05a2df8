"""Device files (/dev/kfd, /dev/dri/renderD*), Level Zero's libraries, and the Mac's chip."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from fakes.runner import FakeRunner
from gpuwizard.adapters import device_access
from gpuwizard.adapters.device_access import check_device
from gpuwizard.adapters.level_zero import find_level_zero
from gpuwizard.adapters.macos import SYSCTL, read_cpu_brand, read_macos_version

GPUS = Path(__file__).parents[1] / "fixtures" / "gpus"


def test_a_device_file_that_opens(tmp_path: Path):
    kfd = tmp_path / "kfd"
    kfd.write_text("")
    access = check_device(kfd)
    assert (access.present, access.usable, access.detail) == (True, True, None)


def test_a_missing_device_file(tmp_path: Path):
    access = check_device(tmp_path / "kfd")
    assert (access.present, access.usable) == (False, False)
    assert access.detail == f"{tmp_path / 'kfd'} does not exist"


@pytest.mark.skipif(not hasattr(os, "getgroups"), reason="POSIX groups")
def test_a_device_of_a_group_the_user_is_not_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """/dev/kfd is root:render 0660: a user outside render gets EACCES, and is told why."""
    import grp

    kfd = tmp_path / "kfd"
    kfd.write_text("")
    group = grp.getgrgid(kfd.stat().st_gid).gr_name

    def refused(path: object, flags: int) -> int:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(device_access.os, "open", refused)
    monkeypatch.setattr(device_access.os, "getgroups", list)
    monkeypatch.setattr(device_access.os, "getegid", lambda: -1)
    access = check_device(kfd)
    assert (access.present, access.usable) == (True, False)
    assert access.detail == f"the user is not in the {group} group"


def test_a_refusal_in_the_devices_group_says_the_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    kfd = tmp_path / "kfd"
    kfd.write_text("")
    kfd.chmod(stat.S_IRUSR)

    def refused(path: object, flags: int) -> int:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(device_access.os, "open", refused)
    access = check_device(kfd)
    assert not access.usable
    assert access.detail == f"{kfd} cannot be opened: Permission denied"


def test_level_zero_driver_and_loader_versions_from_their_file_names(tmp_path: Path):
    """compute-runtime 25.x: the driver file sycl-ls reports as [1.14.37020] (the code index's record)."""
    lib = tmp_path / "usr" / "lib" / "x86_64-linux-gnu"
    lib.mkdir(parents=True)
    for name in (
        "libze_intel_gpu.so.1",
        "libze_intel_gpu.so.1.14.37020",
        "libze_loader.so.1",
        "libze_loader.so.1.28.2",
    ):
        (lib / name).write_text("")
    found = find_level_zero([tmp_path / "missing", lib])
    assert (found.driver, found.driver_version) == (lib / "libze_intel_gpu.so.1.14.37020", "1.14.37020")
    assert (found.loader, found.loader_version) == (lib / "libze_loader.so.1.28.2", "1.28.2")


def test_level_zero_with_only_the_abi_link_and_without_it(tmp_path: Path):
    (tmp_path / "libze_loader.so.1").write_text("")
    found = find_level_zero([tmp_path])
    assert (found.driver, found.loader, found.loader_version) == (None, tmp_path / "libze_loader.so.1", None)
    assert find_level_zero([tmp_path / "missing"]).driver is None


@pytest.mark.parametrize("machine", ["macos-m1", "macos-m3pro"])
def test_the_chip_from_the_recorded_sysctl(machine: str):
    brand = (GPUS / machine / "sysctl-n-machdep.cpu.brand_string.txt").read_text()
    runner = FakeRunner().when("sysctl", "machdep.cpu.brand_string").answer(brand)
    assert read_cpu_brand(runner) == brand.strip()
    assert runner.calls == [(SYSCTL, "-n", "machdep.cpu.brand_string")]


def test_no_sysctl_answer_is_no_chip():
    assert read_cpu_brand(FakeRunner()) is None
    assert read_cpu_brand(FakeRunner().when("sysctl").answer("", returncode=1)) is None


def test_the_macos_version_is_none_elsewhere(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr("platform.mac_ver", lambda: ("", ("", "", ""), ""))
    assert read_macos_version() is None
    monkeypatch.setattr("platform.mac_ver", lambda: ("26.6.1", ("", "", ""), "arm64"))
    assert read_macos_version() == "26.6.1"
