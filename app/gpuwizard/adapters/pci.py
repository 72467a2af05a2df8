"""Linux PCI devices from sysfs: graphics hardware is visible here with or without a driver.

Each device is a folder ``/sys/bus/pci/devices/0000:01:00.0`` holding ``vendor``
(``0x10de``), ``device``, ``class`` (``0x030000``) and, when a driver is bound, a ``driver``
link whose name is the driver (``nvidia``, ``nouveau``, ``amdgpu``, ``i915``, ``xe``,
``vfio-pci``). GPUs are the display controllers and AMD's processing accelerators (the
Instinct MI300 series is class 0x1200).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Final

from gpuwizard.core.machine.display_devices import DisplayDevice, is_gpu_class, vendor_name

SYSFS_PCI_DEVICES: Final = Path("/sys/bus/pci/devices")
#: Where distributions keep the PCI id database (Debian's pci.ids / Fedora's hwdata).
PCI_IDS_FILES: Final = (Path("/usr/share/misc/pci.ids"), Path("/usr/share/hwdata/pci.ids"))


def scan_display_devices(
    root: Path = SYSFS_PCI_DEVICES, pci_ids: Iterable[Path] = PCI_IDS_FILES
) -> list[DisplayDevice]:
    """Every GPU-class PCI device under ``root`` (:func:`is_gpu_class`), in address order.

    A device folder that cannot be read is skipped; a missing ``root`` gives an empty list.
    """
    found: list[tuple[str, int, int, str | None]] = []
    try:
        folders = sorted(root.iterdir())
    except OSError:
        return []
    for folder in folders:
        try:
            vendor_id = int((folder / "vendor").read_text().strip(), 16)
            device_id = int((folder / "device").read_text().strip(), 16)
            class_code = int((folder / "class").read_text().strip(), 16)
        except (OSError, ValueError):
            continue
        if not is_gpu_class(class_code, vendor_id):
            continue
        driver_link = folder / "driver"
        driver = driver_link.resolve().name if driver_link.exists() else None
        found.append((folder.name, vendor_id, device_id, driver))
    names = _names_from_pci_ids([(v, d) for _, v, d, _ in found], pci_ids)
    return [
        DisplayDevice(
            vendor=vendor_name(vendor_id),
            name=names.get((vendor_id, device_id)),
            pci_address=address,
            kernel_driver=driver,
            pci_id=f"{vendor_id:04x}:{device_id:04x}",
        )
        for address, vendor_id, device_id, driver in found
    ]


def _names_from_pci_ids(wanted: list[tuple[int, int]], files: Iterable[Path]) -> dict[tuple[int, int], str]:
    r"""Look up "vendor device" names in the first pci.ids file present.

    The format: a vendor line ``10de  NVIDIA Corporation``, then its devices indented by one
    tab (``\t2504  GA106 [GeForce RTX 3060 Lite Hash Rate]``); deeper tabs are subsystems.
    """
    if not wanted:
        return {}
    path = next((p for p in files if p.is_file()), None)
    if path is None:
        return {}
    vendors = {vendor for vendor, _ in wanted}
    names: dict[tuple[int, int], str] = {}
    vendor: int | None = None
    vendor_label = ""
    try:
        with path.open(encoding="utf-8", errors="replace") as lines:
            for line in lines:
                if not line.strip() or line.startswith("#"):
                    continue
                if not line.startswith("\t"):
                    code, _, label = line.partition("  ")
                    try:
                        vendor = int(code, 16)
                    except ValueError:
                        vendor = None  # the device-class section at the end of the file
                    vendor_label = _short_vendor(label.strip())
                    continue
                if vendor in vendors and not line.startswith("\t\t"):
                    code, _, label = line.strip().partition("  ")
                    key = (vendor, int(code, 16))
                    if key in wanted:
                        names[key] = f"{vendor_label} {label.strip()}"
    except (OSError, ValueError):
        return names
    return names


def _short_vendor(label: str) -> str:
    """The vendor as names are written: ``NVIDIA``, ``Intel``, ``AMD`` (not ``Advanced Micro Devices, Inc. [AMD/ATI]``)."""
    if label.startswith("Advanced Micro Devices"):
        return "AMD"
    return label.removesuffix(" Corporation")
