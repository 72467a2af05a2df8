"""What the live training test's two backends build and measure alike, apart from either framework.

Part of the ``train_test.py`` probe (run by path inside the target environment; stdlib only,
Python 3.7 syntax, never imports gpuwizard): the synthetic task and the model's shape
(``train_test.py``'s docstring describes both), the CPUs the process may use and how long a
matmul measurement runs. ``train_torch.py`` and ``train_tensorflow.py`` build from these, and
``train_test.py`` reports them, so the two frameworks are measured on the same work.
"""

import math
import os
from pathlib import Path

IMAGE = (32, 32, 3)
CLASSES = 10
CHANNELS = (64, 128, 256)
#: Distinct batches in the synthetic data set, cycled through.
POOL_BATCHES = 8
#: Class patterns are constant over PATTERN_CELL x PATTERN_CELL pixel squares.
PATTERN_CELL = 8
SIGNAL = 0.3
LEARNING_RATE = 1e-3
#: Each matmul measurement runs at least this long (repeats are chosen from one timed run).
MATMUL_SECONDS = 0.5


def model_flops_per_sample() -> float:
    """Forward-pass FLOPs of the model for one image (multiply-adds count two).

    >>> round(model_flops_per_sample() / 1e6, 1)
    79.1
    """
    height, width, channels = IMAGE
    flops = 0.0
    for out_channels in CHANNELS:
        flops += 2.0 * height * width * out_channels * channels * 9
        height, width, channels = height // 2, width // 2, out_channels
    return flops + 2.0 * height * width * channels * CLASSES


def cpu_budget() -> int:
    """CPUs this process may use: affinity, then a cgroup quota (containers), at least 1."""
    try:
        count = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        count = os.cpu_count() or 1
    try:
        with Path("/sys/fs/cgroup/cpu.max").open() as handle:
            quota, period = handle.read().split()[:2]
        if quota != "max":
            count = min(count, max(1, math.ceil(float(quota) / float(period))))
    except (OSError, ValueError):
        pass
    return max(1, count)


def matmul_repeats(one_run: float) -> int:
    """Repeats that make a matmul measurement last about MATMUL_SECONDS, when one took ``one_run`` s."""
    return int(max(3, min(1000, math.ceil(MATMUL_SECONDS / max(one_run, 1e-6)))))


def capability_dtypes(capability: "tuple | None") -> "list":
    """The dtypes an NVIDIA GPU's matmul is measured in, from its compute capability ``(major, minor)``.

    float16 from 7.0 (Volta's tensor cores), bfloat16 from 8.0 (Ampere); an unknown capability
    (None) gets all three.

    >>> capability_dtypes((6, 1)), capability_dtypes((8, 6))[-1], len(capability_dtypes(None))
    (['float32'], 'bfloat16', 3)
    """
    dtypes = ["float32"]
    if capability is None or capability >= (7, 0):
        dtypes.append("float16")
    if capability is None or capability >= (8, 0):
        dtypes.append("bfloat16")
    return dtypes
