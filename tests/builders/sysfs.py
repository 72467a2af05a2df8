"""PCI device folders shaped like Linux sysfs (``/sys/bus/pci/devices/0000:01:00.0``).

Each device folder holds ``vendor``, ``device`` and ``class`` files and, when a driver is bound,
a ``driver`` link to ``/sys/bus/pci/drivers/<name>`` (Linux sysfs-bus-pci ABI documentation).
The machines below transcribe recorded ``lspci -nnk`` outputs (tests/fixtures/recorded).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class PciDevice:
    address: str
    vendor: int
    device: int
    class_code: int
    driver: str | None = None


def build_sysfs(root: Path, devices: list[PciDevice]) -> Path:
    """Create ``root/bus/pci/devices/...`` for ``devices``; returns the devices folder."""
    devices_dir = root / "bus" / "pci" / "devices"
    drivers_dir = root / "bus" / "pci" / "drivers"
    devices_dir.mkdir(parents=True, exist_ok=True)
    for device in devices:
        folder = devices_dir / device.address
        folder.mkdir()
        (folder / "vendor").write_text(f"0x{device.vendor:04x}\n")
        (folder / "device").write_text(f"0x{device.device:04x}\n")
        (folder / "class").write_text(f"0x{device.class_code:06x}\n")
        if device.driver:
            (drivers_dir / device.driver).mkdir(parents=True, exist_ok=True)
            (folder / "driver").symlink_to(drivers_dir / device.driver)
    return devices_dir


#: lspci-knn_gtx970_nouveau-in-use_with-intel-igpu.txt
NOUVEAU_DESKTOP = [
    PciDevice("0000:00:02.0", 0x8086, 0x0412, 0x030000, "i915"),
    PciDevice("0000:01:00.0", 0x10DE, 0x13C2, 0x030000, "nouveau"),
]
#: lspci-k_nvidia-device-1c60_rev-ff_no-driver-in-use.txt (GTX 1060 Mobile, no driver bound)
NO_DRIVER_LAPTOP = [
    PciDevice("0000:00:02.0", 0x8086, 0x591B, 0x030000, "i915"),
    PciDevice("0000:01:00.0", 0x10DE, 0x1C60, 0x030000, None),
    PciDevice("0000:6d:00.0", 0x10EC, 0x5287, 0xFF0000, None),
]
#: lspci-nnk_gtx750ti_vfio-pci.txt (the GPU and its audio function passed to a VM)
VFIO_HOST = [
    PciDevice("0000:01:00.0", 0x10DE, 0x1380, 0x030000, "vfio-pci"),
    PciDevice("0000:01:00.1", 0x10DE, 0x0FBC, 0x040300, "vfio-pci"),
]
#: This development machine: virtio devices and an Intel host bridge, no display device.
NO_GPU_VM = [
    PciDevice("0000:00:00.0", 0x8086, 0x1237, 0x060000, None),
    PciDevice("0000:00:03.0", 0x1AF4, 0x1000, 0x020000, "virtio-pci"),
]
