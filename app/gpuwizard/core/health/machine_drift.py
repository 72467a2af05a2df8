"""Drift of the machine itself: the NVIDIA driver and the GPUs against the last good state.

The driver is also judged against what each environment's framework build needs of it
(:class:`DriverNeed`), so an older driver that no longer runs a build is broken, and a newer
one only changed. Apart from env_drift.py because these checks look at the machine once, not
at each environment.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from packaging.version import InvalidVersion, Version

from gpuwizard.core.compat.tables import at_least, minor_of, version_key
from gpuwizard.core.findings.model import make_finding
from gpuwizard.core.health.checks import HealthCheck
from gpuwizard.core.health.snapshot import Snapshot, SnapshotGpu
from gpuwizard.core.machine.system_report import GpuFacts, SystemReport, gpu_list
from gpuwizard.core.wizard_command import BY_NAME, WizardCommand


@dataclass(frozen=True)
class DriverNeed:
    """What one environment's build asks of the driver.

    Attributes:
        env: The environment's name.
        cuda_build: The CUDA its framework build was made with (``12.6``).
        min_driver: The lowest driver that runs it (NVIDIA's minor-version compatibility
            table, core/compat.py ``min_driver``); None when the tables do not know that CUDA.
    """

    env: str
    cuda_build: str
    min_driver: str | None = None


def compare_driver(
    snapshot: Snapshot | None,
    report: SystemReport,
    needs: Sequence[DriverNeed] = (),
    *,
    wizard: WizardCommand = BY_NAME,
) -> HealthCheck:
    """The driver now against the recorded one, and against what each environment's build needs.

    ``wizard``: how the person starts the wizard here, for the commands the findings name.
    """
    now = report.driver
    # Versions only: the highest CUDA follows from the version, and UIs show "before -> after".
    after = now.version if now else None
    if snapshot is None:
        return HealthCheck("driver", "driver", "", "skipped", None, after, note="no last good state yet")
    before = snapshot.driver_version
    if now is None:
        if snapshot.driver_version is None:
            return HealthCheck("driver", "driver", "", "ok", None, None, note="no NVIDIA driver, then or now")
        # The GPUs were trained on at the last good state; without a driver nothing can use them.
        finding = make_finding("DRIFT_DRIVER_GONE", before=before, verify=wizard.line("verify"))
        return HealthCheck("driver", "driver", "", "broken", before, None, finding)
    too_old = [need for need in needs if _driver_too_old(now.version, now.cuda_max, need)]
    if too_old:
        # A build needs at least its CUDA's minimum driver (minor-version compatibility, CUDA
        # Compatibility guide section 2); below it the framework sees no GPU (DRIVER_TOO_OLD).
        floors = [need.min_driver for need in too_old if need.min_driver]
        finding = make_finding(
            "DRIFT_DRIVER_TOO_OLD_FOR_BUILD",
            driver=now.version,
            builds=", ".join(f"{need.env} (CUDA {need.cuda_build})" for need in too_old),
            min_driver=max(floors, key=_version_or_zero)
            if floors
            else f"one for CUDA {too_old[0].cuda_build}",
            recreate=wizard.line("env create NAME --framework F --replace"),
        )
        return HealthCheck("driver", "driver", "", "broken", before, after, finding)
    if snapshot.driver_version != now.version:
        # A newer driver runs every build an older one ran (NVIDIA drivers are backward
        # compatible with applications built for older CUDA): a change, not a breakage.
        finding = make_finding("DRIFT_DRIVER_CHANGED", before=before or "none", after=after)
        return HealthCheck("driver", "driver", "", "changed", before, after, finding)
    return HealthCheck("driver", "driver", "", "ok", before, after)


def _driver_too_old(driver: str, cuda_max: str | None, need: DriverNeed) -> bool:
    try:
        if need.min_driver:
            return not at_least(driver, need.min_driver)
        # No table row: the driver's own highest CUDA is the best we know.
        return cuda_max is not None and version_key(minor_of(cuda_max)) < version_key(
            minor_of(need.cuda_build)
        )
    except InvalidVersion:
        return False


def _version_or_zero(text: str) -> Version:
    try:
        return version_key(text)
    except InvalidVersion:
        return version_key("0")


def compare_gpus(
    snapshot: Snapshot | None, report: SystemReport, *, wizard: WizardCommand = BY_NAME
) -> HealthCheck:
    """The GPUs now against the recorded ones (``wizard``: as :func:`compare_driver`).

    Compared by the vendors the snapshot recorded: one from before other vendors were kept
    holds NVIDIA GPUs only, and an Intel iGPU beside them is no drift.
    """
    # A GPU without a driver is still there (the driver check says what is wrong); one that
    # fell off the bus ("lost", Xid 79) is not.
    vendors = {gpu.vendor for gpu in snapshot.gpus} if snapshot and snapshot.gpus else {"nvidia"}
    present = tuple(
        SnapshotGpu(
            gpu.index, gpu.name, gpu.compute_capability, gpu.memory_total_mib, gpu.vendor, gpu.gfx_target
        )
        for gpu in report.compute_gpus
        if gpu.status != "lost" and gpu.vendor in vendors
    )
    after = _gpus_text(present)
    if snapshot is None:
        return HealthCheck("gpus", "gpus", after, "skipped", None, after, note="no last good state yet")
    before = _gpus_text(snapshot.gpus)
    if len(present) < len(snapshot.gpus):
        finding = make_finding("DRIFT_GPU_MISSING", before=before, after=after, verify=wizard.line("verify"))
        return HealthCheck("gpus", "gpus", after, "broken", before, after, finding)
    if report.driver is None and "nvidia" in vendors:
        # Without a driver, names come from the PCI database and capabilities are unknown.
        return HealthCheck("gpus", "gpus", after, "skipped", before, after, note="no NVIDIA driver answers")
    if _gpu_keys(present) != _gpu_keys(snapshot.gpus):
        finding = make_finding(
            "DRIFT_GPU_CHANGED", before=before, after=after, recommend=wizard.line("recommend")
        )
        return HealthCheck("gpus", "gpus", after, "changed", before, after, finding)
    return HealthCheck("gpus", "gpus", after, "ok", before, after)


def _gpus_text(gpus: Sequence[SnapshotGpu]) -> str:
    if not gpus:
        return "none"
    return gpu_list([GpuFacts(gpu.index, gpu.vendor, gpu.name) for gpu in gpus])


def _gpu_keys(gpus: Sequence[SnapshotGpu]) -> list[tuple[str, str]]:
    # Memory is left out: drivers round it differently; name and architecture decide what runs.
    return sorted((gpu.name or "", gpu.compute_capability or gpu.gfx_target or "") for gpu in gpus)
