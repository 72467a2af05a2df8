"""Drivers and GPUs for a build: minimum drivers, the driver and CUDA checks, and their reasons.

Shared by the PyTorch and TensorFlow plans. The plans' reasons and notes are translated by the GUI
in the ``reasons`` context; :func:`reason_text` makes them (the notes of plan_findings too).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from gpuwizard.core.compat.machine_view import MachineView
from gpuwizard.core.compat.tables import Architectures, CompatData, at_least, minor_of, version_key
from gpuwizard.core.texts import QT_TRANSLATE_NOOP, TranslatableText

# The translation context of the plans' reasons and notes (the GUI translates them); lupdate
# reads only literal contexts, so every QT_TRANSLATE_NOOP call (here, in the plan modules and in
# plan_findings) spells it out.
_R: Final = "reasons"


def reason_text(template: str, **params: object) -> TranslatableText:
    """A reason or note in the ``reasons`` translation context, with its parameters."""
    return TranslatableText(_R, template, **params)


def min_drivers(cuda: str, compat: CompatData) -> dict[str, str | None]:
    """The lowest Linux and Windows drivers for builds of ``cuda``."""
    return {"linux": compat.min_driver(cuda, "linux"), "windows": compat.min_driver(cuda, "windows")}


def gpu_min_drivers(machine: MachineView, compat: CompatData) -> dict[str, str | None] | None:
    """Per OS, the lowest driver that drives every NVIDIA GPU of the machine (None: no such floor).

    The highest of each GPU's own minimum (:meth:`CompatData.gpu_min_driver`). Every GPU counts,
    also one the plan does not serve: the driver installed for the plan drives the whole machine,
    and a GPU it cannot drive is lost to everything else (verify reports it gone). Asked once per
    distinct compute capability (a fleet's report lists thousands of GPUs of a few kinds).
    """
    capabilities = {gpu.capability for gpu in machine.gpus if gpu.capability}
    found: dict[str, str | None] = {}
    for driver_os in ("linux", "windows"):
        floors = [m for cc in capabilities if (m := compat.gpu_min_driver(cc, driver_os)) is not None]
        found[driver_os] = max(floors, key=version_key) if floors else None
    return found if any(found.values()) else None


def wsl_min_drivers(cuda: str, compat: CompatData) -> dict[str, str | None]:
    """In WSL 2 the driver is the Windows host's: its minimum is a Windows driver version."""
    windows = compat.min_driver(cuda, "windows")
    policy_min = compat.policy("wsl2_gpu").get("windows_driver_min_for_tensorflow")
    if windows and policy_min and version_key(policy_min) > version_key(windows):
        windows = policy_min
    return {"linux": None, "windows": windows}


def driver_ok(machine: MachineView, cuda: str, compat: CompatData) -> bool:
    """Whether the machine's driver runs builds of ``cuda`` (False without a driver)."""
    minimum = compat.min_driver(cuda, machine.driver_os)
    return machine.driver is not None and minimum is not None and at_least(machine.driver, minimum)


def wsl_driver_ok(machine: MachineView, cuda: str, compat: CompatData) -> bool:
    """Whether the Windows driver runs builds of ``cuda`` inside WSL 2."""
    minimum = wsl_min_drivers(cuda, compat)["windows"]
    return machine.driver is not None and minimum is not None and at_least(machine.driver, minimum)


def cuda_preference(cuda: str, cuda_max: str | None) -> tuple[int, int, int]:
    """Prefer the newest CUDA the driver fully supports; above that, the least far above it.

    Above the driver's CUDA a build runs through minor-version compatibility, with its limits.
    """
    major, minor = (int(part) for part in minor_of(cuda).split("."))
    if cuda_max is None or version_key(minor_of(cuda)) <= version_key(cuda_max):
        return (0, -major, -minor)
    return (1, major, minor)


def gpu_reasons(machine: MachineView, served: Sequence[int], archs: Architectures) -> list[str]:
    """Why each GPU in ``served`` runs a build with ``archs`` (natively, through PTX, or unchecked).

    One reason per GPU served, in the machine's order. A fleet's report lists thousands of GPUs
    of a few models, and every candidate build gets these reasons: ``served`` is looked up as a
    set, and the reason of a model (its name and compute capability) is made once and repeated.
    """
    wanted = set(served)
    made: dict[tuple[str, str | None], str] = {}
    reasons: list[str] = []
    for gpu in machine.gpus:
        if gpu.index not in wanted:
            continue
        model = (gpu.name, gpu.capability)
        if model not in made:
            made[model] = _gpu_reason(gpu.name, gpu.capability, archs)
        reasons.append(made[model])
    return reasons


def _gpu_reason(name: str, capability: str | None, archs: Architectures) -> str:
    """Why a GPU of this model runs a build with ``archs``."""
    if capability is None:
        return reason_text(
            QT_TRANSLATE_NOOP(
                "reasons", "{gpu}: compute capability unknown, not checked against this build."
            ),
            gpu=name,
        )
    if archs.runs_natively_on(capability):
        return reason_text(
            QT_TRANSLATE_NOOP(
                "reasons",
                "{gpu} (compute capability {capability}) is covered by this build ({archs}).",
            ),
            gpu=name,
            capability=capability,
            archs=archs.describe(),
        )
    return reason_text(
        QT_TRANSLATE_NOOP(
            "reasons",
            "{gpu} (compute capability {capability}) runs this build's PTX {ptx}, compiled at first use.",
        ),
        gpu=name,
        capability=capability,
        ptx=archs.ptx,
    )


def driver_reasons(
    machine: MachineView, cuda: str, compat: CompatData, *, wsl: bool = False, minimum: str | None = None
) -> list[str]:
    """Whether the driver is new enough for builds of ``cuda`` (or for ``minimum``, when given), as a reason."""
    minimum = (
        minimum
        or (wsl_min_drivers(cuda, compat)["windows"] if wsl else compat.min_driver(cuda, machine.driver_os))
        or "?"
    )
    os_name = "Windows" if machine.driver_os == "windows" or wsl else "Linux"
    if machine.driver is None:
        return [
            reason_text(
                QT_TRANSLATE_NOOP(
                    "reasons", "Needs an NVIDIA driver {minimum} or newer ({os}); none answers now."
                ),
                minimum=minimum,
                os=os_name,
            )
        ]
    if at_least(machine.driver, minimum):
        return [
            reason_text(
                QT_TRANSLATE_NOOP(
                    "reasons",
                    "Driver {driver} is at least the {minimum} that CUDA {cuda} builds need on {os}.",
                ),
                driver=machine.driver,
                minimum=minimum,
                cuda=cuda,
                os=os_name,
            )
        ]
    return [
        reason_text(
            QT_TRANSLATE_NOOP(
                "reasons", "Needs driver {minimum} or newer on {os}; this machine has {driver}."
            ),
            minimum=minimum,
            os=os_name,
            driver=machine.driver,
        )
    ]
