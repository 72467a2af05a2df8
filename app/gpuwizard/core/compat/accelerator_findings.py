"""What a recommendation says about the AMD, Intel and Apple GPUs of a machine.

Where a plan uses such a GPU, its reasons say why; these findings say why one is *not* used
(a gfx target no build carries, no ROCm build for the OS, an Intel GPU PyTorch's XPU builds do
not serve, a macOS too old for MPS, a driver too old, a device file this user cannot open),
each with what would change the answer. DirectML is never offered: it is in maintenance
(``accelerators.json``'s ``directml``).
"""

from __future__ import annotations

from collections.abc import Callable

from gpuwizard.core.compat.accelerator_plans import macos_wheel_min, mps_macos_min
from gpuwizard.core.compat.accelerators import Accelerators
from gpuwizard.core.compat.machine_view import AcceleratorView, MachineView
from gpuwizard.core.compat.plan import Plan, Wish, plan_build_name
from gpuwizard.core.compat.reasons import reason_text
from gpuwizard.core.compat.tables import CompatData, at_least, minor_of, version_key
from gpuwizard.core.findings.model import Finding, make_finding
from gpuwizard.core.gpu_kinds import KIND_OF_VENDOR, NON_CUDA_KINDS
from gpuwizard.core.texts import QT_TRANSLATE_NOOP

#: Adds a finding (code, GPU, template parameters) once per GPU model.
_Add = Callable[..., None]


def accelerator_findings(machine: MachineView, wish: Wish, compat: CompatData, plan: Plan) -> list[Finding]:
    """Why each AMD, Intel or Apple GPU the plan does not use is left out, and what would change it."""
    tables = compat.accelerators
    used = frozenset(plan.gpu_indices) if plan.device in NON_CUDA_KINDS else frozenset()
    findings: list[Finding] = []
    said: set[tuple[str, str, str | None]] = set()

    def add(code: str, gpu: AcceleratorView, variant: str | None = None, **params: object) -> None:
        key = (code, gpu.name, gpu.target)
        if key not in said:
            said.add(key)
            findings.append(make_finding(code, variant=variant, gpu=gpu.name, **params))

    if wish.framework == "tensorflow":
        return _tensorflow_findings(machine, tables, plan)
    for gpu in machine.accelerators:
        if gpu.index in used:
            continue
        if gpu.vendor == "amd":
            _amd(machine, tables, plan, gpu, add)
        elif gpu.vendor == "intel":
            _intel(machine, tables, plan, gpu, add)
        elif gpu.vendor == "apple":
            _apple(machine, compat, plan, gpu, add)
    findings += _runtime_findings(machine, plan, tables)
    findings += _macos_findings(machine, wish, compat, plan)
    return findings


def _macos_findings(machine: MachineView, wish: Wish, compat: CompatData, plan: Plan) -> list[Finding]:
    """The newer PyTorch releases this Mac's macOS is too old for, when the plan is older for it."""
    if machine.family != "darwin" or wish.framework != "pytorch" or machine.macos_version is None:
        return []
    macos = machine.macos_version
    newer = [r for r in compat.pytorch if version_key(r.version) > version_key(plan.framework_version)]
    # On the Apple GPU, the newer releases left out are those whose MPS needs a newer macOS;
    # on the CPU, those without a wheel for this macOS.
    need = (
        (lambda r: mps_macos_min(r, compat))
        if plan.device == "mps"
        else (lambda r: macos_wheel_min(r, machine, compat))
    )
    skipped = [(r, minimum) for r in newer if (minimum := need(r)) and not at_least(macos, minimum)]
    if not skipped:
        return []
    first, minimum = min(skipped, key=lambda item: version_key(item[0].version))
    return [
        make_finding(
            "TORCH_NEEDS_NEWER_MACOS",
            variant="mps" if plan.device == "mps" else None,
            first=first.version,
            minimum=minimum,
            macos=machine.macos_version,
            version=plan.framework_version,
        )
    ]


def _amd(machine: MachineView, tables: Accelerators, plan: Plan, gpu: AcceleratorView, add: _Add) -> None:
    if plan.device not in ("cpu", "rocm"):
        return  # another kind of GPU serves the plan; unused_gpu_notes names this one
    if machine.family == "linux" and not machine.wsl and machine.arch != "x86_64":
        add("AMD_GPU_NO_BUILD_ON_OS", gpu, variant="arch", arch=machine.arch)
        return
    if machine.family != "linux" or machine.wsl:
        windows = tables.amd_windows_builds
        targets = sorted({t for b in windows for t in b.gfx_targets})
        if machine.family == "windows" and windows and gpu.target in targets:
            add("AMD_WINDOWS_WHEELS_NOT_PLANNED", gpu, target=gpu.target)
        elif machine.family == "windows" and windows:
            builds = "; ".join(
                f"PyTorch {b.torch}, ROCm {b.rocm}, Python {', '.join(b.python)}" for b in windows
            )
            add("AMD_GPU_NO_BUILD_ON_OS", gpu, variant="windows", amd_builds=builds)
        else:
            add("AMD_GPU_NO_BUILD_ON_OS", gpu, os=_os_name(machine))
        return
    if gpu.target is None:
        add("AMD_GPU_TARGET_UNKNOWN", gpu)
        return
    carried = tables.targets_ever_built()
    if gpu.target not in carried:
        override = tables.hsa_override(gpu.target)
        add(
            "AMD_GPU_TARGET_NOT_BUILT",
            gpu,
            # Beside GPUs the plan serves (an APU's iGPU beside a Radeon card): hide it.
            variant="mixed" if plan.device == "rocm" else "override" if override else None,
            target=gpu.target,
            targets=", ".join(carried) or "none",
            **({"override": override.override} if override else {}),
        )
    elif plan.device == "cpu":
        add("AMD_GPU_TARGET_NOT_IN_RELEASE", gpu, target=gpu.target, build=plan_build_name(plan))


def _intel(machine: MachineView, tables: Accelerators, plan: Plan, gpu: AcceleratorView, add: _Add) -> None:
    if plan.device not in ("cpu", "xpu"):
        return  # another kind of GPU serves the plan; unused_gpu_notes names this one
    served = sorted({family for build in tables.xpu_builds for family in build.families})
    if not gpu.xpu:
        add(
            "INTEL_GPU_NOT_SERVED",
            gpu,
            # Beside Intel GPUs the plan serves (an iGPU beside an Arc card): hide it.
            variant="mixed" if plan.device == "xpu" else None,
            family=gpu.target or "unknown family",
            families=", ".join(served) or "none",
        )
    elif machine.arch != "x86_64":
        add("INTEL_GPU_NO_BUILD_ON_OS", gpu, variant="arch", arch=machine.arch)
    elif machine.family not in ("linux", "windows") or machine.wsl:
        add("INTEL_GPU_NO_BUILD_ON_OS", gpu, os=_os_name(machine))


def _apple(machine: MachineView, compat: CompatData, plan: Plan, gpu: AcceleratorView, add: _Add) -> None:
    release = next((r for r in compat.pytorch if r.version == minor_of(plan.framework_version)), None)
    minimum = mps_macos_min(release, compat) if release else compat.accelerators.apple.mps_macos_min
    if machine.macos_version and not at_least(machine.macos_version, minimum):
        add("MPS_MACOS_TOO_OLD", gpu, macos=machine.macos_version, minimum=minimum)


def _tensorflow_findings(machine: MachineView, tables: Accelerators, plan: Plan) -> list[Finding]:
    """What the tables state of TensorFlow on each kind of GPU here, once per kind."""
    if plan.device != "cpu":
        return []
    by_platform: dict[str, list[str]] = {}
    for gpu in machine.accelerators:
        by_platform.setdefault(_tensorflow_platform(machine, gpu), []).append(gpu.name)
    findings = []
    for platform, names in by_platform.items():
        fact = tables.stack_fact(platform)
        if fact is not None:
            # A vendor's own package (tensorflow-rocm, tensorflow-metal) exists but is not planned.
            variant = "vendor_package" if fact.state == "supported" and fact.package else None
            findings.append(
                make_finding(
                    "TENSORFLOW_NO_GPU_BUILD",
                    variant=variant,
                    gpu=", ".join(names),
                    fact=fact.text,
                    **({"package": fact.package} if variant else {}),
                )
            )
    return findings


def _tensorflow_platform(machine: MachineView, gpu: AcceleratorView) -> str:
    """The ``tensorflow`` row of accelerators.json that speaks of this GPU here."""
    if gpu.vendor == "amd":
        return "rocm-linux" if machine.family == "linux" and not machine.wsl else "amd-windows"
    return "xpu" if gpu.vendor == "intel" else "mps"


def _runtime_findings(machine: MachineView, plan: Plan, tables: Accelerators) -> list[Finding]:
    findings: list[Finding] = []
    rocm = machine.runtime("rocm")
    if plan.device == "rocm" and rocm is not None and rocm.usable is False:
        groups = tables.rocm_requirements.get("groups") or ["render", "video"]
        findings.append(
            make_finding(
                "ROCM_DEVICE_ACCESS",
                detail=rocm.detail or "permission denied",
                groups=",".join(groups),
            )
        )
    if plan.device == "xpu" and plan.driver_update_required and plan.vendor_driver_min:
        drivers = sorted({g.driver_version for g in machine.accelerators_of("intel") if g.driver_version})
        findings.append(
            make_finding(
                "INTEL_DRIVER_TOO_OLD",
                driver=", ".join(drivers) or "?",
                min_driver=plan.vendor_driver_min.get(machine.family) or "?",
                build=plan_build_name(plan),
            )
        )
    return findings


def _os_name(machine: MachineView) -> str:
    if machine.wsl:
        return "WSL 2"
    return {"windows": "Windows", "darwin": "macOS", "linux": "Linux"}.get(machine.family, machine.family)


def unused_gpu_notes(machine: MachineView, plan: Plan) -> list[str]:
    """Notes naming the GPUs of another kind the plan leaves aside (an iGPU beside an NVIDIA GPU)."""
    if plan.device == "cpu":
        return []
    used = frozenset(plan.gpu_indices)
    others = [
        g for g in machine.accelerators if g.index not in used and plan.device != KIND_OF_VENDOR.get(g.vendor)
    ]
    return [
        reason_text(
            QT_TRANSLATE_NOOP("reasons", "{gpu} is not used: the plan runs on {device}."),
            gpu=gpu.name,
            device=_device_words(plan),
        )
        for gpu in others
    ]


def _device_words(plan: Plan) -> str:
    return {
        "cuda": "the NVIDIA GPU (CUDA)",
        "rocm": "the AMD GPU (ROCm)",
        "xpu": "the Intel GPU (XPU)",
        "mps": "the Apple GPU (MPS)",
    }.get(plan.device, plan.device)
