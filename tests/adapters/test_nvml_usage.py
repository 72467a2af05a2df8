"""GPU utilisation sampling during the live test, over the recorded NVML scenarios."""

from __future__ import annotations

import threading

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
    # The sampling loop shuts NVML down once it has left its loop, after its last sample, and
    # stop() waits for it: shut down now means that no sample can come any more (a 50 ms pause
    # showed nothing on a loaded machine, even with a stop() that did nothing).
    assert fake.initialised == 0
    assert samples[0] == {"index": 0, "utilisation_percent": 97, "memory_used_mib": 2048}


def test_a_field_the_driver_does_not_supply_is_none():
    fake = FakePynvml(load_scenario("h200_linux_610"))  # no utilisation recorded: FunctionNotFound
    samples: list[dict[str, int | None]] = []
    sampled = threading.Event()

    def keep(sample: dict[str, int | None]) -> None:
        samples.append(sample)
        sampled.set()

    sampler = UsageSampler(lambda: fake, interval_s=0.01)
    assert sampler.start(keep)
    assert sampled.wait(EVENT_S)
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
