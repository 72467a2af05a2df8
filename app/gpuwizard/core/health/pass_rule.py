"""Whether a live test verdict counts as a pass on this machine, and what that depends on.

The rule is apart because more than the health checks need it: recording the last good state
(workflow/health/good_state.py), the fleet's apply, and the support bundle ask it too.

>>> test_passed("cpu_only", machine_has_nvidia_gpu=False), test_passed("cpu_only", machine_has_nvidia_gpu=True)
(True, False)
"""

from __future__ import annotations

from gpuwizard.core.health.snapshot import usable_gpus
from gpuwizard.core.machine.system_report import SystemReport


def test_passed(verdict: str, machine_has_nvidia_gpu: bool) -> bool:
    """Whether a live test verdict counts as a pass on this machine.

    ``gpu_ok`` and ``gpu_slow`` train on the GPU (slow is a warning, not a failure);
    ``cpu_only`` passes only where there is no usable NVIDIA GPU, since the CPU is then all
    there is; ``broken`` never passes.

    >>> [test_passed(v, True) for v in ("gpu_ok", "gpu_slow", "cpu_only", "broken")]
    [True, True, False, False]
    """
    if verdict in ("gpu_ok", "gpu_slow"):
        return True
    return verdict == "cpu_only" and not machine_has_nvidia_gpu


# Not a test, whatever its name: pytest must not collect it where a test module imports it.
test_passed.__test__ = False  # type: ignore[attr-defined]


def machine_has_nvidia_gpu(report: SystemReport) -> bool:
    """Whether the machine has an NVIDIA GPU that a driver serves (one the live test could use)."""
    return report.driver is not None and bool(usable_gpus(report))
