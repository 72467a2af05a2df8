"""KFD topology: gfx targets, PCI addresses and APUs, on the recorded machines' nodes."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuwizard.core.machine.amd_topology import KfdNode, gfx_target_from_version, kfd_node, parse_properties
from gpuwizard.core.machine.rocm_outputs import parse_rocminfo

GPUS = Path(__file__).parents[2] / "fixtures" / "gpus"
KFD_MACHINES = sorted(p.parent.name for p in GPUS.glob("*/kfd"))


@pytest.mark.parametrize(
    ("version", "target"),
    [
        (110000, "gfx1100"),
        (100300, "gfx1030"),
        (90010, "gfx90a"),
        (90402, "gfx942"),
        (80003, "gfx803"),
        (110003, "gfx1103"),
        (120001, "gfx1201"),
        (90012, "gfx90c"),
        (0, None),
        (91700, None),  # a minor above 15 has no one-digit hex name
    ],
)
def test_gfx_target_from_version(version: int, target: str | None):
    assert gfx_target_from_version(version) == target


def test_the_fixtures_cover_the_recorded_amd_machines():
    assert KFD_MACHINES == [
        "linux-mi300x",
        "linux-radeon780m",
        "linux-rx580",
        "linux-rx6800",
        "linux-rx7900xtx",
    ]


@pytest.mark.parametrize("machine", KFD_MACHINES)
def test_every_gpu_node_matches_the_machines_rocminfo(machine: str):
    """The node's target, PCI address and id agree with the rocminfo agent of the same node."""
    folder = GPUS / machine
    nodes = [
        kfd_node(int(p.parent.name), p.read_text(encoding="utf-8"))
        for p in sorted((folder / "kfd" / "nodes").glob("*/properties"))
    ]
    agents = {agent.node: agent for agent in parse_rocminfo((folder / "rocminfo.txt").read_text()).gpus}
    gpu_nodes = [node for node in nodes if node.is_gpu]
    assert [node.node for node in gpu_nodes] == sorted(agents)
    for node in gpu_nodes:
        agent = agents[node.node]
        assert node.gfx_target == agent.gfx_target
        assert node.pci_id == f"1002:{agent.chip_id:04x}"
        assert agent.bdfid is not None
        assert (
            node.pci_address
            == f"0000:{agent.bdfid >> 8:02x}:{(agent.bdfid & 0xFF) >> 3:02x}.{agent.bdfid & 7}"
        )
    for node in nodes:
        if not node.is_gpu:
            assert (node.gfx_target, node.pci_address, node.pci_id) == (None, None, None)
            assert node.cpu_cores_count > 0


def test_the_mi300x_node_addresses():
    nodes = [
        kfd_node(n, (GPUS / "linux-mi300x" / "kfd" / "nodes" / str(n) / "properties").read_text())
        for n in range(6)
    ]
    assert [node.pci_address for node in nodes if node.is_gpu] == [
        "0000:26:00.0",
        "0000:46:00.0",
        "0000:65:00.0",
        "0000:85:00.0",
    ]
    assert {node.gfx_target for node in nodes if node.is_gpu} == {"gfx942"}


def test_a_partition_number_above_bit_16_is_not_part_of_the_address():
    """Linux 6.6+ ORs a compute partition's number into bits 28..31 of location_id."""
    partition = KfdNode(3, simd_count=304, gfx_target_version=90402, location_id=(2 << 28) | 9728)
    assert partition.pci_address == "0000:26:00.0"


def test_the_domain_and_function_are_written():
    node = KfdNode(1, simd_count=8, location_id=(0xC5 << 8) | (0x1F << 3) | 3, domain=0x10)
    assert node.pci_address == "0010:c5:1f.3"


def test_an_apu_node_has_cpu_cores_and_simds():
    """A BIOS CRAT that describes the APU as one node gives it both (older kernels did)."""
    apu = kfd_node(0, "cpu_cores_count 4\nsimd_count 32\ngfx_target_version 90012\n")
    assert apu.is_gpu and apu.is_apu and apu.gfx_target == "gfx90c"
    assert not kfd_node(1, "cpu_cores_count 0\nsimd_count 192\n").is_apu
    assert not kfd_node(0, "cpu_cores_count 16\nsimd_count 0\n").is_gpu


def test_properties_skip_what_is_not_a_name_and_a_number():
    assert parse_properties("simd_count 24\n\nname gfx\nlocation_id\nmax_waves_per_simd 16 extra\n") == {
        "simd_count": 24
    }
    assert kfd_node(5, "").is_gpu is False
