"""sysfs for other vendors' GPUs: PCI ids and drivers, accelerators, the KFD topology, the amdgpu module."""

from __future__ import annotations

import shutil
from pathlib import Path

from builders.sysfs import PciDevice, build_sysfs
from gpuwizard.adapters.kfd import read_amdgpu_module_version, read_kfd_nodes
from gpuwizard.adapters.pci import scan_display_devices

GPUS = Path(__file__).parents[1] / "fixtures" / "gpus"


def test_every_display_device_gets_its_pci_id_and_driver(tmp_path: Path):
    """The hybrid laptop of tests/fixtures/gpus: the Intel iGPU and the NVIDIA dGPU."""
    devices = build_sysfs(
        tmp_path / "sys",
        [
            PciDevice("0000:00:02.0", 0x8086, 0xA7A8, 0x030000, "i915"),
            PciDevice("0000:01:00.0", 0x10DE, 0x28A0, 0x030000, "nvidia"),
            PciDevice("0000:00:1f.3", 0x8086, 0x51CA, 0x040380, "snd_hda_intel"),
        ],
    )
    found = scan_display_devices(devices, [])
    assert [(d.pci_address, d.vendor, d.pci_id, d.kernel_driver) for d in found] == [
        ("0000:00:02.0", "intel", "8086:a7a8", "i915"),
        ("0000:01:00.0", "nvidia", "10de:28a0", "nvidia"),
    ]


def test_an_amd_processing_accelerator_is_a_gpu_and_others_are_not(tmp_path: Path):
    """Instinct cards enumerate as "Processing accelerators [1200]"; an NPU of that class is no GPU."""
    devices = build_sysfs(
        tmp_path / "sys",
        [
            PciDevice("0000:26:00.0", 0x1002, 0x74A1, 0x120000, "amdgpu"),
            PciDevice("0000:c6:00.1", 0x1022, 0x1502, 0x118000, "amdxdna"),
            PciDevice("0000:00:0b.0", 0x8086, 0x7D1D, 0x120000, "intel_vpu"),
        ],
    )
    found = scan_display_devices(devices, [])
    assert [(d.pci_address, d.pci_id, d.kernel_driver) for d in found] == [
        ("0000:26:00.0", "1002:74a1", "amdgpu")
    ]


def test_the_recorded_kfd_nodes_are_read_in_node_order(tmp_path: Path):
    sysfs = tmp_path / "sys"
    shutil.copytree(GPUS / "linux-mi300x" / "kfd", sysfs / "class" / "kfd" / "kfd" / "topology")
    (sysfs / "class" / "kfd" / "kfd" / "topology" / "nodes" / "generation_id").mkdir()
    nodes = read_kfd_nodes(sysfs)
    assert [node.node for node in nodes] == [0, 1, 2, 3, 4, 5]
    assert [node.gfx_target for node in nodes] == [None, None, "gfx942", "gfx942", "gfx942", "gfx942"]


def test_an_unreadable_node_is_skipped_and_no_kfd_is_no_node(tmp_path: Path):
    sysfs = tmp_path / "sys"
    shutil.copytree(GPUS / "linux-rx7900xtx" / "kfd", sysfs / "class" / "kfd" / "kfd" / "topology")
    (sysfs / "class" / "kfd" / "kfd" / "topology" / "nodes" / "0" / "properties").unlink()
    assert [(node.node, node.gfx_target) for node in read_kfd_nodes(sysfs)] == [(1, "gfx1100")]
    assert read_kfd_nodes(tmp_path / "missing") == []


def test_the_amdgpu_module_version_only_when_the_dkms_module_wrote_it(tmp_path: Path):
    sysfs = tmp_path / "sys"
    assert read_amdgpu_module_version(sysfs) is None  # the in-kernel driver has no version file
    (sysfs / "module" / "amdgpu").mkdir(parents=True)
    (sysfs / "module" / "amdgpu" / "version").write_text("6.7.0\n")
    assert read_amdgpu_module_version(sysfs) == "6.7.0"
