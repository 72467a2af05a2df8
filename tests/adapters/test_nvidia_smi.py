"""The nvidia-smi fallback source, replaying recorded outputs."""

from __future__ import annotations

from pathlib import Path

import pytest

from fakes.runner import FakeRunner
from gpuwizard.adapters.executables import find_nvidia_smi
from gpuwizard.adapters.nvidia_smi import NvidiaSmiSource
from gpuwizard.adapters.nvml import NvmlUnavailable

RECORDED = Path(__file__).parent.parent / "fixtures" / "recorded"
H200_BANNER = (RECORDED / "nvidia-smi_H200_linux_610.43.02_kmd-umd-labels_full.txt").read_text()
REFUSED = (RECORDED / "nvidia-smi_query-gpu_error_compute_cap-invalid-field.txt").read_text()
NO_DRIVER = (RECORDED / "nvidia-smi_error_couldnt-communicate_linux.txt").read_text()
MISMATCH = (RECORDED / "nvml_error_driver-library-mismatch_550.144.txt").read_text()


def test_reads_gpus_from_the_query_and_cuda_from_the_banner():
    csv = (
        "index, name, uuid, pci.bus_id, memory.total [MiB], driver_version, compute_cap\n"
        "0, NVIDIA H200, GPU-00000000-0000-0000-0000-000000000000, 00000000:83:00.0, 143771, 610.43.02, 9.0\n"
    )
    runner = FakeRunner().when("nvidia-smi", "--query-gpu").answer(csv).when("nvidia-smi").answer(H200_BANNER)
    reading = NvidiaSmiSource(runner, "/usr/bin/nvidia-smi").read()
    assert reading.source == "nvidia-smi"
    assert reading.driver_version == "610.43.02"
    assert reading.cuda_driver_version == 13030
    (gpu,) = reading.gpus
    assert gpu.compute_capability == (9, 0)
    assert gpu.memory_total_bytes == 143771 * 1024 * 1024


def test_asks_again_without_a_field_the_driver_refuses():
    old_csv = "index, name, uuid, pci.bus_id, memory.total [MiB], driver_version\n0, GeForce GTX 1080 Ti, GPU-1, 00000000:01:00.0, 11178, 418.56\n"
    runner = FakeRunner()
    runner.when("nvidia-smi", "compute_cap").answer(REFUSED, returncode=2)
    runner.when("nvidia-smi", "--query-gpu").answer(old_csv)
    runner.when("nvidia-smi").answer("| NVIDIA-SMI 418.56  Driver Version: 418.56  CUDA Version: 10.1 |")
    reading = NvidiaSmiSource(runner, "nvidia-smi").read()
    assert reading.gpus[0].name == "GeForce GTX 1080 Ti"
    assert reading.cuda_driver_version == 10010
    queries = [call for call in runner.calls if any("--query-gpu" in part for part in call)]
    assert len(queries) == 2 and "compute_cap" not in queries[1][1]


def test_a_refused_driver_version_is_asked_as_kmd_version():
    refused = 'Field "driver_version" is not a valid field to query.\n'
    csv = "index, name, kmd_version, compute_cap\n0, NVIDIA H200, 620.10, 9.0\n"
    runner = FakeRunner()
    runner.when("nvidia-smi", "driver_version").answer(refused, returncode=2)
    runner.when("nvidia-smi", "kmd_version").answer(csv)
    runner.when("nvidia-smi").answer(H200_BANNER)
    assert NvidiaSmiSource(runner, "nvidia-smi").read().driver_version == "620.10"


@pytest.mark.parametrize(
    ("output", "failure"),
    [
        (NO_DRIVER, "driver_not_loaded"),
        (MISMATCH, "driver_library_mismatch"),
        ("Segmentation fault", "unknown"),
    ],
)
def test_failures_are_named_from_nvidia_smi_words(output: str, failure: str):
    runner = FakeRunner().when("nvidia-smi").answer(output, returncode=9)
    with pytest.raises(NvmlUnavailable) as caught:
        NvidiaSmiSource(runner, "nvidia-smi").read()
    assert caught.value.failure == failure
    assert caught.value.detail == output.strip().splitlines()[0]


def test_a_missing_executable_is_library_not_found():
    with pytest.raises(NvmlUnavailable) as caught:
        NvidiaSmiSource(FakeRunner(), "nvidia-smi").read()
    assert caught.value.failure == "library_not_found"


def test_finds_nvidia_smi_where_windows_drivers_put_it(tmp_path: Path):
    system32 = tmp_path / "Windows" / "System32"
    system32.mkdir(parents=True)
    (system32 / "nvidia-smi.exe").write_bytes(b"MZ")
    env = {"PATH": "", "SystemRoot": str(tmp_path / "Windows"), "ProgramFiles": str(tmp_path / "PF")}
    assert find_nvidia_smi("windows", env) == str(system32 / "nvidia-smi.exe")
    assert find_nvidia_smi("windows", {**env, "SystemRoot": str(tmp_path / "nowhere")}) is None
