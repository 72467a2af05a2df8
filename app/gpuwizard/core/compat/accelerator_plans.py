"""PyTorch plans for AMD (ROCm), Intel (XPU) and Apple (MPS) GPUs.

The same four axes as the CUDA builds (``recommend``'s docstring): a build counts for a GPU only
when it carries code for the GPU's target (an AMD gfx target in the wheels' list, an Intel
family PyTorch's XPU build serves, Apple silicon on a macOS that has MPS and the wheel); the
driver or runtime (Intel's driver minimum; ROCm's device files); Python (the release's range);
the OS policy (ROCm wheels on Linux only, MPS on macOS only, never DirectML: it is in
maintenance, ``accelerators.json``'s ``directml``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gpuwizard.core.compat.accelerators import RocmBuild, TorchMacos, XpuBuild
from gpuwizard.core.compat.candidates import (
    TIER_GPU_AFTER_DRIVER_UPDATE,
    TIER_GPU_NOW,
    Candidate,
)
from gpuwizard.core.compat.index_allowlist import plan_index_url
from gpuwizard.core.compat.machine_view import AcceleratorView, MachineView
from gpuwizard.core.compat.plan import Plan
from gpuwizard.core.compat.reasons import reason_text
from gpuwizard.core.compat.tables import CompatData, TorchRelease, at_least, version_key
from gpuwizard.core.texts import QT_TRANSLATE_NOOP

#: Ranks of the GPU kinds among plans of one tier (lower first): on a machine with two kinds
#: (an NVIDIA laptop GPU beside an Intel iGPU) the discrete GPU with the most mature stack leads.
DEVICE_RANK = {"cuda": 0, "rocm": 1, "xpu": 2, "mps": 3}
#: Added for an integrated GPU: a discrete one of any kind comes first.
INTEGRATED_PENALTY = 4


def accelerator_plans(
    release: TorchRelease,
    *,
    version: str,
    python: str,
    manager: str,
    machine: MachineView,
    compat: CompatData,
) -> list[tuple[Plan, int, tuple[int, ...]]]:
    """Every ROCm, XPU and MPS plan of ``release`` for this machine: ``(plan, tier, preference)``."""
    found: list[tuple[Plan, int, tuple[int, ...]]] = []
    for build in _rocm_builds(release, machine, compat):
        served = [gpu for gpu in machine.accelerators_of("amd") if gpu.target in build.gfx_targets]
        if served:
            plan = _rocm_plan(
                build,
                version=version,
                python=python,
                manager=manager,
                machine=machine,
                compat=compat,
                served=served,
            )
            found.append((plan, TIER_GPU_NOW, _preference("rocm", served, build.rocm)))
    for xpu in _xpu_builds(release, machine, compat):
        served = [gpu for gpu in machine.accelerators_of("intel") if gpu.xpu and gpu.target in xpu.families]
        if served:
            plan, tier = _xpu_plan(
                xpu,
                version=version,
                python=python,
                manager=manager,
                machine=machine,
                compat=compat,
                served=served,
            )
            found.append((plan, tier, _preference("xpu", served, "0")))
    mps = _mps_plan(release, version=version, python=python, manager=manager, machine=machine, compat=compat)
    if mps is not None:
        found.append((mps, TIER_GPU_NOW, _preference("mps", (), "0")))
    return found


def _preference(device: str, served: Sequence[AcceleratorView], runtime: str) -> tuple[int, ...]:
    """Rank among the GPU plans of a tier: the kind, integrated last, the newest runtime first."""
    integrated = bool(served) and all(gpu.integrated for gpu in served)
    numbers = [int(part) for part in runtime.split(".")[:2] if part.isdigit()] + [0, 0]
    return (DEVICE_RANK[device] + (INTEGRATED_PENALTY if integrated else 0), 0, -numbers[0], -numbers[1], 0)


def _rocm_builds(release: TorchRelease, machine: MachineView, compat: CompatData) -> tuple[RocmBuild, ...]:
    # PyTorch's ROCm wheels are Linux only; WSL 2 is not planned for AMD here (ROCm on WSL
    # serves a few cards through AMD's own stack, not PyTorch's wheels).
    if machine.family != "linux" or machine.wsl or machine.arch != "x86_64":
        return ()
    return compat.accelerators.rocm_builds_of(release.version, "linux")


def _xpu_builds(release: TorchRelease, machine: MachineView, compat: CompatData) -> tuple[XpuBuild, ...]:
    if machine.family not in ("linux", "windows") or machine.wsl or machine.arch != "x86_64":
        return ()
    return compat.accelerators.xpu_builds_of(release.version, machine.family)


def _gpu_plan(
    device: str,
    *,
    version: str,
    python: str,
    manager: str,
    variant: str,
    index_url: str | None,
    served: tuple[int, ...],
    summary: str,
    reasons: Sequence[str],
    **more: Any,  # noqa: ANN401 - Plan's own fields (rocm, driver_update_required, ...)
) -> Plan:
    """A PyTorch plan for a ROCm, XPU or MPS build: ``torch==version`` from ``index_url``."""
    return Plan(
        framework="pytorch",
        framework_version=version,
        python=python,
        cpu_only=False,
        cuda=None,
        cudnn=None,
        torch_variant=variant,
        requirements=(f"torch=={version}",),
        index_url=index_url,
        conda_packages=(f"python={python}",) if manager == "conda" else (),
        manager=manager,
        gpu_indices=served,
        summary=summary,
        reasons=tuple(dict.fromkeys(reasons)),  # identical GPUs (a node of 8 MI300X) said once
        device=device,
        **more,
    )


def _where(manager: str) -> str:
    return "a conda environment" if manager == "conda" else "a venv"


def _rocm_plan(
    build: RocmBuild,
    *,
    version: str,
    python: str,
    manager: str,
    machine: MachineView,
    compat: CompatData,
    served: Sequence[AcceleratorView],
) -> Plan:
    reasons: list[str] = []
    for gpu in served:
        reasons.append(
            reason_text(
                QT_TRANSLATE_NOOP(
                    "reasons", "{gpu} ({target}) is covered by this build (it carries {targets})."
                ),
                gpu=gpu.name,
                target=gpu.target,
                targets=", ".join(build.gfx_targets),
            )
        )
    reasons.append(
        reason_text(
            QT_TRANSLATE_NOOP(
                "reasons",
                "The wheel brings the ROCm {rocm} libraries: only the amdgpu kernel driver and access to /dev/kfd are needed.",
            ),
            rocm=build.rocm,
        )
    )
    return _gpu_plan(
        "rocm",
        version=version,
        python=python,
        manager=manager,
        variant=build.variant,
        index_url=plan_index_url(compat.torch_index_url, build.variant),
        served=tuple(gpu.index for gpu in served),
        summary=f"PyTorch {version} with ROCm {build.rocm} ({build.variant}) for Python {python} in {_where(manager)}",
        reasons=reasons,
        rocm=build.rocm,
    )


def _xpu_plan(
    build: XpuBuild,
    *,
    version: str,
    python: str,
    manager: str,
    machine: MachineView,
    compat: CompatData,
    served: Sequence[AcceleratorView],
) -> tuple[Plan, int]:
    minimum = build.driver_min.get(machine.family)
    needs_update = False
    reasons: list[str] = []
    for gpu in served:
        reasons.append(
            reason_text(
                QT_TRANSLATE_NOOP("reasons", "{gpu} ({family}) is served by PyTorch's XPU build."),
                gpu=gpu.name,
                family=gpu.target,
            )
        )
    if minimum and machine.family == "windows":
        drivers = [gpu.driver_version for gpu in served if gpu.driver_version]
        if drivers:
            needs_update = not all(_driver_at_least(d, minimum) for d in drivers)
            template = (
                QT_TRANSLATE_NOOP(
                    "reasons", "Needs Intel's graphics driver {minimum} or newer; this machine has {driver}."
                )
                if needs_update
                else QT_TRANSLATE_NOOP(
                    "reasons",
                    "Intel's graphics driver {driver} is at least the {minimum} the XPU build needs.",
                )
            )
            reasons.append(reason_text(template, minimum=minimum, driver=", ".join(sorted(set(drivers)))))
    elif minimum:
        reasons.append(
            reason_text(QT_TRANSLATE_NOOP("reasons", "Needs Intel's GPU driver: {minimum}."), minimum=minimum)
        )
    plan = _gpu_plan(
        "xpu",
        version=version,
        python=python,
        manager=manager,
        variant=build.variant,
        index_url=plan_index_url(compat.torch_index_url, build.variant),
        served=tuple(gpu.index for gpu in served),
        summary=f"PyTorch {version} for Intel GPUs ({build.variant}) for Python {python} in {_where(manager)}",
        reasons=reasons,
        driver_update_required=needs_update,
        vendor_driver_min=dict(build.driver_min) if build.driver_min else None,
    )
    return plan, TIER_GPU_AFTER_DRIVER_UPDATE if needs_update else TIER_GPU_NOW


def _driver_at_least(driver: str, minimum: str) -> bool:
    try:
        return at_least(driver, minimum)
    except ValueError:
        return False


def macos_wheel_min(release: TorchRelease, machine: MachineView, compat: CompatData) -> str | None:
    """The lowest macOS of ``release``'s PyPI wheels for this Mac's architecture, when the data states it."""
    return next(
        (
            row.macos_min
            for row in compat.accelerators.apple.torch_macos
            if row.arch == machine.arch and _covers(row, release)
        ),
        None,
    )


def _covers(row: TorchMacos, release: TorchRelease) -> bool:
    if version_key(release.version) < version_key(row.torch_from):
        return False
    return row.torch_to is None or version_key(release.version) <= version_key(row.torch_to)


def mps_macos_min(release: TorchRelease, compat: CompatData) -> str:
    """The lowest macOS on which ``release`` uses the Apple GPU (MPS), by the data's ranges."""
    apple = compat.accelerators.apple
    return next((row.macos_min for row in apple.mps_macos if _covers(row, release)), apple.mps_macos_min)


def has_macos_wheel(release: TorchRelease, machine: MachineView, compat: CompatData) -> bool:
    """Whether ``release`` publishes a wheel this Mac can install (its architecture and macOS).

    True where the data says nothing of the release (older bundles plan as before).
    """
    apple = compat.accelerators.apple
    if machine.arch == "x86_64" and apple.x86_64_last:
        # Intel Macs: PyPI's macOS x86_64 wheels end with x86_64_last.
        return version_key(release.version) <= version_key(apple.x86_64_last)
    rows = apple.torch_macos
    if not rows:
        return True
    minimum = macos_wheel_min(release, machine, compat)
    if minimum is None:
        # The data covers this architecture for some releases, but not this one: none is built.
        return not any(row.arch == machine.arch for row in rows)
    return machine.macos_version is None or at_least(machine.macos_version, minimum)


def _mps_plan(
    release: TorchRelease,
    *,
    version: str,
    python: str,
    manager: str,
    machine: MachineView,
    compat: CompatData,
) -> Plan | None:
    apple = compat.accelerators.apple
    gpus = machine.accelerators_of("apple")
    if machine.family != "darwin" or machine.arch != apple.arch or not gpus:
        return None
    if compat.accelerators.is_empty:
        return None  # a bundle from before accelerators.json: no MPS plan, as before
    if not has_macos_wheel(release, machine, compat):
        return None
    minimum = mps_macos_min(release, compat)
    if machine.macos_version is None or not at_least(machine.macos_version, minimum):
        return None
    cpu = next((v for v in release.variants if v.is_cpu and "darwin" in v.platforms), None)
    if cpu is None:
        return None
    gpu = gpus[0]
    reasons = [
        reason_text(
            QT_TRANSLATE_NOOP(
                "reasons",
                "PyTorch's macOS wheel drives the {gpu} through Metal (MPS), which needs macOS {minimum} or newer; this Mac has {macos}.",
            ),
            gpu=gpu.name,
            minimum=minimum,
            macos=machine.macos_version,
        )
    ]
    return _gpu_plan(
        "mps",
        version=version,
        python=python,
        manager=manager,
        variant=cpu.name,
        index_url=None,  # the macOS wheel on PyPI carries MPS
        served=(gpu.index,),
        summary=f"PyTorch {version} on the Apple GPU (MPS) for Python {python} in {_where(manager)}",
        reasons=reasons,
    )


def candidates_for(
    release: TorchRelease,
    *,
    version: str,
    python: str,
    penalty: int,
    manager: str,
    machine: MachineView,
    compat: CompatData,
    matches: bool,
    distance: int,
) -> list[Candidate]:
    """The ROCm, XPU and MPS candidates of one release."""
    return [
        Candidate(plan, tier, matches, distance, penalty, preference)
        for plan, tier, preference in accelerator_plans(
            release, version=version, python=python, manager=manager, machine=machine, compat=compat
        )
    ]
