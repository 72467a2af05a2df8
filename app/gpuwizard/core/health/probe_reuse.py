"""When ``verify --no-test`` may reuse an environment's recorded probe answer instead of importing again.

The env probe (``probes/env_report.py``) imports the framework: 1 to 4 s for torch, most of what
a ``verify --no-test`` costs, too slow for a cluster gate (a Slurm prolog runs before every job).
Its answer depends only on what it runs and what it runs on: the environment's installed files
and its interpreter, the variables that steer the framework's choice of devices and libraries,
the probe scripts, and the machine's driver, GPUs and GPU runtimes. Verify records a
fingerprint of all of that with the answer in the last good state
(``workflow/health/env_fingerprint.py`` computes it); while the fingerprint now is the recorded
one, the recorded answer is what the probe would say, and is judged in its place. A full
``verify`` (with the short test) always probes.

This module holds the pure parts: which machine facts and variables count, and how a check
judged from a reused answer says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Final

from gpuwizard.core.health.checks import HealthCheck
from gpuwizard.core.machine.system_report import GpuFacts, SystemReport

#: The variables that change what a framework loads or which GPUs it sees, read by CUDA, ROCm,
#: oneAPI and the dynamic loader (docs.nvidia.com/cuda/cuda-c-programming-guide, "CUDA
#: Environment Variables"; rocm.docs.amd.com, "GPU isolation techniques"; Intel's "oneAPI
#: DPC++ environment variables"). A prolog runs with other variables than a person's shell:
#: then the answer is not reused, and the probe runs once more.
PROBE_VARIABLES: Final = (
    "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "NVIDIA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES",
    "ROCR_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL", "HSA_OVERRIDE_GFX_VERSION", "ZE_AFFINITY_MASK",
    "ONEAPI_DEVICE_SELECTOR", "LD_LIBRARY_PATH", "LD_PRELOAD", "DYLD_LIBRARY_PATH",
)  # fmt: skip

#: The kinds of check judged from the probe's answer (the constraints check reads its file anew).
REUSED_KINDS: Final = frozenset({"interpreter", "import", "build", "devices", "cuda_wheels"})

#: The note of a check judged from a reused answer.
REUSED_NOTE: Final = (
    "not imported again: the installed files, driver and GPUs are as when the last good state was "
    "recorded, so its probe answer was reused"
)


def machine_facts(report: SystemReport) -> dict[str, Any]:
    """The facts of ``report`` that can change what the env probe answers, as JSON data.

    The OS release (a new kernel may not load the driver's module), the driver, every GPU (never
    its UUID), the other GPU runtimes and whether this user can reach them, and the codes of the
    findings detection made (a device file this user cannot open is one).
    """
    driver = report.driver
    return {
        "os": [report.os.family, report.os.release, report.os.arch, report.os.wsl],
        "driver": [driver.version, driver.cuda_max] if driver is not None else None,
        "gpus": [_gpu_facts(gpu) for gpu in report.gpus],
        "runtimes": [
            [runtime.name, runtime.version, runtime.location, runtime.usable]
            for runtime in report.gpu_runtimes
        ],
        "findings": sorted(finding.code for finding in report.findings),
    }


def _gpu_facts(gpu: GpuFacts) -> list[Any]:
    return [
        gpu.index, gpu.vendor, gpu.name, gpu.compute_capability, gpu.memory_total_mib, gpu.pci_bus_id,
        gpu.status, gpu.gfx_target, gpu.driver_version, gpu.kernel_driver,
    ]  # fmt: skip


def steering_variables(environ: Mapping[str, str], *, windows: bool) -> dict[str, str]:
    """The variables of :data:`PROBE_VARIABLES` that are set, and on Windows ``PATH`` too.

    Windows finds a framework's DLLs on ``PATH`` as well (Microsoft Learn, "Dynamic-link library
    search order"); elsewhere the loader does not read it.

    >>> steering_variables({"CUDA_VISIBLE_DEVICES": "0", "HOME": "/h", "PATH": "/bin"}, windows=False)
    {'CUDA_VISIBLE_DEVICES': '0'}
    """
    names = (*PROBE_VARIABLES, "PATH") if windows else PROBE_VARIABLES
    return {name: environ[name] for name in names if name in environ}


def noted_as_reused(check: HealthCheck) -> HealthCheck:
    """``check`` with :data:`REUSED_NOTE` when it was judged from the reused answer (and has no note)."""
    if check.kind not in REUSED_KINDS or check.note is not None:
        return check
    return replace(check, note=REUSED_NOTE)
