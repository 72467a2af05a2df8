"""Launcher listings, WSL kernels, Windows display adapters, readiness."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuwizard.core.findings.model import make_finding
from gpuwizard.core.machine.display_devices import display_device_from_windows, same_pci_address
from gpuwizard.core.machine.host_facts import wsl_version_from_kernel
from gpuwizard.core.machine.python_facts import parse_py_launcher_list
from gpuwizard.core.machine.readiness import gpu_readiness
from gpuwizard.core.machine.system_report import DriverFacts, GpuFacts, OsFacts, SystemReport

RECORDED = Path(__file__).parents[2] / "fixtures" / "recorded"


def test_recorded_py_0p_new_format():
    (entry,) = parse_py_launcher_list((RECORDED / "py-0p_win_new-format_single-pyenv-entry.txt").read_text())
    assert entry.executable.endswith("\\versions\\3.9.13\\python.exe")
    assert (entry.version_hint, entry.bits_hint, entry.default) == ("3.9", 64, False)


@pytest.mark.parametrize(
    "name", ["py-0_win_old-format_pre3.11-launcher.txt", "py--list_win_new-format_3.13t-default.txt"]
)
def test_listings_without_paths_give_no_interpreters(name: str):
    # `py -0` and `py --list` print no paths; the wizard asks `py -0p`.
    assert parse_py_launcher_list((RECORDED / name).read_text()) == []


def test_old_launcher_format_with_paths_and_the_default_marker_at_the_end():
    # The pre-3.11 launcher's -0p layout (as the recorded `py -0` shows it, with paths added).
    text = " -3.8-64        C:\\Python38\\python.exe *\n -3.7-32        C:\\Program Files (x86)\\Python37-32\\python.exe\n"
    first, second = parse_py_launcher_list(text)
    assert (first.version_hint, first.bits_hint, first.default) == ("3.8", 64, True)
    assert (second.executable, second.bits_hint) == ("C:\\Program Files (x86)\\Python37-32\\python.exe", 32)


@pytest.mark.parametrize(
    ("kernel", "version"),
    [
        ("Linux version 5.15.153.1-microsoft-standard-WSL2 (root@941d701f84f1) (gcc (GCC) 11.2.0)", 2),
        ("Linux version 4.19.128-microsoft-standard (oe-user@oe-host)", 2),
        ("Linux version 4.4.0-19041-Microsoft (Microsoft@Microsoft.com)", 1),
        ("Linux version 6.1.0-18-amd64 (debian-kernel@lists.debian.org)", None),
    ],
)
def test_wsl_versions(kernel: str, version: int | None):
    assert wsl_version_from_kernel(kernel) == version


def test_windows_display_adapters():
    # Value names and the driver-version form as in the display class key; the version string
    # 31.0.15.2686 is recorded in microsoft/WSL#9166 (tests/fixtures/recorded/SOURCES.md).
    nvidia = display_device_from_windows(
        {
            "DriverDesc": "NVIDIA GeForce RTX 3060",
            "ProviderName": "NVIDIA",
            "DriverVersion": "31.0.15.2686",
            "MatchingDeviceId": "PCI\\VEN_10DE&DEV_2504&SUBSYS_397D1462",
        }
    )
    assert nvidia is not None and (nvidia.vendor, nvidia.nvidia_driver_version) == ("nvidia", "526.86")
    basic = display_device_from_windows(
        {
            "DriverDesc": "Microsoft Basic Display Adapter",
            "ProviderName": "Microsoft",
            "DriverVersion": "10.0.22621.1",
            "MatchingDeviceId": "pci\\ven_10de&dev_2504",
        }
    )
    assert basic is not None and (basic.vendor, basic.nvidia_driver_version) == ("nvidia", None)
    assert (
        display_device_from_windows(
            {"DriverDesc": "Microsoft Remote Display Adapter", "MatchingDeviceId": "ROOT\\BasicRender"}
        )
        is None
    )


def test_pci_addresses_compare_across_domain_widths():
    assert same_pci_address("0000:83:00.0", "00000000:83:00.0")
    assert not same_pci_address("0000:83:00.0", "0000:84:00.0")


def test_readiness():
    os_facts = OsFacts("linux", False, "6.1", "x86_64")
    gpu = GpuFacts(0, "nvidia", "NVIDIA A100", "8.0", 81920)
    lost = GpuFacts(1, "nvidia", None, status="lost")
    driver = DriverFacts("555.42.02", "12.5", "nvml")
    ready = gpu_readiness(
        SystemReport(
            os=os_facts,
            driver=driver,
            gpus=(gpu, lost),
            findings=(make_finding("GPU_NOT_RESPONDING", index=1, reason="GpuIsLost"),),
        )
    )
    assert ready.ready and ready.usable_gpus == (gpu,)
    blocked = gpu_readiness(
        SystemReport(
            os=os_facts, driver=driver, gpus=(gpu,), findings=(make_finding("PYTHON_32BIT", executable="x"),)
        )
    )
    assert not blocked.ready and [f.code for f in blocked.blocking] == ["PYTHON_32BIT"]
    assert not gpu_readiness(SystemReport(os=os_facts, gpus=(gpu,))).ready
