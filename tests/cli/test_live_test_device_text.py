"""``gpuwizard test``'s text names the GPU's kind where it is not CUDA; CUDA's and the CPU's lines stay."""

from __future__ import annotations

from typing import Any

import pytest

from gpuwizard.cli.text.live_test import LiveTestProgress, result_text
from gpuwizard.core.livetest.events import LIVE_TEST_EVENTS, result_from_json


def shown(*events: dict[str, Any]) -> list[str]:
    out: list[str] = []
    view = LiveTestProgress(out.append)
    for event in events:
        view(LIVE_TEST_EVENTS.read(event))
    view.stop()
    return out


def start(**fields: object) -> dict[str, Any]:
    return {"event": "start", "framework": "pytorch", "built_with_cuda": False, "cuda_build": None, **fields}


@pytest.mark.parametrize(
    ("fields", "line"),
    [
        ({"framework_version": "2.13.0+cu126", "built_with_cuda": True, "cuda_build": "12.6", "gpu_kind": "cuda",
          "gpu_runtime_version": "12.6"}, "Testing pytorch 2.13.0+cu126 (CUDA build: 12.6)\n"),
        ({"framework_version": "2.13.0+cpu", "hip_build": None},
         "Testing pytorch 2.13.0+cpu (CUDA build: none (CPU build))\n"),
        ({"framework_version": "2.7.0+rocm6.3", "hip_build": "6.3.42131-fa1d09cbd"},
         "Testing pytorch 2.7.0+rocm6.3 (ROCm build: HIP 6.3.42131-fa1d09cbd)\n"),
        ({"framework_version": "2.9.0+xpu", "gpu_kind": "xpu", "gpu_runtime_version": "20250101"},
         "Testing pytorch 2.9.0+xpu (Intel XPU 20250101)\n"),
        ({"framework_version": "2.2.2", "gpu_kind": "mps", "gpu_runtime_version": "15.1.1"},
         "Testing pytorch 2.2.2 (Apple MPS on macOS 15.1.1)\n"),
        ({"framework_version": "2.13.0+cpu", "device_requested": "rocm", "hip_build": None},
         "Testing pytorch 2.13.0+cpu (CUDA build: none (CPU build))\n  expects: ROCm GPU\n"),
    ],
)  # fmt: skip
def test_the_first_line_names_the_build_and_the_gpu_expected(fields: dict[str, Any], line: str):
    assert shown(start(**fields)) == [line]


def test_each_gpu_line_says_its_kind_where_it_is_not_cuda():
    assert shown(
        {"event": "device", "kind": "gpu", "index": 0, "name": "NVIDIA H200", "gpu_kind": "cuda"},
        {"event": "device", "kind": "gpu", "index": 0, "name": "AMD Instinct MI300X", "gpu_kind": "rocm",
         "gcn_arch": "gfx942:sramecc+:xnack-"},
        {"event": "device", "kind": "gpu", "index": 0, "name": "Intel(R) Data Center GPU Max 1550", "gpu_kind": "xpu"},
        {"event": "device", "kind": "cpu", "name": "AMD EPYC", "threads": 2},
    ) == [
        "  sees gpu: NVIDIA H200\n",
        "  sees gpu (ROCm, gfx942:sramecc+:xnack-): AMD Instinct MI300X\n",
        "  sees gpu (Intel XPU): Intel(R) Data Center GPU Max 1550\n",
        "  sees cpu: AMD EPYC\n",
    ]  # fmt: skip


def test_the_verdict_names_the_kind_it_trained_on_or_the_one_it_expected():
    rocm = result_text(result_from_json({
        "verdict": "gpu_ok", "framework": "pytorch", "samples_per_s": {"gpu": 9000.0, "cpu": 300.0}, "speedup": 30.0,
        "seconds": 20.0, "gpu_kind": "rocm", "gpu_runtime_version": "6.3.42131-fa1d09cbd",
    }))  # fmt: skip
    assert "  GPU kind: ROCm, runtime 6.3.42131-fa1d09cbd\n" in rocm
    missing = result_text(result_from_json({
        "verdict": "cpu_only", "framework": "pytorch", "samples_per_s": {"gpu": None, "cpu": 300.0},
        "seconds": 20.0, "device_expected": "xpu",
    }))  # fmt: skip
    assert "  expected GPU: Intel XPU; the framework sees none (the finding above says why)\n" in missing
    cuda = result_text(result_from_json({
        "verdict": "gpu_ok", "framework": "pytorch", "samples_per_s": {"gpu": 9000.0, "cpu": 300.0}, "speedup": 30.0,
        "seconds": 20.0, "gpu_kind": "cuda", "gpu_runtime_version": "12.6",
    }))  # fmt: skip
    assert "GPU kind" not in cuda and "expected" not in cuda
