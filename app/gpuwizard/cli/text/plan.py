"""A recommendation as readable text for a terminal (``gpuwizard recommend``).

Presentation only; the recommendation is data from :mod:`gpuwizard.core.compat.recommend`.
"""

from __future__ import annotations

import textwrap

from gpuwizard.cli.text.findings import finding_lines
from gpuwizard.core.compat.plan import Plan, Recommendation, describe_min_driver
from gpuwizard.core.frameworks import framework_title

_LABEL = 12


def install_commands(plan: Plan) -> list[str]:
    """The commands that carry the plan out by hand (the wizard runs the same steps)."""
    commands: list[str] = []
    inside = "(inside WSL 2) " if plan.target == "wsl2" else ""
    if plan.system_cuda_toolkit_required and plan.cuda:
        commands.append(f"install CUDA {plan.cuda} and cuDNN {plan.cudnn} on the system")
    for entry in plan.path_entries:
        commands.append(f"add to PATH: {entry}")
    if plan.manager == "conda":
        channels = "".join(f" -c {channel}" for channel in plan.conda_channels)
        commands.append(f"{inside}conda create -n ENV{channels} {' '.join(plan.conda_packages)}")
        commands.append(f"{inside}conda activate ENV")
    else:
        commands.append(f"{inside}python{plan.python} -m venv ENV   (or: uv venv --python {plan.python} ENV)")
    pip = f"{inside}pip install {' '.join(plan.requirements)}"
    if plan.index_url:
        pip += f" --index-url {plan.index_url}"
    commands.append(pip)
    return commands


def render_recommendation(rec: Recommendation, width: int = 100) -> str:
    """Render ``rec`` as text."""
    lines = [f"{framework_title(rec.framework)} on this machine: {_verdict(rec)}.", ""]
    lines += _plan_lines(rec, width)
    lines += ["", *_cuda_number_lines(rec)]
    lines += _other_lines(rec, width)
    lines += ["", f"(compatibility data: {rec.compat_origin})"]
    return "\n".join(lines) + "\n"


def _verdict(rec: Recommendation) -> str:
    plan = rec.plan
    if plan.cpu_only:
        return "runs on the CPU only"
    if plan.driver_update_required:
        return "the GPU can be used after a driver update"
    if rec.gpu_supported:
        return "the GPU can be used as the machine is"
    return "the GPU can be used with the plan below (not with what was asked)"


def _plan_lines(rec: Recommendation, width: int) -> list[str]:
    plan = rec.plan
    lines = ["Plan", f"  {plan.summary}"]
    lines += [f"  {number}. {command}" for number, command in enumerate(install_commands(plan), start=1)]
    if plan.min_driver:
        numbers = rec.cuda_numbers
        os_name = "windows" if plan.target == "wsl2" else numbers.driver_os
        minimum = plan.min_driver.get(os_name) or describe_min_driver(plan.min_driver)
        have = f"this machine has {numbers.driver}" if numbers.driver else "no NVIDIA driver answers now"
        state = "update needed" if plan.driver_update_required else "ok"
        lines.append(
            _field("Driver", f"needs {minimum} or newer on {os_name.capitalize()}; {have} ({state})")
        )
    if plan.dlls_expected:
        lines += _wrap("DLLs", ", ".join(plan.dlls_expected), width)
    for number, reason in enumerate(plan.reasons):
        lines += _wrap("Why" if number == 0 else "", reason, width)
    return lines


def _cuda_number_lines(rec: Recommendation) -> list[str]:
    numbers, plan = rec.cuda_numbers, rec.plan
    lines = ["CUDA: three different numbers"]
    if numbers.driver_max:
        source = "" if numbers.driver_max_source == "nvml" else f" (derived: {numbers.driver_max_source})"
        lines.append(
            f"  your driver supports   up to CUDA {numbers.driver_max}{source}: a limit, not something installed"
        )
    else:
        lines.append("  your driver supports   nothing yet (no NVIDIA driver answers)")
    toolkits = ", ".join(numbers.toolkits) if numbers.toolkits else "none"
    used = "used by this plan" if plan.system_cuda_toolkit_required else "not used by this plan"
    lines.append(f"  toolkits on disk       {toolkits}" + (f" ({used})" if numbers.toolkits else ""))
    if numbers.framework:
        cudnn = f" and cuDNN {plan.cudnn}" if plan.cudnn else ""
        lines.append(f"  this build uses        CUDA {numbers.framework}{cudnn}")
    else:
        lines.append("  this build uses        no CUDA (CPU build)")
    return lines


def _other_lines(rec: Recommendation, width: int) -> list[str]:
    lines: list[str] = []
    if rec.alternatives:
        lines += ["", "Alternatives"]
        for number, alternative in enumerate(rec.alternatives, start=1):
            extra = " (needs a driver update)" if alternative.driver_update_required else ""
            lines += textwrap.wrap(
                f"{number}. {alternative.summary}{extra}",
                width,
                initial_indent="  ",
                subsequent_indent="     ",
            )
    if rec.findings:
        lines += ["", "Findings"]
        for finding in rec.findings:
            lines += finding_lines(finding, width)
    if rec.notes:
        lines += ["", "Notes"]
        for note in rec.notes:
            lines += textwrap.wrap(note, width, initial_indent="  - ", subsequent_indent="    ")
    return lines


def _field(label: str, value: str) -> str:
    return f"  {label:<{_LABEL}}{value}"


def _wrap(label: str, text: str, width: int) -> list[str]:
    indent = " " * (_LABEL + 2)
    return textwrap.wrap(text, width, initial_indent=f"  {label:<{_LABEL}}", subsequent_indent=indent)
