"""Rules that turn what detection found into findings. Pure: facts in, findings out.

The report says *what is*; :class:`DetectionEvidence` says *how we know* (which source
failed and why), which is what tells "no NVIDIA GPU" from "an NVIDIA GPU without a working
driver" and picks the hint that fits (Linux, nouveau, WSL 2, a container, Windows).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from gpuwizard.core.findings.model import Finding, make_finding, sort_findings
from gpuwizard.core.machine.system_report import SystemReport, names_of

#: NVML initialisation failures, as the NVML adapter names them.
NVML_LIBRARY_NOT_FOUND = "library_not_found"
NVML_DRIVER_NOT_LOADED = "driver_not_loaded"
NVML_DRIVER_LIBRARY_MISMATCH = "driver_library_mismatch"
NVML_NO_PERMISSION = "no_permission"
NVML_BLOCKED_BY_OS = "blocked_by_os"
#: The driver step itself failed or timed out: nothing is known about the GPU.
NVML_STEP_FAILED = "step_failed"


@dataclass(frozen=True)
class DetectionEvidence:
    """How detection came by the report, beyond the facts in it.

    Attributes:
        nvml_failure: None when NVML answered; else why it could not be used
            (``library_not_found``, ``driver_not_loaded``, ``driver_library_mismatch``,
            ``no_permission``, ``binding_missing``, ``unknown``).
        nvml_detail: NVML's own words for the failure.
        kernel_driver: The Linux kernel driver bound to the NVIDIA GPUs (``nvidia``,
            ``nouveau``), None when none is bound or on other OSes.
        wsl_driver_present: Inside WSL 2, whether the Windows driver's libraries are passed
            through in /usr/lib/wsl/lib; None outside WSL 2.
        wsl_linux_driver: Inside WSL, a Linux NVIDIA driver library found in the distribution.
        gpu_problems: ``(index, reason)`` for GPUs the driver lists but cannot read.
        cuda_path_root: The toolkit folder CUDA_PATH names, if set.
        failed_steps: ``(step, error)`` for parts of detection that raised unexpectedly.
    """

    nvml_failure: str | None = None
    nvml_detail: str | None = None
    kernel_driver: str | None = None
    wsl_driver_present: bool | None = None
    wsl_linux_driver: str | None = None
    gpu_problems: tuple[tuple[int, str], ...] = ()
    cuda_path_root: str | None = None
    failed_steps: tuple[tuple[str, str], ...] = ()


def detection_findings(report: SystemReport, evidence: DetectionEvidence) -> list[Finding]:
    """Return the findings for ``report``, errors first."""
    findings: list[Finding] = []
    findings += _gpu_and_driver(report, evidence)
    findings += _gpu_runtimes(report)
    findings += _cuda_on_path(report, evidence)
    findings += _python(report)
    findings += wsl_findings(report)
    if report.os.family == "windows" and report.long_paths_enabled is False:
        findings.append(make_finding("LONG_PATHS_DISABLED"))
    findings += [
        make_finding("DETECTION_STEP_FAILED", step=step, error=error) for step, error in evidence.failed_steps
    ]
    return sort_findings(findings)


def _gpu_and_driver(report: SystemReport, evidence: DetectionEvidence) -> list[Finding]:
    os_facts = report.os
    if os_facts.family == "darwin":
        return [make_finding("NO_CUDA_ON_MACOS")]
    if os_facts.wsl and os_facts.wsl_version == 1:
        return [make_finding("WSL1_NO_GPU")]

    findings: list[Finding] = []
    if evidence.wsl_linux_driver:
        findings.append(make_finding("WSL_LINUX_DRIVER_INSTALLED", path=evidence.wsl_linux_driver))

    if report.driver is None:
        if evidence.nvml_failure != NVML_STEP_FAILED:  # else DETECTION_STEP_FAILED says it all
            findings.append(_why_no_driver(report, evidence))
        return findings

    if evidence.nvml_failure:
        findings.append(
            make_finding("NVML_UNAVAILABLE", detail=evidence.nvml_detail or evidence.nvml_failure)
        )
    if report.driver.cuda_max is None:
        findings.append(make_finding("DRIVER_CUDA_MAX_UNKNOWN", driver=report.driver.version))
    findings.extend(
        make_finding("GPU_NOT_RESPONDING", index=index, reason=reason)
        for index, reason in evidence.gpu_problems
    )
    return findings


#: The findings :func:`wsl_findings` makes (``detect --wsl`` makes them again with the inside facts).
WSL_WINDOWS_CODES: Final = frozenset(
    {"WSL_VIRTUALIZATION_DISABLED", "WSL1_NO_GPU", "WSL_LINUX_DRIVER_INSTALLED", "WSL_LIBCUDA_NOT_FOUND"}
)


def wsl_findings(report: SystemReport) -> list[Finding]:
    """What a Windows report's ``wsl`` block says stands between an NVIDIA GPU and CUDA in WSL 2.

    Virtualization off (WSL 2 cannot start), a default distribution under WSL 1 with no WSL 2
    one beside it, and from inside a distribution (``detect --wsl``): a Linux NVIDIA driver
    that shadows the Windows one, or no ``libcuda.so`` in ``/usr/lib/wsl/lib``.
    """
    wsl = report.wsl
    if report.os.family != "windows" or wsl is None or not report.nvidia_gpus or not wsl.installed:
        return []
    findings: list[Finding] = []
    if wsl.virtualization is False:
        findings.append(make_finding("WSL_VIRTUALIZATION_DISABLED", evidence=wsl.detail or "wsl.exe"))
    default = wsl.default_distro
    if default is not None and default.version == 1 and not any(d.version == 2 for d in wsl.distros):
        findings.append(
            make_finding(
                "WSL1_NO_GPU",
                variant="distro",
                distro=default.name,
                evidence=f"wsl -l -v: {default.name} VERSION 1",
            )
        )
    for distro in wsl.distros:
        if distro.linux_driver:
            findings.append(
                make_finding("WSL_LINUX_DRIVER_INSTALLED", path=f"{distro.name}: {distro.linux_driver}")
            )
        if distro.version == 2 and distro.libcuda is False:
            findings.append(make_finding("WSL_LIBCUDA_NOT_FOUND"))
    return findings


def _gpu_runtimes(report: SystemReport) -> list[Finding]:
    """A ROCm runtime this user cannot reach the GPU through (``/dev/kfd`` refused)."""
    return [
        make_finding(
            "ROCM_DEVICE_ACCESS", detail=runtime.detail or "permission denied", groups="render,video"
        )
        for runtime in report.gpu_runtimes
        if runtime.name == "rocm" and runtime.usable is False
    ]


def _why_no_driver(report: SystemReport, evidence: DetectionEvidence) -> Finding:  # noqa: PLR0911 - one return per cause: the decision table it is
    """The one finding that explains why no NVIDIA driver answered."""
    if evidence.nvml_failure == NVML_DRIVER_LIBRARY_MISMATCH:
        return make_finding("NVML_DRIVER_LIBRARY_MISMATCH")
    if evidence.nvml_failure == NVML_NO_PERMISSION:
        return make_finding("NVML_NO_PERMISSION")
    if evidence.nvml_failure == NVML_BLOCKED_BY_OS:
        return make_finding("NVML_BLOCKED_BY_OS", variant="wsl" if report.os.wsl else None)

    nvidia = report.nvidia_gpus
    if nvidia:
        names = names_of(nvidia)
        if report.os.family == "windows":
            return make_finding("NO_NVIDIA_DRIVER", variant="windows", names=names)
        if evidence.kernel_driver == "nouveau":
            return make_finding("NO_NVIDIA_DRIVER", variant="nouveau", names=names)
        if report.os.container and evidence.kernel_driver == "nvidia":
            return make_finding("NO_NVIDIA_DRIVER", variant="container", names=names)
        return make_finding("NO_NVIDIA_DRIVER", names=names)

    if report.os.wsl and evidence.wsl_driver_present is False:
        # WSL 2 shows no PCI GPU at all: the Windows driver is the only witness (NVIDIA CUDA
        # on WSL User Guide), so its absence is "no driver", not "no GPU".
        return make_finding("NO_NVIDIA_DRIVER", variant="wsl")

    compute = report.compute_gpus
    if compute:
        # AMD, Intel or Apple GPUs: not an error of the machine; whether a build carries code
        # for them is the recommendation's question (core/compat/accelerator_plans.py).
        return make_finding("GPU_NOT_NVIDIA", names=names_of(compute))
    others = [gpu for gpu in report.gpus if gpu.vendor != "nvidia"]
    if others:
        return make_finding("NO_NVIDIA_GPU", variant="other_gpu", names=names_of(others))
    return make_finding("NO_NVIDIA_GPU")


def _cuda_on_path(report: SystemReport, evidence: DetectionEvidence) -> list[Finding]:
    on_path = sorted(
        (kit for kit in report.cuda_toolkits if kit.path_rank is not None),
        key=lambda kit: kit.path_rank if kit.path_rank is not None else 0,
    )
    versions: list[str] = []
    for kit in on_path:
        label = kit.version or kit.root
        if label not in versions:
            versions.append(label)
    findings: list[Finding] = []
    if len(versions) > 1:
        findings.append(make_finding("MULTIPLE_CUDA_ON_PATH", versions=versions, first=versions[0]))
    if on_path and evidence.cuda_path_root:
        named = next((k for k in report.cuda_toolkits if k.root == evidence.cuda_path_root), None)
        first = on_path[0]
        if named is not None and named.root != first.root and named.version != first.version:
            findings.append(
                make_finding(
                    "CUDA_PATH_NOT_FIRST",
                    cuda_path_version=named.version or named.root,
                    first=first.version or first.root,
                )
            )
    return findings


def _python(report: SystemReport) -> list[Finding]:
    python = report.python
    if python is None:
        return [make_finding("NO_PYTHON_FOUND")]
    findings: list[Finding] = []
    if python.bits == 32:
        findings.append(make_finding("PYTHON_32BIT", executable=python.executable))
    if python.ms_store:
        findings.append(make_finding("MS_STORE_PYTHON", executable=python.executable))
    return findings
