"""Whole-machine detection over named scenarios (gpustat-style): recorded hardware, real code."""

from __future__ import annotations

import json
from dataclasses import replace
from importlib import resources
from pathlib import Path
from types import ModuleType

import jsonschema
import pytest

from builders.sysfs import NO_DRIVER_LAPTOP, NO_GPU_VM, NOUVEAU_DESKTOP
from builders.trees import cudnn_zip, linux_toolkit, windows_toolkit
from fakes.machines import (
    LINUX_HOST,
    WINDOWS_HOST,
    WINDOWS_PYTHON,
    WSL2_HOST,
    Machine,
    display_adapter,
    windows_registry,
)
from fakes.runner import FakeRunner
from gpuwizard.adapters.nvidia_smi import NvidiaSmiSource
from gpuwizard.adapters.nvml import PynvmlSource
from gpuwizard.core.machine.system_report import SystemReport, report_to_json
from gpuwizard.workflow.machine.detect import detect_system
from harness.waits import EVENT_S

SCHEMA = json.loads(
    resources.files("gpuwizard.resources").joinpath("schemas/system-1.schema.json").read_text()
)
RECORDED = Path(__file__).parents[2] / "fixtures" / "recorded"
RTX3060_ADAPTER = display_adapter(
    "NVIDIA GeForce RTX 2080 SUPER", "NVIDIA", "32.0.15.6262", "PCI\\VEN_10DE&DEV_1E81&SUBSYS_40051458"
)
INTEL_ADAPTER = display_adapter(
    "Intel(R) UHD Graphics 770", "Intel Corporation", "31.0.101.4502", "PCI\\VEN_8086&DEV_4680"
)


def detect(machine: Machine) -> SystemReport:
    report = detect_system(machine.sources())
    jsonschema.validate(report_to_json(report), SCHEMA)  # every scenario's report is a valid one
    return report


def codes(report: SystemReport) -> list[str]:
    return [f.code for f in report.findings]


# --- scenarios named in issue 2 -------------------------------------------------------------


def test_no_gpu(tmp_path: Path):
    report = detect(Machine(tmp_path, nvml="no_gpu", pci=NO_GPU_VM))
    assert report.gpus == () and report.driver is None
    assert codes(report) == ["NO_NVIDIA_GPU"]


def test_gpu_without_driver(tmp_path: Path):
    report = detect(Machine(tmp_path, nvml="gpu_without_driver", pci=NO_DRIVER_LAPTOP))
    assert report.driver is None
    assert [(g.vendor, g.status, g.pci_bus_id) for g in report.gpus] == [
        ("intel", "ok", "0000:00:02.0"),
        ("nvidia", "no-driver", "0000:01:00.0"),
    ]
    assert codes(report) == ["NO_NVIDIA_DRIVER"]
    assert report.findings[0].params.get("variant") is None


def test_gpu_driven_by_nouveau(tmp_path: Path):
    report = detect(Machine(tmp_path, nvml="gpu_without_driver", pci=NOUVEAU_DESKTOP))
    (finding,) = report.findings
    assert (finding.code, finding.params["variant"]) == ("NO_NVIDIA_DRIVER", "nouveau")


def test_one_gpu_on_windows_with_two_cuda_versions_on_path(tmp_path: Path):
    pf = tmp_path / "Program Files"
    cuda_11 = windows_toolkit(pf, "11.2.2")
    cuda_12 = windows_toolkit(pf, "12.1.1")
    cudnn_bin = cudnn_zip(tmp_path / "tools" / "cuda", "8.1.0")
    path = ";".join(
        [
            str(tmp_path / "Windows"),
            str(cuda_12 / "bin"),
            str(cuda_12 / "libnvvp"),
            str(cuda_11 / "bin"),
            str(cudnn_bin),
        ]
    )
    machine = Machine(
        tmp_path,
        nvml="windows_rtx2080super_610",
        host=WINDOWS_HOST,
        python=WINDOWS_PYTHON,
        env={
            "PATH": path,
            "ProgramFiles": str(pf),
            "CUDA_PATH": str(cuda_11),
            "CUDA_PATH_V11_2": str(cuda_11),
            "CUDA_PATH_V12_1": str(cuda_12),
            "SystemRoot": str(tmp_path / "Windows"),
        },
        registry=windows_registry([RTX3060_ADAPTER, INTEL_ADAPTER], long_paths=0),
    )
    report = detect(machine)
    assert report.os.family == "windows" and report.os.release == "10.0.22631"
    assert report.driver is not None and (report.driver.version, report.driver.cuda_max) == ("610.62", "13.3")
    nvidia, intel = report.gpus
    assert (nvidia.name, nvidia.compute_capability, nvidia.memory_total_mib) == (
        "NVIDIA GeForce RTX 2080 SUPER",
        "7.5",
        8192,
    )
    assert (intel.vendor, intel.name, intel.compute_capability) == (
        "intel",
        "Intel(R) UHD Graphics 770",
        None,
    )
    kits = {kit.version: kit for kit in report.cuda_toolkits}
    assert (kits["12.1.1"].path_rank, kits["11.2.2"].path_rank) == (0, 1)
    assert set(kits["11.2.2"].found_by) == {"CUDA_PATH", "CUDA_PATH_V11_2", "default folder", "PATH"}
    (dnn,) = report.cudnn
    assert (dnn.version, dnn.on_path) == ("8.1.0", True)
    assert report.long_paths_enabled is False
    assert set(codes(report)) == {"MULTIPLE_CUDA_ON_PATH", "CUDA_PATH_NOT_FIRST", "LONG_PATHS_DISABLED"}
    multiple = next(f for f in report.findings if f.code == "MULTIPLE_CUDA_ON_PATH")
    assert multiple.params["first"] == "12.1.1"


def test_several_gpus_with_one_lost(tmp_path: Path):
    report = detect(Machine(tmp_path, nvml="four_a100_one_lost"))
    assert [g.status for g in report.gpus] == ["ok", "ok", "lost", "ok"]
    assert [g.memory_total_mib for g in report.gpus if g.status == "ok"] == [81920] * 3
    assert codes(report) == ["GPU_NOT_RESPONDING"]
    assert report.findings[0].params["index"] == "2"


def test_old_driver_lacking_newer_nvml_calls(tmp_path: Path):
    report = detect(Machine(tmp_path, nvml="old_driver_grid_k520_346"))
    assert report.driver is not None and (report.driver.version, report.driver.cuda_max) == ("346.46", None)
    (gpu,) = report.gpus
    assert (gpu.name, gpu.compute_capability, gpu.memory_total_mib) == ("GRID K520", None, 4095)
    assert codes(report) == ["DRIVER_CUDA_MAX_UNKNOWN"]


def test_wsl2_with_the_windows_driver(tmp_path: Path):
    report = detect(
        Machine(
            tmp_path,
            nvml="wsl2_rtx4070_laptop_566",
            host=WSL2_HOST,
            wsl_driver_files=["libcuda.so.1", "libnvidia-ml.so.1", "nvidia-smi"],
        )
    )
    assert (report.os.wsl, report.os.wsl_version) == (True, 2)
    assert report.driver is not None and report.driver.cuda_max == "12.7"
    assert report.gpus[0].name == "NVIDIA GeForce RTX 4070 Laptop GPU"
    assert codes(report) == []


def test_wsl2_without_the_windows_driver(tmp_path: Path):
    report = detect(Machine(tmp_path, nvml="no_gpu", host=WSL2_HOST))
    (finding,) = report.findings
    assert (finding.code, finding.params["variant"]) == ("NO_NVIDIA_DRIVER", "wsl")


def test_wsl2_with_a_linux_driver_installed_inside(tmp_path: Path):
    report = detect(
        Machine(
            tmp_path,
            nvml="wsl2_blocked_linux_driver_installed",
            host=WSL2_HOST,
            wsl_driver_files=["libnvidia-ml.so.1"],
            linux_driver_files=["usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1"],
        )
    )
    assert codes(report) == ["NVML_BLOCKED_BY_OS", "WSL_LINUX_DRIVER_INSTALLED"]


# --- further situations -----------------------------------------------------------------------


def test_driver_library_mismatch(tmp_path: Path):
    report = detect(Machine(tmp_path, nvml="driver_library_mismatch", pci=NOUVEAU_DESKTOP[1:]))
    assert codes(report) == ["NVML_DRIVER_LIBRARY_MISMATCH"]


def test_windows_gpu_without_a_driver(tmp_path: Path):
    basic = display_adapter(
        "Microsoft Basic Display Adapter", "Microsoft", "10.0.22621.1", "PCI\\VEN_10DE&DEV_2504"
    )
    report = detect(
        Machine(
            tmp_path,
            nvml="no_gpu",
            host=WINDOWS_HOST,
            python=WINDOWS_PYTHON,
            registry=windows_registry([basic]),
        )
    )
    assert [(g.vendor, g.status) for g in report.gpus] == [("nvidia", "no-driver")]
    (finding,) = report.findings
    assert (finding.code, finding.params["variant"]) == ("NO_NVIDIA_DRIVER", "windows")


def test_nvidia_smi_answers_when_the_binding_is_missing(tmp_path: Path):
    banner = (RECORDED / "nvidia-smi_4xA100-SXM4-80GB_linux_555.42.02_cuda12.5.txt").read_text()
    csv = (
        "index, name, uuid, pci.bus_id, memory.total [MiB], driver_version, compute_cap\n"
        "0, NVIDIA A100-SXM4-80GB, GPU-a, 00000000:68:00.0, 81920, 555.42.02, 8.0\n"
    )
    runner = FakeRunner().when("nvidia-smi", "--query-gpu").answer(csv).when("nvidia-smi").answer(banner)
    sources = Machine(tmp_path, fallback=NvidiaSmiSource(runner, "nvidia-smi")).sources()
    sources.nvml = PynvmlSource(load_module=_missing_binding)
    report = detect_system(sources)
    assert report.driver is not None and (report.driver.source, report.driver.cuda_max) == (
        "nvidia-smi",
        "12.5",
    )
    assert codes(report) == ["NVML_UNAVAILABLE"]


def _missing_binding() -> ModuleType:
    raise ModuleNotFoundError("No module named 'pynvml'")


def test_linux_toolkit_reached_through_a_wrapper_nvcc(tmp_path: Path):
    local = tmp_path / "usr" / "local"
    linux_toolkit(local, "13.0.88", version_json=False)
    wrapper = local / "bin" / "nvcc"
    wrapper.parent.mkdir(parents=True)
    wrapper.write_text('#!/bin/sh\nexec /usr/local/cuda-13.0/bin/nvcc "$@"\n')
    wrapper.chmod(0o755)
    recorded = "Cuda compilation tools, release 13.0, V13.0.88\n"
    runner = FakeRunner().when("nvcc", "--version").answer(recorded)
    report = detect(
        Machine(
            tmp_path,
            nvml="h200_linux_610",
            env={"PATH": f"{local / 'bin'}:/usr/bin"},
            runner=runner,
            toolkit_parents=[local],
        )
    )
    (kit,) = report.cuda_toolkits
    assert (kit.version, kit.on_path, kit.path_rank) == ("13.0", True, 0)
    assert kit.root == str((local / "cuda-13.0").resolve())


def test_a_step_that_raises_leaves_its_part_empty_and_says_so(tmp_path: Path):
    sources = Machine(tmp_path, nvml="h200_linux_610").sources()

    def broken() -> list[object]:
        raise PermissionError("/sys/bus/pci/devices: Permission denied")

    sources.pci_devices = broken  # type: ignore[assignment]
    report = detect_system(sources)
    assert report.gpus[0].name == "NVIDIA H200"
    assert codes(report) == ["DETECTION_STEP_FAILED"]
    assert "PermissionError" in report.findings[0].message


def test_a_frozen_wizard_reports_the_first_python_found_not_itself(tmp_path: Path):
    machine = Machine(tmp_path, nvml="h200_linux_610", host=replace(LINUX_HOST, frozen=True))
    pyenv = tmp_path / "home" / ".pyenv" / "versions" / "3.10.13" / "bin" / "python"
    pyenv.parent.mkdir(parents=True)
    pyenv.write_bytes(b"\x7fELF")
    pyenv.chmod(0o755)
    report = detect(machine)
    assert report.python is not None and (report.python.version, report.python.source) == ("3.10.13", "pyenv")
    assert all(p.source != "self" for p in report.interpreters)


@pytest.mark.parametrize("scenario", ["h200_linux_610", "four_a100_one_lost", "wsl2_rtx4070_laptop_566"])
def test_uuids_are_kept_internally_but_never_reported(tmp_path: Path, scenario: str):
    host = WSL2_HOST if "wsl" in scenario else LINUX_HOST
    report = detect(Machine(tmp_path, nvml=scenario, host=host, wsl_driver_files=["libnvidia-ml.so.1"]))
    text = json.dumps(report_to_json(report))
    for gpu in report.gpus:
        if gpu.uuid:
            assert gpu.uuid not in text


def test_a_hanging_source_is_given_up_after_its_deadline(tmp_path: Path):
    import threading

    release = threading.Event()
    returned = threading.Event()

    class HangingNvml:
        def read(self) -> object:
            try:
                release.wait(EVENT_S)  # NVML stuck on a GPU in a bad state
                raise AssertionError("released")
            finally:
                returned.set()

    sources = Machine(tmp_path, nvml="h200_linux_610").sources()
    sources.nvml = HangingNvml()  # type: ignore[assignment]
    sources.step_timeout_s = 0.5
    try:
        report = detect_system(sources)
        # Detection gave the source up: the report came while the source still hung.
        still_hanging = not returned.is_set()
    finally:
        release.set()
    assert still_hanging
    assert report.driver is None
    assert codes(report) == ["DETECTION_STEP_FAILED"]  # and no guess about the GPU
    failed = report.findings
    assert "TimeoutError" in failed[0].params["error"]
