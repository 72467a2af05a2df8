"""The Test page's numbers name the GPU kind the run used: ROCm, Intel XPU, Apple MPS (issue 38).

Start events as the probe writes them (the fields of tests/fixtures/frameworks' recorded ROCm
and MPS outputs); NVML samples only NVIDIA GPUs, so the use of others is said not measured.
"""

from __future__ import annotations

from PySide6.QtWidgets import QApplication

from gpuwizard.core.events import value_from_json
from gpuwizard.core.livetest.events import Start
from gpuwizard.ui.widgets.test_numbers import TestNumbers


def start(**fields: object) -> Start:
    return value_from_json(
        Start, {"event": "start", "framework": "pytorch", "framework_version": "2.9.1", **fields}
    )


def numbers_after(event: Start, *, nvidia: bool = False) -> TestNumbers:
    numbers = TestNumbers(lambda: nvidia)
    numbers.take([event])
    return numbers


def test_a_rocm_run_names_its_hip_build_and_says_its_use_is_not_sampled(qapp: QApplication) -> None:
    numbers = numbers_after(
        start(gpu_kind="rocm", hip_build="6.3.42131-fa1d09cbd", gpu_runtime_version="6.3")
    )
    assert numbers.values["framework"].text() == "PyTorch 2.9.1 · ROCm build (HIP 6.3.42131-fa1d09cbd)"
    assert numbers.values["utilisation"].text() == "not measured: the wizard samples NVIDIA GPUs only"


def test_xpu_and_mps_runs_are_named(qapp: QApplication) -> None:
    xpu = numbers_after(start(gpu_kind="xpu"))
    assert xpu.values["framework"].text().endswith("Intel XPU build")
    mps = numbers_after(start(gpu_kind="mps", gpu_runtime_version="14.5"))
    assert mps.values["framework"].text().endswith("Apple GPU through MPS (macOS 14.5)")


def test_a_cuda_or_cpu_run_reads_as_before(qapp: QApplication) -> None:
    cuda = numbers_after(start(cuda_build="12.6", built_with_cuda=True, gpu_kind="cuda"), nvidia=True)
    assert cuda.values["framework"].text() == "PyTorch 2.9.1 · CUDA 12.6 build"
    cpu = numbers_after(start(built_with_cuda=False))
    assert cpu.values["framework"].text() == "PyTorch 2.9.1 · CPU build (no CUDA)"
    assert cpu.values["utilisation"].text() == "no NVIDIA GPU on this machine"
