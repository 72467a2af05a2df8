"""The GPU kinds of the live test, as the wizard reads and judges them (core/livetest/devices.py).

The probe's side, on recorded machines, is tests/probes/test_torch_devices.py; here the events
it prints for an AMD, Intel or Apple GPU are read, written back and judged.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from gpuwizard.core.events import to_json
from gpuwizard.core.findings.model import Finding
from gpuwizard.core.livetest.devices import GpuUnavailable, unavailable_finding
from gpuwizard.core.livetest.events import LIVE_TEST_EVENTS, Device, LiveTestResult, Start, result_from_json
from gpuwizard.core.livetest.judge import ProbeEnd, ProbeRun, judge, result_of
from gpuwizard.core.livetest.verdicts import VERDICTS, level, passed

#: Shapes the probe prints on ROCm, XPU and MPS (values from tests/fixtures/frameworks).
SHAPES: list[dict[str, Any]] = [
    {"event": "start", "probe": "train_test", "framework": "pytorch", "framework_version": "2.7.0+rocm6.3",
     "built_with_cuda": False, "cuda_build": None, "cudnn_build": None, "arch_list": ["gfx908", "gfx90a"],
     "config": {"steps": 200, "cpu_steps": 20}, "python": "3.12.3", "python_executable": "/envs/rocm/bin/python",
     "device_requested": "rocm", "gpu_kind": "rocm", "gpu_runtime_version": "6.3.42131-fa1d09cbd",
     "hip_build": "6.3.42131-fa1d09cbd"},
    {"event": "start", "probe": "train_test", "framework": "pytorch", "framework_version": "2.8.0.dev20250327+xpu",
     "built_with_cuda": False, "cuda_build": None, "cudnn_build": None, "arch_list": [],
     "config": {"steps": 200, "cpu_steps": 20}, "device_requested": "xpu",
     "gpu_unavailable": {"expected": "xpu", "reason": "no_device", "build": "2.8.0.dev20250327+xpu",
                         "hidden_by": {"ZE_AFFINITY_MASK": "3"}},
     "hip_build": None},
    {"event": "device", "kind": "gpu", "index": 0, "name": "AMD Instinct MI300X", "gpu_kind": "rocm",
     "gcn_arch": "gfx942:sramecc+:xnack-", "compute_capability": "9.4", "memory_total_mib": 196592,
     "arch_in_build": True, "ptx_only": False, "arch_matched": "gfx942"},
    {"event": "device", "kind": "gpu", "index": 0, "name": "Intel(R) Data Center GPU Max 1550", "gpu_kind": "xpu",
     "compute_capability": None, "memory_total_mib": 65520, "driver_version": "1.6.33578+15",
     "arch_in_build": None, "ptx_only": None, "arch_matched": None},
    {"event": "prepare", "stage": "rocm_context", "device": "gpu"},
    {"event": "prepare", "stage": "mps_context", "device": "gpu"},
]  # fmt: skip


@pytest.mark.parametrize("line", SHAPES, ids=lambda line: f"{line['event']}-{line.get('stage', '')}")
def test_each_new_shape_writes_back_key_for_key(line: dict[str, Any]):
    assert json.dumps(to_json(LIVE_TEST_EVENTS.read(line))) == json.dumps(line)


def test_the_kind_and_its_facts_are_read_typed():
    rocm, xpu, mi300x = (LIVE_TEST_EVENTS.read(line) for line in SHAPES[:3])
    assert isinstance(rocm, Start) and isinstance(xpu, Start) and isinstance(mi300x, Device)
    assert (rocm.gpu_kind, rocm.gpu_runtime_version, rocm.hip_build, rocm.gpu_unavailable) == (
        "rocm", "6.3.42131-fa1d09cbd", "6.3.42131-fa1d09cbd", None,
    )  # fmt: skip
    assert xpu.gpu_unavailable == GpuUnavailable(
        expected="xpu", reason="no_device", build="2.8.0.dev20250327+xpu", hidden_by={"ZE_AFFINITY_MASK": "3"}
    )
    assert xpu.hip_build is None
    assert (mi300x.gpu_kind, mi300x.gcn_arch, mi300x.extra["compute_capability"]) == (
        "rocm", "gfx942:sramecc+:xnack-", "9.4",
    )  # fmt: skip


def test_a_start_without_the_new_fields_reads_them_as_unknown():
    start = LIVE_TEST_EVENTS.read({"event": "start", "framework": "pytorch", "hip_build": None})
    assert isinstance(start, Start)
    assert (start.device_requested, start.gpu_kind, start.gpu_unavailable, start.hip_build) == (None,) * 4


@pytest.mark.parametrize(
    ("unavailable", "code", "variant", "words"),
    [
        (GpuUnavailable(expected="rocm", reason="not_built", build="2.13.0+cpu"), "GPU_NOT_VISIBLE", "rocm_not_built",
         "PyTorch sees no ROCm GPU: torch.version.hip is None, so 2.13.0+cpu is not a ROCm build."),
        (GpuUnavailable(expected="rocm", reason="other_build", build="2.8.0+cu128", runtime_version="12.8"),
         "GPU_NOT_VISIBLE", "rocm_not_built", "2.8.0+cu128 is not a ROCm build"),
        (GpuUnavailable(expected="rocm", reason="no_device", runtime_version="6.3.42131-fa1d09cbd", kfd="missing"),
         "GPU_NOT_VISIBLE", "rocm_no_kfd", "(HIP 6.3.42131-fa1d09cbd) but sees no GPU: /dev/kfd does not exist."),
        (GpuUnavailable(expected="rocm", reason="no_device", runtime_version="6.3.42131-fa1d09cbd", kfd="denied"),
         "GPU_NOT_VISIBLE", "rocm_kfd_denied", "this user cannot open /dev/kfd"),
        (GpuUnavailable(expected="rocm", reason="no_device", runtime_version="6.3.42131-fa1d09cbd", kfd="ok"),
         "GPU_NOT_VISIBLE", "rocm_no_device", "(HIP 6.3.42131-fa1d09cbd) but sees no AMD GPU."),
        (GpuUnavailable(expected="rocm", reason="no_device", runtime_version="6.3.42131-fa1d09cbd"),
         "GPU_NOT_VISIBLE", "rocm_no_device", "sees no AMD GPU"),
        (GpuUnavailable(expected="xpu", reason="not_built", build="2.13.0+cpu"), "GPU_NOT_VISIBLE", "xpu_not_built",
         "PyTorch sees no Intel GPU: 2.13.0+cpu is not an XPU build."),
        (GpuUnavailable(expected="xpu", reason="no_device", build="2.8.0.dev20250327+xpu"), "GPU_NOT_VISIBLE",
         "xpu_no_device", "XPU build (2.8.0.dev20250327+xpu) but sees no Intel GPU."),
        (GpuUnavailable(expected="mps", reason="not_built", build="2.13.0+cpu"), "GPU_NOT_VISIBLE", "mps_not_built",
         "PyTorch sees no Apple GPU: 2.13.0+cpu was built without MPS"),
        (GpuUnavailable(expected="mps", reason="no_device", build="2.10.0", runtime_version="26.3.1"),
         "GPU_NOT_VISIBLE", "mps_no_device", "cannot use this Mac's GPU (macOS 26.3.1)."),
        (GpuUnavailable(expected="cuda", reason="other_build", runtime_version="6.3.42131-fa1d09cbd"),
         "GPU_NOT_VISIBLE", "cuda_rocm_build", "ROCm build (HIP 6.3.42131-fa1d09cbd), which cannot use an NVIDIA GPU"),
        # CUDA's own cases keep the findings they always had.
        (GpuUnavailable(expected="cuda", reason="not_built", build="2.13.0+cpu"), "CPU_ONLY_BUILD", None,
         "CPU-only build"),
        (GpuUnavailable(expected="cuda", reason="no_device", runtime_version="12.6"), "GPU_NOT_VISIBLE", None,
         "sees no GPU, although this machine has one"),
    ],
)  # fmt: skip
def test_the_finding_names_the_kind_expected_and_why_none_is_visible(
    unavailable: GpuUnavailable, code: str, variant: str | None, words: str
):
    finding = unavailable_finding(unavailable)
    assert finding is not None
    assert (finding.code, finding.params.get("variant")) == (code, variant)
    assert words in finding.message
    assert finding.severity == "error" and finding.hint


def test_what_hides_the_devices_and_a_runtime_error_are_kept_as_the_findings_data():
    finding = unavailable_finding(
        GpuUnavailable(
            expected="rocm",
            reason="no_device",
            runtime_version="6.3",
            hidden_by={"HIP_VISIBLE_DEVICES": ""},
            error="RuntimeError: No HIP GPUs are available",
        )
    )
    assert finding is not None
    assert finding.params["hidden_by"] == "HIP_VISIBLE_DEVICES=''"
    assert finding.params["error"] == "RuntimeError: No HIP GPUs are available"


def test_a_kind_this_version_does_not_know_falls_back_to_the_machines_rule():
    assert unavailable_finding(GpuUnavailable(expected="tpu", reason="no_device")) is None
    run = ProbeRun()
    for event in (
        {"event": "start", "framework": "pytorch", "built_with_cuda": True,
         "gpu_unavailable": {"expected": "tpu", "reason": "no_device"}},
        {"event": "summary", "loss_first": 2.3, "loss_last": 0.4, "samples_per_s": {"gpu": None, "cpu": 900.0},
         "gpu_used": False},
    ):  # fmt: skip
        run.add(LIVE_TEST_EVENTS.read(event))
    assert judge(run, ProbeEnd(0), machine_has_nvidia_gpu=False) == ("cpu_only", [])
    assert judge(run, ProbeEnd(0), machine_has_nvidia_gpu=True)[1][0].code == "GPU_NOT_VISIBLE"


def test_the_result_carries_the_kind_and_reads_back_equal():
    result = LiveTestResult(
        verdict="gpu_ok", framework="pytorch", device="AMD Instinct MI300X", device_expected="rocm",
        gpu_kind="rocm", gpu_runtime_version="6.0.32830", gpu_arch="gfx942:sramecc+:xnack-",
    )  # fmt: skip
    data = to_json(result)
    assert list(data)[-5:] == ["device_expected", "gpu_kind", "gpu_runtime_version", "gpu_arch", "status"]
    assert result_from_json(json.loads(json.dumps(data))) == result


def test_the_expected_kind_is_in_the_result_even_when_the_probe_never_started():
    run = ProbeRun()
    result = result_of(run, "broken", [], framework="pytorch", seconds=1.0, python=None, env=None,
                       device_expected="xpu")  # fmt: skip
    assert result.device_expected == "xpu"


def test_training_on_the_cpu_never_passes_when_a_gpu_was_expected():
    assert [passed(verdict, False, gpu_expected=True) for verdict in VERDICTS] == [True, True, False, False]
    assert [passed(verdict, False) for verdict in VERDICTS] == [True, True, True, False]  # as before
    assert (level("cpu_only", False), level("cpu_only", False, gpu_expected=True)) == ("ok", "warning")


def test_findings_are_plain_findings():
    finding = unavailable_finding(GpuUnavailable(expected="xpu", reason="not_built", build="2.13.0+cpu"))
    assert isinstance(finding, Finding)
