"""A one-line answer to "can this machine train on an NVIDIA GPU as it is?".

>>> from gpuwizard.core.machine.system_report import OsFacts, SystemReport
>>> gpu_readiness(SystemReport(os=OsFacts("linux", False, "6.1", "x86_64"))).ready
False
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuwizard.core.findings.model import Finding
from gpuwizard.core.findings.no_gpu import is_no_gpu
from gpuwizard.core.machine.system_report import GpuFacts, SystemReport


@dataclass(frozen=True)
class Readiness:
    """Whether GPU frameworks can use this machine now, and what stands in the way.

    Attributes:
        ready: An NVIDIA GPU answers through a working driver and no error finding remains.
        usable_gpus: The NVIDIA GPUs the driver reports as working.
        other_gpus: AMD, Intel and Apple GPUs: whether a build carries code for them is the
            recommendation's answer, so they never make a machine "ready" here.
        blocking: The error findings, in report order.
        warnings: The warning findings, in report order.
    """

    ready: bool
    usable_gpus: tuple[GpuFacts, ...]
    blocking: tuple[Finding, ...]
    warnings: tuple[Finding, ...]
    other_gpus: tuple[GpuFacts, ...] = ()


def usable_gpus(report: SystemReport) -> tuple[GpuFacts, ...]:
    """The NVIDIA GPUs a driver serves, in index order."""
    # A GPU that fell off the bus ("lost") or has no driver cannot run anything.
    return tuple(gpu for gpu in report.nvidia_gpus if gpu.status == "ok")


def machine_has_nvidia_gpu(report: SystemReport) -> bool:
    """Whether the machine has an NVIDIA GPU that a driver serves (one a live test could use).

    What the verdict rule of the live test is judged against (core.livetest.verdicts.passed).
    """
    return report.driver is not None and bool(usable_gpus(report))


def no_gpu_note(report: SystemReport) -> Finding | None:
    """Detection's note that the machine has no NVIDIA GPU, or None where it has one or another cause.

    The one test of "a machine without a GPU" (:mod:`gpuwizard.core.findings.no_gpu`): what
    detection concluded, not a guess from the facts, so that a GPU without a driver, or WSL 2
    without the Windows driver (``NO_NVIDIA_DRIVER``), is never mistaken for one.
    """
    return next((finding for finding in report.findings if is_no_gpu(finding)), None)


def gpu_readiness(report: SystemReport) -> Readiness:
    """Summarise ``report`` for the wizard's summary page and exit codes."""
    usable = usable_gpus(report)
    blocking = tuple(f for f in report.findings if f.severity == "error")
    warnings = tuple(f for f in report.findings if f.severity == "warning")
    # A lost GPU is an error finding, but the other GPUs still work: judge by what works.
    only_lost = bool(usable) and all(f.code == "GPU_NOT_RESPONDING" for f in blocking)
    ready = report.driver is not None and bool(usable) and (not blocking or only_lost)
    others = tuple(gpu for gpu in report.compute_gpus if gpu.vendor != "nvidia" and gpu.status != "lost")
    return Readiness(ready=ready, usable_gpus=usable, blocking=blocking, warnings=warnings, other_gpus=others)
