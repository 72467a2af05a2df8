"""What the recommendation says beside its plan: the findings and the notes.

Apart from the candidate builders: these read the ranked candidates and the chosen plan, and say
why the wish cannot be met as asked (GPU architecture, driver, OS policy, Python), what the plan
needs on the system (toolkits, cuDNN), which GPUs it leaves out, and notes in the ``reasons``
context.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gpuwizard.core.compat.accelerator_findings import accelerator_findings, unused_gpu_notes
from gpuwizard.core.compat.candidates import (
    TIER_CPU,
    TIER_GPU_AFTER_DRIVER_UPDATE,
    TIER_GPU_NOW,
    Candidate,
)
from gpuwizard.core.compat.machine_view import GpuView, MachineView
from gpuwizard.core.compat.plan import Plan, Wish, plan_build_name
from gpuwizard.core.compat.reasons import reason_text
from gpuwizard.core.compat.tables import (
    Architectures,
    CompatData,
    TensorflowRelease,
    TorchRelease,
    minor_of,
    version_key,
)
from gpuwizard.core.findings.model import Finding, make_finding
from gpuwizard.core.frameworks import framework_title
from gpuwizard.core.texts import QT_TRANSLATE_NOOP


def findings_for_plan(
    machine: MachineView,
    wish: Wish,
    *,
    wanted: str | None,
    compat: CompatData,
    plan: Plan,
    ranked: list[Candidate],
) -> list[Finding]:
    """What to know about the chosen plan on this machine: GPU, driver, Python, toolkits."""
    findings: list[Finding] = []
    if wish.requested_name == "tensorflow-gpu" and not plan.requirements[0].startswith("tensorflow-gpu"):
        findings.append(make_finding("TENSORFLOW_GPU_PACKAGE_REMOVED"))
    if machine.family == "darwin":
        findings.append(make_finding("NO_CUDA_ON_MACOS"))
    elif machine.gpus:
        findings += _gpu_findings(machine, wish, wanted=wanted, compat=compat, plan=plan, ranked=ranked)
    elif machine.other_gpus and not machine.accelerators:
        findings.append(make_finding("NO_NVIDIA_GPU", variant="other_gpu", names=list(machine.other_gpus)))
    elif not machine.accelerators:
        findings.append(make_finding("NO_NVIDIA_GPU"))
    # AMD, Intel and Apple GPUs: accelerator_findings (below) says why each is used or not.
    if wish.python and plan.python != wish.python:
        findings.append(
            make_finding(
                "PYTHON_UNSUPPORTED",
                framework=framework_title(wish.framework),
                version=plan.framework_version,
                python_range=_python_range_of(wish.framework, plan.framework_version, compat),
                python=wish.python,
                chosen=plan.python,
            )
        )
    findings += accelerator_findings(machine, wish, compat, plan)
    return findings + _toolkit_findings(machine, plan) + _gpu_use_findings(machine, plan)


def _toolkit_findings(machine: MachineView, plan: Plan) -> list[Finding]:
    """Whether the plan needs a system CUDA toolkit and cuDNN, and whether they are here."""
    if plan.device != "cuda":
        return []  # CPU, ROCm, XPU and MPS builds: no CUDA toolkit question
    if not plan.system_cuda_toolkit_required:
        variant = "conda" if plan.conda_channels else ("wheels" if plan.cuda_wheels else None)
        wheels = (
            {"cuda_wheels": plan.cuda_wheels.cuda, "cudnn_wheels": plan.cuda_wheels.cudnn}
            if plan.cuda_wheels
            else {}
        )
        return [
            make_finding(
                "CUDA_TOOLKIT_NOT_NEEDED",
                variant=variant,
                build=plan_build_name(plan),
                cuda=plan.cuda,
                cudnn=plan.cudnn,
                **wheels,
            )
        ]
    findings = []
    if plan.cuda and not any(k.version and minor_of(k.version) == plan.cuda for k in machine.toolkits):
        findings.append(make_finding("CUDA_TOOLKIT_MISSING", build=plan_build_name(plan), cuda=plan.cuda))
    if plan.cudnn and not any(
        d.version and minor_of(d.version) == minor_of(plan.cudnn) for d in machine.cudnn
    ):
        findings.append(
            make_finding("CUDNN_MISSING", build=plan_build_name(plan), cudnn=plan.cudnn, cuda=plan.cuda)
        )
    return findings


def _gpu_use_findings(machine: MachineView, plan: Plan) -> list[Finding]:
    """GPUs the plan leaves out, serves only through PTX, or cannot check.

    Several identical GPUs (the same name and compute capability: a DGX has eight, a fleet's
    report thousands) get one finding each, as in :func:`_arch_findings`; the plan's GPUs are
    looked up as sets, so the work is linear in the number of GPUs.
    """
    findings = []
    served = frozenset(plan.gpu_indices)
    ptx_only = frozenset(plan.ptx_jit)
    said: set[tuple[str, str, str | None]] = set()

    def once(code: str, gpu: GpuView) -> bool:
        key = (code, gpu.name, gpu.capability)
        if key in said:
            return False
        said.add(key)
        return True

    if not plan.cpu_only and served:
        visible = ",".join(str(index) for index in plan.gpu_indices)
        findings += [
            make_finding(
                "GPU_NOT_SERVED",
                build=plan_build_name(plan),
                gpu=gpu.name,
                capability=gpu.capability,
                visible=visible,
            )
            for gpu in machine.gpus
            if gpu.index not in served and gpu.capability and once("GPU_NOT_SERVED", gpu)
        ]
    for gpu in machine.gpus:
        if gpu.index in ptx_only and gpu.capability and once("GPU_PTX_ONLY", gpu):
            findings.append(
                make_finding(
                    "GPU_PTX_ONLY", build=plan_build_name(plan), gpu=gpu.name, capability=gpu.capability
                )
            )
        if gpu.capability is None and once("GPU_ARCH_UNKNOWN", gpu):
            findings.append(make_finding("GPU_ARCH_UNKNOWN", gpu=gpu.name))
    return findings


def _gpu_findings(
    machine: MachineView,
    wish: Wish,
    *,
    wanted: str | None,
    compat: CompatData,
    plan: Plan,
    ranked: list[Candidate],
) -> list[Finding]:
    """Why the wished release cannot use the GPU as it is, and whether the driver must change."""
    title = framework_title(wish.framework)
    findings: list[Finding] = []
    target_version = minor_of(wanted) if wanted else _newest_version(wish.framework, compat)
    target_gpu_plans = [
        c for c in ranked if c.tier < TIER_CPU and minor_of(c.plan.framework_version) == target_version
    ]

    # TensorFlow past 2.10 on native Windows: the policy, before any architecture question.
    policy = compat.policy("tf_native_windows_gpu_ended")
    if (
        wish.framework == "tensorflow"
        and machine.family == "windows"
        and version_key(target_version) > version_key(policy["last_version"])
    ):
        last = next(r for r in compat.tensorflow if r.version == policy["last_version"])
        last_build = last.gpu.get("windows")
        findings.append(
            make_finding(
                "TF_NATIVE_WINDOWS_GPU_ENDED",
                version=wanted or target_version,
                last=policy["last_version"],
                last_cuda=last_build.cuda if last_build else "?",
                last_cudnn=last_build.cudnn if last_build else "?",
            )
        )
    elif not any(c.tier in (TIER_GPU_NOW, TIER_GPU_AFTER_DRIVER_UPDATE) for c in target_gpu_plans):
        findings += _arch_findings(
            machine, wish, version=target_version, compat=compat, plan=plan, title=title
        )

    if machine.driver is None:
        if not plan.cpu_only and plan.min_driver:
            findings.append(
                make_finding(
                    "NO_NVIDIA_DRIVER",
                    variant="recommend",
                    min_driver=plan.min_driver.get(machine.driver_os) or "?",
                    build=plan_build_name(plan),
                )
            )
    elif plan.driver_update_required and plan.min_driver:
        now = next((c.plan for c in ranked if c.tier == TIER_GPU_NOW), None)
        otherwise = f"Or use {now.summary}, which works with this driver." if now else "Or use the CPU build."
        findings.append(
            make_finding(
                "DRIVER_TOO_OLD",
                driver=machine.driver,
                min_driver=plan.min_driver.get(machine.driver_os) or "?",
                build=plan_build_name(plan),
                otherwise=otherwise,
            )
        )
    return findings


def _arch_findings(
    machine: MachineView, wish: Wish, *, version: str, compat: CompatData, plan: Plan, title: str
) -> list[Finding]:
    """GPU_ARCH_UNSUPPORTED for each GPU that no build of ``version`` covers.

    A build covers a GPU when its kernels carry code for it (TensorFlow: PTX counts) and the
    libraries it bundles still support it (the ``library`` variant says which one does not).
    """
    findings: list[Finding] = []
    builds = _builds_of(wish.framework, version, machine.platform, compat)
    if not builds:
        return findings
    reported: set[tuple[str, str]] = set()
    served = frozenset(plan.gpu_indices)
    for gpu in machine.gpus:
        capability = gpu.capability
        if capability is None or (gpu.name, capability) in reported:
            continue  # several identical GPUs (a K80 board is two) get one finding
        reported.add((gpu.name, capability))
        with_code = [
            build
            for build in builds
            if build.archs.runs_natively_on(capability)
            or (wish.framework == "tensorflow" and build.archs.runs_through_ptx_on(capability))
        ]
        floors = [compat.libraries_exclude(b.cuda, b.cudnn, capability) for b in with_code]
        if with_code and any(floor is None for floor in floors):
            continue
        if not plan.cpu_only and gpu.index in served:
            instead = f"Use {plan.summary}: the nearest release whose build covers it."
        else:
            instead = "No release in the tables covers it on this OS: use the CPU build."
        if with_code:
            floor, build = next((f, b) for f, b in zip(floors, with_code, strict=True) if f is not None)
            library = "cuDNN" if floor.library == "cudnn" else "cuBLAS"
            findings.append(
                make_finding(
                    "GPU_ARCH_UNSUPPORTED",
                    variant="library",
                    framework=title,
                    version=version,
                    gpu=gpu.name,
                    capability=capability,
                    library=library,
                    library_version=build.cudnn if floor.library == "cudnn" else build.cuda,
                    minimum=floor.compute_capability_min,
                    instead=instead,
                )
            )
            continue
        listed = sorted({cc for b in builds for cc in b.archs.sass}, key=version_key)
        findings.append(
            make_finding(
                "GPU_ARCH_UNSUPPORTED",
                framework=title,
                version=version,
                gpu=gpu.name,
                capability=capability,
                architectures=", ".join(listed),
                instead=instead,
            )
        )
    return findings


@dataclass(frozen=True)
class _Build:
    """A GPU build's architectures and the CUDA and cuDNN it bundles."""

    archs: Architectures
    cuda: str | None
    cudnn: str | None


def _builds_of(framework: str, version: str, platform: str, compat: CompatData) -> list[_Build]:
    """The GPU builds of ``version`` on ``platform``."""
    if framework == "pytorch":
        release = next((r for r in compat.pytorch if r.version == version), None)
        if release is None:
            return []
        return [
            _Build(v.platforms[platform], v.cuda, v.cudnn)
            for v in release.variants
            if not v.is_cpu and platform in v.platforms
        ]
    tf = next((r for r in compat.tensorflow if r.version == version), None)
    build = tf.gpu.get(platform) if tf else None
    return [_Build(build.archs, build.cuda, build.cudnn)] if build else []


def _newest_version(framework: str, compat: CompatData) -> str:
    return compat.pytorch[0].version if framework == "pytorch" else compat.tensorflow[0].version


def _python_range_of(framework: str, version: str, compat: CompatData) -> str:
    rows: Sequence[TorchRelease | TensorflowRelease] = (
        compat.pytorch if framework == "pytorch" else compat.tensorflow
    )
    row = next(r for r in rows if r.version == minor_of(version))
    return str(row.python)


def notes_for_plan(
    machine: MachineView, wish: Wish, compat: CompatData, plan: Plan, ranked: list[Candidate]
) -> list[str]:
    """Notes on the plan: MPS, ROCm, derived numbers, a driver update's gain, conda, WSL 2."""
    notes: list[str] = list(unused_gpu_notes(machine, plan))
    if machine.cuda_max_source == "driver tables":
        notes.append(
            reason_text(
                QT_TRANSLATE_NOOP(
                    "reasons",
                    "The highest CUDA of driver {driver} ({cuda_max}) was derived from NVIDIA's toolkit-driver table.",
                ),
                driver=machine.driver,
                cuda_max=machine.cuda_max,
            )
        )
    if not plan.driver_update_required:
        better = next(
            (c.plan for c in ranked if c.tier == TIER_GPU_AFTER_DRIVER_UPDATE and c.matches_wish), None
        )
        if (
            better
            and version_key(better.framework_version) >= version_key(plan.framework_version)
            and better.min_driver
        ):
            minimum = better.min_driver.get(machine.driver_os)
            notes.append(
                reason_text(
                    QT_TRANSLATE_NOOP(
                        "reasons", "With a driver {minimum} or newer, {plan} becomes possible."
                    ),
                    minimum=minimum,
                    plan=better.summary,
                )
            )
    if wish.framework == "pytorch" and plan.manager == "conda":
        last = compat.policy("pytorch_conda_channel_ended")["last_version"]
        notes.append(
            reason_text(
                QT_TRANSLATE_NOOP(
                    "reasons",
                    "PyTorch comes from pip inside the conda environment: the pytorch conda channel ended at {last}.",
                ),
                last=last,
            )
        )
    if machine.wsl:
        notes.append(
            reason_text(
                QT_TRANSLATE_NOOP(
                    "reasons",
                    "This is WSL 2: the NVIDIA driver is the Windows host's, and its minimum is a Windows driver version.",
                )
            )
        )
    host = machine.wsl_host
    minimum = compat.policy("wsl2_gpu").get("min_windows_build")
    if (
        wish.framework == "tensorflow"
        and host is not None
        and host.windows_build is not None
        and minimum is not None
        and host.windows_build < int(minimum)
        and machine.gpus
    ):
        notes.append(
            reason_text(
                QT_TRANSLATE_NOOP(
                    "reasons",
                    "WSL 2 gives CUDA to Linux from Windows build {minimum} on (Windows 10 21H2, or Windows 11); "
                    "this Windows is build {build}: after a Windows update, current TensorFlow runs on this GPU "
                    "inside WSL 2.",
                ),
                minimum=minimum,
                build=host.windows_build,
            )
        )
    native = next((c.plan for c in ranked if c.plan.target == "native" and not c.plan.cpu_only), None)
    if plan.target == "wsl2" and native is not None:
        # The person chooses between the two routes on the Choose page (issue 39): the release
        # chooses, since native Windows GPU builds ended at 2.10.
        notes.append(
            reason_text(
                QT_TRANSLATE_NOOP(
                    "reasons",
                    "To stay on native Windows instead (no WSL), choose {framework} {minor}: {summary}.",
                ),
                framework=framework_title(plan.framework),
                minor=minor_of(native.framework_version),
                summary=native.summary,
            )
        )
    return notes
