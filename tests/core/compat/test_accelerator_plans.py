"""Plans for AMD (ROCm), Intel (XPU) and Apple (MPS) GPUs, on the saved reports of real machines.

The saved reports (resources/samples) are what detection makes of recorded outputs
(tests/fixtures/gpus, each with its sources); the tables are the bundled accelerators.json.
Held-out GPUs (named nowhere in the fixtures) check that the rules are the tables', not the
fixtures'.
"""

from __future__ import annotations

import json
from dataclasses import replace
from functools import cache
from pathlib import Path

import jsonschema
import pytest

from gpuwizard.core.compat.accelerator_plans import has_macos_wheel, mps_macos_min
from gpuwizard.core.compat.accelerators import Accelerators, XpuBuild
from gpuwizard.core.compat.machine_view import machine_view
from gpuwizard.core.compat.plan import Plan, Recommendation, parse_wish, recommendation_to_json
from gpuwizard.core.compat.pypi_route import NoPypiBuild, pypi_build
from gpuwizard.core.compat.recommend import recommend
from gpuwizard.core.compat.tables import CompatData, at_least, version_key
from gpuwizard.core.envs.variables import activation_variables
from gpuwizard.core.events import value_from_json
from gpuwizard.core.machine.system_report import GpuFacts, OsFacts, RuntimeFacts, SystemReport
from gpuwizard.workflow.compat.data import load_bundled
from gpuwizard.workflow.machine.system_file import load_system_report

ROOT = Path(__file__).parents[3]
SAMPLES = ROOT / "resources" / "samples"
SCHEMA = json.loads((ROOT / "resources" / "schemas" / "recommendation-1.schema.json").read_text("utf-8"))
LINUX = OsFacts("linux", False, "6.8.0", "x86_64")
WINDOWS = OsFacts("windows", False, "10.0.26100", "x86_64")


@cache
def tables() -> CompatData:
    return load_bundled()


@cache
def saved(name: str) -> SystemReport:
    return load_system_report(SAMPLES / name)


def advise(
    report: SystemReport | str, framework: str = "pytorch", compat: CompatData | None = None
) -> Recommendation:
    machine = saved(report) if isinstance(report, str) else report
    return recommend(machine, parse_wish(framework), compat or tables())


def codes(rec: Recommendation) -> list[str]:
    return [finding.code for finding in rec.findings]


# Each machine of the issue: the device and build an engineer of its vendor would sign.
@pytest.mark.parametrize(
    ("sample", "device", "variant_prefix"),
    [
        ("linux-rx7900xtx.json", "rocm", "rocm"),
        ("linux-rx6800.json", "rocm", "rocm"),
        ("linux-radeon780m.json", "rocm", "rocm"),
        ("linux-mi300x.json", "rocm", "rocm"),
        ("linux-rx580.json", "cpu", "cpu"),
        ("windows-rx9070xt.json", "cpu", "cpu"),
        ("windows-rx7900xtx.json", "cpu", "cpu"),
        ("linux-arc-a770.json", "xpu", "xpu"),
        ("linux-arc-b580.json", "xpu", "xpu"),
        ("linux-core-ultra-igpu.json", "xpu", "xpu"),
        ("windows-arc-a770.json", "xpu", "xpu"),
        ("windows-arc-b580.json", "xpu", "xpu"),
        ("windows-core-ultra-igpu.json", "xpu", "xpu"),
        ("macos-m1.json", "mps", "cpu"),
        ("macos-m3pro.json", "mps", "cpu"),
        ("linux-hybrid-rtx4060-intel-igpu.json", "cuda", "cu"),
    ],
)
def test_each_machine_gets_the_build_of_its_gpu(sample: str, device: str, variant_prefix: str) -> None:
    rec = advise(sample)
    plan = rec.plan
    assert plan.device == device
    assert (plan.torch_variant or "").startswith(variant_prefix)
    assert rec.gpu_supported is (device != "cpu")
    assert plan.cpu_only is (device == "cpu")
    data = recommendation_to_json(rec)
    jsonschema.validate(data, SCHEMA)
    assert data["plan"]["device"] == device
    if device in ("rocm", "xpu"):
        # From the PyTorch index, the variant's own folder (on the allow-list).
        assert plan.index_url == f"https://download.pytorch.org/whl/{plan.torch_variant}"
    for alternative in (plan, *rec.alternatives):
        assert not any("directml" in requirement for requirement in alternative.requirements)


def test_a_rocm_plan_serves_only_the_gpus_whose_target_its_build_carries() -> None:
    rec = advise("linux-mi300x.json")
    assert rec.plan.device == "rocm"
    assert rec.plan.torch_variant == f"rocm{rec.plan.rocm}"
    build = next(
        b
        for b in tables().accelerators.rocm_builds
        if b.variant == rec.plan.torch_variant and rec.plan.framework_version.startswith(b.torch + ".")
    )
    assert "gfx942" in build.gfx_targets
    assert rec.plan.gpu_indices == tuple(gpu.index for gpu in saved("linux-mi300x.json").gpus)
    # The same machine with one GPU of a target no build carries: that one is left out.
    machine = saved("linux-mi300x.json")
    odd = replace(machine.gpus[1], gfx_target="gfx803", name="AMD Radeon RX 580")
    mixed = advise(replace(machine, gpus=(machine.gpus[0], odd, *machine.gpus[2:])))
    assert odd.index not in mixed.plan.gpu_indices
    assert len(mixed.plan.gpu_indices) == len(machine.gpus) - 1
    left_out = next(f for f in mixed.findings if f.code == "AMD_GPU_TARGET_NOT_BUILT")
    assert left_out.params["variant"] == "mixed" and "HIP_VISIBLE_DEVICES" in left_out.hint


def test_an_rx580_gets_the_cpu_build_and_why() -> None:
    rec = advise("linux-rx580.json")
    assert rec.plan.device == "cpu" and not rec.gpu_supported
    finding = next(f for f in rec.findings if f.code == "AMD_GPU_TARGET_NOT_BUILT")
    assert "gfx803" in finding.message
    assert "gfx1100" in finding.message  # the targets that are built, for comparison
    assert "NO_NVIDIA_GPU" not in codes(rec)


def test_tensorflow_on_these_gpus_is_the_cpu_build_with_the_stated_fact() -> None:
    for sample, platform in (
        ("linux-rx7900xtx.json", "rocm-linux"),
        ("windows-rx9070xt.json", "amd-windows"),
        ("linux-arc-a770.json", "xpu"),
        ("macos-m3pro.json", "mps"),
    ):
        rec = advise(sample, "tensorflow")
        assert rec.plan.device == "cpu", sample
        fact = tables().accelerators.stack_fact(platform)
        assert fact is not None
        said = [f for f in rec.findings if f.code == "TENSORFLOW_NO_GPU_BUILD"]
        assert len(said) == 1, sample
        assert fact.text in said[0].message


def test_the_hybrid_laptop_uses_the_nvidia_gpu_and_names_the_igpu() -> None:
    machine = saved("linux-hybrid-rtx4060-intel-igpu.json")
    rec = advise(machine)
    nvidia = [gpu.index for gpu in machine.gpus if gpu.vendor == "nvidia"]
    intel = [gpu for gpu in machine.gpus if gpu.vendor == "intel"]
    assert rec.plan.device == "cuda" and rec.plan.gpu_indices == tuple(nvidia)
    assert intel
    assert any(intel[0].name and intel[0].name in note and "is not used" in note for note in rec.notes)


def test_held_out_gpus_are_told_by_the_tables_not_by_the_fixtures() -> None:
    # Named nowhere in the fixtures: an RX 7800 XT by its PCI id only (gfx1101), an RX 7600 by
    # its name (gfx1102), an AMD GPU whose KFD target is all the report has, an Arc A380.
    for gpu, device in (
        (GpuFacts(0, "amd", None, pci_id="1002:747e"), "rocm"),
        (GpuFacts(0, "amd", "AMD Radeon RX 7600"), "rocm"),
        (GpuFacts(0, "amd", "AMD Radeon Graphics", gfx_target="gfx1101", gfx_target_source="kfd"), "rocm"),
        (GpuFacts(0, "amd", "AMD Radeon Graphics", gfx_target="gfx701", gfx_target_source="kfd"), "cpu"),
        (GpuFacts(0, "intel", "Intel(R) Arc(TM) A380 Graphics"), "xpu"),
        (GpuFacts(0, "intel", "Intel(R) Iris(R) Xe Graphics"), "cpu"),
    ):
        rec = advise(SystemReport(os=LINUX, gpus=(gpu,)))
        assert rec.plan.device == device, gpu


def test_an_amd_gpu_of_unknown_target_is_said_so() -> None:
    rec = advise(SystemReport(os=LINUX, gpus=(GpuFacts(0, "amd", "AMD Radeon Graphics"),)))
    assert rec.plan.device == "cpu"
    assert "AMD_GPU_TARGET_UNKNOWN" in codes(rec)


def test_rocm_device_files_this_user_cannot_open_are_a_finding() -> None:
    machine = saved("linux-rx7900xtx.json")
    blocked = replace(
        machine,
        gpu_runtimes=(
            RuntimeFacts(
                "rocm", "6.4.1", "/opt/rocm", "rocminfo", usable=False, detail="not in the render group"
            ),
        ),
    )
    rec = advise(blocked)
    assert rec.plan.device == "rocm"
    finding = next(f for f in rec.findings if f.code == "ROCM_DEVICE_ACCESS")
    assert "not in the render group" in finding.message
    assert "render" in finding.hint and "video" in finding.hint
    assert "ROCM_DEVICE_ACCESS" not in codes(advise(machine))


def test_an_intel_driver_older_than_the_xpu_build_needs_is_a_driver_update_first() -> None:
    compat = tables()
    minimum = "32.0.101.6078"
    builds = tuple(
        replace(build, driver_min={"windows": minimum, "linux": None})
        for build in compat.accelerators.xpu_builds
    )
    with_minimum = replace(compat, accelerators=replace(compat.accelerators, xpu_builds=builds))
    machine = saved("windows-arc-a770.json")
    old = replace(machine, gpus=tuple(replace(gpu, driver_version="32.0.101.5000") for gpu in machine.gpus))
    rec = advise(old, compat=with_minimum)
    assert rec.plan.device == "xpu" and rec.plan.driver_update_required and not rec.gpu_supported
    assert rec.plan.vendor_driver_min == {"windows": minimum, "linux": None}
    assert "INTEL_DRIVER_TOO_OLD" in codes(rec)
    new = replace(machine, gpus=tuple(replace(gpu, driver_version="32.0.101.6256") for gpu in machine.gpus))
    fine = advise(new, compat=with_minimum)
    assert fine.gpu_supported and not fine.plan.driver_update_required


def test_a_mac_too_old_for_the_newest_wheels_gets_the_newest_release_it_can_install() -> None:
    # Each release's MPS needs its own macOS (12.3 up to 2.4, 13.0 for 2.5-2.9, 14.0 from 2.10:
    # accelerators.json apple.mps_macos, from PyTorch's own statements); the plan is the newest
    # release that has a wheel for this macOS and uses the GPU on it.
    machine = saved("macos-m1.json")
    compat = tables()

    def newest_on_gpu(macos: str) -> str:
        fits = [
            r.latest
            for r in compat.pytorch
            if has_macos_wheel(r, machine_view(with_macos(macos), compat), compat)
            and at_least(macos, mps_macos_min(r, compat))
        ]
        return max(fits, key=version_key)

    def with_macos(macos: str) -> SystemReport:
        return replace(machine, os=replace(machine.os, macos_version=macos))

    on_13 = advise(with_macos("13.6"))
    assert on_13.plan.device == "mps"
    assert on_13.plan.framework_version == newest_on_gpu("13.6")
    assert version_key(on_13.plan.framework_version) < version_key("2.10")  # 2.10 needs macOS 14 for MPS
    newer = next(f for f in on_13.findings if f.code == "TORCH_NEEDS_NEWER_MACOS")
    assert newer.params["variant"] == "mps" and newer.params["minimum"] == "14.0"
    on_12 = advise(with_macos("12.0"))
    assert on_12.plan.device == "cpu"
    too_old = next(f for f in on_12.findings if f.code == "MPS_MACOS_TOO_OLD")
    assert too_old.params["minimum"] == mps_macos_min(
        next(r for r in compat.pytorch if on_12.plan.framework_version.startswith(r.version + ".")), compat
    )


def test_an_intel_mac_gets_the_last_release_with_its_wheels() -> None:
    intel = SystemReport(os=OsFacts("darwin", False, "21.6.0", "x86_64", macos_version="12.6"))
    rec = advise(intel)
    last = tables().accelerators.apple.x86_64_last
    assert last and rec.plan.device == "cpu" and rec.plan.framework_version.startswith(last + ".")


def test_an_amd_or_intel_gpu_on_arm64_linux_is_said_to_have_no_wheels() -> None:
    for gpu, code in (
        (
            GpuFacts(0, "amd", "AMD Radeon RX 9060 XT", gfx_target="gfx1200", gfx_target_source="kfd"),
            "AMD_GPU_NO_BUILD_ON_OS",
        ),
        (GpuFacts(0, "intel", "Intel(R) Arc(TM) A380 Graphics"), "INTEL_GPU_NO_BUILD_ON_OS"),
    ):
        rec = advise(SystemReport(os=replace(LINUX, arch="aarch64"), gpus=(gpu,)))
        assert rec.plan.device == "cpu"
        finding = next(f for f in rec.findings if f.code == code)
        assert finding.params["variant"] == "arch" and "aarch64" in finding.message


def test_a_gpu_of_another_kind_beside_the_plans_is_named_not_called_a_cpu_plan() -> None:
    # An Arc B580 beside an AMD iGPU: the plan is XPU; the AMD GPU is a note, with no finding
    # that says "the plan is the CPU build".
    arc = GpuFacts(0, "intel", "Intel(R) Arc(TM) B580 Graphics", pci_id="8086:e20b")
    igpu = GpuFacts(1, "amd", "AMD Radeon(TM) Graphics", pci_id="1002:13c0")
    rec = advise(SystemReport(os=WINDOWS, gpus=(arc, igpu)))
    assert rec.plan.device == "xpu" and rec.plan.gpu_indices == (0,)
    assert not [f for f in rec.findings if "CPU build" in f.hint]
    assert any("AMD Radeon(TM) Graphics is not used" in note for note in rec.notes)


def test_data_without_accelerators_plans_these_machines_as_before() -> None:
    # A refreshed bundle published before accelerators.json existed: the CPU build, no error.
    old = replace(tables(), accelerators=Accelerators.empty())
    for sample in ("linux-rx7900xtx.json", "linux-arc-a770.json", "macos-m3pro.json"):
        rec = advise(sample, compat=old)
        assert rec.plan.device == "cpu" and not rec.gpu_supported


def test_a_gpu_selection_uses_the_variable_of_the_plans_gpu_kind() -> None:
    assert activation_variables("pytorch", False, "1", "rocm") == {"HIP_VISIBLE_DEVICES": "1"}
    assert activation_variables("pytorch", False, "0", "xpu") == {"ZE_AFFINITY_MASK": "0"}
    assert activation_variables("pytorch", False, "0", "cuda") == {"CUDA_VISIBLE_DEVICES": "0"}


def test_a_plan_saved_before_the_device_field_reads_as_cuda_or_cpu() -> None:
    data = recommendation_to_json(advise("linux-h200.json"))
    plan = dict(data["plan"])
    del plan["device"]
    assert value_from_json(Plan, plan).device == "cuda"
    assert value_from_json(Plan, {**plan, "cpu_only": True}).device == "cpu"


def test_xpu_builds_serve_only_the_families_in_their_rows() -> None:
    compat = tables()
    only_battlemage = tuple(
        XpuBuild(b.torch, b.variant, b.os, tuple(f for f in b.families if "Battlemage" in f), b.driver_min)
        for b in compat.accelerators.xpu_builds
    )
    narrowed = replace(compat, accelerators=replace(compat.accelerators, xpu_builds=only_battlemage))
    assert advise("linux-arc-a770.json", compat=narrowed).plan.device == "cpu"
    assert advise("linux-arc-b580.json", compat=narrowed).plan.device == "xpu"


def test_pypi_is_no_way_to_an_amd_or_intel_gpu() -> None:
    # PyPI's torch is a CUDA or CPU build: offering it for a ROCm or XPU plan would lose the GPU.
    for sample, kind in (("linux-rx7900xtx.json", "AMD"), ("linux-arc-a770.json", "Intel")):
        rec = advise(sample)
        with pytest.raises(NoPypiBuild, match=f"machine's {kind} GPU"):
            pypi_build(rec, saved(sample), tables())
