"""Which GPUs are integrated, and names read from files and chips: facts, not guesses.

An Intel integrated GPU sits at PCI ``00:02.0`` (the integrated graphics device's fixed place
on Intel platforms; its SR-IOV functions at ``00:02.1``...); a discrete one is behind a PCIe
port on another bus. Where the OS gives no address (Windows' display class keys), the
marketing name tells: Intel names its discrete cards ``Arc A770``/``Arc B580``/``Arc Pro B60``
and ``Data Center GPU``, its integrated ones ``UHD``/``Iris``/``Arc Graphics``/``Arc 140V``;
AMD names its integrated GPUs ``... Graphics`` (``AMD Radeon(TM) Graphics``,
``AMD Radeon 780M Graphics``) and its cards ``RX``/``PRO W``/``Instinct``.
"""

from __future__ import annotations

import re
from typing import Final

_INTEL_DISCRETE: Final = re.compile(
    r"\bArc(?:\(TM\))?\s+(?:Pro\s+)?[AB]\d{2,3}|Data Center GPU|Iris(?:\(R\))?\s+Xe\s+MAX|\bDG[12]\b|Battlemage|Alchemist",
    re.IGNORECASE,
)
_INTEL_INTEGRATED: Final = re.compile(r"\bUHD\b|\bHD Graphics\b|\bIris\b|\bArc\b|Graphics", re.IGNORECASE)
_AMD_DISCRETE: Final = re.compile(r"\bRX\b|\bPRO\s+W\d|\bInstinct\b|Radeon\s+VII|\bFirePro\b", re.IGNORECASE)
_PCI_ADDRESS: Final = re.compile(r"^(?:[0-9a-f]+:)?([0-9a-f]+):([0-9a-f]+)\.([0-7])$", re.IGNORECASE)
_LEVEL_ZERO_FILE: Final = re.compile(r"^libze_(?:intel_gpu|loader)\.so\.(\d+(?:\.\d+)+)$")


def intel_integrated(pci_address: str | None, name: str | None) -> bool | None:
    """Whether an Intel GPU is the integrated one: its PCI place first, else its name.

    >>> intel_integrated("0000:00:02.0", None), intel_integrated("0000:03:00.0", "DG2 [Arc A770]")
    (True, False)
    >>> intel_integrated(None, "Intel(R) Arc(TM) A770 Graphics"), intel_integrated(None, "Intel(R) Arc(TM) Graphics")
    (False, True)
    >>> intel_integrated(None, "Intel(R) Arc(TM) Pro B60 Graphics"), intel_integrated(None, None)
    (False, None)
    """
    if pci_address:
        match = _PCI_ADDRESS.match(pci_address.strip())
        if match:
            bus, device = int(match.group(1), 16), int(match.group(2), 16)
            return bus == 0 and device == 2
    if not name:
        return None
    if _INTEL_DISCRETE.search(name):
        return False
    return True if _INTEL_INTEGRATED.search(name) else None


def amd_integrated_from_name(name: str | None) -> bool | None:
    """Whether an AMD GPU is integrated, from its Windows name; None when the name does not say.

    >>> amd_integrated_from_name("AMD Radeon(TM) Graphics"), amd_integrated_from_name("AMD Radeon RX 7900 XTX")
    (True, False)
    >>> amd_integrated_from_name("AMD Radeon 780M Graphics"), amd_integrated_from_name("Radeon Pro"), amd_integrated_from_name(None)
    (True, None, None)
    """
    if not name:
        return None
    if _AMD_DISCRETE.search(name):
        return False
    return True if name.strip().lower().endswith("graphics") else None


def apple_chip(brand: str | None) -> str | None:
    r"""The Apple chip named by ``sysctl machdep.cpu.brand_string`` (``Apple M3 Pro``), else None.

    Intel Macs answer with an Intel CPU's name; an Apple silicon Mac with ``Apple M1``...
    (even to a process translated by Rosetta). Early macOS 11 builds answered ``Apple
    processor``, which is still Apple silicon.

    >>> apple_chip("Apple M3 Pro\n"), apple_chip("Intel(R) Core(TM) i7-9750H CPU @ 2.60GHz"), apple_chip("")
    ('Apple M3 Pro', None, None)
    """
    text = (brand or "").strip()
    return text if text.startswith("Apple ") else None


def level_zero_version(file_name: str) -> str | None:
    """The version a Level Zero library's file name carries (the compute-runtime's build).

    ``libze_intel_gpu.so.1.14.37020`` is the driver that ``sycl-ls`` reports as ``[1.14.37020]``;
    ``libze_loader.so.1.28.2`` the loader.

    >>> level_zero_version("libze_intel_gpu.so.1.14.37020"), level_zero_version("libze_intel_gpu.so.1")
    ('1.14.37020', None)
    """
    match = _LEVEL_ZERO_FILE.match(file_name)
    if not match or match.group(1).count(".") < 2:
        return None  # the ``.so.1`` link names only the ABI
    return match.group(1)
