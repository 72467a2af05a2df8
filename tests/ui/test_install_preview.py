"""The steps the Install page's preview lists follow the plan (issue 21: the DLL hook step)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QApplication

from gpuwizard.core.compat.plan import parse_wish
from gpuwizard.core.compat.recommend import recommend
from gpuwizard.core.envs.request import SetupRequest
from gpuwizard.ui.widgets.install_preview import planned_steps
from gpuwizard.workflow.compat.data import load_compat
from gpuwizard.workflow.machine.system_file import load_system_report

REPORTS = Path(__file__).parents[1] / "fixtures" / "reports"


def steps_for(report: str, manager: str | None = None) -> list[str]:
    machine = load_system_report(REPORTS / report)
    rec = recommend(machine, parse_wish("tensorflow", "2.10", None, manager), load_compat())
    return planned_steps(SetupRequest("tensorflow", "2.10", manager=manager, name="tf"), rec)


def test_the_wheels_plan_adds_the_dll_hook_step_before_the_import_check(qapp: QApplication):
    steps = steps_for("windows-gtx1060-566.36.json")
    kinds = [line.split(":")[0] for line in steps[1:]]
    assert kinds == ["== create", "== install", "== dlls", "== verify", "== constraints", "== register"]
    assert '"numpy<1.24"' in steps[2] and "nvidia-cudnn-cu11==8.9.5.29" in steps[2]


def test_a_plan_without_nvidias_wheels_has_no_dll_hook_step(qapp: QApplication):
    steps = steps_for("windows-gtx1080-531.79.json", manager="conda")
    assert not any(line.startswith("== dlls") for line in steps)
    assert steps[1] == "== create: a conda environment tf with Python 3.9"


def test_nothing_is_listed_without_a_choice(qapp: QApplication):
    assert planned_steps(None, None) == []
