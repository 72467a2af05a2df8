"""rocminfo, amd-smi and ROCm's version file, parsed from recorded outputs."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuwizard.core.machine.rocm_outputs import (
    parse_amd_smi_static,
    parse_amd_smi_version,
    parse_rocminfo,
    rocm_version_from_info,
)

GPUS = Path(__file__).parents[2] / "fixtures" / "gpus"
OUTPUTS = GPUS / "_outputs"


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("machine", "gpus", "cpus", "runtime"),
    [
        ("linux-rx7900xtx", [("gfx1100", "Radeon RX 7900 XTX", 0x744C, 768, 1, None)], 1, "1.1"),
        ("linux-rx6800", [("gfx1030", "AMD Radeon RX 6800", 0x73BF, 2304, 1, None)], 1, "1.1"),
        ("linux-rx580", [("gfx803", "AMD Radeon RX 580 Series", 0x67DF, 256, 1, False)], 1, "1.1"),
        ("linux-radeon780m", [("gfx1103", "AMD Radeon 780M Graphics", 0x15BF, 50432, 1, True)], 1, "1.18"),
        (
            "linux-mi300x",
            [
                ("gfx942", "AMD Instinct MI300X", 0x74A1, bdfid, node, None)
                for node, bdfid in ((2, 9728), (3, 17920), (4, 25856), (5, 34048))
            ],
            2,
            "1.1",
        ),
    ],
)
def test_rocminfo_of_each_recorded_machine(
    machine: str, gpus: list[tuple[object, ...]], cpus: int, runtime: str
):
    reading = parse_rocminfo(_read(GPUS / machine / "rocminfo.txt"))
    assert reading.runtime_version == runtime
    assert reading.module_version is None  # these printed "ROCk module is loaded" or nothing
    assert [(a.gfx_target, a.marketing_name, a.chip_id, a.bdfid, a.node, a.apu) for a in reading.gpus] == gpus
    assert sum(1 for a in reading.agents if a.device_type == "CPU") == cpus


def test_rocminfo_keeps_an_npu_agent_out_of_the_gpus():
    reading = parse_rocminfo(_read(GPUS / "linux-radeon780m" / "rocminfo.txt"))
    assert [(a.name, a.device_type) for a in reading.agents] == [
        ("AMD Ryzen 7 7840HS w/ Radeon 780M Graphics", "CPU"),
        ("gfx1103", "GPU"),
        ("aie2", "DSP"),
    ]


def test_rocminfo_takes_the_agents_own_name_not_its_isa_name():
    """The ISA section repeats ``Name: amdgcn-amd-amdhsa--gfx1100``; the agent's is the first."""
    reading = parse_rocminfo(_read(GPUS / "linux-rx7900xtx" / "rocminfo.txt"))
    assert reading.gpus[0].name == "gfx1100"


def test_rocminfo_of_the_dkms_module_names_its_version():
    reading = parse_rocminfo(_read(OUTPUTS / "rocminfo_header_rocm6.1_module-version.txt"))
    assert (reading.module_version, reading.runtime_version, reading.agents) == ("6.7.0", "1.13", ())


def test_rocminfo_of_an_error_has_no_agents():
    """What rocminfo prints without a usable /dev/kfd (ROCm/ROCm#1404)."""
    reading = parse_rocminfo(
        "ROCk module is NOT loaded, possibly no GPU devices\n"
        "Unable to open /dev/kfd read-write: No such file or directory\n"
    )
    assert (reading.runtime_version, reading.module_version, reading.agents) == (None, None, ())


def test_a_target_with_features_gives_the_target():
    reading = parse_rocminfo("Agent 2\n  Name:  gfx942:sramecc+:xnack-\n  Device Type:  GPU\n")
    assert reading.gpus[0].gfx_target == "gfx942"


def test_amd_smi_static_of_a_newer_release_after_python_warnings():
    (gpu,) = parse_amd_smi_static(_read(OUTPUTS / "amd-smi-static-json_rx7800xt_gpu_data.txt"))
    assert (gpu.bdf, gpu.market_name, gpu.pci_id, gpu.gfx_target, gpu.driver_version) == (
        "0000:03:00.0",
        "AMD Radeon RX 7800 XT",
        "1002:747e",
        "gfx1101",
        None,
    )


def test_amd_smi_static_as_an_older_list_with_n_a_values():
    """Older amd-smi printed a list; ``N/A`` means not known."""
    text = (
        '[{"gpu": 0, "asic": {"market_name": "N/A", "vendor_id": "0x1002", "device_id": "0x74a1",'
        ' "target_graphics_version": "gfx942"}, "bus": {"bdf": "0000:26:00.0"},'
        ' "driver": {"driver_name": "amdgpu", "driver_version": "6.7.0"}}]'
    )
    (gpu,) = parse_amd_smi_static(text)
    assert (gpu.market_name, gpu.pci_id, gpu.gfx_target, gpu.driver_version) == (
        None,
        "1002:74a1",
        "gfx942",
        "6.7.0",
    )


@pytest.mark.parametrize("text", ["", "not json", "{}", '{"gpu_data": "x"}', "[1, 2]"])
def test_amd_smi_static_of_nothing_usable(text: str):
    assert parse_amd_smi_static(text) == ()


def test_amd_smi_version_with_a_rocm_release():
    fields = parse_amd_smi_version(_read(OUTPUTS / "amd-smi-version_rx9060xt_rocm7.0.2.txt"))
    assert (fields["ROCm version"], fields["amdgpu version"]) == ("7.0.2", "6.14.14")
    assert "amd_hsmp version" not in fields  # N/A


def test_amd_smi_version_without_a_rocm_release():
    fields = parse_amd_smi_version(_read(OUTPUTS / "amd-smi-version_changelog_rocm-na.txt"))
    assert "ROCm version" not in fields
    assert fields["amdgpu version"] == "6.10.10"


def test_the_rocm_info_version_file():
    """The recorded report shows ``cat /opt/rocm/.info/version`` answering ``7.2.0``."""
    lines = _read(OUTPUTS / "info-version_7.2.0.txt").splitlines()
    content = lines[lines.index("$ cat /opt/rocm/.info/version") + 1]
    assert rocm_version_from_info(content + "\n") == "7.2.0"
    assert rocm_version_from_info("6.0.2-115\n") == "6.0.2"
    assert rocm_version_from_info("") is None
