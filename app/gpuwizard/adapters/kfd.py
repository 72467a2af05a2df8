"""The AMD kernel driver's files in sysfs: the KFD compute topology and the amdgpu module's version.

``/sys/class/kfd/kfd/topology/nodes/N/properties`` (one node per CPU socket and per GPU or
GPU partition, ``core/machine/amd_topology.py``) exists whenever amdgpu's compute part is
loaded, with or without ROCm installed. ``/sys/module/amdgpu/version`` exists only for the
DKMS module AMD ships with ROCm (the in-kernel driver sets no ``MODULE_VERSION``); rocminfo
prints it as ``ROCk module version 6.7.0 is loaded`` and rocm-smi as ``Driver version``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from gpuwizard.core.machine.amd_topology import KfdNode, kfd_node

#: Below the sysfs root (``/sys``).
KFD_NODES: Final = Path("class/kfd/kfd/topology/nodes")
AMDGPU_MODULE_VERSION: Final = Path("module/amdgpu/version")


def read_kfd_nodes(sysfs: Path) -> list[KfdNode]:
    """Every readable node, in node order; none when KFD is not there."""
    try:
        folders = [p for p in (sysfs / KFD_NODES).iterdir() if p.name.isdigit()]
    except OSError:
        return []
    nodes = []
    for folder in sorted(folders, key=lambda p: int(p.name)):
        try:
            text = (folder / "properties").read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue  # a node a container's device cgroup hides answers EPERM
        nodes.append(kfd_node(int(folder.name), text))
    return nodes


def read_amdgpu_module_version(sysfs: Path) -> str | None:
    """The DKMS amdgpu module's version (``6.7.0``), None for the in-kernel driver or none."""
    try:
        text = (sysfs / AMDGPU_MODULE_VERSION).read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    return text or None
