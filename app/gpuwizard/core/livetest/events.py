"""The live test's events as typed values: what the probe printed, and what the wizard adds.

The training probe (``probes/train_test.py``) runs in another interpreter and prints one JSON
object per line. They become typed events here, once, where they cross into the wizard
(:data:`LIVE_TEST_EVENTS`, ``.read``); everything inside the process reads fields, and JSON
comes back only where an event leaves it again (``gpuwizard test --json``, a log file), written
from the fields by :func:`gpuwizard.core.events.to_json`. Each class declares every field the
probe prints, in the order it prints them, so an event is written back as it came, key for key;
a field this version does not know (a newer probe's) is kept in ``extra`` and written after.

Absent and null are one thing to the codec, so a field the probe prints only sometimes is left
out when None (``omit_none``); those it always prints are written always, null included.

The probe's ``libraries`` event (:class:`Libraries`) says where each CUDA library was loaded
from, which NVIDIA wheels are installed and what the DLL start-up hook did; the result keeps them.

The GPU may be NVIDIA's (CUDA), AMD's (ROCm), Intel's (XPU) or Apple's (MPS): ``start`` names the
kind the test trains on and its runtime's version, the kind the plan expected when it was given
one, and why that kind is not there (:class:`~gpuwizard.core.livetest.devices.GpuUnavailable`);
each GPU's ``device`` event its kind and, on ROCm, its gfx target. All are added fields, left out
when unknown, so a run before them (and a CPU run now) reads and writes as it did.

The wizard adds ``log`` (a line of the probe that is no event), ``gpu_usage`` (NVML samples
taken while it trains) and ``finding``; the last event of a test is its :class:`LiveTestResult`.

A reader that meets an event kind it does not know keeps it as
:class:`~gpuwizard.core.events.Other` and passes it on: the probe may add kinds (``prepare``
came after the first recordings, which replay as they are).

>>> step = LIVE_TEST_EVENTS.read({"event": "step", "device": "gpu", "step": 3, "loss": 1.5, "samples_per_s": 9e3})
>>> (step.kind, step.device, step.loss, to_json(step)["samples_per_s"])
('step', 'gpu', 1.5, 9000.0)
>>> to_json(LIVE_TEST_EVENTS.read({"event": "something_new", "x": 1}))
{'event': 'something_new', 'x': 1}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from gpuwizard.core.events import Event, EventKinds, Other, json_field, to_json, value_from_json
from gpuwizard.core.findings.model import Finding
from gpuwizard.core.livetest.devices import GpuUnavailable
from gpuwizard.core.livetest.libraries import (
    CudaLibrary,
    CudaWheel,
    DllHook,
    dll_hook_from_json,
    libraries_from_json,
    wheels_from_json,
)
from gpuwizard.core.livetest.verdicts import CANCELLED

#: The probe's phases (``phase`` events), in the order a GPU run goes through them. A newer
#: probe may add one: :attr:`Phase.phase` stays a plain ``str`` so it is passed on as it came.
LiveTestPhase = Literal["data", "warmup", "train", "matmul", "compare"]
#: The probe's slow preparations (``prepare`` events); a newer probe may add one, likewise.
PrepareStage = Literal["import", "cuda_context", "rocm_context", "xpu_context", "mps_context", "compile"]

__all__ = [
    "LIVE_TEST_EVENTS",
    "Compare",
    "Device",
    "DeviceSummary",
    "FindingEvent",
    "GpuUnavailable",
    "GpuUsage",
    "Libraries",
    "LiveTestEvent",
    "LiveTestPhase",
    "LiveTestResult",
    "Log",
    "Matmul",
    "Other",
    "Phase",
    "Prepare",
    "PrepareStage",
    "ProbeError",
    "ProbeWarning",
    "Start",
    "Step",
    "Summary",
    "event_from_json",
    "log_event",
    "result_from_json",
]


@dataclass(frozen=True, kw_only=True)
class LiveTestEvent(Event):
    """One event of a live test (the family's base: a sink may take them apart by class)."""

    def to_json(self) -> dict[str, Any]:
        """The event as its JSON object (:func:`gpuwizard.core.events.to_json`)."""
        return to_json(self)


@dataclass(frozen=True, kw_only=True)
class Start(LiveTestEvent):
    """The framework imported: its version and build, and the test's configuration.

    ``steps`` and ``cpu_steps`` are the members of the probe's ``config`` object the wizard
    reads (its other members stay in it, written back as they came).

    The GPU's kind, each only when the probe knew it: ``device_requested`` (the kind the plan
    expected, ``--device``), ``gpu_kind`` (``cuda``, ``rocm``, ``xpu``, ``mps``: the GPU it trains
    on), ``gpu_runtime_version`` (the CUDA or HIP build, the XPU toolchain, the macOS version),
    ``gpu_unavailable`` (the kind expected is not there, and why). PyTorch's ``hip_build`` and
    TensorFlow's ``keras_version`` stay in ``extra``, after them.
    """

    KIND: ClassVar[str] = "start"
    probe: str | None = json_field(default=None, omit_none=True)
    framework: str = ""
    framework_version: str | None = None
    built_with_cuda: bool | None = None
    cuda_build: str | None = None
    cudnn_build: str | None = None
    arch_list: tuple[str, ...] | None = json_field(default=None, omit_none=True)
    steps: int = json_field(default=0, at=("config", "steps"))
    cpu_steps: int = json_field(default=0, at=("config", "cpu_steps"))
    model: Mapping[str, Any] | None = json_field(default=None, omit_none=True)
    import_seconds: float | None = json_field(default=None, omit_none=True)
    python: str | None = json_field(default=None, omit_none=True)
    python_executable: str | None = json_field(default=None, omit_none=True)
    device_requested: str | None = json_field(default=None, omit_none=True)
    gpu_kind: str | None = json_field(default=None, omit_none=True)
    gpu_runtime_version: str | None = json_field(default=None, omit_none=True)
    gpu_unavailable: GpuUnavailable | None = json_field(default=None, omit_none=True)

    @property
    def hip_build(self) -> str | None:
        """PyTorch's HIP version when it is a ROCm build (``torch.version.hip``), else None."""
        value = self.extra.get("hip_build")
        return str(value) if isinstance(value, str) and value else None


@dataclass(frozen=True, kw_only=True)
class Device(LiveTestEvent):
    """A device the framework sees: each GPU (``device_kind`` ``gpu``), then the CPU (``cpu``).

    A GPU's kind (``gpu_kind``: ``cuda``, ``rocm``, ``xpu``, ``mps``) and an AMD GPU's gfx target
    (``gcn_arch``, "gfx942:sramecc+:xnack-") are read when the probe gives them; its other facts
    (compute capability, memory, whether the build has its architecture) stay as the probe
    printed them, in ``extra``.
    """

    KIND: ClassVar[str] = "device"
    device_kind: str = json_field(default="", key="kind")
    index: int | None = json_field(default=None, omit_none=True)
    name: str = ""
    threads: int | None = json_field(default=None, omit_none=True)
    gpu_kind: str | None = json_field(default=None, omit_none=True)
    gcn_arch: str | None = json_field(default=None, omit_none=True)

    @property
    def is_gpu(self) -> bool:
        """Whether it is a GPU."""
        return self.device_kind == "gpu"

    @property
    def label(self) -> str:
        """Its name; ``GPU`` or ``CPU`` when the probe gave none."""
        return self.name or ("GPU" if self.is_gpu else "CPU")


@dataclass(frozen=True, kw_only=True)
class DeviceSummary(LiveTestEvent):
    """How many GPUs the framework sees, and whether the test trains on one."""

    KIND: ClassVar[str] = "device_summary"
    gpu_count: int | None = None
    gpu_available: bool | None = json_field(default=None, omit_none=True)
    gpu_used: bool = False


@dataclass(frozen=True, kw_only=True)
class Phase(LiveTestEvent):
    """A phase begins (:data:`LiveTestPhase`) on a device (None: none in particular)."""

    KIND: ClassVar[str] = "phase"
    phase: str = ""
    device: str | None = None


@dataclass(frozen=True, kw_only=True)
class Prepare(LiveTestEvent):
    """A slow preparation begins, before the first step shows any progress.

    ``stage`` is ``import`` (the framework is imported: ``framework``), ``cuda_context`` (the
    first use of the GPU creates its CUDA context; ``rocm_context``, ``xpu_context`` and
    ``mps_context`` on AMD, Intel and Apple GPUs) or ``compile`` (the model is built and its
    first ``warmup_steps`` run: graph tracing, kernel selection and autotuning, the optimizer's
    set-up); a newer probe may name others. Each lasts until the next ``prepare``, ``phase`` or
    ``step``.
    """

    KIND: ClassVar[str] = "prepare"
    stage: str = ""
    device: str | None = json_field(default=None, omit_none=True)
    framework: str | None = json_field(default=None, omit_none=True)
    warmup_steps: int | None = json_field(default=None, omit_none=True)


@dataclass(frozen=True, kw_only=True)
class Step(LiveTestEvent):
    """One measured training step on a device (``gpu`` or ``cpu``)."""

    KIND: ClassVar[str] = "step"
    device: str = ""
    step: int = 0
    loss: float | None = None
    samples_per_s: float | None = None
    batch: int | None = json_field(default=None, omit_none=True)
    elapsed_s: float | None = json_field(default=None, omit_none=True)


@dataclass(frozen=True, kw_only=True)
class Matmul(LiveTestEvent):
    """The GPU's matrix-multiply rate in one dtype (``tf32`` when float32 ran on tensor cores)."""

    KIND: ClassVar[str] = "matmul"
    device: str | None = json_field(default=None, omit_none=True)
    size: int | None = json_field(default=None, omit_none=True)
    dtype: str = ""
    tflops: float | None = None
    seconds: float | None = json_field(default=None, omit_none=True)
    repeats: int | None = json_field(default=None, omit_none=True)


@dataclass(frozen=True, kw_only=True)
class Compare(LiveTestEvent):
    """GPU-trained weights on GPU and CPU: do they agree within the tolerance?"""

    KIND: ClassVar[str] = "compare"
    max_abs_diff: float | None = None
    tolerance: float | None = None
    ok: bool = False
    samples: int | None = json_field(default=None, omit_none=True)


@dataclass(frozen=True, kw_only=True)
class Summary(LiveTestEvent):
    """The probe's measurements at the end (the wizard judges them); per device, None: not run."""

    KIND: ClassVar[str] = "summary"
    loss_first: float | None = None
    loss_last: float | None = None
    samples_per_s_gpu: float | None = json_field(default=None, at=("samples_per_s", "gpu"))
    samples_per_s_cpu: float | None = json_field(default=None, at=("samples_per_s", "cpu"))
    gpu_used: bool = False
    seconds: float | None = json_field(default=None, omit_none=True)
    steps_gpu: int | None = json_field(default=None, at=("steps", "gpu"))
    steps_cpu: int | None = json_field(default=None, at=("steps", "cpu"))
    train_tflops_gpu: float | None = json_field(default=None, at=("train_tflops", "gpu"))
    train_tflops_cpu: float | None = json_field(default=None, at=("train_tflops", "cpu"))


@dataclass(frozen=True, kw_only=True)
class Libraries(LiveTestEvent):
    """Where the CUDA libraries were loaded from, after the GPU work; the NVIDIA wheels; the DLL hook.

    ``cuda_wheels`` is None when the probe could not list them; ``dll_hook`` None when the
    environment has no hook (``probes/cuda_libraries.py``). Each ``*_error`` says why a list
    could not be read, when it could not.
    """

    KIND: ClassVar[str] = "libraries"
    cuda_libraries: tuple[CudaLibrary, ...] = json_field(default=(), read=libraries_from_json)
    cuda_libraries_error: str | None = json_field(default=None, omit_none=True)
    cuda_wheels: tuple[CudaWheel, ...] | None = json_field(default=None, read=wheels_from_json)
    cuda_wheels_error: str | None = json_field(default=None, omit_none=True)
    dll_hook: DllHook | None = json_field(default=None, read=dll_hook_from_json)
    dll_hook_error: str | None = json_field(default=None, omit_none=True)


def _names_a_device(error: ProbeError) -> bool:
    # The probe's errors name the device they happened on (null: none), or, when the framework
    # would not import, the framework instead and no device at all.
    return error.framework is None or error.device is not None


@dataclass(frozen=True, kw_only=True)
class ProbeError(LiveTestEvent):
    """The probe failed (``phase`` ``import``, with ``framework``, when the framework would not import)."""

    KIND: ClassVar[str] = "error"
    phase: str | None = None
    device: str | None = json_field(default=None, when=_names_a_device)
    framework: str | None = json_field(default=None, omit_none=True)
    type: str = "Error"
    message: str = ""
    traceback: str = ""


@dataclass(frozen=True, kw_only=True)
class ProbeWarning(LiveTestEvent):
    """A Python warning raised inside the probe (torch says "driver too old" only as one)."""

    KIND: ClassVar[str] = "warning"
    phase: str | None = json_field(default=None, omit_none=True)
    category: str | None = json_field(default=None, omit_none=True)
    message: str = ""


@dataclass(frozen=True, kw_only=True)
class GpuUsage(LiveTestEvent):
    """An NVML sample the wizard took while the probe trained."""

    KIND: ClassVar[str] = "gpu_usage"
    index: int = 0
    utilisation_percent: int | None = None
    memory_used_mib: int | None = None


@dataclass(frozen=True, kw_only=True)
class Log(LiveTestEvent):
    """A line the probe printed that is no event (kept for diagnosis)."""

    KIND: ClassVar[str] = "log"
    line: str = ""


@dataclass(frozen=True, kw_only=True)
class FindingEvent(LiveTestEvent, Finding):
    """A finding that explains the verdict: the finding's own fields, as the event's.

    >>> from gpuwizard.core.findings.model import make_finding
    >>> event = FindingEvent.of(make_finding("CPU_ONLY_BUILD"))
    >>> (event.kind, event.finding.code, list(to_json(event))[:3])
    ('finding', 'CPU_ONLY_BUILD', ['event', 'code', 'severity'])
    """

    KIND: ClassVar[str] = "finding"

    @classmethod
    def of(cls, finding: Finding) -> FindingEvent:
        """The event that carries ``finding``."""
        return cls(
            code=finding.code,
            severity=finding.severity,
            message=finding.message,
            hint=finding.hint,
            params=finding.params,
        )

    @property
    def finding(self) -> Finding:
        """The finding it carries, as a plain :class:`~gpuwizard.core.findings.model.Finding`."""
        return Finding(
            code=self.code, severity=self.severity, message=self.message, hint=self.hint, params=self.params
        )


def _verdict(value: object) -> str:
    return str(value or "broken")  # a result that says none did not pass


@dataclass(frozen=True, kw_only=True)
class LiveTestResult(LiveTestEvent):
    """The last event of a test: the verdict, the numbers, the findings that explain it.

    The fields are in the order of the contract's ``result`` event (docs/architecture.md, "The
    command-line and JSON contract"), the wizard's own after them, ``status`` last.

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
        built_with_cuda, cuda_build: The framework build.
        python: The interpreter that ran the test.
        env: The environment the wizard made that was tested (None: ``--python``).
        gpus_visible: How many GPUs the framework saw (None: the probe never got that far).
        gpu_names: Their names, as the framework reported them.
        cuda_libraries: The CUDA-family libraries the test had loaded, each with its file
            (empty: none, a CPU build, or the probe never got that far).
        cuda_wheels: The ``nvidia-*`` wheels installed in the environment; None when unknown
            (the probe sent no ``libraries`` event).
        dll_hook: What the DLL start-up hook did; None when there is none (or it is unknown).
        device_expected: The GPU kind the plan expected (``cuda``, ``rocm``, ``xpu``, ``mps``);
            None when the test looked for any (``auto``). Left out when None, as the three after.
        gpu_kind: The kind of the GPU the framework saw and trained on.
        gpu_runtime_version: That kind's runtime: the CUDA or HIP build, the XPU toolchain, macOS.
        gpu_arch: An AMD GPU's gfx target as ROCm names it (``gfx942:sramecc+:xnack-``).
        status: ``cancelled`` when stopped before the end, else ``complete`` (as verify's and
            apply's results say it): follows from ``verdict``, whatever it is given.
    """

    KIND: ClassVar[str] = "result"
    verdict: str = json_field(read=_verdict)
    framework: str = ""
    framework_version: str | None = None
    device: str | None = None
    loss_first: float | None = None
    loss_last: float | None = None
    samples_per_s_gpu: float | None = json_field(default=None, at=("samples_per_s", "gpu"))
    samples_per_s_cpu: float | None = json_field(default=None, at=("samples_per_s", "cpu"))
    speedup: float | None = None
    seconds: float | None = None
    findings: tuple[Finding, ...] = ()
    matmul_tflops: Mapping[str, float | None] = field(default_factory=dict)
    gpu_utilisation_max_percent: int | None = None
    gpu_memory_used_max_mib: int | None = None
    gpu_training_vs_matmul_percent: float | None = None
    built_with_cuda: bool | None = None
    cuda_build: str | None = None
    python: str | None = None
    env: str | None = None
    gpus_visible: int | None = None
    gpu_names: tuple[str, ...] = ()
    cuda_libraries: tuple[CudaLibrary, ...] = json_field(default=(), read=libraries_from_json)
    cuda_wheels: tuple[CudaWheel, ...] | None = json_field(default=None, read=wheels_from_json)
    dll_hook: DllHook | None = json_field(default=None, read=dll_hook_from_json)
    device_expected: str | None = json_field(default=None, omit_none=True)
    gpu_kind: str | None = json_field(default=None, omit_none=True)
    gpu_runtime_version: str | None = json_field(default=None, omit_none=True)
    gpu_arch: str | None = json_field(default=None, omit_none=True)
    status: str = field(default="complete", compare=False)

    def __post_init__(self) -> None:
        # Computed, never taken as given: a result made with `replace(verdict=...)` says it right.
        object.__setattr__(self, "status", "cancelled" if self.cancelled else "complete")

    @property
    def cancelled(self) -> bool:
        """Whether the test was stopped before it finished (no verdict; nothing is recorded)."""
        return self.verdict == CANCELLED


#: Every kind of the live test's stream: what the probe prints, and the wizard's own.
LIVE_TEST_EVENTS = EventKinds(
    "live_test",
    [
        Start,
        Device,
        DeviceSummary,
        Phase,
        Prepare,
        Step,
        Matmul,
        Compare,
        Summary,
        Libraries,
        ProbeError,
        ProbeWarning,
        GpuUsage,
        Log,
        FindingEvent,
        LiveTestResult,
    ],
)

#: One JSON object of the probe (or of a saved run) as its typed event; an unknown kind as ``Other``.
event_from_json = LIVE_TEST_EVENTS.read


def result_from_json(data: Mapping[str, Any]) -> LiveTestResult:
    """A result read back (``last-tests.json``, a recorded run); fields it lacks are unknown.

    >>> result = result_from_json({"verdict": "gpu_ok", "framework": "pytorch", "samples_per_s": {"gpu": 5e4}})
    >>> (result.verdict, result.samples_per_s_gpu, result.gpus_visible)
    ('gpu_ok', 50000.0, None)
    """
    return value_from_json(LiveTestResult, data)


def log_event(line: str) -> Log:
    """A line that is no event, as the ``log`` event that carries it (``Log(line=...)``)."""
    return Log(line=line)
