"""``absent_gpus``: the GPUs a request selects, against the machine's report."""

from __future__ import annotations

import pytest

from gpuwizard.core.envs.gpu_selection import absent_gpus
from gpuwizard.core.machine.system_report import GpuFacts

H200 = (GpuFacts(0, "nvidia", "NVIDIA H200"),)
FOUR = tuple(GpuFacts(index, "nvidia", "NVIDIA A100-SXM4-80GB") for index in range(4))
EIGHT = tuple(GpuFacts(index, "nvidia", "NVIDIA H100 80GB HBM3") for index in range(8))
UUID = "GPU-8f6c0a2e-5d1b-4c3a-9e7f-0123456789ab"


@pytest.mark.parametrize(
    ("selection", "gpus", "says"),
    [
        ("7", H200, "GPU 7 is not on this machine (it has GPU 0: NVIDIA H200)"),
        ("0,4,5", FOUR, "GPU 4 and GPU 5 are not on this machine (it has GPUs 0: NVIDIA A100-SXM4-80GB, "
         "1: NVIDIA A100-SXM4-80GB, 2: NVIDIA A100-SXM4-80GB, 3: NVIDIA A100-SXM4-80GB)"),
        ("8", EIGHT, "GPU 8 is not on this machine (it has GPUs 0 to 7)"),
        ("0", (), "GPU 0 is not on this machine (it has no GPU)"),
        ("GPU-00000000", (GpuFacts(0, "nvidia", "NVIDIA H200", uuid=UUID),),
         "GPU GPU-00000000 is not on this machine (it has GPU 0: NVIDIA H200)"),
    ],
)  # fmt: skip
def test_a_gpu_the_machine_does_not_have_is_named_with_the_ones_it_has(selection, gpus, says):
    assert absent_gpus(selection, gpus) == says


@pytest.mark.parametrize(
    ("selection", "gpus"),
    [
        ("0", H200),
        ("3,0", FOUR),
        (UUID, (GpuFacts(0, "nvidia", "NVIDIA H200", uuid=UUID),)),
        (
            "GPU-8f6c0a2e",
            (GpuFacts(0, "nvidia", "NVIDIA H200", uuid=UUID),),
        ),  # a unique beginning, as CUDA takes
        (UUID.upper().replace("GPU-", "GPU-"), (GpuFacts(0, "nvidia", "NVIDIA H200", uuid=UUID),)),
        (UUID, H200),  # a saved report holds no UUIDs: taken as it is
        ("MIG-4b2a", H200),  # MIG instances are not in reports
        ("1", (GpuFacts(0, "intel", "Intel UHD"), GpuFacts(1, "nvidia", "NVIDIA GeForce GTX 970"))),
    ],
)
def test_gpus_the_machine_has_pass(selection, gpus):
    assert absent_gpus(selection, gpus) is None
