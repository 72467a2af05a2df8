"""Graphics hardware as the OS sees it, with or without a GPU driver.

PCI devices on Linux, display adapters in the Windows registry: this is what tells "no NVIDIA
GPU" from "an NVIDIA GPU without a working driver" when NVML cannot be loaded.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from gpuwizard.core.machine.version_sources import nvidia_driver_from_windows_version

NVIDIA_VENDOR_ID: Final = 0x10DE
AMD_VENDOR_ID: Final = 0x1002

#: PCI vendor ids of graphics vendors (PCI-SIG vendor list, as in the pci.ids database).
VENDORS: Final[dict[int, str]] = {
    0x10DE: "nvidia",
    0x1002: "amd",
    0x1022: "amd",
    0x8086: "intel",
    0x1A03: "aspeed",
    0x102B: "matrox",
    0x15AD: "vmware",
    0x1234: "qemu",
    0x1B36: "redhat",
    0x1414: "microsoft",
    0x80EE: "virtualbox",
    0x5143: "qualcomm",
}

#: PCI base class 0x03 is "display controller" (VGA 0x0300, 3D controller 0x0302 for
#: data-centre GPUs without a display output) in the PCI Code and ID Assignment spec.
DISPLAY_BASE_CLASS: Final = 0x03
#: PCI base class 0x12, "processing accelerator": AMD's Instinct MI300 series enumerate as
#: ``Processing accelerators [1200]`` (lspci), not as display controllers.
ACCELERATOR_BASE_CLASS: Final = 0x12

#: The Windows device setup class of display adapters (Microsoft, "System-Defined Device
#: Setup Classes Available to Vendors": Display {4d36e968-e325-11ce-bfc1-08002be10318}).
WINDOWS_DISPLAY_CLASS_KEY: Final = (
    r"HKLM\SYSTEM\CurrentControlSet\Control\Class\{4d36e968-e325-11ce-bfc1-08002be10318}"
)

_PCI_HARDWARE_ID: Final = re.compile(r"pci\\ven_([0-9a-f]{4})&dev_([0-9a-f]{4})", re.IGNORECASE)
#: Where the display class key keeps the version of AMD's driver package as AMD numbers it
#: (Adrenalin ``25.10.1``); ``DriverVersion`` is the Windows driver store's ``32.0.21033.3005``.
AMD_SOFTWARE_VERSION_VALUE: Final = "RadeonSoftwareVersion"
WINDOWS_REGISTRY_SOURCE: Final = "windows-registry"


@dataclass(frozen=True)
class DisplayDevice:
    """One graphics device as the OS enumerates it, driver or not.

    Attributes:
        vendor: Lower-case vendor name (``nvidia``), or ``pci:xxxx`` for an unknown id.
        name: A readable name when the OS or pci.ids gives one.
        pci_address: ``0000:01:00.0`` on Linux; None on Windows.
        kernel_driver: The Linux driver bound to it (``nvidia``, ``nouveau``), None if unbound.
        provider: The Windows driver's provider (``NVIDIA``, ``Microsoft``).
        nvidia_driver_version: On Windows, NVIDIA's version of the installed driver.
        pci_id: ``vendor:device`` in lower-case hex (``1002:744c``).
        driver_version: An AMD or Intel driver's version as its vendor numbers it (Windows).
        driver_version_source: Where that came from (``windows-registry``).
    """

    vendor: str
    name: str | None = None
    pci_address: str | None = None
    kernel_driver: str | None = None
    provider: str | None = None
    nvidia_driver_version: str | None = None
    pci_id: str | None = None
    driver_version: str | None = None
    driver_version_source: str | None = None


def vendor_name(vendor_id: int) -> str:
    """The vendor's name for a PCI vendor id.

    >>> vendor_name(0x10DE), vendor_name(0xABCD)
    ('nvidia', 'pci:abcd')
    """
    return VENDORS.get(vendor_id, f"pci:{vendor_id:04x}")


def is_display_class(class_code: int) -> bool:
    """True for PCI class codes (24-bit, ``0x030000``) of display controllers.

    >>> is_display_class(0x030000), is_display_class(0x030200), is_display_class(0x040300)
    (True, True, False)
    """
    return class_code >> 16 == DISPLAY_BASE_CLASS


def is_gpu_class(class_code: int, vendor_id: int) -> bool:
    """True for a display controller, or an AMD processing accelerator (Instinct MI300).

    Other vendors' accelerators (an Intel NPU is ``8086:7d1d``, class 0x1200) are no GPUs.

    >>> is_gpu_class(0x120000, 0x1002), is_gpu_class(0x120000, 0x8086), is_gpu_class(0x030000, 0x8086)
    (True, False, True)
    """
    if is_display_class(class_code):
        return True
    return class_code >> 16 == ACCELERATOR_BASE_CLASS and vendor_id == AMD_VENDOR_ID


def display_device_from_windows(values: Mapping[str, Any]) -> DisplayDevice | None:
    r"""Read one display-class registry key (``...\{4d36e968-...}\0000``).

    Keys without a PCI hardware id (remote-desktop and indirect display drivers) give None.
    ``MatchingDeviceId`` is the hardware id the driver was installed for; its ``ven``/``dev``
    are the PCI ids. An AMD driver's version is ``RadeonSoftwareVersion`` (the Adrenalin
    release) when the key has it, else ``DriverVersion``; Intel numbers its drivers as the
    ``DriverVersion`` (``32.0.101.6256``).

    >>> d = display_device_from_windows({
    ...     "DriverDesc": "NVIDIA GeForce RTX 3060", "ProviderName": "NVIDIA",
    ...     "DriverVersion": "31.0.15.4633", "MatchingDeviceId": "pci\\ven_10de&dev_2504"})
    >>> d.vendor, d.nvidia_driver_version, d.pci_id
    ('nvidia', '546.33', '10de:2504')
    """
    match = _PCI_HARDWARE_ID.search(str(values.get("MatchingDeviceId", "")))
    if not match:
        return None
    vendor = vendor_name(int(match.group(1), 16))
    provider = values.get("ProviderName")
    driver_version = _text(values.get("DriverVersion"))
    nvidia_version = None
    if vendor == "nvidia" and str(provider or "").upper().startswith("NVIDIA") and driver_version:
        nvidia_version = nvidia_driver_from_windows_version(driver_version)
    vendor_version = None
    if vendor == "amd":
        vendor_version = _text(values.get(AMD_SOFTWARE_VERSION_VALUE)) or driver_version
    elif vendor == "intel":
        vendor_version = driver_version
    return DisplayDevice(
        vendor=vendor,
        name=str(values["DriverDesc"]) if values.get("DriverDesc") else None,
        provider=str(provider) if provider else None,
        nvidia_driver_version=nvidia_version,
        pci_id=f"{match.group(1)}:{match.group(2)}".lower(),
        driver_version=vendor_version,
        driver_version_source=WINDOWS_REGISTRY_SOURCE if vendor_version else None,
    )


def _text(value: object) -> str | None:
    """A registry string value, None when absent or blank."""
    return value.strip() or None if isinstance(value, str) else None


def same_pci_address(first: str, second: str) -> bool:
    """Compare PCI addresses written with 4- or 8-digit domains (sysfs vs NVML).

    >>> same_pci_address("0000:01:00.0", "00000000:01:00.0")
    True
    """
    return _pci_tuple(first) == _pci_tuple(second)


def _pci_tuple(address: str) -> tuple[int, ...] | str:
    match = re.fullmatch(r"(?:([0-9a-f]+):)?([0-9a-f]+):([0-9a-f]+)\.([0-9a-f])", address.strip().lower())
    if not match:
        return address.strip().lower()
    domain = match.group(1) or "0"
    return tuple(int(part, 16) for part in (domain, match.group(2), match.group(3), match.group(4)))
