"""Which GPU the live test's probe trains on, on what real machines' PyTorch printed.

Each case is a stand-in ``torch`` (``harness/fake_torch.py``) that answers as a recorded machine
did (``tests/fixtures/frameworks``, SOURCE.md there names each printout): an AMD MI100 and MI300X
and an RX 7900 XTX through ROCm, Intel Data Center GPU Max and Arc A770 through XPU, Apple and
Intel Macs through MPS, and this suite's own CPU wheel. The probe's modules run as they run in
the user's environment (``torch_devices``, ``env_report``, ``train_torch``, ``train_test``); their
events are read and judged by the wizard's own code, as ``gpuwizard test`` does.
"""

from __future__ import annotations

import ast
import io
import json
import platform
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from gpuwizard.core.livetest.events import LIVE_TEST_EVENTS, Device, Prepare, Start
from gpuwizard.core.livetest.judge import ProbeEnd, ProbeRun, judge, result_of
from gpuwizard.probes import env_report, torch_devices, train_test
from gpuwizard.probes.train_torch import TorchBackend
from harness.fake_torch import fake_torch, load_record

CPU = "torch-2.13.0+cpu_linux_recorded-here.json"
MI100 = "torch-2.7.0+rocm6.3_mi100.json"
ROCM_NO_DEVICE = "torch-2.7.0+rocm6.3_no-device.json"
MI300X = "rocm_mi300x_device-properties.json"
RX7900XTX = "rocm_rx7900xtx_benchmark.json"
MAX1550 = "torch-2.9.0.dev20250824+xpu_max1550.json"
A770_NO_DEVICE = "torch-2.8.0.dev20250327+xpu_a770_not-available.json"
M2MAX_NO_MPS = "torch-2.10.0_macos26.3.1_m2max_mps-not-available.json"
INTEL_MAC_MPS = "torch-2.2.2_macos15.1.1_intel-vega56_mps-available.json"
M1PRO_MPS = "torch-1.12_macos12.4_m1pro_mps-available.json"
VISIBILITY = ("CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "ZE_AFFINITY_MASK",
              "ONEAPI_DEVICE_SELECTOR")  # fmt: skip


@pytest.fixture(autouse=True)
def _no_device_variables(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # The machine running the suite says nothing about the recorded ones: no variable hides a
    # device, and /dev/kfd is a file of the test's own (missing unless a test makes it).
    for name in VISIBILITY:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(torch_devices, "KFD_PATH", str(tmp_path / "kfd"))


def machine(name: str, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The recorded machine's torch; on a Mac's record, the Mac's platform answers too."""
    record = load_record(name)
    facts = record.get("platform")
    if facts is not None:
        monkeypatch.setattr(platform, "system", lambda: facts["system"])
        monkeypatch.setattr(platform, "mac_ver", lambda: (facts["mac_ver"], ("", "", ""), facts["machine"]))
        monkeypatch.setattr(platform, "machine", lambda: facts["machine"])
        monkeypatch.setattr(torch_devices, "apple_chip", lambda: None)  # never runs sysctl here
    return fake_torch(record["torch"])


# --- choosing the device --------------------------------------------------------------------------


def test_the_cpu_build_has_no_gpu_of_any_kind(monkeypatch):
    torch = machine(CPU, monkeypatch)
    assert torch_devices.choose(torch, "auto") == {"gpu_kind": None, "gpu_runtime_version": None,
                                                   "gpu_unavailable": None}  # fmt: skip
    for kind in ("cuda", "rocm", "xpu"):
        assert torch_devices.choose(torch, kind)["gpu_unavailable"] == {
            "expected": kind, "reason": "not_built", "build": "2.13.0+cpu",
        }  # fmt: skip
    mps = torch_devices.choose(torch, "mps")["gpu_unavailable"]
    assert (mps["reason"], mps["machine"]) == ("not_built", platform.machine())


def test_a_rocm_build_trains_on_its_amd_gpu_through_torch_cuda(monkeypatch):
    torch = machine(MI100, monkeypatch)
    for requested in ("auto", "rocm"):
        assert torch_devices.choose(torch, requested) == {
            "gpu_kind": "rocm", "gpu_runtime_version": "6.3.42131-fa1d09cbd", "gpu_unavailable": None,
        }  # fmt: skip
    assert torch_devices.list_gpus(torch, "rocm") == [
        {"index": 0, "name": "AMD Instinct MI100", "gpu_kind": "rocm", "gcn_arch": "gfx908:sramecc+:xnack-",
         "compute_capability": None, "memory_total_mib": None},
    ]  # fmt: skip
    report = env_report.framework_report("pytorch", torch, "rocm")
    assert (report["hip_build"], report["built_with_cuda"], report["device_requested"]) == (
        "6.3.42131-fa1d09cbd", False, "rocm",
    )  # fmt: skip
    (gpu,) = report["gpus"]
    # The build carries gfx908 code (torch.cuda.get_arch_list() of the ROCm 6.3 builds).
    assert (gpu["arch_in_build"], gpu["ptx_only"], gpu["arch_matched"]) == (True, False, "gfx908")


def test_a_rocm_build_where_cuda_was_expected_names_its_hip(monkeypatch):
    unavailable = torch_devices.choose(machine(MI100, monkeypatch), "cuda")["gpu_unavailable"]
    assert unavailable == {"expected": "cuda", "reason": "other_build", "build": "2.7.0+rocm6.3",
                           "runtime_version": "6.3.42131-fa1d09cbd"}  # fmt: skip


def test_mi300x_properties_as_printed(monkeypatch):
    torch = machine(MI300X, monkeypatch)
    (gpu,) = env_report.framework_report("pytorch", torch)["gpus"]
    assert gpu["name"] == "AMD Instinct MI300X"
    assert gpu["gcn_arch"] == "gfx942:sramecc+:xnack-"
    # HIP's major.minor for gfx942, as torch printed it, and 196592MB of memory.
    assert (gpu["compute_capability"], gpu["memory_total_mib"]) == ("9.4", 196592)
    assert (gpu["arch_in_build"], gpu["arch_matched"]) == (True, "gfx942")


def test_on_rocm_cudnn_is_miopen_and_no_cudnn_build_is_claimed(monkeypatch):
    report = env_report.framework_report("pytorch", machine(RX7900XTX, monkeypatch))
    assert (report["cudnn_build"], report["miopen_build"]) == (None, "3.1.0")  # 3001000 as printed
    (gpu,) = report["gpus"]
    # An empty architecture list says nothing about the GPU's target.
    assert (gpu["name"], gpu["gcn_arch"], gpu["arch_in_build"]) == ("AMD Radeon RX 7900 XTX", "gfx1100", None)


@pytest.mark.parametrize(("kfd", "state"), [(None, "missing"), ("rw", "ok"), ("no-access", "denied")])
def test_hip_present_and_no_device_says_what_dev_kfd_is_for_this_user(monkeypatch, tmp_path, kfd, state):
    if kfd is not None:
        (tmp_path / "kfd").write_text("")
    if (
        kfd == "no-access"
    ):  # the suite may run as root, who may open anything: ask as a user would be answered
        monkeypatch.setattr(torch_devices.os, "access", lambda path, mode: False)
    monkeypatch.setenv("HIP_VISIBLE_DEVICES", "")
    torch = machine(ROCM_NO_DEVICE, monkeypatch)
    assert torch_devices.choose(torch, "auto")["gpu_unavailable"] is None  # looked for any: none, no reason
    unavailable = torch_devices.choose(torch, "rocm")["gpu_unavailable"]
    assert unavailable == {
        "expected": "rocm", "reason": "no_device", "build": "2.7.0+rocm6.3",
        "runtime_version": "6.3.42131-fa1d09cbd", "kfd": state, "hidden_by": {"HIP_VISIBLE_DEVICES": ""},
    }  # fmt: skip


def test_an_xpu_build_trains_on_its_intel_gpu(monkeypatch):
    torch = machine(MAX1550, monkeypatch)
    choice = torch_devices.choose(torch, "auto")
    # torch.version.xpu was not printed on that machine (None on some +xpu builds): unknown.
    assert choice == {"gpu_kind": "xpu", "gpu_runtime_version": None, "gpu_unavailable": None}
    assert torch_devices.list_gpus(torch, "xpu") == [
        {"index": 0, "name": "Intel(R) Data Center GPU Max 1550", "gpu_kind": "xpu", "compute_capability": None,
         "memory_total_mib": 65520, "driver_version": "1.6.33578+15"},
    ]  # fmt: skip
    # The version, where a build has it, is passed on as PyTorch gives it ("like 20250101").
    torch.version.xpu = "20250101"
    assert torch_devices.choose(torch, "xpu")["gpu_runtime_version"] == "20250101"
    assert torch_devices.choose(torch, "rocm")["gpu_unavailable"]["reason"] == "not_built"


def test_an_xpu_build_that_sees_no_intel_gpu_says_so(monkeypatch):
    monkeypatch.setenv("ZE_AFFINITY_MASK", "3")
    torch = machine(A770_NO_DEVICE, monkeypatch)
    assert torch_devices.choose(torch, "auto")["gpu_kind"] is None
    assert torch_devices.choose(torch, "xpu")["gpu_unavailable"] == {
        "expected": "xpu", "reason": "no_device", "build": "2.8.0.dev20250327+xpu", "hidden_by": {"ZE_AFFINITY_MASK": "3"},
    }  # fmt: skip


def test_mps_built_but_not_available_names_the_macos(monkeypatch):
    torch = machine(M2MAX_NO_MPS, monkeypatch)
    assert torch_devices.choose(torch, "auto")["gpu_kind"] is None
    assert torch_devices.choose(torch, "mps")["gpu_unavailable"] == {
        "expected": "mps", "reason": "no_device", "build": "2.10.0", "runtime_version": "26.3.1", "machine": "arm64",
    }  # fmt: skip


def test_mps_on_an_intel_mac_trains_without_bfloat16(monkeypatch):
    torch = machine(INTEL_MAC_MPS, monkeypatch)  # torch 2.2.2: no torch.xpu at all
    assert not hasattr(torch, "xpu")
    assert torch_devices.choose(torch, "auto") == {"gpu_kind": "mps", "gpu_runtime_version": "15.1.1",
                                                   "gpu_unavailable": None}  # fmt: skip
    (gpu,) = torch_devices.list_gpus(torch, "mps")
    assert (gpu["name"], gpu["gpu_kind"], gpu["memory_total_mib"]) == ("Metal GPU", "mps", None)
    # "BFloat16 is not supported on MPS" on that Mac: the matmul is measured without it.
    assert torch_devices.matmul_dtypes(torch, "mps") == ["float32", "float16"]


def test_mps_on_apple_silicon_measures_bfloat16_only_from_macos_14(monkeypatch):
    torch = machine(M1PRO_MPS, monkeypatch)
    monkeypatch.setattr(torch_devices, "apple_chip", lambda: "Apple M1 Pro")
    assert torch_devices.choose(torch, "mps")["gpu_kind"] == "mps"
    assert torch_devices.list_gpus(torch, "mps")[0]["name"] == "Apple M1 Pro"
    assert torch_devices.matmul_dtypes(torch, "mps") == ["float32", "float16"]  # macOS 12.4
    monkeypatch.setattr(platform, "mac_ver", lambda: ("14.0", ("", "", ""), "arm64"))
    assert torch_devices.matmul_dtypes(torch, "mps") == ["float32", "float16", "bfloat16"]


def test_rocm_and_xpu_measure_bfloat16_where_the_device_says_it_has_it(monkeypatch):
    torch = machine(MI100, monkeypatch)
    # Not printed on that machine: unknown, so left out rather than risked.
    assert torch_devices.matmul_dtypes(torch, "rocm") == ["float32", "float16"]
    torch.cuda.is_bf16_supported = lambda: True
    assert torch_devices.matmul_dtypes(torch, "rocm") == ["float32", "float16", "bfloat16"]
    xpu = machine(MAX1550, monkeypatch)
    xpu.xpu.is_bf16_supported = lambda: True
    assert torch_devices.matmul_dtypes(xpu, "xpu") == ["float32", "float16", "bfloat16"]  # has_fp16=1


# --- the backend on each kind ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "kind", "device", "runtime"),
    [
        (MI100, "rocm", "cuda:0", "cuda"),
        (MAX1550, "xpu", "xpu:0", "xpu"),
        (INTEL_MAC_MPS, "mps", "mps", "mps"),
    ],
)
def test_the_backend_waits_and_frees_memory_through_its_kinds_own_module(
    monkeypatch, name, kind, device, runtime
):
    torch = machine(name, monkeypatch)
    backend = TorchBackend(torch, {"seed": 0}, gpu_kind=kind)
    backend.sync()
    backend.release()
    assert backend.devices["gpu"] == device
    assert torch.calls == [f"{runtime}.synchronize", f"{runtime}.empty_cache"]
    # TF32 is NVIDIA's: float32 is reported as float32 on every other GPU.
    assert (backend.matmul_tf32, backend.on_cuda) == (False, False)


def test_the_cuda_backend_is_as_it_was(monkeypatch):
    torch = machine(CPU, monkeypatch)
    for backend in (TorchBackend(torch, {"seed": 0}), TorchBackend(torch, {"seed": 0}, "cuda:0")):
        assert (backend.gpu_kind, backend.devices["gpu"], backend.on_cuda) == ("cuda", "cuda:0", True)
        assert backend.matmul_tf32 is True  # precision "high": TF32 allowed, as CUDA's default says
        assert backend.matmul_dtypes((7, 5)) == ["float32", "float16"]
        backend.sync()
    assert torch.calls == ["cuda.synchronize", "cuda.synchronize"]
    stand_in = TorchBackend(torch, {"seed": 0}, gpu_device="cpu")  # the suite's CPU standing in
    stand_in.sync()
    assert (stand_in.gpu_kind, torch.calls[2:]) == (None, [])


# --- the probe's events, judged by the wizard --------------------------------------------------------


class _Trainer:
    """Training whose loss falls, with no framework underneath."""

    def __init__(self) -> None:
        self.loss = 2.3

    def steps(self, count: int) -> list[float]:
        losses = []
        for _ in range(count):
            self.loss *= 0.7
            losses.append(self.loss)
        return losses

    def reset(self) -> None:
        self.loss = 2.3


class _Backend:
    """The probe's backend contract, answering at once: what run_backend does with it is the point."""

    matmul_tf32 = False

    def __init__(self, dtypes: list[str]) -> None:
        self.dtypes = dtypes

    def cpu_threads(self) -> int:
        return 1

    def open_device(self, device: str) -> None:
        pass

    def make_data(self, count: int) -> None:
        pass

    def trainer(self, device: str, batch: int) -> _Trainer:
        return _Trainer()

    def matmul_dtypes(self, capability: object) -> list[str]:
        return self.dtypes

    def matmul(self, size: int, dtype: str) -> tuple[float, int]:
        return 0.01, 3

    def compare(self, gpu: object, cpu: object, samples: int) -> tuple[float, float]:
        return 1e-5, 1.0

    def release(self) -> None:
        pass

    @staticmethod
    def is_out_of_memory(error: BaseException) -> bool:
        return False


SMALL = ["--steps", "3", "--cpu-steps", "3", "--warmup", "1", "--cpu-warmup", "1", "--batch", "4",
         "--cpu-batch", "4", "--matmul-size", "8"]  # fmt: skip


def probe_run(torch: ModuleType, *args: str) -> list[dict[str, Any]]:
    """The probe's events for ``torch``, from its report to its summary, as JSON lines."""
    config = train_test.parse_args(["--framework", "pytorch", *SMALL, *args])
    report = env_report.framework_report("pytorch", torch, config["device"])
    stream = io.StringIO()
    code = train_test.run_backend(config, train_test.Output(stream), report, _Backend(["float32", "float16"]),
                                  started=0.0)  # fmt: skip
    assert code == 0
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def judged(events: list[dict[str, Any]], *, machine_has_nvidia_gpu: bool | None = False) -> tuple[str, Any]:
    run = ProbeRun()
    for event in events:
        run.add(LIVE_TEST_EVENTS.read(event))
    verdict, findings = judge(run, ProbeEnd(0), machine_has_nvidia_gpu=machine_has_nvidia_gpu)
    return verdict, result_of(run, verdict, findings, framework="pytorch", seconds=1.0, python=None, env=None)


def test_a_rocm_run_says_its_kind_hip_and_gfx_target_and_trains_on_the_gpu(monkeypatch):
    events = probe_run(machine(MI100, monkeypatch), "--device", "rocm")
    start = next(event for event in events if event["event"] == "start")
    assert [key for key in start if key.startswith(("device_", "gpu_", "hip_"))] == [
        "device_requested", "gpu_kind", "gpu_runtime_version", "hip_build",
    ]  # fmt: skip
    assert (start["device_requested"], start["gpu_kind"], start["gpu_runtime_version"]) == (
        "rocm", "rocm", "6.3.42131-fa1d09cbd",
    )  # fmt: skip
    (gpu,) = [event for event in events if event["event"] == "device" and event["kind"] == "gpu"]
    assert (gpu["gpu_kind"], gpu["gcn_arch"]) == ("rocm", "gfx908:sramecc+:xnack-")
    stages = [event["stage"] for event in events if event["event"] == "prepare"]
    assert stages == ["rocm_context", "compile", "compile"]
    assert [event["dtype"] for event in events if event["event"] == "matmul"] == ["float32", "float16"]
    # The wizard reads the same facts back, typed, and says them in the result.
    typed = [LIVE_TEST_EVENTS.read(event) for event in events]
    assert isinstance(typed[0], Start) and typed[0].hip_build == "6.3.42131-fa1d09cbd"
    assert [event.gcn_arch for event in typed if isinstance(event, Device) and event.is_gpu] == [
        "gfx908:sramecc+:xnack-"
    ]
    assert [json.dumps(event.to_json()) for event in typed] == [json.dumps(event) for event in events]
    verdict, result = judged(events)
    assert verdict in ("gpu_ok", "gpu_slow")
    assert (result.device, result.device_expected, result.gpu_kind) == ("AMD Instinct MI100", "rocm", "rocm")
    assert (result.gpu_runtime_version, result.gpu_arch) == ("6.3.42131-fa1d09cbd", "gfx908:sramecc+:xnack-")


@pytest.mark.parametrize(
    ("name", "device", "variant", "words"),
    [
        (CPU, "rocm", "rocm_not_built", "PyTorch sees no ROCm GPU: torch.version.hip is None, so 2.13.0+cpu is not a"),
        (ROCM_NO_DEVICE, "rocm", "rocm_no_kfd", "ROCm build (HIP 6.3.42131-fa1d09cbd) but sees no GPU: /dev/kfd"),
        (MI100, "cuda", "cuda_rocm_build", "PyTorch is a ROCm build (HIP 6.3.42131-fa1d09cbd), which cannot use"),
        (CPU, "xpu", "xpu_not_built", "PyTorch sees no Intel GPU: 2.13.0+cpu is not an XPU build."),
        (A770_NO_DEVICE, "xpu", "xpu_no_device", "XPU build (2.8.0.dev20250327+xpu) but sees no Intel GPU"),
        (M2MAX_NO_MPS, "mps", "mps_no_device", "PyTorch has MPS but cannot use this Mac's GPU (macOS 26.3.1)."),
    ],
)  # fmt: skip
def test_a_kind_expected_and_not_there_is_cpu_only_with_why(monkeypatch, name, device, variant, words):
    events = probe_run(machine(name, monkeypatch), "--device", device)
    start = next(event for event in events if event["event"] == "start")
    assert start["device_requested"] == device and "gpu_kind" not in start
    assert start["gpu_unavailable"]["expected"] == device
    assert not [event for event in events if event["event"] == "device" and event["kind"] == "gpu"]
    # On any machine, NVIDIA GPU or not: the plan expected this kind.
    for has_nvidia in (False, True, None):
        verdict, result = judged(events, machine_has_nvidia_gpu=has_nvidia)
        assert verdict == "cpu_only"
        (finding,) = result.findings
        assert (finding.code, finding.params["variant"]) == ("GPU_NOT_VISIBLE", variant)
        assert words in finding.message
        assert (result.device, result.device_expected, result.gpu_kind) == ("cpu", device, None)


def test_a_cpu_run_that_expects_no_gpu_reads_as_it_always_did(monkeypatch):
    events = probe_run(machine(CPU, monkeypatch))
    start = next(event for event in events if event["event"] == "start")
    assert list(start)[-3:] == ["python", "python_executable", "hip_build"]
    assert [event["stage"] for event in events if event["event"] == "prepare"] == ["compile"]
    verdict, result = judged(events, machine_has_nvidia_gpu=True)
    assert (verdict, [finding.code for finding in result.findings]) == ("cpu_only", ["CPU_ONLY_BUILD"])
    written = result.to_json()
    assert not {"device_expected", "gpu_kind", "gpu_runtime_version", "gpu_arch"} & written.keys()


def test_each_stage_of_a_gpu_kind_has_its_words():
    from gpuwizard.core.livetest.stages import stage_line, stage_why

    lines = {
        kind: stage_line(Prepare(stage=f"{kind}_context", device="gpu"))
        for kind in ("cuda", "rocm", "xpu", "mps")
    }
    assert {kind: str(line) for kind, line in lines.items()} == {
        "cuda": "Starting CUDA on the GPU…", "rocm": "Starting ROCm on the GPU…",
        "xpu": "Starting the Intel GPU runtime…", "mps": "Starting Metal on the GPU…",
    }  # fmt: skip
    assert all(stage_why(Prepare(stage=f"{kind}_context")) is not None for kind in lines)


class _CapabilityBackend(_Backend):
    """A backend without a dtype rule of its own (TensorFlow's): the compute capability decides."""

    matmul_dtypes = None  # type: ignore[assignment]


def test_a_backend_without_its_own_dtypes_measures_by_compute_capability_as_before():
    stream = io.StringIO()
    out = train_test.Output(stream)
    train_test.measure_matmul(_CapabilityBackend([]), out, 8, "7.5")
    train_test.measure_matmul(_CapabilityBackend([]), out, 8, None)
    events = [json.loads(line) for line in stream.getvalue().splitlines()]
    dtypes = [event["dtype"] for event in events if event["event"] == "matmul"]
    assert dtypes == ["float32", "float16", "float32", "float16", "bfloat16"]


def test_the_device_module_keeps_to_the_probes_rules():
    # Run inside the user's environment: Python 3.7 syntax, the standard library and nothing of ours.
    source = Path(torch_devices.__file__).read_text(encoding="utf-8")
    tree = ast.parse(source, feature_version=(3, 7))
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert imported <= set(sys.stdlib_module_names)
