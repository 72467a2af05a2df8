"""GPU utilisation sampling during the live test, over the recorded NVML scenarios."""

from __future__ import annotations

import threading
import time

from fakes.fake_pynvml import FakePynvml, load_scenario
from gpuwizard.adapters.nvml import NvmlUnavailable, UsageSampler
from harness.waits import EVENT_S


def test_samples_each_gpu_until_stopped_and_shuts_nvml_down():
    scenario = load_scenario("h200_linux_610")
    # Values as `nvidia-smi dmon` shows them during a training run (sm %, fb MiB).
    scenario["devices"][0]["nvmlDeviceGetUtilizationRates.gpu"] = 97
    scenario["devices"][0]["nvmlDeviceGetUtilizationRates.memory"] = 61
    scenario["devices"][0]["nvmlDeviceGetMemoryInfo.used"] = 2048 * 1024 * 1024
    fake = FakePynvml(scenario)
    samples: list[dict[str, int | None]] = []
    got_two = threading.Event()

    def keep(sample: dict[str, int | None]) -> None:
        samples.append(sample)
        if len(samples) >= 2:
            got_two.set()

    sampler = UsageSampler(lambda: fake, interval_s=0.01)
    assert sampler.start(keep)
    assert got_two.wait(EVENT_S)
    sampler.stop()
    count = len(samples)
    time.sleep(0.05)
    assert len(samples) == count
    assert samples[0] == {"index": 0, "utilisation_percent": 97, "memory_used_mib": 2048}
    assert fake.initialised == 0


def test_a_field_the_driver_does_not_supply_is_none():
    fake = FakePynvml(load_scenario("h200_linux_610"))  # no utilisation recorded: FunctionNotFound
    samples: list[dict[str, int | None]] = []
    sampler = UsageSampler(lambda: fake, interval_s=0.01)
    assert sampler.start(samples.append)
    deadline = time.monotonic() + 5
    while not samples and time.monotonic() < deadline:
        time.sleep(0.01)
    sampler.stop()
    assert samples[0] == {"index": 0, "utilisation_percent": None, "memory_used_mib": None}


def test_without_nvml_nothing_is_sampled():
    def missing() -> FakePynvml:
        raise NvmlUnavailable("library_not_found", "libnvidia-ml.so.1: cannot open shared object file")

    samples: list[object] = []
    sampler = UsageSampler(missing)
    assert not sampler.start(samples.append)
    sampler.stop()
    assert samples == []
    fake = FakePynvml(load_scenario("no_gpu"))
    assert UsageSampler(lambda: fake).start(samples.append) is False
