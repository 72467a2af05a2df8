"""The Install page's preview: the steps an installation would run, for a saved report's plan.

Apart from the page so that it stays a page of presentation: the steps follow the plan (the
DLL start-up hook only for NVIDIA's CUDA wheels). The texts keep the page's translation context.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from gpuwizard.core.compat.plan import Recommendation, quoted_requirements
from gpuwizard.core.envs.request import SetupRequest


def planned_steps(choice: SetupRequest | None, recommendation: Recommendation | None) -> list[str]:
    """What the installation would do, one line a step, for the preview's log view."""
    if choice is None or recommendation is None:
        return []
    plan = recommendation.plan
    manager = choice.wanted_manager or plan.manager
    source = plan.index_url or QCoreApplication.translate("InstallPage", "the default package index")
    steps = [
        QCoreApplication.translate("InstallPage", "On the machine itself, this page runs these steps:"),
        QCoreApplication.translate("InstallPage", "== create: a %1 environment %2 with Python %3")
        .replace("%1", manager)
        .replace("%2", choice.name)
        .replace("%3", plan.python),
        QCoreApplication.translate("InstallPage", "== install: %1 from %2")
        .replace("%1", quoted_requirements(plan.requirements))
        .replace("%2", source),
        QCoreApplication.translate(
            "InstallPage", "== verify: import the framework in the new environment and check its build"
        ),
        QCoreApplication.translate(
            "InstallPage", "== constraints: pin that build, so later installs cannot replace it"
        ),
        QCoreApplication.translate("InstallPage", "== register: record the environment (gpuwizard env list)"),
    ]
    if plan.cuda_wheels is not None:
        dlls = QCoreApplication.translate(
            "InstallPage",
            "== dlls: a start-up hook makes the NVIDIA wheels' DLL folders visible "
            "to every start of the environment's Python",
        )
        steps.insert(3, dlls)
    return steps
