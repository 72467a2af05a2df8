"""Display devices from sysfs trees transcribed from recorded lspci outputs."""

from __future__ import annotations

from pathlib import Path

from builders.sysfs import NO_DRIVER_LAPTOP, NO_GPU_VM, NOUVEAU_DESKTOP, VFIO_HOST, build_sysfs
from gpuwizard.adapters.pci import scan_display_devices

PCI_IDS = """\
# excerpt in the pci.ids format
10de  NVIDIA Corporation
\t13c2  GM204 [GeForce GTX 970]
\t\t3842 3975  GeForce GTX 970 SSC
\t1c60  GP106M [GeForce GTX 1060 Mobile 6GB]
8086  Intel Corporation
\t0412  Xeon E3-1200 v3/4th Gen Core Processor Integrated Graphics Controller
C 03  Display controller
\t00  VGA compatible controller
"""


def test_display_devices_with_their_drivers_and_names(tmp_path: Path):
    devices_dir = build_sysfs(tmp_path / "sys", NOUVEAU_DESKTOP)
    ids = tmp_path / "pci.ids"
    ids.write_text(PCI_IDS)
    found = scan_display_devices(devices_dir, [ids])
    assert [(d.vendor, d.kernel_driver, d.name) for d in found] == [
        ("intel", "i915", "Intel Xeon E3-1200 v3/4th Gen Core Processor Integrated Graphics Controller"),
        ("nvidia", "nouveau", "NVIDIA GM204 [GeForce GTX 970]"),
    ]


def test_a_gpu_without_a_driver_is_still_seen(tmp_path: Path):
    found = scan_display_devices(build_sysfs(tmp_path / "sys", NO_DRIVER_LAPTOP), [])
    nvidia = [d for d in found if d.vendor == "nvidia"]
    assert [(d.pci_address, d.kernel_driver, d.name) for d in nvidia] == [("0000:01:00.0", None, None)]
    assert len(found) == 2  # the Realtek card reader (class ff) is not a display device


def test_only_display_functions_count(tmp_path: Path):
    found = scan_display_devices(build_sysfs(tmp_path / "sys", VFIO_HOST), [])
    assert [(d.pci_address, d.kernel_driver) for d in found] == [("0000:01:00.0", "vfio-pci")]


def test_no_display_device_and_no_sysfs(tmp_path: Path):
    assert scan_display_devices(build_sysfs(tmp_path / "sys", NO_GPU_VM), []) == []
    assert scan_display_devices(tmp_path / "missing", []) == []


def test_unreadable_device_folders_are_skipped(tmp_path: Path):
    devices_dir = build_sysfs(tmp_path / "sys", NOUVEAU_DESKTOP)
    (devices_dir / "0000:00:02.0" / "class").write_text("garbage")
    assert [d.vendor for d in scan_display_devices(devices_dir, [])] == ["nvidia"]
