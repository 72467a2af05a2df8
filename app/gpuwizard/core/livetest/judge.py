"""The live training test judged from the events its probe printed.

The probe (``probes/train_test.py``) measures; this module judges, so the rules live in one
tested place and not in an interpreter the wizard does not control. What each verdict means,
and whether it passes, is :mod:`gpuwizard.core.livetest.verdicts`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from gpuwizard.core.events import Event
from gpuwizard.core.exit_status import describe_exit, status_text
from gpuwizard.core.findings.model import Finding, make_finding, sort_findings
from gpuwizard.core.livetest.devices import unavailable_finding
from gpuwizard.core.livetest.events import (
    Compare,
    Device,
    DeviceSummary,
    GpuUsage,
    Libraries,
    LiveTestResult,
    Matmul,
    ProbeError,
    ProbeWarning,
    Start,
    Step,
    Summary,
)
from gpuwizard.core.livetest.verdicts import CANCELLED, GPU_SLOW_SPEEDUP


@dataclass
class ProbeRun:
    """What the probe said, folded from its events.

    Attributes:
        start: The ``start`` event (framework, versions, build), if it came.
        gpus: The ``device`` events of the GPUs the framework sees.
        device_summary: The ``device_summary`` event, if it came.
        steps: ``device -> [(loss, samples_per_s)]`` from the ``step`` events.
        matmul: The ``matmul`` events.
        compare: The ``compare`` event, if any.
        summary: The ``summary`` event, if it came.
        errors: The ``error`` events.
        usage: GPU utilisation samples added by the wizard (``gpu_usage`` events).
        warnings: The ``warning`` events (torch says "driver too old" only as a warning).
        libraries: The ``libraries`` event (where each CUDA library came from), if it came.
    """

    start: Start | None = None
    gpus: list[Device] = field(default_factory=list)
    device_summary: DeviceSummary | None = None
    steps: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    matmul: list[Matmul] = field(default_factory=list)
    compare: Compare | None = None
    summary: Summary | None = None
    errors: list[ProbeError] = field(default_factory=list)
    usage: list[GpuUsage] = field(default_factory=list)
    warnings: list[ProbeWarning] = field(default_factory=list)
    libraries: Libraries | None = None

    def add(self, event: Event) -> None:  # noqa: PLR0912 - one branch per kind of event
        """Take one event into account (kinds that say nothing about the verdict are ignored)."""
        if isinstance(event, Start):
            self.start = event
        elif isinstance(event, Device):
            if event.is_gpu:
                self.gpus.append(event)
        elif isinstance(event, DeviceSummary):
            self.device_summary = event
        elif isinstance(event, Step):
            if event.loss is not None and event.samples_per_s is not None:
                self.steps.setdefault(event.device, []).append((event.loss, event.samples_per_s))
        elif isinstance(event, Matmul):
            self.matmul.append(event)
        elif isinstance(event, Compare):
            self.compare = event
        elif isinstance(event, Summary):
            self.summary = event
        elif isinstance(event, ProbeError):
            self.errors.append(event)
        elif isinstance(event, GpuUsage):
            self.usage.append(event)
        elif isinstance(event, ProbeWarning):
            self.warnings.append(event)
        elif isinstance(event, Libraries):
            self.libraries = event

    @property
    def gpus_visible(self) -> int | None:
        """How many GPUs the framework saw; None when the probe never got as far as saying."""
        if self.device_summary is not None and self.device_summary.gpu_count is not None:
            return self.device_summary.gpu_count
        return len(self.gpus) if (self.gpus or self.summary is not None) else None


@dataclass(frozen=True)
class ProbeEnd:
    """How the probe process ended.

    Attributes:
        exit_code: Its exit status; None when it was killed (timeout or cancel).
        killed_reason: ``timeout`` or ``cancelled`` when the wizard killed it.
        tail: Its last lines that were not events (for diagnosis).
        windows: Whether it ran on Windows: how its exit status is read (a crash's NTSTATUS
            there, the signal that ended it elsewhere; core/exit_status.py).
    """

    exit_code: int | None
    killed_reason: str | None = None
    tail: tuple[str, ...] = ()
    windows: bool = False


def _ending(end: ProbeEnd) -> str:
    """How a probe that gave no error event ended: its last line, and its status when that was a crash."""
    status = f"exit {status_text(end.exit_code, windows=end.windows)}"
    if not end.tail:
        return status
    crashed = end.exit_code is not None and describe_exit(end.exit_code, windows=end.windows)
    # A crash (a missing DLL, the OOM killer's SIGKILL) leaves a last line that does not say so.
    return f"{end.tail[-1]} ({status})" if crashed else end.tail[-1]


def judge(  # noqa: PLR0911 - one return per rule, checked in order
    run: ProbeRun, end: ProbeEnd, *, machine_has_nvidia_gpu: bool | None, diagnosed: Sequence[Finding] = ()
) -> tuple[str, list[Finding]]:
    """The verdict and the findings that explain it (``cancelled`` when the wizard stopped it on request).

    ``diagnosed`` are findings recognised in the probe's error output (core.findings.diagnosis).
    ``machine_has_nvidia_gpu``: whether detection saw an NVIDIA GPU (None: unknown); a
    CPU-only result on such a machine is explained. So is one where the plan expected a GPU
    kind (the probe's ``--device``) that the framework does not see, on any machine: the
    finding names the kind and why none is visible (:mod:`.devices`).
    """
    findings: list[Finding] = list(diagnosed)
    summary = run.summary
    if end.killed_reason == "cancelled":
        # Stopped on purpose: no verdict, and no TEST_PROBE_KILLED (its hint speaks of hangs).
        return CANCELLED, _unique(findings)
    if end.killed_reason is not None:
        findings.append(make_finding("TEST_PROBE_KILLED", reason=end.killed_reason))
        return "broken", _unique(findings)
    if run.errors or summary is None or end.exit_code not in (0, None):
        error = run.errors[-1] if run.errors else None
        if error is not None and error.phase == "import":
            findings.append(make_finding("FRAMEWORK_NOT_IMPORTABLE", error=_one_line(error)))
        else:
            detail = _one_line(error) if error is not None else _ending(end)
            findings.append(make_finding("TEST_PROBE_FAILED", error=detail))
        return "broken", _unique(findings)
    loss_first, loss_last = summary.loss_first, summary.loss_last
    if loss_first is None or loss_last is None or not loss_last < loss_first:
        findings.append(make_finding("TRAINING_DID_NOT_LEARN", loss_first=loss_first, loss_last=loss_last))
        return "broken", _unique(findings)
    if run.compare is not None and not run.compare.ok:
        findings.append(
            make_finding(
                "GPU_RESULTS_DIFFER",
                difference=f"{run.compare.max_abs_diff if run.compare.max_abs_diff is not None else float('nan'):.3g}",
                tolerance=f"{run.compare.tolerance or 0:.3g}",
            )
        )
        return "broken", _unique(findings)
    if not summary.gpu_used:
        findings.extend(_why_cpu_only(run.start, machine_has_nvidia_gpu))
        return "cpu_only", _unique(findings)
    speedup = speedup_of(summary)
    if speedup is not None and speedup < GPU_SLOW_SPEEDUP:
        findings.append(
            make_finding("GPU_SLOWER_THAN_EXPECTED", speedup=f"{speedup:.1f}", expected=GPU_SLOW_SPEEDUP)
        )
        return "gpu_slow", _unique(findings)
    return "gpu_ok", _unique(findings)


def _why_cpu_only(start: Start | None, machine_has_nvidia_gpu: bool | None) -> list[Finding]:
    """Why it trained on the CPU, when that needs saying.

    The GPU kind the plan expected and why it is not there; else, on a machine with an NVIDIA
    GPU, a CPU-only build or a GPU the framework does not see.
    """
    expected = start.gpu_unavailable if start is not None else None
    explained = unavailable_finding(expected) if expected is not None else None
    if explained is not None:
        return [explained]
    if not machine_has_nvidia_gpu:
        return []
    if start is not None and start.built_with_cuda is False:
        return [make_finding("CPU_ONLY_BUILD")]
    return [make_finding("GPU_NOT_VISIBLE")]


def speedup_of(summary: Summary) -> float | None:
    """GPU samples/s over CPU samples/s, None when either is missing."""
    gpu, cpu = summary.samples_per_s_gpu, summary.samples_per_s_cpu
    if gpu is None or cpu is None or cpu <= 0:
        return None
    return gpu / cpu


def result_of(
    run: ProbeRun,
    verdict: str,
    findings: Sequence[Finding],
    *,
    framework: str,
    seconds: float,
    python: str | None,
    env: str | None,
    device_expected: str | None = None,
) -> LiveTestResult:
    """The result of a test: the contract's fields, then the wizard's own.

    ``device_expected``: the GPU kind the test was told to use (else the one the probe says it
    was told, if it got that far). The contract: docs/architecture.md, "The command-line and
    JSON contract".
    """
    summary = run.summary
    start = run.start
    speedup = speedup_of(summary) if summary is not None else None
    gpu_used = summary is not None and summary.gpu_used
    usage = [sample.utilisation_percent for sample in run.usage if sample.utilisation_percent is not None]
    memory = [sample.memory_used_mib for sample in run.usage if sample.memory_used_mib is not None]
    return LiveTestResult(
        verdict=verdict,
        framework=framework,
        framework_version=start.framework_version if start is not None else None,
        device=next((gpu.label for gpu in run.gpus), None) if gpu_used else "cpu",
        loss_first=_rounded(summary.loss_first if summary else None),
        loss_last=_rounded(summary.loss_last if summary else None),
        samples_per_s_gpu=_rounded(summary.samples_per_s_gpu if summary else None, 1),
        samples_per_s_cpu=_rounded(summary.samples_per_s_cpu if summary else None, 1),
        speedup=None if speedup is None else round(speedup, 1),
        seconds=round(seconds, 1),
        findings=tuple(findings),
        matmul_tflops={item.dtype: _rounded(item.tflops, 1) for item in run.matmul},
        gpu_utilisation_max_percent=max(usage, default=None),
        gpu_memory_used_max_mib=max(memory, default=None),
        gpu_training_vs_matmul_percent=_efficiency(summary, run.matmul),
        gpus_visible=run.gpus_visible,
        gpu_names=tuple(gpu.label for gpu in run.gpus),
        built_with_cuda=start.built_with_cuda if start is not None else None,
        cuda_build=start.cuda_build if start is not None else None,
        python=(start.python_executable if start is not None else None) or python,
        env=env,
        cuda_libraries=run.libraries.cuda_libraries if run.libraries is not None else (),
        cuda_wheels=run.libraries.cuda_wheels if run.libraries is not None else None,
        dll_hook=run.libraries.dll_hook if run.libraries is not None else None,
        device_expected=device_expected or (start.device_requested if start is not None else None),
        gpu_kind=start.gpu_kind if start is not None else None,
        gpu_runtime_version=start.gpu_runtime_version if start is not None else None,
        gpu_arch=next((gpu.gcn_arch for gpu in run.gpus if gpu.gcn_arch), None) if gpu_used else None,
    )


def _efficiency(summary: Summary | None, matmul: Sequence[Matmul]) -> float | None:
    """Training FLOP/s on the GPU as a share of its fp32/tf32 matmul rate (performance budget: >= 70 %)."""
    train = summary.train_tflops_gpu if summary is not None else None
    rates = [item.tflops for item in matmul if item.dtype in ("float32", "tf32")]
    peak = max((rate for rate in rates if rate), default=None)
    if train is None or peak is None:
        return None
    return round(100 * train / peak, 1)


def _rounded(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def _one_line(error: ProbeError) -> str:
    text = f"{error.type}: {error.message}".strip()
    return text.splitlines()[0][:300] if text else "unknown error"


def _unique(findings: list[Finding]) -> list[Finding]:
    seen: set[str] = set()
    kept = []
    for finding in findings:
        if finding.code not in seen:
            seen.add(finding.code)
            kept.append(finding)
    return sort_findings(kept)
