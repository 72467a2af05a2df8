"""Joining a PCI device with what ROCm says of it: the GPU's name, target and kind."""

from __future__ import annotations

from pathlib import Path

from gpuwizard.core.machine.display_devices import DisplayDevice
from gpuwizard.core.machine.gpu_list import AmdFacts, device_gpu
from gpuwizard.core.machine.rocm_outputs import parse_rocminfo

OUTPUTS = Path(__file__).parents[2] / "fixtures" / "gpus" / "_outputs"


def test_an_igpu_agent_named_like_the_processor_keeps_its_pci_name():
    # rocminfo gives the Granite Ridge iGPU's GPU agent the CPU's marketing name; that names no GPU.
    rocminfo = parse_rocminfo((OUTPUTS / "rocminfo_rx7800xt-9800x3d-igpu.txt").read_text())
    amd = AmdFacts(rocminfo=rocminfo)
    radeon = DisplayDevice(
        "amd", "AMD Navi 32 [Radeon RX 7700 XT / 7800 XT]", "0000:03:00.0", "amdgpu", pci_id="1002:747e"
    )
    igpu = DisplayDevice(
        "amd", "AMD Granite Ridge [Radeon Graphics]", "0000:10:00.0", "amdgpu", pci_id="1002:13c0"
    )
    first, second = device_gpu(radeon, 0, amd, windows=False), device_gpu(igpu, 1, amd, windows=False)
    assert (first.name, first.gfx_target) == ("AMD Radeon RX 7800 XT", "gfx1101")
    assert (second.name, second.gfx_target) == ("AMD Granite Ridge [Radeon Graphics]", "gfx1036")
