"""The live test's events as typed values: what the probe printed, and what the wizard adds.

The training probe (``probes/train_test.py``) runs in another interpreter and prints one JSON
object per line. They become typed events here, once, where they cross into the wizard
(:func:`event_from_json`); everything inside the process reads fields, and JSON comes back
only where an event leaves it again (``gpuwizard test --json``, a log file): each event keeps
the object it was read from, so :meth:`LiveTestEvent.to_json` gives back every field the probe
printed, those the wizard does not read included (the probe may add fields, never remove one).

The probe's ``libraries`` event (:class:`Libraries`) says where each CUDA library was loaded
from, which NVIDIA wheels are installed and what the DLL start-up hook did; the result keeps them.

The wizard adds ``log`` (a line of the probe that is no event), ``gpu_usage`` (NVML samples
taken while it trains) and ``finding``; the last event of a test is its
:class:`~gpuwizard.core.livetest.events.LiveTestResult`.

A reader that meets an event kind it does not know keeps it as :class:`Other` and passes it on:
the probe may add kinds (``prepare`` came after the first recordings, which replay as they are).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from gpuwizard.core.findings.model import Finding, finding_from_json, finding_to_json
from gpuwizard.core.livetest.libraries import (
    CudaLibrary,
    CudaWheel,
    DllHook,
    dll_hook_from_json,
    dll_hook_to_json,
    libraries_from_json,
    libraries_to_json,
    wheels_from_json,
    wheels_to_json,
)
from gpuwizard.core.livetest.verdicts import CANCELLED


@dataclass(frozen=True, kw_only=True)
class LiveTestEvent:
    """One event of a live test; ``data`` is the JSON object it was read from (or will be written as)."""

    KIND: ClassVar[str] = ""
    data: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def kind(self) -> str:
        """The ``event`` field: ``start``, ``step``, ``result``..."""
        return self.KIND or str(self.data.get("event", ""))

    def to_json(self) -> dict[str, Any]:
        """The event as the JSON object it stands for, every field kept."""
        return {"event": self.kind, **{key: value for key, value in self.data.items() if key != "event"}}


@dataclass(frozen=True, kw_only=True)
class Start(LiveTestEvent):
    """The framework imported: its version and build, and the test's configuration."""

    KIND: ClassVar[str] = "start"
    framework: str
    framework_version: str | None
    built_with_cuda: bool | None
    cuda_build: str | None
    python_executable: str | None
    steps: int
    cpu_steps: int


@dataclass(frozen=True, kw_only=True)
class Device(LiveTestEvent):
    """A device the framework sees: each GPU (``is_gpu``), then the CPU."""

    KIND: ClassVar[str] = "device"
    is_gpu: bool
    name: str
    threads: int | None = None


@dataclass(frozen=True, kw_only=True)
class DeviceSummary(LiveTestEvent):
    """How many GPUs the framework sees, and whether the test trains on one."""

    KIND: ClassVar[str] = "device_summary"
    gpu_count: int | None
    gpu_used: bool


@dataclass(frozen=True, kw_only=True)
class Phase(LiveTestEvent):
    """A phase begins (``data``, ``warmup``, ``train``, ``matmul``, ``compare``) on a device."""

    KIND: ClassVar[str] = "phase"
    phase: str
    device: str | None


@dataclass(frozen=True, kw_only=True)
class Prepare(LiveTestEvent):
    """A slow preparation begins, before the first step shows any progress.

    ``stage`` is ``import`` (the framework is imported: ``framework``), ``cuda_context`` (the
    first use of the GPU creates its CUDA context) or ``compile`` (the model is built and its
    first steps run: graph tracing, kernel selection and autotuning, the optimizer's set-up);
    a newer probe may name others. Each lasts until the next ``prepare``, ``phase`` or ``step``.
    """

    KIND: ClassVar[str] = "prepare"
    stage: str
    device: str | None = None
    framework: str | None = None


@dataclass(frozen=True, kw_only=True)
class Step(LiveTestEvent):
    """One measured training step on a device (``gpu`` or ``cpu``)."""

    KIND: ClassVar[str] = "step"
    device: str
    step: int
    loss: float | None
    samples_per_s: float | None


@dataclass(frozen=True, kw_only=True)
class Matmul(LiveTestEvent):
    """The GPU's matrix-multiply rate in one dtype."""

    KIND: ClassVar[str] = "matmul"
    dtype: str
    tflops: float | None


@dataclass(frozen=True, kw_only=True)
class Compare(LiveTestEvent):
    """GPU-trained weights on GPU and CPU: do they agree within the tolerance?"""

    KIND: ClassVar[str] = "compare"
    ok: bool
    max_abs_diff: float | None
    tolerance: float | None


@dataclass(frozen=True, kw_only=True)
class Summary(LiveTestEvent):
    """The probe's measurements at the end (the wizard judges them)."""

    KIND: ClassVar[str] = "summary"
    loss_first: float | None
    loss_last: float | None
    samples_per_s_gpu: float | None
    samples_per_s_cpu: float | None
    train_tflops_gpu: float | None
    gpu_used: bool


@dataclass(frozen=True, kw_only=True)
class Libraries(LiveTestEvent):
    """Where the CUDA libraries were loaded from, after the GPU work; the NVIDIA wheels; the DLL hook.

    ``cuda_wheels`` is None when the probe could not list them; ``dll_hook`` None when the
    environment has no hook (``probes/cuda_libraries.py``).
    """

    KIND: ClassVar[str] = "libraries"
    cuda_libraries: tuple[CudaLibrary, ...] = ()
    cuda_wheels: tuple[CudaWheel, ...] | None = None
    dll_hook: DllHook | None = None


@dataclass(frozen=True, kw_only=True)
class ProbeError(LiveTestEvent):
    """The probe failed (``phase`` ``import`` when the framework would not import)."""

    KIND: ClassVar[str] = "error"
    phase: str | None
    type: str
    message: str
    traceback: str


@dataclass(frozen=True, kw_only=True)
class ProbeWarning(LiveTestEvent):
    """A Python warning raised inside the probe (torch says "driver too old" only as one)."""

    KIND: ClassVar[str] = "warning"
    message: str


@dataclass(frozen=True, kw_only=True)
class GpuUsage(LiveTestEvent):
    """An NVML sample the wizard took while the probe trained."""

    KIND: ClassVar[str] = "gpu_usage"
    index: int
    utilisation_percent: int | None
    memory_used_mib: int | None


@dataclass(frozen=True, kw_only=True)
class Log(LiveTestEvent):
    """A line the probe printed that is no event (kept for diagnosis)."""

    KIND: ClassVar[str] = "log"
    line: str


@dataclass(frozen=True, kw_only=True)
class FindingEvent(LiveTestEvent):
    """A finding that explains the verdict."""

    KIND: ClassVar[str] = "finding"
    finding: Finding


@dataclass(frozen=True, kw_only=True)
class Other(LiveTestEvent):
    """An event of a kind this version does not know (a newer probe): passed on as it came."""


@dataclass(frozen=True, kw_only=True)
class LiveTestResult(LiveTestEvent):
    """The last event of a test: the verdict, the numbers, the findings that explain it.

    Attributes:
        verdict: ``gpu_ok``, ``gpu_slow``, ``cpu_only`` or ``broken`` (:mod:`.verdicts`); or
            ``cancelled``, no verdict: the test was stopped before it finished (Ctrl+C, SIGTERM,
            the Test page's Stop), so it says nothing about the environment.
        framework, framework_version: What was tested (the version with its build label).
        device: The GPU it trained on, or ``cpu``.
        loss_first, loss_last: The loss at the first measured step and at the end.
        samples_per_s_gpu, samples_per_s_cpu: Training speed per device.
        speedup: GPU over CPU samples/s.
        seconds: How long the test took.
        findings: Why the verdict is what it is, and what to do.
        gpus_visible: How many GPUs the framework saw (None: the probe never got that far).
        gpu_names: Their names, as the framework reported them.
        built_with_cuda, cuda_build: The framework build.
        python: The interpreter that ran the test.
        env: The environment the wizard made that was tested (None: ``--python``).
        cuda_libraries: The CUDA-family libraries the test had loaded, each with its file
            (empty: none, a CPU build, or the probe never got that far).
        cuda_wheels: The ``nvidia-*`` wheels installed in the environment; None when unknown
            (the probe sent no ``libraries`` event).
        dll_hook: What the DLL start-up hook did; None when there is none (or it is unknown).
    """

    KIND: ClassVar[str] = "result"
    verdict: str
    framework: str
    framework_version: str | None = None
    device: str | None = None
    loss_first: float | None = None
    loss_last: float | None = None
    samples_per_s_gpu: float | None = None
    samples_per_s_cpu: float | None = None
    speedup: float | None = None
    seconds: float | None = None
    findings: tuple[Finding, ...] = ()
    matmul_tflops: Mapping[str, float | None] = field(default_factory=dict)
    gpu_utilisation_max_percent: int | None = None
    gpu_memory_used_max_mib: int | None = None
    gpu_training_vs_matmul_percent: float | None = None
    gpus_visible: int | None = None
    gpu_names: tuple[str, ...] = ()
    built_with_cuda: bool | None = None
    cuda_build: str | None = None
    python: str | None = None
    env: str | None = None
    cuda_libraries: tuple[CudaLibrary, ...] = ()
    cuda_wheels: tuple[CudaWheel, ...] | None = None
    dll_hook: DllHook | None = None

    @property
    def cancelled(self) -> bool:
        """Whether the test was stopped before it finished (no verdict; nothing is recorded)."""
        return self.verdict == CANCELLED

    def to_json(self) -> dict[str, Any]:
        """The ``result`` event of the contract, then the wizard's own fields.

        The contract: docs/architecture.md, "The command-line and JSON contract".
        """
        known = {
            "event": "result",
            "verdict": self.verdict,
            "framework": self.framework,
            "framework_version": self.framework_version,
            "device": self.device,
            "loss_first": self.loss_first,
            "loss_last": self.loss_last,
            "samples_per_s": {"gpu": self.samples_per_s_gpu, "cpu": self.samples_per_s_cpu},
            "speedup": self.speedup,
            "seconds": self.seconds,
            "findings": [finding_to_json(finding) for finding in self.findings],
            "matmul_tflops": dict(self.matmul_tflops),
            "gpu_utilisation_max_percent": self.gpu_utilisation_max_percent,
            "gpu_memory_used_max_mib": self.gpu_memory_used_max_mib,
            "gpu_training_vs_matmul_percent": self.gpu_training_vs_matmul_percent,
            "built_with_cuda": self.built_with_cuda,
            "cuda_build": self.cuda_build,
            "python": self.python,
            "env": self.env,
            "gpus_visible": self.gpus_visible,
            "gpu_names": list(self.gpu_names),
            "cuda_libraries": libraries_to_json(self.cuda_libraries),
            "cuda_wheels": wheels_to_json(self.cuda_wheels),
            "dll_hook": dll_hook_to_json(self.dll_hook),
            # As verify's and apply's results say it: `cancelled` when stopped before the end.
            "status": "cancelled" if self.cancelled else "complete",
        }
        # Fields of a saved result that this version does not read are kept, after its own.
        return {**known, **{key: value for key, value in self.data.items() if key not in known}}


def result_from_json(data: Mapping[str, Any]) -> LiveTestResult:
    """A result read back (``last-tests.json``, a recorded run); fields it lacks are unknown.

    >>> result = result_from_json({"verdict": "gpu_ok", "framework": "pytorch", "samples_per_s": {"gpu": 5e4}})
    >>> (result.verdict, result.samples_per_s_gpu, result.gpus_visible)
    ('gpu_ok', 50000.0, None)
    """
    findings = _list(data, "findings")
    names = _list(data, "gpu_names")
    return LiveTestResult(
        data={key: value for key, value in data.items() if key != "event"},
        verdict=str(data.get("verdict") or "broken"),
        framework=str(data.get("framework") or ""),
        framework_version=_text(data.get("framework_version")),
        device=_text(data.get("device")),
        loss_first=number(data.get("loss_first")),
        loss_last=number(data.get("loss_last")),
        samples_per_s_gpu=_pair(data, "samples_per_s", "gpu"),
        samples_per_s_cpu=_pair(data, "samples_per_s", "cpu"),
        speedup=number(data.get("speedup")),
        seconds=number(data.get("seconds")),
        findings=tuple(finding_from_json(item) for item in findings if isinstance(item, Mapping)),
        matmul_tflops=(
            {str(dtype): number(rate) for dtype, rate in data["matmul_tflops"].items()}
            if isinstance(data.get("matmul_tflops"), Mapping)
            else {}
        ),
        gpu_utilisation_max_percent=_integer(data.get("gpu_utilisation_max_percent")),
        gpu_memory_used_max_mib=_integer(data.get("gpu_memory_used_max_mib")),
        gpu_training_vs_matmul_percent=number(data.get("gpu_training_vs_matmul_percent")),
        gpus_visible=_integer(data.get("gpus_visible")),
        gpu_names=tuple(str(name) for name in names),
        built_with_cuda=_flag(data.get("built_with_cuda")),
        cuda_build=_text(data.get("cuda_build")),
        python=_text(data.get("python")),
        env=_text(data.get("env")),
        cuda_libraries=libraries_from_json(data.get("cuda_libraries")),
        cuda_wheels=wheels_from_json(data.get("cuda_wheels")),
        dll_hook=dll_hook_from_json(data.get("dll_hook")),
    )


def event_from_json(data: Mapping[str, Any]) -> LiveTestEvent:
    """The typed event for one JSON object of the probe (or of a saved run).

    >>> step = event_from_json({"event": "step", "device": "gpu", "step": 3, "loss": 1.5, "samples_per_s": 9e3})
    >>> (step.kind, step.device, step.loss, step.to_json()["samples_per_s"])
    ('step', 'gpu', 1.5, 9000.0)
    >>> event_from_json({"event": "something_new", "x": 1}).to_json()
    {'event': 'something_new', 'x': 1}
    >>> stage = event_from_json({"event": "prepare", "stage": "import", "framework": "pytorch"})
    >>> (type(stage).__name__, stage.stage, stage.framework, stage.device)
    ('Prepare', 'import', 'pytorch', None)
    """
    reader = _READERS.get(str(data.get("event")))
    return reader(data) if reader is not None else Other(data=dict(data))


def log_event(line: str) -> Log:
    """A line of the probe that is no event."""
    return Log(line=line, data={"event": "log", "line": line})


def finding_event(finding: Finding) -> FindingEvent:
    """A finding, as the event that carries it."""
    return FindingEvent(finding=finding, data={"event": "finding", **finding_to_json(finding)})


def usage_event(sample: Mapping[str, Any]) -> GpuUsage:
    """An NVML sample (``index``, ``utilisation_percent``, ``memory_used_mib``) as an event."""
    return _gpu_usage({"event": "gpu_usage", **sample})


# --- reading the JSON ------------------------------------------------------------------------


def number(value: object) -> float | None:
    """A finite number as float; None for anything else (booleans, text, NaN, None, too large an int)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        found = float(value)
    except OverflowError:  # JSON integers have no limit; float's range does
        return None
    return found if math.isfinite(found) else None


def _integer(value: object) -> int | None:
    found = number(value)
    return None if found is None else int(found)


def _text(value: object) -> str | None:
    return None if value is None else str(value)


def _flag(value: object) -> bool | None:
    return value if isinstance(value, bool) else None


def _list(data: Mapping[str, Any], key: str) -> list[Any]:
    value = data.get(key)
    return value if isinstance(value, list) else []


def _pair(data: Mapping[str, Any], key: str, device: str) -> float | None:
    values = data.get(key)
    return number(values.get(device)) if isinstance(values, Mapping) else None


def _start(data: Mapping[str, Any]) -> Start:
    config = data.get("config")
    if not isinstance(config, Mapping):
        config = {}
    return Start(
        data=dict(data),
        framework=str(data.get("framework") or ""),
        framework_version=_text(data.get("framework_version")),
        built_with_cuda=_flag(data.get("built_with_cuda")),
        cuda_build=_text(data.get("cuda_build")),
        python_executable=_text(data.get("python_executable")),
        steps=_integer(config.get("steps")) or 0,
        cpu_steps=_integer(config.get("cpu_steps")) or 0,
    )


def _device(data: Mapping[str, Any]) -> Device:
    is_gpu = data.get("kind") == "gpu"
    return Device(
        data=dict(data),
        is_gpu=is_gpu,
        name=str(data.get("name") or ("GPU" if is_gpu else "CPU")),
        threads=_integer(data.get("threads")),
    )


def _device_summary(data: Mapping[str, Any]) -> DeviceSummary:
    return DeviceSummary(
        data=dict(data), gpu_count=_integer(data.get("gpu_count")), gpu_used=bool(data.get("gpu_used"))
    )


def _phase(data: Mapping[str, Any]) -> Phase:
    return Phase(data=dict(data), phase=str(data.get("phase") or ""), device=_text(data.get("device")))


def _prepare(data: Mapping[str, Any]) -> Prepare:
    return Prepare(
        data=dict(data),
        stage=str(data.get("stage") or ""),
        device=_text(data.get("device")),
        framework=_text(data.get("framework")),
    )


def _step(data: Mapping[str, Any]) -> Step:
    return Step(
        data=dict(data),
        device=str(data.get("device")),
        step=_integer(data.get("step")) or 0,
        loss=number(data.get("loss")),
        samples_per_s=number(data.get("samples_per_s")),
    )


def _matmul(data: Mapping[str, Any]) -> Matmul:
    return Matmul(data=dict(data), dtype=str(data.get("dtype")), tflops=number(data.get("tflops")))


def _compare(data: Mapping[str, Any]) -> Compare:
    return Compare(
        data=dict(data),
        ok=bool(data.get("ok", False)),
        max_abs_diff=number(data.get("max_abs_diff")),
        tolerance=number(data.get("tolerance")),
    )


def _summary(data: Mapping[str, Any]) -> Summary:
    return Summary(
        data=dict(data),
        loss_first=number(data.get("loss_first")),
        loss_last=number(data.get("loss_last")),
        samples_per_s_gpu=_pair(data, "samples_per_s", "gpu"),
        samples_per_s_cpu=_pair(data, "samples_per_s", "cpu"),
        train_tflops_gpu=_pair(data, "train_tflops", "gpu"),
        gpu_used=bool(data.get("gpu_used")),
    )


def _libraries(data: Mapping[str, Any]) -> Libraries:
    return Libraries(
        data=dict(data),
        cuda_libraries=libraries_from_json(data.get("cuda_libraries")),
        cuda_wheels=wheels_from_json(data.get("cuda_wheels")),
        dll_hook=dll_hook_from_json(data.get("dll_hook")),
    )


def _error(data: Mapping[str, Any]) -> ProbeError:
    return ProbeError(
        data=dict(data),
        phase=_text(data.get("phase")),
        type=str(data.get("type") or "Error"),
        message=str(data.get("message") or ""),
        traceback=str(data.get("traceback") or ""),
    )


def _warning(data: Mapping[str, Any]) -> ProbeWarning:
    return ProbeWarning(data=dict(data), message=str(data.get("message") or ""))


def _gpu_usage(data: Mapping[str, Any]) -> GpuUsage:
    return GpuUsage(
        data=dict(data),
        index=_integer(data.get("index")) or 0,
        utilisation_percent=_integer(data.get("utilisation_percent")),
        memory_used_mib=_integer(data.get("memory_used_mib")),
    )


def _log(data: Mapping[str, Any]) -> Log:
    return Log(data=dict(data), line=str(data.get("line") or ""))


def _finding(data: Mapping[str, Any]) -> FindingEvent:
    return FindingEvent(data=dict(data), finding=finding_from_json(data))


_READERS: Mapping[str, Callable[[Mapping[str, Any]], LiveTestEvent]] = {
    "start": _start,
    "device": _device,
    "device_summary": _device_summary,
    "phase": _phase,
    "prepare": _prepare,
    "step": _step,
    "matmul": _matmul,
    "compare": _compare,
    "summary": _summary,
    "libraries": _libraries,
    "error": _error,
    "warning": _warning,
    "gpu_usage": _gpu_usage,
    "log": _log,
    "finding": _finding,
    "result": result_from_json,
}
