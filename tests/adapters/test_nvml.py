"""The NVML adapter over recorded scenarios: lazy loading, per-field and per-GPU failure."""

from __future__ import annotations

import subprocess
import sys

import pytest

from fakes.fake_pynvml import FakePynvml, load_scenario, scenario_names
from gpuwizard.adapters.nvml import NvmlUnavailable, PynvmlSource


def source_for(name: str) -> tuple[PynvmlSource, FakePynvml]:
    fake = FakePynvml(load_scenario(name))
    return PynvmlSource(load_module=lambda: fake), fake


def test_importing_the_adapter_neither_imports_nor_initialises_nvml():
    code = "import sys, gpuwizard.adapters.nvml; print('pynvml' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_one_gpu_is_read_completely():
    source, fake = source_for("windows_rtx2080super_610")
    reading = source.read()
    assert reading.driver_version == "610.62"
    assert reading.cuda_driver_version == 13030
    assert reading.source == "nvml"
    (gpu,) = reading.gpus
    assert gpu.name == "NVIDIA GeForce RTX 2080 SUPER"
    assert gpu.compute_capability == (7, 5)
    assert gpu.memory_total_bytes == 8192 * 1024 * 1024
    assert gpu.pci_bus_id == "00000000:0C:00.0"
    assert gpu.problem is None and gpu.unavailable == ()
    assert fake.initialised == 0, "NVML must be shut down after the read"


def test_a_lost_gpu_does_not_sink_the_others():
    source, _ = source_for("four_a100_one_lost")
    reading = source.read()
    assert [gpu.problem for gpu in reading.gpus] == [None, None, "GpuIsLost", None]
    assert [gpu.pci_bus_id for gpu in reading.gpus if gpu.problem is None] == [
        "00000000:68:00.0",
        "00000000:9E:00.0",
        "00000000:D4:00.0",
    ]
    # One failing field (the UUID) leaves that field empty and the rest filled.
    assert reading.gpus[0].uuid is None
    assert ("uuid", "Unknown") in reading.gpus[0].unavailable
    assert reading.gpus[0].compute_capability == (8, 0)


def test_an_old_driver_without_newer_calls_still_reports_what_it_has():
    source, _ = source_for("old_driver_grid_k520_346")
    reading = source.read()
    assert reading.driver_version == "346.46"
    assert reading.cuda_driver_version is None
    assert ("cuda_driver_version", "FunctionNotFound") in reading.unavailable
    (gpu,) = reading.gpus
    assert gpu.name == "GRID K520"
    assert gpu.compute_capability is None
    assert ("compute_capability", "FunctionNotFound") in gpu.unavailable
    assert gpu.memory_total_bytes == 4095 * 1024 * 1024


@pytest.mark.parametrize(
    ("scenario", "failure"),
    [
        ("no_gpu", "library_not_found"),
        ("gpu_without_driver", "library_not_found"),
        ("driver_library_mismatch", "driver_library_mismatch"),
    ],
)
def test_initialisation_failures_are_named(scenario: str, failure: str):
    source, fake = source_for(scenario)
    with pytest.raises(NvmlUnavailable) as caught:
        source.read()
    assert caught.value.failure == failure
    assert "nvmlShutdown" not in fake.calls  # nothing to shut down after a failed init


def test_a_missing_binding_is_reported_not_raised_as_import_error():
    def missing() -> FakePynvml:
        raise ModuleNotFoundError("No module named 'pynvml'")

    with pytest.raises(NvmlUnavailable) as caught:
        PynvmlSource(load_module=missing).read()
    assert caught.value.failure == "binding_missing"


def test_bytes_from_old_bindings_are_decoded():
    scenario = load_scenario("h200_linux_610")
    scenario["system"]["nvmlSystemGetDriverVersion"] = "610.43.02"
    fake = FakePynvml(scenario)
    original = fake.nvmlDeviceGetName
    fake.nvmlDeviceGetName = lambda handle: original(handle).encode()  # type: ignore[method-assign]
    reading = PynvmlSource(load_module=lambda: fake).read()
    assert reading.gpus[0].name == "NVIDIA H200"


@pytest.mark.parametrize("scenario", [s for s in scenario_names() if not load_scenario(s).get("init_error")])
def test_every_scenario_reads_and_shuts_down(scenario: str):
    source, fake = source_for(scenario)
    reading = source.read()
    assert reading.driver_version
    assert len(reading.gpus) == len(load_scenario(scenario)["devices"])
    assert fake.calls[0] == "nvmlInit" and fake.calls[-1] == "nvmlShutdown"
