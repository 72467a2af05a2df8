"""Detection of AMD, Intel, Apple and hybrid machines, through ``detect_system``, over recorded machines.

Each machine of tests/fixtures/gpus/ is laid out by builders/gpu_machines.py; the fakes are
only at the adapter seams (NVML, the runner replaying the recorded outputs, the registry, the
host's platform facts). The expected facts are what the recorded outputs say (SOURCE.md).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from builders.gpu_machines import LIBRARY_DIR, MACHINES, gpu_machine
from fakes.runner import FakeRunner
from gpuwizard.adapters.device_access import DeviceAccess
from gpuwizard.core.machine.system_report import (
    GpuFacts,
    RuntimeFacts,
    SystemReport,
    report_from_json,
    report_to_json,
)
from gpuwizard.workflow.machine.detect import detect_system

REPO = Path(__file__).parents[3]
OLD_REPORTS = sorted((REPO / "tests" / "fixtures" / "reports").glob("*.json"))

# vendor, name, pci_bus_id, pci_id, gfx_target, gfx_target_source, driver_version,
# driver_version_source, kernel_driver, integrated
Row = tuple[object, ...]


def _amd_linux(
    name: str, bus: str, pci_id: str, target: str, *, integrated: bool = False, driver: str | None = None
) -> Row:
    return (
        "amd",
        name,
        bus,
        pci_id,
        target,
        "kfd",
        driver,
        "sysfs" if driver else None,
        "amdgpu",
        integrated,
    )


EXPECTED: dict[str, list[Row]] = {
    "linux-rx7900xtx": [_amd_linux("Radeon RX 7900 XTX", "0000:03:00.0", "1002:744c", "gfx1100")],
    "linux-rx6800": [_amd_linux("AMD Radeon RX 6800", "0000:09:00.0", "1002:73bf", "gfx1030")],
    "linux-rx580": [_amd_linux("AMD Radeon RX 580 Series", "0000:01:00.0", "1002:67df", "gfx803")],
    "linux-radeon780m": [
        _amd_linux("AMD Radeon 780M Graphics", "0000:c5:00.0", "1002:15bf", "gfx1103", integrated=True)
    ],
    "linux-mi300x": [
        _amd_linux("AMD Instinct MI300X", f"0000:{bus}:00.0", "1002:74a1", "gfx942", driver="6.7.0")
        for bus in ("26", "46", "65", "85")
    ],
    "linux-arc-a770": [
        ("intel", "Intel DG2 [Arc A770]", "0000:03:00.0", "8086:56a0", None, None, None, None, None, False)
    ],
    "linux-arc-b580": [("intel", None, "0000:03:00.0", "8086:e20b", None, None, None, None, "xe", False)],
    "linux-core-ultra-igpu": [
        (
            "intel",
            "Intel Arrow Lake-P [Arc Pro 130T/140T]",
            "0000:00:02.0",
            "8086:7d51",
            None,
            None,
            None,
            None,
            "i915",
            True,
        )
    ],
    "linux-hybrid-rtx4060-intel-igpu": [
        (
            "nvidia",
            "NVIDIA GeForce RTX 4060 Laptop GPU",
            "00000000:01:00.0",
            "10de:28a0",
            None,
            None,
            None,
            None,
            "nvidia",
            None,
        ),
        (
            "intel",
            "Intel Raptor Lake-P [UHD Graphics]",
            "0000:00:02.0",
            "8086:a7a8",
            None,
            None,
            None,
            None,
            None,
            True,
        ),
    ],
    "windows-rx9070xt": [
        (
            "amd",
            "AMD Radeon RX 9070 XT",
            None,
            "1002:7550",
            None,
            None,
            "25.10.1",
            "windows-registry",
            None,
            False,
        )
    ],
    "windows-rx7900xtx": [
        (
            "amd",
            "AMD Radeon(TM) Graphics",
            None,
            "1002:164e",
            None,
            None,
            "31.0.24019.1006",
            "windows-registry",
            None,
            True,
        ),
        (
            "amd",
            "AMD Radeon RX 7900 XTX",
            None,
            "1002:744c",
            None,
            None,
            "31.0.24019.1006",
            "windows-registry",
            None,
            False,
        ),
    ],
    "windows-arc-a770": [
        (
            "intel",
            "Intel(R) Arc(TM) A770 Graphics",
            None,
            "8086:56a0",
            None,
            None,
            "32.0.101.6557",
            "windows-registry",
            None,
            False,
        )
    ],
    "windows-arc-b580": [
        (
            "intel",
            "Intel(R) Arc(TM) B580 Graphics",
            None,
            "8086:e20b",
            None,
            None,
            "32.0.101.8331",
            "windows-registry",
            None,
            False,
        )
    ],
    "windows-core-ultra-igpu": [
        ("intel", "Intel(R) Arc(TM) Graphics", None, "8086:7dd5", None, None, None, None, None, True)
    ],
    "macos-m1": [("apple", "Apple M1", None, None, None, None, None, None, None, True)],
    "macos-m3pro": [("apple", "Apple M3 Pro", None, None, None, None, None, None, None, True)],
}


def _row(gpu: GpuFacts) -> Row:
    return (
        gpu.vendor,
        gpu.name,
        gpu.pci_bus_id,
        gpu.pci_id,
        gpu.gfx_target,
        gpu.gfx_target_source,
        gpu.driver_version,
        gpu.driver_version_source,
        gpu.kernel_driver,
        gpu.integrated,
    )


def _detect(name: str, root: Path, **changes: object) -> SystemReport:
    sources = gpu_machine(name, root).sources()
    return detect_system(replace(sources, **changes) if changes else sources)  # type: ignore[arg-type]


def test_every_recorded_machine_has_its_expectations():
    assert sorted(EXPECTED) == MACHINES


@pytest.mark.parametrize("name", MACHINES)
def test_the_gpus_of_each_recorded_machine(name: str, tmp_path: Path):
    report = _detect(name, tmp_path)
    assert [_row(gpu) for gpu in report.gpus] == EXPECTED[name]
    assert [gpu.index for gpu in report.gpus] == list(range(len(report.gpus)))
    assert all(gpu.status == "ok" for gpu in report.gpus)


@pytest.mark.parametrize(
    ("name", "runtime"),
    [
        ("linux-rx7900xtx", RuntimeFacts("rocm", None, "/opt/rocm", "rocminfo", True, None)),
        ("linux-rx6800", RuntimeFacts("rocm", None, "/opt/rocm", "rocminfo", True, None)),
        ("linux-rx580", RuntimeFacts("rocm", None, "/opt/rocm", "rocminfo", True, None)),
        (
            "linux-radeon780m",
            RuntimeFacts("rocm", "7.2.0", "/opt/rocm", "/opt/rocm/.info/version", True, None),
        ),
        ("linux-mi300x", RuntimeFacts("rocm", None, "/opt/rocm", "rocminfo", True, None)),
    ],
)
def test_the_rocm_runtime_of_each_amd_machine(name: str, runtime: RuntimeFacts, tmp_path: Path):
    report = _detect(name, tmp_path)
    found = [
        replace(r, location=_strip(r.location, tmp_path), source=_strip(r.source, tmp_path))
        for r in report.gpu_runtimes
    ]
    assert found == [runtime]


def _strip(path: str | None, root: Path) -> str | None:
    return path.replace(str(root), "") if path else path


@pytest.mark.parametrize("name", [m for m in MACHINES if not m.startswith("linux-r") and m != "linux-mi300x"])
def test_machines_without_rocm_or_level_zero_list_no_runtime(name: str, tmp_path: Path):
    assert _detect(name, tmp_path).gpu_runtimes == ()


def test_the_hybrid_laptop_keeps_the_nvidia_driver_and_names_the_igpu(tmp_path: Path):
    report = _detect("linux-hybrid-rtx4060-intel-igpu", tmp_path)
    assert report.driver is not None and report.driver.version == "595.91.07"
    assert [gpu.vendor for gpu in report.gpus] == ["nvidia", "intel"]
    assert [f.code for f in report.findings] == []  # an NVIDIA GPU is there: no NO_NVIDIA_GPU


def test_macos_version_and_the_apple_gpu(tmp_path: Path):
    report = _detect("macos-m3pro", tmp_path)
    assert (report.os.family, report.os.arch, report.os.macos_version) == ("darwin", "arm64", "26.6.1")
    assert report.gpu_runtimes == ()  # Metal is not claimed without a fact that says it


def test_an_intel_mac_lists_no_apple_gpu(tmp_path: Path):
    """sysctl names an Intel CPU: no Apple GPU is made up (the Intel Mac's GPU is not listed)."""
    sources = gpu_machine("macos-m1", tmp_path).sources()
    intel = FakeRunner().when("sysctl").answer("Intel(R) Core(TM) i9-9880H CPU @ 2.30GHz\n")
    report = detect_system(replace(sources, runner=intel))
    assert report.gpus == ()


def test_rocm_not_usable_outside_the_render_group(tmp_path: Path):
    """/dev/kfd is there but does not open: the runtime says why (fake at the device seam)."""

    def refused(path: Path) -> DeviceAccess:
        return DeviceAccess(
            str(path), present=True, usable=False, detail="the user is not in the render group"
        )

    report = _detect("linux-radeon780m", tmp_path, device_access=refused)
    (rocm,) = report.gpu_runtimes
    assert (rocm.name, rocm.version, rocm.usable, rocm.detail) == (
        "rocm",
        "7.2.0",
        False,
        "the user is not in the render group",
    )
    assert report.gpus[0].gfx_target == "gfx1103"  # the GPU is still listed


def test_the_kfd_topology_alone_gives_the_target_without_rocm(tmp_path: Path):
    """amdgpu's KFD is there with no ROCm installed: the target still comes from the kernel."""
    machine = gpu_machine("linux-rx7900xtx", tmp_path)
    sources = machine.sources()
    (tmp_path / "opt" / "rocm" / "bin" / "rocminfo").unlink()
    report = detect_system(sources)
    assert [(g.gfx_target, g.gfx_target_source, g.name) for g in report.gpus] == [
        ("gfx1100", "kfd", "AMD Navi 31 [Radeon RX 7900 XT/7900 XTX]")
    ]
    (rocm,) = report.gpu_runtimes
    assert (rocm.version, rocm.usable, _strip(rocm.source, tmp_path)) == (None, True, "/opt/rocm")


def test_a_gpu_only_the_kfd_topology_shows_is_listed(tmp_path: Path):
    """A container sees /sys/class/kfd but not the PCI device: the node still gives a GPU."""
    machine = gpu_machine("linux-rx6800", tmp_path)
    sources = machine.sources()
    report = detect_system(replace(sources, pci_devices=list))
    assert [_row(gpu) for gpu in report.gpus] == EXPECTED["linux-rx6800"]


def test_level_zero_on_the_b580_machine(tmp_path: Path):
    """Level Zero's driver file and a render node added to the recorded B580 (not in its recording)."""
    machine = gpu_machine("linux-arc-b580", tmp_path)
    sources = machine.sources()
    lib = tmp_path / LIBRARY_DIR
    for name in ("libze_intel_gpu.so.1", "libze_intel_gpu.so.1.14.37020", "libze_loader.so.1"):
        (lib / name).write_text("")
    (tmp_path / "dev" / "dri").mkdir(parents=True)
    (tmp_path / "dev" / "dri" / "renderD128").write_text("")
    (zero,) = detect_system(sources).gpu_runtimes
    assert (zero.name, zero.version, zero.source, zero.usable, zero.detail) == (
        "level-zero",
        "1.14.37020",
        "libze_intel_gpu.so.1.14.37020",
        True,
        None,
    )
    assert zero.location == str(lib)


@pytest.mark.parametrize("path", OLD_REPORTS, ids=lambda p: p.name)
def test_old_reports_load_and_round_trip(path: Path):
    """Reports written before these fields load with them unknown, and keep every old value."""
    old = json.loads(path.read_text(encoding="utf-8"))
    report = report_from_json(old)
    assert report.gpu_runtimes == () and report.os.macos_version is None
    assert all(
        gpu.pci_id is None and gpu.gfx_target is None and gpu.integrated is None for gpu in report.gpus
    )
    again = report_to_json(report)
    assert report_from_json(again) == report
    _assert_kept(old, again, path.name)


def _assert_kept(old: object, new: object, where: str) -> None:
    """Every value of ``old`` is in ``new`` unchanged; ``new`` may only add keys."""
    if isinstance(old, dict):
        assert isinstance(new, dict), where
        for key, value in old.items():
            if key == "uuid":
                continue  # left out of the JSON form on purpose
            assert key in new, f"{where}.{key}"
            _assert_kept(value, new[key], f"{where}.{key}")
    elif isinstance(old, list):
        assert isinstance(new, list) and len(new) == len(old), where
        for i, (a, b) in enumerate(zip(old, new, strict=True)):
            _assert_kept(a, b, f"{where}[{i}]")
    else:
        assert old == new, where
