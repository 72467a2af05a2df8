r"""The AMD kernel driver's compute topology (KFD), as text: nodes, their GPU target and PCI address.

Each node of ``/sys/class/kfd/kfd/topology/nodes/N/properties`` is one ``name value`` pair per
line (``kfd_topology.c``, ``node_show``). A node with ``simd_count 0`` is a CPU; a GPU node
carries ``gfx_target_version`` (decimal ``MMmmss``), ``vendor_id``, ``device_id`` and
``location_id``, which ``kfd_topology_add_device`` sets to ``pci_dev_id(pdev)``:
``PCI_DEVID(bus, devfn) = bus << 8 | devfn`` with ``devfn = device << 3 | function``
(``include/linux/pci.h``). Since Linux 6.6 a GPU split into compute partitions puts the
partition's number in bits 28..31 (before that, GC 9.4.3 ORed it into the low bits), so only
the low 16 bits are the address. ``domain`` (the PCI domain) is there since Linux 5.4.

>>> node = kfd_node(1, "cpu_cores_count 0\nsimd_count 192\ngfx_target_version 110000\n"
...                    "vendor_id 4098\ndevice_id 29772\nlocation_id 768\ndomain 0\n")
>>> node.gfx_target, node.pci_address, node.pci_id
('gfx1100', '0000:03:00.0', '1002:744c')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

#: ``location_id``'s PCI part; the bits above hold a compute partition's number.
_LOCATION_MASK = 0xFFFF


def gfx_target_from_version(version: int) -> str | None:
    """The LLVM target name of a KFD ``gfx_target_version`` (None for 0, a CPU node).

    Major is the ten-thousands and above, minor and stepping two decimal digits each, written
    in hex (ROCr's ``hsa_agent_get_info`` names ``gfx90a`` for 9.0.10).

    >>> [gfx_target_from_version(v) for v in (110000, 100300, 90010, 90402, 80003, 120001, 0)]
    ['gfx1100', 'gfx1030', 'gfx90a', 'gfx942', 'gfx803', 'gfx1201', None]
    """
    if version <= 0:
        return None
    major, minor, step = version // 10000, (version // 100) % 100, version % 100
    if minor > 0xF or step > 0xF:
        return None
    return f"gfx{major}{minor:x}{step:x}"


def parse_properties(text: str) -> dict[str, int]:
    r"""The ``name value`` lines of a KFD ``properties`` file; lines that are not that are skipped.

    >>> parse_properties("simd_count 4\nbroken\nunique_id 11673270660693242239\n")
    {'simd_count': 4, 'unique_id': 11673270660693242239}
    """
    found: dict[str, int] = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit():
            found[parts[0]] = int(parts[1])
    return found


@dataclass(frozen=True)
class KfdNode:
    """One KFD topology node.

    Attributes:
        node: The node's number (its folder name).
        simd_count: SIMD units; 0 for a CPU node.
        cpu_cores_count: CPU cores in this node; a node with both cores and SIMDs is an APU.
        gfx_target_version: ``MMmmss`` (``110000``), 0 for a CPU node.
        vendor_id: The GPU's PCI vendor id (4098 = 0x1002 for AMD).
        device_id: Its PCI device id.
        location_id: ``bus << 8 | devfn`` (with a partition number above bit 16).
        domain: The PCI domain; 0 on kernels older than 5.4, which do not write it.
        drm_render_minor: The render node's minor (``/dev/dri/renderD128``), -1 when none.
    """

    node: int
    simd_count: int = 0
    cpu_cores_count: int = 0
    gfx_target_version: int = 0
    vendor_id: int = 0
    device_id: int = 0
    location_id: int = 0
    domain: int = 0
    drm_render_minor: int = -1

    @property
    def is_gpu(self) -> bool:
        """True for a node with compute units of a GPU (a CPU node has ``simd_count 0``)."""
        return self.simd_count > 0

    @property
    def is_apu(self) -> bool:
        """True for a node that holds CPU cores and GPU SIMDs (an APU described by the BIOS's CRAT)."""
        return self.simd_count > 0 and self.cpu_cores_count > 0

    @property
    def gfx_target(self) -> str | None:
        """The LLVM target (``gfx1100``), None for a CPU node."""
        return gfx_target_from_version(self.gfx_target_version) if self.is_gpu else None

    @property
    def pci_address(self) -> str | None:
        """``dddd:bb:dd.f`` from ``domain`` and ``location_id``; None for a CPU node.

        >>> KfdNode(2, simd_count=1216, location_id=9728).pci_address
        '0000:26:00.0'
        """
        if not self.is_gpu:
            return None
        location = self.location_id & _LOCATION_MASK
        bus, devfn = location >> 8, location & 0xFF
        return f"{self.domain:04x}:{bus:02x}:{devfn >> 3:02x}.{devfn & 0x7:x}"

    @property
    def pci_id(self) -> str | None:
        """``vendor:device`` in lower-case hex, None when the node names no device."""
        if not (self.is_gpu and self.vendor_id and self.device_id):
            return None
        return f"{self.vendor_id:04x}:{self.device_id:04x}"


def kfd_node(number: int, properties: str) -> KfdNode:
    """A node from its number and the text of its ``properties`` file."""
    values: Mapping[str, int] = parse_properties(properties)
    return KfdNode(
        node=number,
        simd_count=values.get("simd_count", 0),
        cpu_cores_count=values.get("cpu_cores_count", 0),
        gfx_target_version=values.get("gfx_target_version", 0),
        vendor_id=values.get("vendor_id", 0),
        device_id=values.get("device_id", 0),
        location_id=values.get("location_id", 0),
        domain=values.get("domain", 0),
        drm_render_minor=values.get("drm_render_minor", -1),
    )
