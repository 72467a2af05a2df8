"""The kinds of GPU a framework build runs on, and the vendor whose GPUs each kind serves.

As ``plan.device``, the environment record and the live test name them.

One vocabulary for the recommender, the live test, the pages and the CLI text (the probes,
which run inside the user's environment without the wizard, keep their own copy of the names).
"""

from __future__ import annotations

from typing import Final

#: Every kind of GPU build: NVIDIA's CUDA, AMD's ROCm (through HIP), Intel's XPU, Apple's MPS.
GPU_KINDS: Final = ("cuda", "rocm", "xpu", "mps")
#: The kinds other than CUDA: no NVIDIA driver, NVML or CUDA numbers apply to them.
NON_CUDA_KINDS: Final = ("rocm", "xpu", "mps")
#: The kind of build that serves each vendor's GPUs.
KIND_OF_VENDOR: Final = {"nvidia": "cuda", "amd": "rocm", "intel": "xpu", "apple": "mps"}
