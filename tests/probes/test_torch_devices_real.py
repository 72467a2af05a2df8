"""The device-generic probe with the real CPU build of torch, in the environment the suite makes.

The probe runs as the wizard runs it (its own interpreter, by path); what it prints is read and
judged by the wizard's code. With no GPU here, each path that can run for real does: the CPU
build told to use an AMD or Intel GPU (it trains on the CPU and says why none is there), the
environment report asked for a kind, the CPU record of tests/fixtures/frameworks checked against
this very wheel, and the GPU path itself with the real torch training on the CPU in the place of
an AMD MI100 whose answers were recorded (``harness/fake_torch.py``).
"""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path
from typing import Any

import pytest

from gpuwizard.core.livetest.events import LIVE_TEST_EVENTS
from gpuwizard.core.livetest.judge import ProbeEnd, ProbeRun, judge, result_of
from harness.fake_torch import load_record
from harness.gpu_stand_in import SMALL_GPU_RUN

PROBES = Path(__file__).resolve().parents[2] / "app" / "gpuwizard" / "probes"
TESTS = Path(__file__).resolve().parents[1]
SMALL_CPU_RUN = ["--cpu-steps", "12", "--cpu-batch", "16", "--cpu-warmup", "1"]


def run(argv: list[str]) -> tuple[int, list[dict[str, Any]], str]:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, check=False)
    return done.returncode, [json.loads(line) for line in done.stdout.splitlines()], done.stderr


def judged(events: list[dict[str, Any]], *, machine_has_nvidia_gpu: bool | None) -> tuple[str, Any]:
    probe = ProbeRun()
    for event in events:
        probe.add(LIVE_TEST_EVENTS.read(event))
    verdict, findings = judge(probe, ProbeEnd(0), machine_has_nvidia_gpu=machine_has_nvidia_gpu)
    return verdict, result_of(
        probe, verdict, findings, framework="pytorch", seconds=1.0, python=None, env=None
    )


@pytest.mark.slow
def test_the_cpu_record_is_what_the_real_cpu_torch_says(torch_python: str):
    script = textwrap.dedent(
        """
        import json, torch
        print(json.dumps({
            "__version__": torch.__version__,
            "version": {"cuda": torch.version.cuda, "hip": torch.version.hip, "xpu": torch.version.xpu},
            "cuda": {"is_available": torch.cuda.is_available(), "arch_list": torch.cuda.get_arch_list()},
            "xpu": {"compiled": torch.xpu._is_compiled(), "is_available": torch.xpu.is_available(),
                    "arch_list": torch.xpu.get_arch_list()},
            "mps": {"is_built": torch.backends.mps.is_built(), "is_available": torch.backends.mps.is_available()},
        }))
        """
    )
    code, (said,), stderr = run([torch_python, "-c", script])
    assert code == 0, stderr
    assert said == load_record("torch-2.13.0+cpu_linux_recorded-here.json")["torch"]


@pytest.mark.slow
@pytest.mark.parametrize(("device", "variant"), [("rocm", "rocm_not_built"), ("xpu", "xpu_not_built")])
def test_the_cpu_build_told_to_use_a_gpu_it_lacks_trains_on_the_cpu_and_says_why(
    torch_python: str, device: str, variant: str
):
    code, events, stderr = run(
        [
            torch_python,
            str(PROBES / "train_test.py"),
            "--framework",
            "pytorch",
            "--device",
            device,
            *SMALL_CPU_RUN,
        ]
    )
    assert code == 0, stderr
    start = next(event for event in events if event["event"] == "start")
    assert start["device_requested"] == device
    assert start["gpu_unavailable"] == {"expected": device, "reason": "not_built", "build": "2.13.0+cpu"}
    assert "gpu_kind" not in start
    assert [event["kind"] for event in events if event["event"] == "device"] == ["cpu"]
    steps = [event for event in events if event["event"] == "step"]
    assert len(steps) == 12 and all(step["device"] == "cpu" for step in steps)
    verdict, result = judged(events, machine_has_nvidia_gpu=False)
    assert verdict == "cpu_only"
    assert [(finding.code, finding.params.get("variant")) for finding in result.findings] == [
        ("GPU_NOT_VISIBLE", variant)
    ]
    assert (result.device, result.device_expected) == ("cpu", device)


@pytest.mark.slow
def test_the_real_environment_report_adds_only_what_it_knows(torch_python: str):
    report_py = str(PROBES / "env_report.py")
    code, (plain,), stderr = run([torch_python, report_py, "--framework", "pytorch"])
    assert code == 0, stderr
    assert not {
        key for key in plain if key.startswith(("gpu_kind", "gpu_runtime", "gpu_unavailable", "device_"))
    }
    code, (asked,), stderr = run([torch_python, report_py, "--framework", "pytorch", "--device", "mps"])
    assert code == 0, stderr
    assert asked["device_requested"] == "mps"
    assert (asked["gpu_unavailable"]["expected"], asked["gpu_unavailable"]["reason"]) == ("mps", "not_built")
    code, (refused,), _stderr = run([torch_python, report_py, "--framework", "pytorch", "--device", "tpu"])
    assert (code, refused["ok"]) == (2, False)


#: The probe's GPU path with real training on the CPU, for a GPU whose answers a real MI100 gave.
AMD_STAND_IN = textwrap.dedent(
    """
    import sys, time
    sys.path[:0] = [sys.argv[1], sys.argv[2]]  # the probes' folder, the tests' (harness.fake_torch)
    import env_report, train_test, train_torch
    from harness.fake_torch import fake_torch, load_record
    import torch
    config = train_test.parse_args(sys.argv[4:])
    amd = fake_torch(load_record(sys.argv[3])["torch"])
    report = env_report.framework_report("pytorch", amd, config["device"])
    backend = train_torch.TorchBackend(torch, config, gpu_device="cpu")
    sys.exit(train_test.run_backend(config, train_test.Output(), report, backend, started=time.perf_counter()))
    """
)


@pytest.mark.slow
def test_the_gpu_path_runs_for_real_for_an_amd_gpu_with_the_cpu_standing_in(torch_python: str):
    code, events, stderr = run(
        [torch_python, "-c", AMD_STAND_IN, str(PROBES), str(TESTS), "torch-2.7.0+rocm6.3_mi100.json",
         "--framework", "pytorch", "--device", "rocm", *SMALL_GPU_RUN, "--steps", "30", "--cpu-steps", "20"]
    )  # fmt: skip
    assert code == 0, stderr
    stages = [(event["stage"], event.get("device")) for event in events if event["event"] == "prepare"]
    assert stages == [("rocm_context", "gpu"), ("compile", "gpu"), ("compile", "cpu")]
    (compare,) = [event for event in events if event["event"] == "compare"]
    assert compare["ok"] is True
    verdict, result = judged(events, machine_has_nvidia_gpu=False)
    assert verdict in ("gpu_ok", "gpu_slow")  # the CPU's speed decides, standing in for a GPU
    assert (result.device, result.device_expected, result.gpu_kind) == ("AMD Instinct MI100", "rocm", "rocm")
    assert (result.gpu_runtime_version, result.gpu_arch) == ("6.3.42131-fa1d09cbd", "gfx908:sramecc+:xnack-")
    assert set(result.matmul_tflops) == {"float32", "float16", "bfloat16"}
