"""The live test's verdict rules, on event streams shaped like the probe's."""

from __future__ import annotations

import math
from typing import Any

import pytest

from gpuwizard.core.events import to_json
from gpuwizard.core.findings.model import Finding
from gpuwizard.core.livetest.events import LIVE_TEST_EVENTS
from gpuwizard.core.livetest.judge import ProbeEnd, ProbeRun, judge, result_of
from gpuwizard.core.livetest.verdicts import GPU_SLOW_SPEEDUP

OK_END = ProbeEnd(0)


def run_of(*events: dict[str, Any]) -> ProbeRun:
    run = ProbeRun()
    for event in events:
        run.add(LIVE_TEST_EVENTS.read(event))
    return run


def result_event(
    run: ProbeRun, verdict: str, findings: list[Finding], *, framework: str, seconds: float
) -> dict[str, Any]:
    """The result as the JSON the test prints."""
    return to_json(
        result_of(run, verdict, findings, framework=framework, seconds=seconds, python=None, env=None)
    )


def start(built_with_cuda: bool = True) -> dict[str, Any]:
    return {
        "event": "start",
        "framework": "pytorch",
        "framework_version": "2.13.0+cu126",
        "built_with_cuda": built_with_cuda,
        "cuda_build": "12.6" if built_with_cuda else None,
        "python_executable": "/envs/demo/bin/python",
    }


def summary(gpu: float | None, cpu: float, first: float = 2.3, last: float = 0.4) -> dict[str, Any]:
    return {
        "event": "summary",
        "loss_first": first,
        "loss_last": last,
        "samples_per_s": {"gpu": gpu, "cpu": cpu},
        "gpu_used": gpu is not None,
        "seconds": 20.0,
    }


GPU = {"event": "device", "kind": "gpu", "index": 0, "name": "NVIDIA H200", "compute_capability": "9.0"}


def codes(findings: list[Any]) -> list[str]:
    return [finding.code for finding in findings]


def test_a_fast_gpu_is_ok_and_the_result_has_the_contract_fields():
    run = run_of(start(), GPU, {"event": "compare", "ok": True, "max_abs_diff": 1e-4, "tolerance": 1e-2},
                 {"event": "matmul", "dtype": "float32", "tflops": 51.23}, summary(51234.0, 812.0))  # fmt: skip
    verdict, findings = judge(run, OK_END, machine_has_nvidia_gpu=True)
    assert (verdict, findings) == ("gpu_ok", [])
    result = result_event(run, verdict, findings, framework="pytorch", seconds=21.43)
    assert {
        "event", "verdict", "framework", "framework_version", "device", "loss_first", "loss_last",
        "samples_per_s", "speedup", "seconds", "findings",
    } <= result.keys()  # fmt: skip
    assert result["device"] == "NVIDIA H200"
    assert result["speedup"] == pytest.approx(63.1, abs=0.1)
    assert result["samples_per_s"] == {"gpu": 51234.0, "cpu": 812.0}
    assert result["matmul_tflops"] == {"float32": 51.2}
    assert result["seconds"] == 21.4


def test_a_gpu_barely_faster_than_the_cpu_is_slow():
    run = run_of(start(), GPU, summary(812.0 * (GPU_SLOW_SPEEDUP - 0.5), 812.0))
    verdict, findings = judge(run, OK_END, machine_has_nvidia_gpu=True)
    assert (verdict, codes(findings)) == ("gpu_slow", ["GPU_SLOWER_THAN_EXPECTED"])


@pytest.mark.parametrize(
    ("built_with_cuda", "has_gpu", "expected"),
    [
        (False, True, ["CPU_ONLY_BUILD"]),
        (True, True, ["GPU_NOT_VISIBLE"]),
        (False, False, []),
        (False, None, []),
    ],
)
def test_cpu_only_is_explained_only_where_a_gpu_exists(
    built_with_cuda: bool, has_gpu: bool | None, expected: list[str]
):
    run = run_of(start(built_with_cuda), summary(None, 800.0))
    verdict, findings = judge(run, OK_END, machine_has_nvidia_gpu=has_gpu)
    assert (verdict, codes(findings)) == ("cpu_only", expected)
    assert result_event(run, verdict, findings, framework="pytorch", seconds=1)["device"] == "cpu"


@pytest.mark.parametrize(
    ("events", "end", "code"),
    [
        ([{"event": "error", "phase": "import", "type": "ModuleNotFoundError", "message": "No module named 'torch'"}],
         ProbeEnd(1), "FRAMEWORK_NOT_IMPORTABLE"),
        ([start(), {"event": "error", "phase": "train", "type": "RuntimeError", "message": "CUDA error"}],
         ProbeEnd(1), "TEST_PROBE_FAILED"),
        ([start()], ProbeEnd(-9, tail=("Killed",)), "TEST_PROBE_FAILED"),
        ([start()], ProbeEnd(0), "TEST_PROBE_FAILED"),
        ([start(), GPU], ProbeEnd(None, killed_reason="timeout"), "TEST_PROBE_KILLED"),
        ([start(), summary(None, 800.0, first=2.3, last=2.3)], OK_END, "TRAINING_DID_NOT_LEARN"),
        ([start(), summary(None, 800.0, first=2.3, last=math.nan)], OK_END, "TRAINING_DID_NOT_LEARN"),
        ([start(), GPU, {"event": "compare", "ok": False, "max_abs_diff": 3.5, "tolerance": 0.01},
          summary(50000.0, 800.0)], OK_END, "GPU_RESULTS_DIFFER"),
    ],
)  # fmt: skip
def test_what_makes_it_broken(events: list[dict[str, Any]], end: ProbeEnd, code: str):
    verdict, findings = judge(run_of(*events), end, machine_has_nvidia_gpu=True)
    assert verdict == "broken"
    assert code in codes(findings)


def test_a_probe_stopped_on_request_is_cancelled_not_broken():
    # Issue 20: Ctrl+C during `gpuwizard test` read "Verdict: broken" with advice about hung GPUs.
    run = run_of(
        start(False), {"event": "step", "device": "cpu", "step": 1, "loss": 2.3, "samples_per_s": 500.0}
    )
    verdict, findings = judge(run, ProbeEnd(None, killed_reason="cancelled"), machine_has_nvidia_gpu=False)
    assert (verdict, codes(findings)) == ("cancelled", [])
    result = result_event(run, verdict, findings, framework="pytorch", seconds=3)
    assert (result["verdict"], result["status"]) == ("cancelled", "cancelled")


def test_the_stages_it_prepared_say_nothing_about_the_verdict():
    stages = [
        {"event": "prepare", "stage": "import", "framework": "pytorch"},
        {"event": "prepare", "stage": "compile", "device": "cpu", "warmup_steps": 2},
    ]
    run = run_of(*stages, start(False), summary(None, 800.0))
    verdict, _findings = judge(run, OK_END, machine_has_nvidia_gpu=False)
    assert verdict == "cpu_only"


def test_unknown_and_malformed_events_do_not_count():
    run = run_of(
        {"event": "step", "device": "cpu", "loss": "nan?", "samples_per_s": 10},
        {"event": "mystery"},
        {"no_event": True},
        {"event": "step", "device": "cpu", "loss": 1.0, "samples_per_s": 10.0},
    )
    assert run.steps == {"cpu": [(1.0, 10.0)]}


def test_usage_samples_appear_in_the_result():
    run = run_of(start(), GPU, summary(40000.0, 800.0),
                 {"event": "gpu_usage", "index": 0, "utilisation_percent": 97, "memory_used_mib": 2048},
                 {"event": "gpu_usage", "index": 0, "utilisation_percent": 40, "memory_used_mib": None})  # fmt: skip
    result = result_event(run, "gpu_ok", [], framework="pytorch", seconds=3)
    assert (result["gpu_utilisation_max_percent"], result["gpu_memory_used_max_mib"]) == (97, 2048)


def test_gpu_training_rate_is_related_to_the_measured_matmul_rate():
    run = run_of(start(), GPU, {"event": "matmul", "dtype": "tf32", "tflops": 400.0},
                 {"event": "matmul", "dtype": "bfloat16", "tflops": 700.0},
                 {**summary(50000.0, 800.0), "train_tflops": {"gpu": 300.0, "cpu": 0.02}})  # fmt: skip
    result = result_event(run, "gpu_ok", [], framework="pytorch", seconds=3)
    assert result["gpu_training_vs_matmul_percent"] == 75.0
