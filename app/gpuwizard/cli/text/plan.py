"""A recommendation as readable text for a terminal (``gpuwizard recommend``).

Presentation only; the recommendation is data from :mod:`gpuwizard.core.compat.recommend`.
"""

from __future__ import annotations

import textwrap

from gpuwizard.cli.text.findings import finding_lines
from gpuwizard.cli.text.sources import source_lines
from gpuwizard.core.compat.plan import Recommendation
from gpuwizard.core.compat.presentation import PlanView, install_commands, plan_line, plan_view
from gpuwizard.core.compat.shell_commands import CommandHost
from gpuwizard.core.envs.package_sources import PlanSources
from gpuwizard.core.gpu_kinds import NON_CUDA_KINDS

_LABEL = 12


def render_recommendation(
    rec: Recommendation,
    *,
    gpu_present: bool,
    host: CommandHost,
    width: int = 100,
    sources: PlanSources | None = None,
) -> str:
    """Render ``rec`` as text (the presentation the Choose page shows: core.compat.presentation).

    ``host``: where the plan's commands run (``shell_commands.command_host``): they are
    written for its platform and shells.
    ``sources``: where the packages would come from here (a mirror the person set included);
    the commands then name those indexes, and a line says each one and why.
    """
    view = plan_view(rec, gpu_present=gpu_present)
    lines = textwrap.wrap(view.headline, width)
    lines += ["", *_plan_lines(rec, view, host, width, sources)]
    if rec.plan.device not in NON_CUDA_KINDS:
        # The three CUDA numbers say nothing of a ROCm, XPU or MPS build (issue 38).
        lines += ["", *_cuda_number_lines(rec)]
    lines += _other_lines(rec, width)
    lines += ["", *textwrap.wrap(view.freshness or f"(compatibility data: {rec.compat_origin})", width)]
    return "\n".join(lines) + "\n"


def _plan_lines(
    rec: Recommendation, view: PlanView, host: CommandHost, width: int, sources: PlanSources | None
) -> list[str]:
    plan = rec.plan
    lines = ["Plan", f"  {plan.summary}"]
    options = sources.index_options(shown=True) if sources is not None else None
    commands = install_commands(plan, host=host, index_options=options)
    lines += [f"  {number}. {command}" for number, command in enumerate(commands, start=1)]
    if sources is not None:
        lines += source_lines(sources, width)
    lines += _wrap("Build", view.cuda, width)
    lines += _wrap("Environment", view.manager, width)
    if view.driver is not None:
        os_name = "windows" if plan.target == "wsl2" else rec.cuda_numbers.driver_os
        lines += _wrap("Driver", f"{view.driver} ({os_name.capitalize()})", width)
    if plan.dlls_expected:
        lines += _wrap("DLLs", ", ".join(plan.dlls_expected), width)
    for number, reason in enumerate(view.reasons):
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
        for number, alternative in enumerate((plan_line(plan) for plan in rec.alternatives), start=1):
            lines += textwrap.wrap(
                f"{number}. {alternative}",
                width,
                initial_indent="  ",
                subsequent_indent="     ",
                break_on_hyphens=False,  # "py-rattler" stays one word
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


def _wrap(label: str, text: str, width: int) -> list[str]:
    indent = " " * (_LABEL + 2)
    return textwrap.wrap(text, width, initial_indent=f"  {label:<{_LABEL}}", subsequent_indent=indent)
