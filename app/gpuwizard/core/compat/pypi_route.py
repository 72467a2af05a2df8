"""The same PyTorch release from PyPI: a way forward when PyTorch's own index cannot be reached.

A PyTorch plan names PyTorch's index (download.pytorch.org/whl/VARIANT) whenever the build it
needs is not the one PyPI serves for the OS: the release's ``pypi_default`` in ``pytorch.json``,
read from the PyPI wheels themselves (``cpu`` on Windows and macOS, a CUDA build on Linux). Many
networks reach PyPI but not PyTorch's index (issue 20). :func:`pypi_build` says whether PyPI's
build of the same release is a correct build for this machine, and gives its plan:

- PyPI's build is a CPU build and the plan needs a GPU build: no (the GPU would be lost);
- PyPI's build is a CUDA build and the driver is too old for its CUDA: no (pytorch.org's driver
  table, ``cuda.json``);
- it serves the machine's GPUs: yes, the plan the recommender makes for it (which, like the
  plan it replaces, may need a driver installed first);
- it does not serve them and the plan needs the GPU: no;
- the plan trains on the CPU anyway (no NVIDIA GPU, or none any build serves): yes, it trains on
  the CPU like the CPU build, but downloads several GB more (its NVIDIA libraries come as
  separate ``nvidia-*`` wheels, ``core/envs/space.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from gpuwizard.core.compat.machine_view import MachineView, machine_view
from gpuwizard.core.compat.plan import Plan, Recommendation
from gpuwizard.core.compat.reasons import driver_ok, reason_text
from gpuwizard.core.compat.tables import CompatData, TorchRelease, TorchVariant, minor_of
from gpuwizard.core.compat.torch_plans import torch_candidates
from gpuwizard.core.machine.system_report import SystemReport
from gpuwizard.core.texts import QT_TRANSLATE_NOOP


class NoPypiBuild(ValueError):
    """PyPI's build of the release is not a correct one for this machine (one line says why)."""


@dataclass(frozen=True)
class PypiBuild:
    """The plan's release as PyPI serves it.

    Attributes:
        plan: The plan that installs it (``index_url`` None: from the default index).
        variant: PyPI's build (``cu132``, ``cpu``).
        on_gpu: It uses this machine's GPU; False: it trains on the CPU.
        larger: It is a CUDA build used on the CPU: several GB more than the CPU build.
    """

    plan: Plan
    variant: str
    on_gpu: bool
    larger: bool = False


def pypi_build(rec: Recommendation, report: SystemReport, compat: CompatData) -> PypiBuild:
    """PyPI's build of the plan's release, when it is a correct build for this machine.

    Raises:
        NoPypiBuild: It is not (the GPU would be lost, the driver is too old), or the plan is
            not a PyTorch one.
    """
    plan = rec.plan
    if plan.framework != "pytorch":
        raise NoPypiBuild("--from-pypi is for PyTorch: the other frameworks always come from PyPI")
    if plan.index_url is None:
        return PypiBuild(plan, plan.torch_variant or "?", on_gpu=not plan.cpu_only)
    if plan.device in ("rocm", "xpu"):
        # PyPI's PyTorch is a CUDA or CPU build: nothing there uses an AMD or Intel GPU.
        raise NoPypiBuild(
            f"PyPI has no {plan.torch_variant} build of PyTorch: only PyTorch's own index has the "
            f"builds for this machine's {'AMD' if plan.device == 'rocm' else 'Intel'} GPU"
        )
    machine = machine_view(report, compat)
    release, variant = _pypi_variant(plan, machine, compat)
    version = plan.framework_version
    if variant.cuda is None:
        raise NoPypiBuild(
            f"PyPI's PyTorch {version} for {machine.platform} is the CPU build; this plan needs its "
            f"{plan.torch_variant} build to use the GPU"
        )
    if machine.gpus:
        if machine.driver is not None and not driver_ok(machine, variant.cuda, compat):
            minimum = compat.min_driver(variant.cuda, machine.driver_os) or "?"
            raise NoPypiBuild(
                f"PyPI's PyTorch {version} is its {variant.name} build (CUDA {variant.cuda}), which needs "
                f"an NVIDIA driver {minimum} or newer; this machine has {machine.driver}"
            )
        # The recommender's own plan for PyPI's build: it serves the GPUs, or it is no candidate.
        found = next(
            (
                candidate.plan
                for candidate in torch_candidates(machine, rec.wish, version, compat)
                if candidate.plan.torch_variant == variant.name
                and candidate.plan.framework_version == version
                and candidate.plan.gpu_indices
            ),
            None,
        )
        if found is not None:
            return PypiBuild(replace(found, index_url=None), variant.name, on_gpu=True)
        if not plan.cpu_only:
            raise NoPypiBuild(
                f"PyPI's {variant.name} build of PyTorch {version} has no code for this machine's GPU"
            )
    return PypiBuild(_on_the_cpu(plan, release, variant), variant.name, on_gpu=False, larger=True)


def _pypi_variant(plan: Plan, machine: MachineView, compat: CompatData) -> tuple[TorchRelease, TorchVariant]:
    minor = minor_of(plan.framework_version)
    release = next((row for row in compat.pytorch if row.version == minor), None)
    name = release.pypi_default.get(machine.platform) if release is not None else None
    variant = next(
        (
            row
            for row in (release.variants if release is not None else ())
            if row.name == name and machine.platform in row.platforms
        ),
        None,
    )
    if release is None or variant is None:
        raise NoPypiBuild(
            f"the compatibility data does not say which build of PyTorch {plan.framework_version} "
            f"PyPI serves for {machine.platform}"
        )
    return release, variant


def _on_the_cpu(plan: Plan, release: TorchRelease, variant: TorchVariant) -> Plan:
    """PyPI's CUDA build on a machine whose GPU it cannot use: it trains on the CPU."""
    del release
    where = "a conda environment" if plan.manager == "conda" else "a venv"
    reason = reason_text(
        QT_TRANSLATE_NOOP(
            "reasons",
            "From PyPI: its {variant} build, a CUDA build that also runs on the CPU, several GB larger than the CPU build.",
        ),
        variant=variant.name,
    )
    return replace(
        plan,
        torch_variant=variant.name,
        index_url=None,
        cuda=variant.cuda,
        cudnn=variant.cudnn,
        cpu_only=True,
        min_driver=None,
        gpu_indices=(),
        ptx_jit=(),
        driver_update_required=False,
        summary=(
            f"PyTorch {plan.framework_version} from PyPI ({variant.name} build, training on the CPU) "
            f"for Python {plan.python} in {where}"
        ),
        reasons=(*plan.reasons, reason),
    )
