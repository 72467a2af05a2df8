"""PyTorch candidates and plans: each release's wheel variants that run on the machine.

A CUDA variant counts only when its SASS list covers a GPU (PyTorch's PTX is not relied on), and
needs a driver update when the driver is older than its CUDA's minimum.
"""

from __future__ import annotations

from collections.abc import Callable

from gpuwizard.core.compat.accelerator_plans import DEVICE_RANK, candidates_for, has_macos_wheel
from gpuwizard.core.compat.candidates import (
    TIER_CPU,
    TIER_GPU_AFTER_DRIVER_UPDATE,
    TIER_GPU_NOW,
    Candidate,
    choose_python,
    distance_from_wish,
    is_wished_release,
    with_conda_engine,
)
from gpuwizard.core.compat.index_allowlist import plan_index_url
from gpuwizard.core.compat.machine_view import MachineView, gpus_where
from gpuwizard.core.compat.plan import Plan, Wish
from gpuwizard.core.compat.reasons import (
    cuda_preference,
    driver_ok,
    driver_reasons,
    gpu_reasons,
    min_drivers,
    reason_text,
)
from gpuwizard.core.compat.tables import Architectures, CompatData, TorchRelease, TorchVariant
from gpuwizard.core.texts import QT_TRANSLATE_NOOP


def torch_candidates(
    machine: MachineView, wish: Wish, wanted: str | None, compat: CompatData
) -> list[Candidate]:
    """Every PyTorch build for this OS that serves a GPU of the machine, and the CPU builds, as candidates."""
    releases = [r.version for r in compat.pytorch]
    found: list[Candidate] = []
    for release in compat.pytorch:
        version = wanted if wanted and is_wished_release(wanted, release.version) else release.latest
        python, penalty = choose_python(release.python.min, release.python.max, wish, machine)
        matches, distance = (
            is_wished_release(wanted, release.version),
            distance_from_wish(wanted, release.version, releases),
        )
        if machine.family == "darwin" and not has_macos_wheel(release, machine, compat):
            continue  # no wheel for this Mac (its architecture or macOS): pip would pick another release
        found += candidates_for(
            release,
            version=version,
            python=python,
            penalty=penalty,
            manager=wish.manager or "venv",
            machine=machine,
            compat=compat,
            matches=matches,
            distance=distance,
        )
        for variant in release.variants:
            archs = variant.platforms.get(machine.platform)
            if archs is None:
                continue
            served: tuple[int, ...] = ()
            needs_update = False
            if variant.cuda is not None:
                if not machine.gpus or machine.family == "darwin":
                    continue
                served = gpus_where(machine, _serves(archs, variant, compat), unknown=True)
                if not served:
                    continue
                needs_update = not driver_ok(machine, variant.cuda, compat)
            plan = _torch_plan(
                release,
                variant,
                version=version,
                python=python,
                manager=wish.manager or "venv",
                machine=machine,
                compat=compat,
                served=served,
                ptx=(),
                needs_update=needs_update,
            )
            if variant.cuda is None:
                tier, preference = TIER_CPU, (0, 0, 0, 0, 0)
            else:
                tier = TIER_GPU_AFTER_DRIVER_UPDATE if needs_update else TIER_GPU_NOW
                preference = (
                    DEVICE_RANK["cuda"],
                    int(variant.experimental),
                    *cuda_preference(variant.cuda, machine.cuda_max),
                )
            found.append(Candidate(plan, tier, matches, distance, penalty, preference))
    return with_conda_engine(found, machine)


def _serves(archs: Architectures, variant: TorchVariant, compat: CompatData) -> Callable[[str], bool]:
    """Whether the variant runs natively on a GPU of a compute capability (its SASS list only)."""

    def serves(capability: str) -> bool:
        # A bundled cuDNN/cuBLAS that dropped the GPU rules the build out too.
        return (
            archs.runs_natively_on(capability)
            and compat.libraries_exclude(variant.cuda, variant.cudnn, capability) is None
        )

    return serves


def _torch_plan(
    release: TorchRelease,
    variant: TorchVariant,
    *,
    version: str,
    python: str,
    manager: str,
    machine: MachineView,
    compat: CompatData,
    served: tuple[int, ...],
    ptx: tuple[int, ...],
    needs_update: bool,
) -> Plan:
    pypi_default = release.pypi_default.get(machine.platform)
    # Whatever the data says, a plan names only an allowed index (a tampered or mistaken bundle
    # must not send installs to another server).
    index_url = None if pypi_default == variant.name else plan_index_url(compat.torch_index_url, variant.name)
    where = "a conda environment" if manager == "conda" else "a venv"
    if variant.is_cpu:
        summary = f"PyTorch {version}, CPU build, for Python {python} in {where}"
    else:
        summary = (
            f"PyTorch {version} with CUDA {variant.cuda} ({variant.name}) for Python {python} in {where}"
        )
    reasons = gpu_reasons(machine, served, variant.platforms[machine.platform])
    if variant.cuda is not None:
        reasons += driver_reasons(machine, variant.cuda, compat)
        if variant.cudnn:
            reasons.append(
                reason_text(
                    QT_TRANSLATE_NOOP(
                        "reasons",
                        "The wheel brings CUDA {cuda} and cuDNN {cudnn}: only the NVIDIA driver is needed.",
                    ),
                    cuda=variant.cuda,
                    cudnn=variant.cudnn,
                )
            )
        else:
            reasons.append(
                reason_text(
                    QT_TRANSLATE_NOOP(
                        "reasons", "The wheel brings CUDA {cuda}: only the NVIDIA driver is needed."
                    ),
                    cuda=variant.cuda,
                )
            )
        if variant.experimental:
            reasons.append(
                reason_text(
                    QT_TRANSLATE_NOOP(
                        "reasons", "PyTorch calls its CUDA {cuda} build of this release experimental."
                    ),
                    cuda=variant.cuda,
                )
            )
    return Plan(
        framework="pytorch",
        framework_version=version,
        python=python,
        cpu_only=variant.is_cpu,
        cuda=variant.cuda,
        cudnn=variant.cudnn,
        torch_variant=variant.name,
        requirements=(f"torch=={version}",),
        index_url=index_url,
        conda_channels=(),
        conda_packages=(f"python={python}",) if manager == "conda" else (),
        min_driver=min_drivers(variant.cuda, compat) if variant.cuda else None,
        manager=manager,
        gpu_indices=served,
        ptx_jit=ptx,
        driver_update_required=needs_update,
        summary=summary,
        reasons=tuple(reasons),
    )
