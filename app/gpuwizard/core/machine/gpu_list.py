"""AMD, Intel and Apple GPUs as the report lists them, from what each source saw of them.

NVIDIA GPUs come from NVML (``workflow/machine/detect.py``); every other GPU starts as a
display device the OS enumerates (a PCI device on Linux, a display class key on Windows) and
is joined, by PCI address, with what the AMD sources say of it: its KFD node (the GPU target,
whether it is an APU), its ``rocminfo`` agent (marketing name, target, ``APU``), its
``amd-smi`` entry. A KFD GPU node that no listed PCI device matches is a GPU all the same.

Each fact keeps its source: the target from KFD before rocminfo before amd-smi, the amdgpu
module's version from sysfs before rocminfo's ``ROCk module version`` line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from gpuwizard.core.machine.amd_topology import KfdNode
from gpuwizard.core.machine.display_devices import DisplayDevice, same_pci_address, vendor_name
from gpuwizard.core.machine.gpu_kinds import amd_integrated_from_name, apple_chip, intel_integrated
from gpuwizard.core.machine.rocm_outputs import AmdSmiGpu, RocminfoAgent, RocminfoReading
from gpuwizard.core.machine.system_report import GpuFacts

KFD_SOURCE = "kfd"
ROCMINFO_SOURCE = "rocminfo"
AMD_SMI_SOURCE = "amd-smi"
SYSFS_SOURCE = "sysfs"
#: KFD is part of the amdgpu driver: a KFD node is a GPU amdgpu drives.
AMDGPU_DRIVER = "amdgpu"


@dataclass(frozen=True)
class AmdFacts:
    """What the AMD sources said (each empty when it was not there).

    Attributes:
        kfd_nodes: The KFD topology's nodes (CPU and GPU).
        module_version: ``/sys/module/amdgpu/version``.
        rocminfo: ``rocminfo``'s output, parsed.
        amd_smi: ``amd-smi static --json``'s GPUs.
    """

    kfd_nodes: tuple[KfdNode, ...] = ()
    module_version: str | None = None
    rocminfo: RocminfoReading | None = None
    amd_smi: tuple[AmdSmiGpu, ...] = ()

    @property
    def driver_version(self) -> tuple[str | None, str | None]:
        """The amdgpu module's version and its source (``sysfs``, ``rocminfo``), or (None, None)."""
        if self.module_version:
            return self.module_version, SYSFS_SOURCE
        if self.rocminfo is not None and self.rocminfo.module_version:
            return self.rocminfo.module_version, ROCMINFO_SOURCE
        return None, None


def device_gpu(device: DisplayDevice, index: int, amd: AmdFacts, *, windows: bool) -> GpuFacts:
    """One non-NVIDIA display device as a report GPU, joined with the AMD facts about it."""
    gpu = GpuFacts(
        index=index,
        vendor=device.vendor,
        name=device.name,
        pci_bus_id=device.pci_address,
        pci_id=device.pci_id,
        kernel_driver=device.kernel_driver,
        driver_version=device.driver_version,
        driver_version_source=device.driver_version_source,
    )
    if device.vendor == "intel":
        return _with(gpu, integrated=intel_integrated(None if windows else device.pci_address, device.name))
    if device.vendor != "amd":
        return gpu
    node = _node_at(amd.kfd_nodes, device.pci_address)
    return _amd(gpu, node, amd, windows=windows)


def kfd_only_gpus(devices: Sequence[DisplayDevice], amd: AmdFacts, start: int) -> list[GpuFacts]:
    """GPUs of KFD nodes at a PCI address no listed device has (one per address), numbered from ``start``."""
    listed = [device.pci_address for device in devices if device.pci_address]
    found: list[GpuFacts] = []
    for node in amd.kfd_nodes:
        address = node.pci_address
        if address is None or any(same_pci_address(address, other) for other in listed):
            continue
        listed.append(address)
        gpu = GpuFacts(
            index=start + len(found),
            vendor=vendor_name(node.vendor_id) if node.vendor_id else "amd",
            name=None,
            pci_bus_id=address,
            pci_id=node.pci_id,
            kernel_driver=AMDGPU_DRIVER,
        )
        found.append(_amd(gpu, node, amd, windows=False))
    return found


def apple_gpu(brand: str | None, index: int) -> GpuFacts | None:
    """The GPU of an Apple silicon chip (``Apple M3 Pro``), None for an Intel Mac's CPU."""
    chip = apple_chip(brand)
    return GpuFacts(index=index, vendor="apple", name=chip, integrated=True) if chip else None


def _agent_name(agent: RocminfoAgent | None, rocminfo: RocminfoReading | None) -> str | None:
    """A GPU agent's marketing name, unless it is a CPU agent's.

    An APU's iGPU agent may carry the processor's name (``AMD Ryzen 7 9800X3D 8-Core Processor``),
    which names no GPU.
    """
    if agent is None or not agent.marketing_name:
        return None
    cpus = {
        a.marketing_name
        for a in (rocminfo.agents if rocminfo else ())
        if (a.device_type or "").upper() == "CPU"
    }
    return None if agent.marketing_name in cpus else agent.marketing_name


def _amd(gpu: GpuFacts, node: KfdNode | None, amd: AmdFacts, *, windows: bool) -> GpuFacts:
    agent = _agent_for(amd.rocminfo, node, gpu.pci_bus_id)
    smi = next(
        (
            entry
            for entry in amd.amd_smi
            if entry.bdf and gpu.pci_bus_id and same_pci_address(entry.bdf, gpu.pci_bus_id)
        ),
        None,
    )
    target, target_source = _target(node, agent, smi)
    name = _agent_name(agent, amd.rocminfo) or (smi.market_name if smi else None) or gpu.name
    integrated = _amd_integrated(node, agent, name)
    changes: dict[str, Any] = {
        "name": name,
        "gfx_target": target,
        "gfx_target_source": target_source,
        "integrated": integrated,
        "pci_id": gpu.pci_id or (node.pci_id if node else None) or (smi.pci_id if smi else None),
    }
    if not windows and gpu.driver_version is None:
        version, source = amd.driver_version
        changes.update(driver_version=version, driver_version_source=source)
    return _with(gpu, **changes)


def _node_at(nodes: Sequence[KfdNode], address: str | None) -> KfdNode | None:
    if not address:
        return None
    return next(
        (node for node in nodes if node.pci_address and same_pci_address(node.pci_address, address)), None
    )


def _agent_for(
    reading: RocminfoReading | None, node: KfdNode | None, address: str | None
) -> RocminfoAgent | None:
    """The rocminfo GPU agent of this GPU: its KFD node first, else its PCI address as a BDFID."""
    if reading is None:
        return None
    if node is not None:
        by_node = next((agent for agent in reading.gpus if agent.node == node.node), None)
        if by_node is not None:
            return by_node
    bdfid = _bdfid(address)
    if bdfid is None:
        return None
    return next((agent for agent in reading.gpus if agent.bdfid == bdfid), None)


def _bdfid(address: str | None) -> int | None:
    """``bus << 8 | device << 3 | function`` of ``dddd:bb:dd.f`` (rocminfo's BDFID)."""
    try:
        _, bus, rest = (address or "").rsplit(":", 2)
        device, function = rest.split(".")
        return int(bus, 16) << 8 | int(device, 16) << 3 | int(function, 16)
    except ValueError:
        return None


def _target(
    node: KfdNode | None, agent: RocminfoAgent | None, smi: AmdSmiGpu | None
) -> tuple[str | None, str | None]:
    for target, source in (
        (node.gfx_target if node else None, KFD_SOURCE),
        (agent.gfx_target if agent else None, ROCMINFO_SOURCE),
        (smi.gfx_target if smi else None, AMD_SMI_SOURCE),
    ):
        if target:
            return target, source
    return None, None


def _amd_integrated(node: KfdNode | None, agent: RocminfoAgent | None, name: str | None) -> bool | None:
    if node is not None and node.is_apu:
        return True
    if agent is not None and agent.apu is not None:
        return agent.apu
    return amd_integrated_from_name(name)


def _with(gpu: GpuFacts, **changes: Any) -> GpuFacts:  # noqa: ANN401 - GpuFacts' field types
    return replace(gpu, **changes)
