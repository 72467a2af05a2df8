"""The live training test's verdict, from the events its probe printed (DESIGN.md section 4).

The probe (``probes/train_test.py``) measures; this module judges, so the rules live in one
tested place and not in an interpreter the wizard does not control. Verdicts:

- ``gpu_ok``: the framework trained on the GPU, the loss fell, GPU and CPU agree, and the GPU
  is clearly faster than the CPU;
- ``gpu_slow``: it trained on the GPU but not clearly faster than on the CPU;
- ``cpu_only``: it trained, on the CPU only (no GPU visible to the framework);
- ``broken``: it did not train: an import or run-time error, a probe that died or hung, a loss
  that did not fall, or GPU results that differ from the CPU's.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from gpuwizard.core.findings.model import Finding, finding_to_json, make_finding, sort_findings

VERDICTS: Final = ("gpu_ok", "gpu_slow", "cpu_only", "broken")

# A CIFAR-shaped CNN at batch 256 runs tens of times faster on any CUDA GPU of the last
# decade than on a desktop CPU (PyTorch's own CIFAR-10 tutorial models: ~20-60x on a T4 vs 8
# cores); below 3x the GPU is throttled, shared, on a slow link, or the data path dominates.
GPU_SLOW_SPEEDUP: Final = 3.0


@dataclass
class ProbeRun:
    """What the probe said, folded from its events.

    Attributes:
        start: The ``start`` event (framework, versions, build), if it came.
        gpus: The ``device`` events of kind ``gpu``.
        steps: ``device -> [(loss, samples_per_s)]`` from the ``step`` events.
        matmul: The ``matmul`` events.
        compare: The ``compare`` event, if any.
        summary: The ``summary`` event, if it came.
        errors: The ``error`` events.
        usage: GPU utilisation samples added by the wizard (``gpu_usage`` events).
        warnings: The ``warning`` events (torch says "driver too old" only as a warning).
    """

    start: dict[str, Any] | None = None
    gpus: list[dict[str, Any]] = field(default_factory=list)
    steps: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    matmul: list[dict[str, Any]] = field(default_factory=list)
    compare: dict[str, Any] | None = None
    summary: dict[str, Any] | None = None
    errors: list[dict[str, Any]] = field(default_factory=list)
    usage: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[dict[str, Any]] = field(default_factory=list)

    def add(self, event: Mapping[str, Any]) -> None:
        """Take one event into account (unknown events are ignored)."""
        kind = event.get("event")
        if kind == "start":
            self.start = dict(event)
        elif kind == "device" and event.get("kind") == "gpu":
            self.gpus.append(dict(event))
        elif kind == "step":
            loss, rate = _number(event.get("loss")), _number(event.get("samples_per_s"))
            if loss is not None and rate is not None:
                self.steps.setdefault(str(event.get("device")), []).append((loss, rate))
        elif kind == "matmul":
            self.matmul.append(dict(event))
        elif kind == "compare":
            self.compare = dict(event)
        elif kind == "summary":
            self.summary = dict(event)
        elif kind == "error":
            self.errors.append(dict(event))
        elif kind == "gpu_usage":
            self.usage.append(dict(event))
        elif kind == "warning":
            self.warnings.append(dict(event))


@dataclass(frozen=True)
class ProbeEnd:
    """How the probe process ended.

    Attributes:
        exit_code: Its exit status; None when it was killed (timeout or cancel).
        killed_reason: ``timeout`` or ``cancelled`` when the wizard killed it.
        tail: Its last lines that were not events (for diagnosis).
    """

    exit_code: int | None
    killed_reason: str | None = None
    tail: tuple[str, ...] = ()


def judge(  # noqa: PLR0911 - one return per rule, checked in order
    run: ProbeRun, end: ProbeEnd, *, machine_has_nvidia_gpu: bool | None, diagnosed: Sequence[Finding] = ()
) -> tuple[str, list[Finding]]:
    """The verdict and the findings that explain it.

    ``diagnosed`` are findings recognised in the probe's error output (core.diagnosis).
    ``machine_has_nvidia_gpu``: whether detection saw an NVIDIA GPU (None: unknown); a
    CPU-only result on such a machine is explained.
    """
    findings: list[Finding] = list(diagnosed)
    summary = run.summary
    if end.killed_reason is not None:
        findings.append(make_finding("TEST_PROBE_KILLED", reason=end.killed_reason))
        return "broken", _unique(findings)
    if run.errors or summary is None or end.exit_code not in (0, None):
        error = run.errors[-1] if run.errors else {}
        if error.get("phase") == "import":
            findings.append(make_finding("FRAMEWORK_NOT_IMPORTABLE", error=_one_line(error)))
        else:
            detail = (
                _one_line(error) if error else (end.tail[-1] if end.tail else f"exit status {end.exit_code}")
            )
            findings.append(make_finding("TEST_PROBE_FAILED", error=detail))
        return "broken", _unique(findings)
    loss_first, loss_last = _number(summary.get("loss_first")), _number(summary.get("loss_last"))
    if loss_first is None or loss_last is None or not loss_last < loss_first:
        findings.append(make_finding("TRAINING_DID_NOT_LEARN", loss_first=loss_first, loss_last=loss_last))
        return "broken", _unique(findings)
    if run.compare is not None and not run.compare.get("ok", False):
        findings.append(
            make_finding(
                "GPU_RESULTS_DIFFER",
                difference=f"{_number(run.compare.get('max_abs_diff')) or float('nan'):.3g}",
                tolerance=f"{_number(run.compare.get('tolerance')) or 0:.3g}",
            )
        )
        return "broken", _unique(findings)
    if not summary.get("gpu_used"):
        start = run.start or {}
        if machine_has_nvidia_gpu:
            if start.get("built_with_cuda") is False:
                findings.append(make_finding("CPU_ONLY_BUILD"))
            else:
                findings.append(make_finding("GPU_NOT_VISIBLE"))
        return "cpu_only", _unique(findings)
    speedup = speedup_of(summary)
    if speedup is not None and speedup < GPU_SLOW_SPEEDUP:
        findings.append(
            make_finding("GPU_SLOWER_THAN_EXPECTED", speedup=f"{speedup:.1f}", expected=GPU_SLOW_SPEEDUP)
        )
        return "gpu_slow", _unique(findings)
    return "gpu_ok", _unique(findings)


def speedup_of(summary: Mapping[str, Any]) -> float | None:
    """GPU samples/s over CPU samples/s, None when either is missing."""
    rates = summary.get("samples_per_s") or {}
    gpu, cpu = _number(rates.get("gpu")), _number(rates.get("cpu"))
    if gpu is None or cpu is None or cpu <= 0:
        return None
    return gpu / cpu


def result_event(
    run: ProbeRun, verdict: str, findings: Iterable[Finding], *, framework: str, seconds: float
) -> dict[str, Any]:
    """The final ``result`` event: the contract's fields, then the wizard's own."""
    summary = run.summary or {}
    start = run.start or {}
    speedup = speedup_of(summary)
    gpu_name = next((str(gpu.get("name")) for gpu in run.gpus if gpu.get("name")), None)
    rates = summary.get("samples_per_s") or {}
    usage = [sample for sample in run.usage if sample.get("utilisation_percent") is not None]
    memory = [sample for sample in run.usage if sample.get("memory_used_mib") is not None]
    return {
        "event": "result",
        "verdict": verdict,
        "framework": framework,
        "framework_version": start.get("framework_version"),
        "device": gpu_name if summary.get("gpu_used") else "cpu",
        "loss_first": _rounded(summary.get("loss_first")),
        "loss_last": _rounded(summary.get("loss_last")),
        "samples_per_s": {"gpu": _rounded(rates.get("gpu"), 1), "cpu": _rounded(rates.get("cpu"), 1)},
        "speedup": None if speedup is None else round(speedup, 1),
        "seconds": round(seconds, 1),
        "findings": [finding_to_json(finding) for finding in findings],
        "matmul_tflops": {str(item.get("dtype")): _rounded(item.get("tflops"), 1) for item in run.matmul},
        "gpu_utilisation_max_percent": max((int(s["utilisation_percent"]) for s in usage), default=None),
        "gpu_memory_used_max_mib": max((int(s["memory_used_mib"]) for s in memory), default=None),
        "gpu_training_vs_matmul_percent": _efficiency(summary, run.matmul),
        "built_with_cuda": start.get("built_with_cuda"),
        "cuda_build": start.get("cuda_build"),
        "python": start.get("python_executable"),
    }


def _efficiency(summary: Mapping[str, Any], matmul: Sequence[Mapping[str, Any]]) -> float | None:
    """Training FLOP/s on the GPU as a share of its fp32/tf32 matmul rate (DESIGN.md section 6: >= 70 %)."""
    train = _number((summary.get("train_tflops") or {}).get("gpu"))
    rates = [_number(item.get("tflops")) for item in matmul if item.get("dtype") in ("float32", "tf32")]
    peak = max((rate for rate in rates if rate), default=None)
    if train is None or peak is None:
        return None
    return round(100 * train / peak, 1)


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def _rounded(value: object, digits: int = 4) -> float | None:
    number = _number(value)
    return None if number is None else round(number, digits)


def _one_line(error: Mapping[str, Any]) -> str:
    text = f"{error.get('type', 'Error')}: {error.get('message', '')}".strip()
    return text.splitlines()[0][:300] if text else "unknown error"


def _unique(findings: list[Finding]) -> list[Finding]:
    seen: set[str] = set()
    kept = []
    for finding in findings:
        if finding.code not in seen:
            seen.add(finding.code)
            kept.append(finding)
    return sort_findings(kept)
