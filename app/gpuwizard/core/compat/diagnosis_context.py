"""A diagnosis made exact for one machine: the build to install there, from the recommender.

A log says "no kernel image is available"; the generic fix is "install a build for your GPU".
Where the machine is known (a system report), the fix is one concrete build: the recommender's
plan for that GPU and driver. :func:`contextualise` opens the hint of every finding whose fix is
installing a fitting build with that plan (the sentences are in
:mod:`gpuwizard.core.findings.catalog_context`).

The log's own facts (:class:`gpuwizard.core.findings.log_facts.LogFacts`) decide which framework
a finding is about, and guard against advice for the wrong machine: a log whose GPU
architecture is none of the machine's GPUs comes from another machine, and gets no machine
advice. The workflow asks the recommender with the Python the log shows
(:func:`frameworks_to_plan` says for which frameworks); where that Python has no build, the plan
is for another Python, and the sentence says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Final

from gpuwizard.core.compat.plan import Recommendation, describe_min_driver, plan_build_name
from gpuwizard.core.compat.presentation import install_commands
from gpuwizard.core.compat.shell_commands import CommandHost
from gpuwizard.core.events import value_to_json
from gpuwizard.core.events.codec import json_metadata
from gpuwizard.core.findings.catalog_context import context_hint
from gpuwizard.core.findings.gpu_readings import (
    NO_GPU_KEYS,
    as_on_gpu_machine,
    log_shows_gpu,
    matters_only_with_gpu,
)
from gpuwizard.core.findings.log_facts import LogFacts
from gpuwizard.core.findings.model import Finding, sort_findings
from gpuwizard.core.frameworks import framework_title
from gpuwizard.core.machine.readiness import no_gpu_note, usable_gpus
from gpuwizard.core.machine.system_report import SystemReport
from gpuwizard.core.wizard_command import BY_NAME, WizardCommand

#: Frameworks the recommender plans for.
PLANNED_FRAMEWORKS: Final = ("pytorch", "tensorflow")

#: Findings whose fix is installing a build that fits the GPU, the driver and the Python.
_BUILD_FIXES: Final = frozenset(
    {
        "NO_KERNEL_IMAGE",
        "GPU_ARCH_UNSUPPORTED",
        "CPU_ONLY_BUILD",
        "DRIVER_TOO_OLD",
        "DLL_NOT_FOUND",
        "TF_CANNOT_DLOPEN_GPU_LIBS",
        "CUDNN_VERSION_MISMATCH",
        "TENSORFLOW_GPU_PACKAGE_REMOVED",
        "NO_MATCHING_DISTRIBUTION",
        "PYTHON_VERSION_NO_WHEELS",
        "TF_DLL_LOAD_FAILED",
    }
)
#: Findings whose whole fix is that build: the machine's sentence replaces the generic advice.
_BUILD_IS_THE_FIX: Final = frozenset(
    {
        "NO_KERNEL_IMAGE",
        "GPU_ARCH_UNSUPPORTED",
        "CPU_ONLY_BUILD",
        "TENSORFLOW_GPU_PACKAGE_REMOVED",
        "PYTHON_VERSION_NO_WHEELS",
    }
)
#: Findings that name TensorFlow by what they are.
_TENSORFLOW_CODES: Final = frozenset(
    {"TF_CANNOT_DLOPEN_GPU_LIBS", "TENSORFLOW_GPU_PACKAGE_REMOVED", "TF_DLL_LOAD_FAILED"}
)
#: The package names of each framework, as an install's findings name them.
_PACKAGES: Final = {
    "pytorch": frozenset({"torch", "torchvision", "torchaudio"}),
    "tensorflow": frozenset({"tensorflow", "tensorflow-gpu", "tensorflow-cpu", "tensorflow-intel"}),
}


@dataclass(frozen=True)
class MachineBuild:
    """The recommender's build of one framework for the machine, as a hint names it.

    Attributes:
        framework: ``pytorch`` or ``tensorflow``.
        build: ``PyTorch 2.14.1 (cu126)``.
        command: The command that installs it (``pip install torch==2.14.1 --index-url ...``).
        python: The Python minor version of the plan.
        gpu_supported: The build trains on this machine's GPU.
        driver_update_required: Only after a driver update.
        min_driver: The driver the build needs, as people read it (``Windows 528.33``).
    """

    framework: str = field(metadata=json_metadata(skip=True))  # the key it is written under
    build: str
    command: str
    python: str
    gpu_supported: bool
    driver_update_required: bool
    min_driver: str


def machine_build(
    recommendation: Recommendation, os_family: str, wizard: WizardCommand = BY_NAME
) -> MachineBuild:
    """The build a recommendation plans for a machine of ``os_family``, in the words a hint uses.

    ``wizard``: how the person starts the wizard on that machine (by its name for a saved report's).
    """
    plan = recommendation.plan
    min_driver = plan.min_driver or {}
    # Only the line that installs is taken: it reads the same in every shell of the machine.
    commands = install_commands(
        plan, host=CommandHost(windows=os_family == "windows" and plan.target != "wsl2")
    )
    # The line that installs the framework: conda's create, or pip's install. NVIDIA's wheels
    # on Windows also need their DLL folders made visible, which the wizard's environment does
    # (a start-up hook): then its own command is the one to give.
    wanted = "conda create" if plan.manager == "conda" else "pip install"
    command = next((line for line in commands if wanted in line), commands[-1])
    if plan.cuda_wheels is not None:
        command = wizard.line(
            f"env create ENV --framework {plan.framework} --version "
            f"{'.'.join(plan.framework_version.split('.')[:2])} --python {plan.python}"
        )
    return MachineBuild(
        framework=recommendation.framework,
        build=plan_build_name(plan),
        command=command,
        python=plan.python,
        gpu_supported=recommendation.gpu_supported,
        driver_update_required=recommendation.driver_update_required,
        # The machine's own OS's minimum (WSL 2 runs on the Windows driver).
        min_driver=min_driver.get(os_family) or describe_min_driver(plan.min_driver),
    )


def machine_build_to_json(build: MachineBuild) -> dict[str, object]:
    """A machine's build as ``diagnose --json`` writes it under ``machine.builds``: its fields."""
    return value_to_json(build)


def finding_framework(finding: Finding, facts: LogFacts) -> str | None:
    """The framework whose build would fix ``finding``; None when no build is the fix."""
    # Not DLL_NOT_FOUND of the driver's own library, or of a library no framework build brings.
    if finding.code not in _BUILD_FIXES or (
        finding.code == "DLL_NOT_FOUND" and finding.params.get("variant") != "cuda"
    ):
        return None
    if finding.code in _TENSORFLOW_CODES:
        return "tensorflow"
    variant = finding.params.get("variant")
    if finding.code == "CUDNN_VERSION_MISMATCH":
        return "pytorch" if variant == "torch" else "tensorflow"
    if finding.code == "CPU_ONLY_BUILD":
        # No build brings CUDA to a Mac; a CPU_ONLY_BUILD without its framework is told by the log.
        return (
            None
            if variant == "macos"
            else variant
            if variant in PLANNED_FRAMEWORKS
            else _first_planned(facts)
        )
    named_packages = finding.params.get("packages") or finding.params.get("package") or ""
    packages = {name.lower() for name in named_packages.replace(",", " ").split()}
    if packages:
        named = [name for name in PLANNED_FRAMEWORKS if packages & _PACKAGES[name]]
        return named[0] if named else None  # another package missing is not a framework build
    return _first_planned(facts)


def _first_planned(facts: LogFacts) -> str:
    """The first framework the log names that the recommender plans for (PyTorch when none)."""
    planned = [name for name in facts.frameworks if name in PLANNED_FRAMEWORKS]
    return planned[0] if planned else "pytorch"


def frameworks_to_plan(findings: Sequence[Finding], facts: LogFacts, report: SystemReport) -> tuple[str, ...]:
    """The frameworks whose plan for ``report``'s machine the findings need (none: no context)."""
    if not _same_machine(facts, report):
        return ()
    wanted: list[str] = []
    for finding in findings:
        framework = finding_framework(finding, facts)
        if framework and framework not in wanted:
            wanted.append(framework)
    return tuple(wanted)


def contextualise(
    findings: Sequence[Finding], facts: LogFacts, report: SystemReport, builds: Mapping[str, MachineBuild]
) -> list[Finding]:
    """``findings`` with the machine's build opening the hint of each that a build fixes."""
    if not _same_machine(facts, report):
        return list(findings)
    gpus = usable_gpus(report)
    gpu = gpus[0]
    machine = {
        "machine_gpu": gpu.name or "NVIDIA GPU",
        "machine_capability": gpu.compute_capability or "?",
        "machine_driver": report.driver.version if report.driver else "?",
    }
    result: list[Finding] = []
    for finding in findings:
        framework = finding_framework(finding, facts)
        build = builds.get(framework) if framework else None
        result.append(finding if build is None else _with_build(finding, build, facts, machine))
    return result


def _with_build(finding: Finding, build: MachineBuild, facts: LogFacts, machine: dict[str, str]) -> Finding:
    if not build.gpu_supported:
        key = "no_gpu_build"
    elif build.driver_update_required:
        key = "build_after_driver_update"
    elif facts.python and facts.python != build.python:
        key = "build_other_python"
    else:
        key = "build"
    params = {
        **finding.params,
        **machine,
        "context_hint": key,
        "context_replaces": "yes" if finding.code in _BUILD_IS_THE_FIX else "no",
        "machine_framework": framework_title(build.framework),
        "machine_build": build.build,
        "machine_command": build.command,
        "machine_python": build.python,
        "machine_min_driver": build.min_driver,
    }
    if facts.python:
        params["log_python"] = facts.python
    return replace(finding, hint=context_hint(finding.code, params, finding.hint), params=params)


def on_machine_without_gpu(
    findings: Sequence[Finding], facts: LogFacts, report: SystemReport
) -> list[Finding]:
    """``findings`` for a machine without an NVIDIA GPU (``report``): the CPU way first.

    The rule of :mod:`gpuwizard.core.findings.no_gpu`, for a log: a CPU-only build is the right
    build there, so running on the CPU is said first and a CUDA build last (``no_nvidia_gpu``);
    what TensorFlow says of a GPU it did not find (:mod:`gpuwizard.core.findings.gpu_readings`:
    the dlerror of its CUDA runtime, which the log's next line says to ignore without a GPU, and
    its failed start of CUDA) is a note there (``no_nvidia_gpu_dlerror``,
    ``no_nvidia_gpu_tensorflow``), unless the log shows a GPU (TensorFlow found one and could not
    open its libraries, ``TF_CANNOT_DLOPEN_GPU_LIBS``; a running driver; a compute capability: the
    log is another machine's). A log that shows a GPU or another OS is another machine's, and
    keeps its own advice.
    """
    if no_gpu_note(report) is None or log_shows_gpu(facts, findings) or not _same_os(facts, report):
        return list(findings)
    result: list[Finding] = []
    for finding in findings:
        if finding.code == "CPU_ONLY_BUILD" and finding.params.get("variant") in (None, "pytorch"):
            result.append(_without_gpu(finding, "no_nvidia_gpu"))
        elif matters_only_with_gpu(finding, facts, findings):
            result.append(replace(_without_gpu(finding, NO_GPU_KEYS[finding.code]), severity="info"))
        else:
            result.append(finding)
    return sort_findings(result)


def on_machine_with_gpu(findings: Sequence[Finding], facts: LogFacts, report: SystemReport) -> list[Finding]:
    """``findings`` for a machine with an NVIDIA GPU (``report``), the log's machine: the errors and their fixes.

    What matters only with a GPU (:mod:`gpuwizard.core.findings.gpu_readings`) was read for an
    unknown machine, a warning with both readings; here it is the error the catalog says, with
    the fix (a driver without one included: the GPU is what counts). A log of another OS, or of a
    GPU architecture the machine does not have, is another machine's and keeps both readings.
    """
    if no_gpu_note(report) is not None or not report.nvidia_gpus or not _same_os(facts, report):
        return list(findings)
    if facts.gpu_capability is not None and all(
        gpu.compute_capability != facts.gpu_capability for gpu in report.nvidia_gpus
    ):
        return list(findings)
    return sort_findings([as_on_gpu_machine(finding) for finding in findings])


def _without_gpu(finding: Finding, key: str) -> Finding:
    params = {**finding.params, "context_hint": key, "context_replaces": "yes"}
    return replace(finding, hint=context_hint(finding.code, params, finding.hint), params=params)


def _same_os(facts: LogFacts, report: SystemReport) -> bool:
    """Whether the log's OS (where it shows one) can be the machine's."""
    if facts.os_family is None:
        return True
    # A Windows log is not a Linux machine's, nor a Linux or WSL log a Windows machine's.
    if (facts.os_family == "windows") != (report.os.family == "windows"):
        return False
    return (facts.os_family == "darwin") == (report.os.family == "darwin")


def _same_machine(facts: LogFacts, report: SystemReport) -> bool:
    """Whether the log can be this machine's: it has a GPU a driver serves, of the log's architecture."""
    gpus = usable_gpus(report)
    if report.driver is None or not gpus or not _same_os(facts, report):
        return False
    if facts.gpu_capability is None:
        return True
    return any(gpu.compute_capability == facts.gpu_capability for gpu in gpus)
