"""Diagnosis of a log for a known machine: the findings, with the build to install there.

``gpuwizard diagnose --system FILE`` (or on this machine), and the live test's own failures,
diagnose the log as :func:`gpuwizard.core.findings.diagnosis.diagnose` does and then ask the
recommender for the machine's build of each framework a finding is about, with the Python the
log shows (another Python when that one has no build): the hint names that build
(:mod:`gpuwizard.core.compat.diagnosis_context`). The machine is learnt only when a finding
needs it, so a log without such a finding costs no detection.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import Final

from gpuwizard.core.compat.diagnosis_context import (
    MachineBuild,
    contextualise,
    finding_framework,
    frameworks_to_plan,
    machine_build,
    on_machine_with_gpu,
    on_machine_without_gpu,
)
from gpuwizard.core.compat.plan import WishError, parse_wish
from gpuwizard.core.compat.recommend import recommend
from gpuwizard.core.compat.tables import CompatData
from gpuwizard.core.findings.diagnosis import diagnose
from gpuwizard.core.findings.gpu_readings import follows_machine
from gpuwizard.core.findings.log_facts import read_log_facts
from gpuwizard.core.findings.model import Finding
from gpuwizard.core.machine.readiness import no_gpu_note
from gpuwizard.core.machine.system_report import SystemReport
from gpuwizard.core.wizard_command import BY_NAME, WizardCommand

_PYTHON: Final = re.compile(r"3\.\d{1,2}")


def diagnose_on_machine(
    text: str,
    machine: Callable[[], SystemReport | None],
    *,
    compat: Callable[[], CompatData] | None = None,
    wizard: WizardCommand = BY_NAME,
) -> tuple[list[Finding], dict[str, MachineBuild]]:
    """The findings of ``text``, made exact for the machine ``machine()`` describes.

    ``wizard``: how the person starts the wizard on that machine, where a hint names it (this
    machine's from ``adapters/wizard_program.py``; by its name for a saved report's).

    Returns the findings and the builds their hints name, by framework (empty when no finding
    needed one, the machine has no GPU a driver serves, or the log is another machine's). On a
    machine without an NVIDIA GPU the findings put the CPU way first
    (:func:`gpuwizard.core.compat.diagnosis_context.on_machine_without_gpu`); on one with an
    NVIDIA GPU, what matters only with a GPU is the error with its fix
    (:func:`gpuwizard.core.compat.diagnosis_context.on_machine_with_gpu`); with no machine, both
    readings (:mod:`gpuwizard.core.findings.gpu_readings`). ``machine`` and ``compat`` are called
    only when a finding needs them.
    """
    facts = read_log_facts(text)  # before diagnose(), which forgets what it read of the log
    findings = diagnose(text)
    # A build to name, or a complaint that matters only with a GPU (core/findings/gpu_readings.py).
    if not any(finding_framework(finding, facts) or follows_machine(finding) for finding in findings):
        return findings, {}
    report = machine()
    if report is None:
        return findings, {}
    if no_gpu_note(report) is not None:
        # No NVIDIA GPU: no build to name, and the CPU way first (core/findings/no_gpu.py).
        return on_machine_without_gpu(findings, facts, report), {}
    findings = on_machine_with_gpu(findings, facts, report)
    frameworks = frameworks_to_plan(findings, facts, report)
    if not frameworks:
        return findings, {}
    if compat is None:
        from gpuwizard.workflow.compat.data import load_compat  # noqa: PLC0415 - only when needed

        compat = load_compat
    data = compat()
    # The Python a finding read (the one that had no wheels, the Store's) before the paths'.
    python = next(
        (f.params["python"] for f in findings if _PYTHON.fullmatch(f.params.get("python", ""))), None
    )
    facts = replace(facts, python=python or facts.python)
    builds: dict[str, MachineBuild] = {}
    for framework in frameworks:
        build = _build(report, framework, facts.python, data, wizard)
        if build is not None:
            builds[framework] = build
    return contextualise(findings, facts, report, builds), builds


def _build(
    report: SystemReport, framework: str, python: str | None, compat: CompatData, wizard: WizardCommand
) -> MachineBuild | None:
    # The log's Python first: the build should fit the interpreter that failed. A Python no
    # release supports is a wish the recommender refuses; then the machine's best Python.
    for wished in dict.fromkeys([python, None]):
        try:
            recommendation = recommend(report, parse_wish(framework, None, wished, None), compat)
        except WishError:
            continue
        return machine_build(recommendation, "windows" if report.os.wsl else report.os.family, wizard)
    return None
