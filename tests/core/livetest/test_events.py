"""The live test's events: read from the probe's JSON lines, written back as they came, key for key."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpuwizard.core.events import Other, to_json, value_from_json
from gpuwizard.core.findings.model import Finding, finding_to_json, make_finding
from gpuwizard.core.livetest.events import (
    LIVE_TEST_EVENTS,
    Compare,
    Device,
    DeviceSummary,
    FindingEvent,
    GpuUsage,
    Libraries,
    LiveTestResult,
    Log,
    Matmul,
    Phase,
    Prepare,
    ProbeError,
    ProbeWarning,
    Start,
    Step,
    Summary,
    result_from_json,
)
from gpuwizard.core.livetest.verdicts import VERDICTS

ROOT = Path(__file__).parents[3]
RUN_FILE = ROOT / "resources" / "samples" / "runs" / "test-torch-cpu.jsonl"
RUN_LINES: list[dict[str, Any]] = [json.loads(line) for line in RUN_FILE.read_text().splitlines()]
read = LIVE_TEST_EVENTS.read
RUN = [read(line) for line in RUN_LINES]
#: Every probe line recorded in the repository: the sample run, and the contract test's playback
#: of it (with the probe's newer ``prepare`` and ``libraries`` events).
RECORDED_PROBE_LINES = [
    json.loads(line)
    for path in (RUN_FILE, ROOT / "tests" / "cli" / "json_contract" / "probe_cpu_run.jsonl")
    for line in path.read_text(encoding="utf-8").splitlines()
    if line.strip() and json.loads(line)["event"] != "result"
]

CONTRACT_FIELDS = (
    "event",
    "verdict",
    "framework",
    "framework_version",
    "device",
    "loss_first",
    "loss_last",
    "samples_per_s",
    "speedup",
    "seconds",
    "findings",
)


# --- the recorded run (gpuwizard test --env torch-cpu --json) ---------------------------------


def test_every_line_of_the_recorded_run_is_read_as_its_kind():
    kinds = [event.kind for event in RUN]
    assert kinds == [
        "start",
        "warning",
        "device",
        "device_summary",
        "phase",
        "phase",
        "phase",
        *["step"] * 20,
        "summary",
        "result",
    ]
    assert [type(event) for event in RUN[:4]] == [Start, ProbeWarning, Device, DeviceSummary]
    assert all(isinstance(event, Step) for event in RUN[7:27])
    assert isinstance(RUN[27], Summary)
    assert isinstance(RUN[28], LiveTestResult)
    assert not any(isinstance(event, Other) for event in RUN)


def test_the_recorded_start_device_and_phases():
    start, warning, device, summary = RUN[:4]
    assert isinstance(start, Start)
    assert start.framework == "pytorch"
    assert start.framework_version == "2.13.0+cpu"
    assert start.built_with_cuda is False
    assert start.cuda_build is None
    assert start.python_executable == "/home/ana/.local/share/gpuwizard/envs/torch-cpu/bin/python"
    assert (start.steps, start.cpu_steps) == (200, 20)
    assert isinstance(warning, ProbeWarning)
    assert warning.message.startswith("Failed to initialize NumPy: No module named 'numpy'")
    assert isinstance(device, Device)
    assert (device.is_gpu, device.name, device.threads) == (False, "AMD EPYC", 2)
    assert isinstance(summary, DeviceSummary)
    assert (summary.gpu_count, summary.gpu_used) == (0, False)
    phases = [(event.phase, event.device) for event in RUN[4:7] if isinstance(event, Phase)]
    assert phases == [("data", None), ("warmup", "cpu"), ("train", "cpu")]


def test_the_recorded_steps():
    steps = [event for event in RUN if isinstance(event, Step)]
    assert [step.step for step in steps] == list(range(1, 21))
    assert {step.device for step in steps} == {"cpu"}
    assert steps[0].loss == 2.357464075088501
    assert steps[0].samples_per_s == 569.18
    assert steps[-1].loss == 0.02410171926021576
    assert steps[-1].samples_per_s == 934.03


def test_the_recorded_summary_and_result():
    summary, result = RUN[-2], RUN[-1]
    assert isinstance(summary, Summary)
    assert summary.loss_first == 2.357464075088501
    assert summary.loss_last == 0.029711885377764702
    assert (summary.samples_per_s_gpu, summary.samples_per_s_cpu) == (None, 961.7)
    assert summary.train_tflops_gpu is None
    assert summary.gpu_used is False
    assert isinstance(result, LiveTestResult)
    assert result.verdict == "cpu_only"
    assert (result.framework, result.framework_version) == ("pytorch", "2.13.0+cpu")
    assert result.device == "cpu"
    assert (result.loss_first, result.loss_last) == (2.3575, 0.0297)
    assert (result.samples_per_s_gpu, result.samples_per_s_cpu) == (None, 961.7)
    assert result.speedup is None
    assert result.seconds == 5.1
    assert result.findings == ()
    assert result.matmul_tflops == {}
    assert result.built_with_cuda is False
    assert result.env == "torch-cpu"
    assert result.python == "/home/ana/.local/share/gpuwizard/envs/torch-cpu/bin/python"
    # Recorded before the result said how many GPUs the framework saw: unknown, not zero.
    assert result.gpus_visible is None
    assert result.gpu_names == ()


@pytest.mark.parametrize("line", RECORDED_PROBE_LINES, ids=lambda line: line["event"])
def test_each_recorded_probe_event_writes_back_exactly_what_was_read(line: dict[str, Any]):
    # Key for key, in the same order, each value of the same JSON type: `--json` passes it on.
    assert json.dumps(to_json(read(line))) == json.dumps(line)


def test_the_recorded_result_writes_back_every_field_it_had_in_order_and_the_newer_ones_after():
    line, written = RUN_LINES[-1], to_json(RUN[-1])
    assert list(written.items())[: len(line)] == list(line.items())
    assert list(written)[len(line) :] == [
        "gpus_visible",
        "gpu_names",
        "cuda_libraries",
        "cuda_wheels",
        "dll_hook",
        "status",
    ]
    assert (written["gpus_visible"], written["gpu_names"], written["status"]) == (None, [], "complete")
    # Recorded before the probe said where the CUDA libraries came from: none known.
    assert (written["cuda_libraries"], written["cuda_wheels"], written["dll_hook"]) == ([], None, None)


#: The shapes the probe prints on a GPU and when it fails (probes/train_test.py), which no
#: recorded CPU run has, each as it prints it: written back the same, key for key.
PROBE_SHAPES: list[dict[str, Any]] = [
    {"event": "prepare", "stage": "import", "framework": "tensorflow"},
    {"event": "prepare", "stage": "cuda_context", "device": "gpu"},
    {"event": "prepare", "stage": "compile", "device": "gpu", "warmup_steps": 5},
    {
        "event": "start", "probe": "train_test", "framework": "tensorflow", "framework_version": "2.10.1",
        "built_with_cuda": True, "cuda_build": "64_112", "cudnn_build": "64_8", "arch_list": ["sm_86"],
        "config": {"steps": 200, "cpu_steps": 20, "batch": 256, "cpu_batch": 64, "warmup": 5, "cpu_warmup": 2,
                   "image": [32, 32, 3], "classes": 10, "matmul_size": 8192, "seed": 0, "cpu_only": False},
        "model": {"channels": [64, 128, 256], "flops_per_sample": 79118336.0, "optimizer": "adam", "lr": 0.001},
        "import_seconds": 4.512, "python": "3.10.11", "python_executable": "C:\\envs\\tf210\\python.exe",
        "keras_version": "2.10.0",
    },
    {
        "event": "device", "kind": "gpu", "index": 0, "name": "NVIDIA H200", "compute_capability": "9.0",
        "memory_total_mib": 143771, "arch_in_build": True, "ptx_only": False, "arch_matched": "sm_90",
    },
    {"event": "device", "kind": "gpu", "index": 1, "name": "/physical_device:GPU:1", "compute_capability": None,
     "memory_total_mib": None},
    {"event": "device_summary", "gpu_count": 1, "gpu_available": True, "gpu_used": True},
    {"event": "phase", "phase": "matmul", "device": "gpu"},
    {"event": "step", "device": "gpu", "step": 40, "loss": None, "samples_per_s": 52011.3, "batch": 256,
     "elapsed_s": 0.9121},
    {"event": "matmul", "device": "gpu", "size": 8192, "dtype": "tf32", "tflops": 380.2, "seconds": 0.2892,
     "repeats": 10},
    {"event": "phase", "phase": "compare", "device": None},
    {"event": "compare", "max_abs_diff": 0.00041, "tolerance": 0.0501, "ok": True, "samples": 256},
    {"event": "compare", "max_abs_diff": None, "tolerance": 0.05, "ok": False, "samples": 256},
    {
        "event": "libraries",
        "cuda_libraries": [],
        "cuda_libraries_error": "OSError: [Errno 13] Permission denied: '/proc/self/maps'",
        "cuda_wheels": None,
        "cuda_wheels_error": "ValueError: bad METADATA",
        "dll_hook": {"active": False, "folders": [], "problem": "no nvidia bin folder"},
    },
    {"event": "libraries", "cuda_libraries": [], "cuda_wheels": [], "dll_hook": None,
     "dll_hook_error": "AttributeError: FOLDERS"},
    {
        "event": "summary", "loss_first": 2.31, "loss_last": 0.04, "samples_per_s": {"gpu": 52000.5, "cpu": 950.2},
        "gpu_used": True, "seconds": 21.5, "steps": {"gpu": 200, "cpu": 20},
        "train_tflops": {"gpu": 12.3456, "cpu": 0.2283},
    },
    {"event": "error", "phase": "train", "device": "gpu", "type": "RuntimeError",
     "message": "CUDA error: out of memory", "traceback": "Traceback (most recent call last): ..."},
    {"event": "error", "phase": "summary", "device": None, "type": "KeyboardInterrupt", "message": "",
     "traceback": ""},
    {"event": "error", "phase": "usage", "device": None, "type": "UsageError", "message": "--steps must be at least 1",
     "traceback": ""},
    {"event": "error", "phase": "import", "framework": "pytorch", "type": "ImportError",
     "message": "libcudnn.so.9: cannot open shared object file", "traceback": "Traceback ..."},
    {"event": "warning", "phase": "devices", "category": "UserWarning", "message": "driver too old"},
]  # fmt: skip


@pytest.mark.parametrize("line", PROBE_SHAPES, ids=lambda line: line["event"])
def test_each_shape_the_probe_prints_writes_back_key_for_key(line: dict[str, Any]):
    event = read(line)
    assert not isinstance(event, Other)
    assert json.dumps(to_json(event)) == json.dumps(line)


def test_an_event_changed_with_replace_is_written_as_it_is_now():
    step = read({"event": "step", "device": "gpu", "step": 5, "loss": 1.5, "samples_per_s": 9e3, "batch": 64,
                 "elapsed_s": 0.5, "from_a_newer_probe": 1})  # fmt: skip
    changed = dataclasses.replace(step, loss=0.25, step=6)
    assert to_json(changed) == {
        "event": "step", "device": "gpu", "step": 6, "loss": 0.25, "samples_per_s": 9000.0, "batch": 64,
        "elapsed_s": 0.5, "from_a_newer_probe": 1,
    }  # fmt: skip
    result = result_from_json(RUN_LINES[-1])
    stopped = to_json(dataclasses.replace(result, verdict="cancelled"))
    assert (stopped["verdict"], stopped["status"]) == ("cancelled", "cancelled")
    assert to_json(dataclasses.replace(result, seconds=9.5))["seconds"] == 9.5


def test_the_recorded_run_reads_the_same_from_what_it_wrote():
    again = [read(to_json(event)) for event in RUN]
    assert again == RUN
    assert [to_json(event) for event in again] == [to_json(event) for event in RUN]


# --- each kind, by hand ------------------------------------------------------------------------

GPU_DEVICE = {
    "event": "device",
    "kind": "gpu",
    "index": 0,
    "name": "NVIDIA H200",
    "compute_capability": "9.0",
    "memory_total_mib": 143771,
    "arch_in_build": True,
    "ptx_only": False,
}


@pytest.mark.parametrize(
    ("data", "kind", "fields"),
    [
        (GPU_DEVICE, Device, {"is_gpu": True, "index": 0, "name": "NVIDIA H200", "threads": None}),
        (
            {"event": "device", "kind": "cpu", "name": "AMD EPYC", "threads": 2},
            Device,
            {"is_gpu": False, "device_kind": "cpu", "label": "AMD EPYC", "threads": 2},
        ),
        (
            {"event": "device_summary", "gpu_count": 2, "gpu_available": True, "gpu_used": True},
            DeviceSummary,
            {"gpu_count": 2, "gpu_used": True},
        ),
        ({"event": "phase", "phase": "matmul", "device": "gpu"}, Phase, {"phase": "matmul", "device": "gpu"}),
        (
            {
                "event": "step",
                "device": "gpu",
                "step": 7,
                "loss": 0.5,
                "samples_per_s": 41000.5,
                "batch": 256,
            },
            Step,
            {"device": "gpu", "step": 7, "loss": 0.5, "samples_per_s": 41000.5},
        ),
        (
            {"event": "matmul", "dtype": "bfloat16", "size": 8192, "tflops": 612.4, "seconds": 0.9},
            Matmul,
            {"dtype": "bfloat16", "tflops": 612.4},
        ),
        (
            {"event": "compare", "max_abs_diff": 0.0004, "tolerance": 0.05, "ok": True},
            Compare,
            {"ok": True, "max_abs_diff": 0.0004, "tolerance": 0.05},
        ),
        (
            {
                "event": "summary",
                "loss_first": 2.3,
                "loss_last": 0.1,
                "samples_per_s": {"gpu": 52000.0, "cpu": 900},
                "gpu_used": True,
                "steps": {"gpu": 200, "cpu": 20},
                "train_tflops": {"gpu": 12.5, "cpu": 0.2},
            },
            Summary,
            {
                "loss_first": 2.3,
                "loss_last": 0.1,
                "samples_per_s_gpu": 52000.0,
                "samples_per_s_cpu": 900.0,
                "train_tflops_gpu": 12.5,
                "gpu_used": True,
            },
        ),
        (
            {
                "event": "error",
                "phase": "import",
                "device": None,
                "type": "ImportError",
                "message": "libcudnn.so.9: cannot open shared object file",
                "traceback": "Traceback (most recent call last): ...",
            },
            ProbeError,
            {
                "phase": "import",
                "type": "ImportError",
                "message": "libcudnn.so.9: cannot open shared object file",
                "traceback": "Traceback (most recent call last): ...",
            },
        ),
        (
            {"event": "warning", "category": "UserWarning", "message": "driver too old"},
            ProbeWarning,
            {"message": "driver too old"},
        ),
        (
            {"event": "gpu_usage", "index": 1, "utilisation_percent": 97, "memory_used_mib": 30512},
            GpuUsage,
            {"index": 1, "utilisation_percent": 97, "memory_used_mib": 30512},
        ),
        ({"event": "log", "line": "Segmentation fault"}, Log, {"line": "Segmentation fault"}),
    ],
    ids=lambda value: value if isinstance(value, str) else None,
)
def test_each_kind_is_read_into_its_fields(data: dict[str, Any], kind: type, fields: dict[str, Any]):
    event = read(data)
    assert type(event) is kind
    assert event.kind == data["event"]
    assert {name: getattr(event, name) for name in fields} == fields
    assert to_json(event) == data


def test_a_finding_event_carries_the_finding():
    finding = make_finding("CPU_ONLY_BUILD")
    event = read({"event": "finding", **finding_to_json(finding)})
    assert isinstance(event, FindingEvent)
    assert event.finding == finding
    assert to_json(event) == {"event": "finding", **finding_to_json(finding)}


def test_the_wizards_own_events():
    log = Log(line="ImportError: DLL load failed")
    assert to_json(log) == {"event": "log", "line": "ImportError: DLL load failed"}
    finding = make_finding("CPU_ONLY_BUILD", variant=None)
    carried = FindingEvent.of(finding)
    assert carried.finding == finding
    assert to_json(carried) == {"event": "finding", **finding_to_json(finding)}
    assert list(to_json(carried)) == ["event", "code", "severity", "message", "hint", "params"]
    assert read(to_json(carried)) == carried
    # An NVML sample as the sampler gives it (adapters/nvml.py), as the test makes it an event.
    usage = value_from_json(GpuUsage, {"index": 0, "utilisation_percent": 88, "memory_used_mib": 2048})
    assert (usage.kind, usage.index, usage.utilisation_percent, usage.memory_used_mib) == (
        "gpu_usage",
        0,
        88,
        2048,
    )
    assert to_json(usage) == {
        "event": "gpu_usage",
        "index": 0,
        "utilisation_percent": 88,
        "memory_used_mib": 2048,
    }


# --- what this version does not know is kept -------------------------------------------------


def test_fields_the_wizard_does_not_read_are_written_back():
    data = {
        "event": "step",
        "device": "gpu",
        "step": 1,
        "loss": 2.0,
        "samples_per_s": 1000.0,
        "from_a_newer_probe": {"nested": [1, 2, None]},
        "note": "kept",
    }
    event = read(data)
    assert to_json(event) == data
    assert to_json(event)["from_a_newer_probe"] == {"nested": [1, 2, None]}


def test_fields_a_saved_result_has_that_this_version_does_not_read_come_after_its_own():
    result = result_from_json(
        {"event": "result", "verdict": "gpu_ok", "framework": "pytorch", "energy_j": 512.0}
    )
    written = to_json(result)
    assert written["energy_j"] == 512.0
    assert list(written)[-1] == "energy_j"
    assert list(written)[: len(CONTRACT_FIELDS)] == list(CONTRACT_FIELDS)


@pytest.mark.parametrize(
    "data",
    [
        {"event": "something_new", "x": 1, "y": [1.5, None]},
        {"event": "checkpoint", "path": "/tmp/ckpt", "bytes": 1024},
    ],
)
def test_an_unknown_kind_is_kept_as_other(data: dict[str, Any]):
    event = read(data)
    assert type(event) is Other
    assert event.kind == data["event"]
    assert to_json(event) == data


def test_an_object_without_a_kind_is_other_with_an_empty_kind():
    event = read({"line": "no event key"})
    assert type(event) is Other
    assert event.kind == ""
    assert to_json(event) == {"event": "", "line": "no event key"}


# --- malformed values become None, never an exception ----------------------------------------

BAD_NUMBERS = ["1.5", "fast", math.nan, math.inf, -math.inf, True, False, None, [1.0], {"gpu": 1.0}, 10**400]


@pytest.mark.parametrize("value", BAD_NUMBERS, ids=lambda value: repr(value)[:20])
def test_malformed_numbers_in_events_become_none(value: object):
    step = read({"event": "step", "device": "gpu", "step": value, "loss": value, "samples_per_s": value})
    assert isinstance(step, Step)
    assert (step.step, step.loss, step.samples_per_s) == (0, None, None)
    summary = read(
        {
            "event": "summary",
            "loss_first": value,
            "loss_last": value,
            "samples_per_s": {"gpu": value, "cpu": value},
            "train_tflops": {"gpu": value, "cpu": value},
        }
    )
    assert isinstance(summary, Summary)
    assert (summary.loss_first, summary.loss_last) == (None, None)
    assert (summary.samples_per_s_gpu, summary.samples_per_s_cpu, summary.train_tflops_gpu) == (
        None,
        None,
        None,
    )
    compare = read({"event": "compare", "max_abs_diff": value, "tolerance": value, "ok": True})
    assert isinstance(compare, Compare)
    assert (compare.max_abs_diff, compare.tolerance) == (None, None)
    usage = read(
        {"event": "gpu_usage", "index": value, "utilisation_percent": value, "memory_used_mib": value}
    )
    assert isinstance(usage, GpuUsage)
    assert (usage.index, usage.utilisation_percent, usage.memory_used_mib) == (0, None, None)
    matmul = read({"event": "matmul", "dtype": "float16", "tflops": value})
    assert isinstance(matmul, Matmul)
    assert matmul.tflops is None
    device = read({"event": "device", "kind": "cpu", "threads": value})
    assert isinstance(device, Device)
    assert device.threads is None
    counted = read({"event": "device_summary", "gpu_count": value})
    assert isinstance(counted, DeviceSummary)
    assert counted.gpu_count is None


@pytest.mark.parametrize("value", BAD_NUMBERS, ids=lambda value: repr(value)[:20])
def test_malformed_numbers_in_a_result_become_none(value: object):
    result = result_from_json(
        {
            "verdict": "gpu_ok",
            "framework": "pytorch",
            "loss_first": value,
            "loss_last": value,
            "samples_per_s": {"gpu": value, "cpu": value},
            "speedup": value,
            "seconds": value,
            "matmul_tflops": {"float32": value},
            "gpu_utilisation_max_percent": value,
            "gpu_memory_used_max_mib": value,
            "gpu_training_vs_matmul_percent": value,
            "gpus_visible": value,
        }
    )
    assert (result.loss_first, result.loss_last, result.speedup, result.seconds) == (None, None, None, None)
    assert (result.samples_per_s_gpu, result.samples_per_s_cpu) == (None, None)
    assert result.matmul_tflops == {"float32": None}
    assert (result.gpu_utilisation_max_percent, result.gpu_memory_used_max_mib) == (None, None)
    assert result.gpu_training_vs_matmul_percent is None
    assert result.gpus_visible is None


@pytest.mark.parametrize("value", ["true", 1, 0, "yes", None])
def test_flags_that_are_no_booleans_are_unknown(value: object):
    start = read({"event": "start", "framework": "pytorch", "built_with_cuda": value})
    assert isinstance(start, Start)
    assert start.built_with_cuda is None
    assert result_from_json({"verdict": "gpu_ok", "built_with_cuda": value}).built_with_cuda is None


@pytest.mark.parametrize("kind", sorted(LIVE_TEST_EVENTS.classes))
def test_every_kind_reads_with_only_its_kind(kind: str):
    event = read({"event": kind})
    assert event.kind == kind
    assert not isinstance(event, Other)
    assert to_json(event)["event"] == kind


def test_every_kind_the_probe_prints_and_the_wizard_adds_is_known():
    assert set(LIVE_TEST_EVENTS.classes) == {
        "start", "device", "device_summary", "phase", "prepare", "step", "matmul", "compare", "summary",
        "libraries", "error", "warning", "gpu_usage", "log", "finding", "result",
    }  # fmt: skip


def test_missing_fields_are_none_or_empty():
    gpu, cpu = read({"event": "device", "kind": "gpu"}), read({"event": "device", "kind": "cpu"})
    assert isinstance(gpu, Device) and isinstance(cpu, Device)
    assert (gpu.is_gpu, gpu.name, gpu.label, cpu.is_gpu, cpu.label) == (True, "", "GPU", False, "CPU")
    assert isinstance(read({"event": "prepare"}), Prepare)
    libraries = read({"event": "libraries"})
    assert isinstance(libraries, Libraries)
    assert (libraries.cuda_libraries, libraries.cuda_wheels, libraries.cuda_libraries_error) == (
        (),
        None,
        None,
    )
    start = read({"event": "start", "config": "not an object"})
    assert isinstance(start, Start)
    assert (start.framework, start.framework_version, start.cuda_build, start.python_executable) == (
        "",
        None,
        None,
        None,
    )
    assert (start.steps, start.cpu_steps) == (0, 0)
    summary = read({"event": "summary", "samples_per_s": [1, 2]})
    assert isinstance(summary, Summary)
    assert (summary.samples_per_s_gpu, summary.samples_per_s_cpu, summary.gpu_used) == (None, None, False)
    error = read({"event": "error"})
    assert isinstance(error, ProbeError)
    assert (error.phase, error.type, error.message, error.traceback) == (None, "Error", "", "")
    compare = read({"event": "compare"})
    assert isinstance(compare, Compare)
    assert compare.ok is False
    finding = read({"event": "finding"})
    assert isinstance(finding, FindingEvent)
    assert (finding.finding.code, finding.finding.severity) == ("UNKNOWN", "info")


def test_a_result_missing_everything_is_broken_and_unknown():
    result = result_from_json({})
    assert result.verdict == "broken"
    assert result.framework == ""
    assert result.findings == ()
    assert result.gpu_names == ()
    assert result.matmul_tflops == {}
    assert all(
        getattr(result, name) is None
        for name in ("framework_version", "device", "loss_first", "speedup", "seconds", "gpus_visible", "env")
    )


def test_a_result_with_lists_of_the_wrong_shape_keeps_what_it_can():
    result = result_from_json(
        {
            "verdict": "gpu_ok",
            "framework": "pytorch",
            "findings": [finding_to_json(make_finding("CPU_ONLY_BUILD")), "not a finding", 3],
            "gpu_names": "NVIDIA H200",
            "matmul_tflops": ["float32", 60.0],
        }
    )
    assert [finding.code for finding in result.findings] == ["CPU_ONLY_BUILD"]
    assert result.gpu_names == ()
    assert result.matmul_tflops == {}


# --- the result's JSON: the contract's fields, and back ------------------------------------------

H200_RESULT = LiveTestResult(
    verdict="gpu_ok",
    framework="pytorch",
    framework_version="2.13.0+cu126",
    device="NVIDIA H200",
    loss_first=2.31,
    loss_last=0.04,
    samples_per_s_gpu=52000.0,
    samples_per_s_cpu=950.0,
    speedup=54.7,
    seconds=21.5,
    findings=(make_finding("CPU_ONLY_BUILD"),),
    matmul_tflops={"tf32": 380.2, "float16": 700.1, "bfloat16": None},
    gpu_utilisation_max_percent=98,
    gpu_memory_used_max_mib=3100,
    gpu_training_vs_matmul_percent=3.5,
    gpus_visible=2,
    gpu_names=("NVIDIA H200", "NVIDIA H200"),
    built_with_cuda=True,
    cuda_build="12.6",
    python="/envs/demo/bin/python",
    env="demo",
)


def test_the_result_json_has_the_contracts_fields_first():
    data = to_json(H200_RESULT)
    assert list(data)[: len(CONTRACT_FIELDS)] == list(CONTRACT_FIELDS)
    assert {key: data[key] for key in CONTRACT_FIELDS} == {
        "event": "result",
        "verdict": "gpu_ok",
        "framework": "pytorch",
        "framework_version": "2.13.0+cu126",
        "device": "NVIDIA H200",
        "loss_first": 2.31,
        "loss_last": 0.04,
        "samples_per_s": {"gpu": 52000.0, "cpu": 950.0},
        "speedup": 54.7,
        "seconds": 21.5,
        "findings": [finding_to_json(make_finding("CPU_ONLY_BUILD"))],
    }
    assert data["gpus_visible"] == 2
    assert data["gpu_names"] == ["NVIDIA H200", "NVIDIA H200"]
    assert data["matmul_tflops"] == {"tf32": 380.2, "float16": 700.1, "bfloat16": None}
    assert (data["built_with_cuda"], data["cuda_build"], data["env"]) == (True, "12.6", "demo")
    assert json.loads(json.dumps(data)) == data


def test_a_result_with_nothing_measured_still_has_every_contract_field():
    data = to_json(LiveTestResult(verdict="broken", framework="tensorflow"))
    assert set(CONTRACT_FIELDS) <= set(data)
    assert data["samples_per_s"] == {"gpu": None, "cpu": None}
    assert data["findings"] == []
    assert (data["gpus_visible"], data["gpu_names"]) == (None, [])


def test_a_result_reads_back_equal():
    again = result_from_json(to_json(H200_RESULT))
    assert again == H200_RESULT
    assert isinstance(read(to_json(H200_RESULT)), LiveTestResult)
    assert read(to_json(H200_RESULT)) == H200_RESULT


_texts = st.text(max_size=30)
_maybe_text = st.none() | _texts
_maybe_number = st.none() | st.floats(allow_nan=False, allow_infinity=False)
_maybe_count = st.none() | st.integers(min_value=0, max_value=2**31)
_findings = st.builds(
    Finding,
    code=st.text(min_size=1, max_size=20),
    severity=st.sampled_from(["error", "warning", "info"]),
    message=_texts,
    hint=_texts,
    params=st.dictionaries(_texts, _texts, max_size=3),
)
_results = st.builds(
    LiveTestResult,
    verdict=st.sampled_from(VERDICTS),
    framework=st.sampled_from(["pytorch", "tensorflow"]) | _texts,
    framework_version=_maybe_text,
    device=_maybe_text,
    loss_first=_maybe_number,
    loss_last=_maybe_number,
    samples_per_s_gpu=_maybe_number,
    samples_per_s_cpu=_maybe_number,
    speedup=_maybe_number,
    seconds=_maybe_number,
    findings=st.lists(_findings, max_size=3).map(tuple),
    matmul_tflops=st.dictionaries(_texts, _maybe_number, max_size=3),
    gpu_utilisation_max_percent=_maybe_count,
    gpu_memory_used_max_mib=_maybe_count,
    gpu_training_vs_matmul_percent=_maybe_number,
    gpus_visible=_maybe_count,
    gpu_names=st.lists(_texts, max_size=4).map(tuple),
    built_with_cuda=st.none() | st.booleans(),
    cuda_build=_maybe_text,
    python=_maybe_text,
    env=_maybe_text,
)


@given(_results)
def test_any_result_reads_back_equal_from_its_json(result: LiveTestResult):
    data = to_json(result)
    assert result_from_json(data) == result
    assert result_from_json(json.loads(json.dumps(data))) == result
    assert to_json(result_from_json(data)) == data
