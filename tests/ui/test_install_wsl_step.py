"""The Install page of a WSL 2 route whose Windows is not ready yet (issue 39, point 3).

The plan says first what Windows needs (installing WSL, as administrator); the page asks before
running it, runs it on a worker when the person agrees, looks at the machine again and then
makes the environment; "Not now" changes nothing and says what is left to do. The Windows step,
the detection after it and the environment's creation are fakes (this is no Windows); the
recommender is the real one, over the acceptance machine's saved reports.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QWizard
from pytestqt.qtbot import QtBot

from gpuwizard.core.compat.wsl_route import WslRoute
from gpuwizard.core.envs.request import SetupRequest
from gpuwizard.core.envs.result import EnvResult
from gpuwizard.core.events import EventSink
from gpuwizard.ui.pages.install import FAILED, OK, InstallPage
from gpuwizard.workflow.envs.setup import recommend_for
from gpuwizard.workflow.machine.system_file import load_system_report
from gpuwizard.workflow.state.wsl_pending import WslStepRun
from gpuwizard.workflow.wizard.session import WizardSession
from harness.waits import EVENT_MS
from harness.wizard_host import show_between

REPORTS = Path(__file__).parents[1] / "fixtures" / "reports"
WITHOUT_WSL = load_system_report(REPORTS / "windows-rtx4070-581.57-no-wsl.json")
WITH_WSL = load_system_report(REPORTS / "windows-rtx4070-581.57-wsl-ubuntu2404.json")


class Steps:
    """The fakes: the Windows step, the detection after it, the creation; what each was given."""

    def __init__(self, after: Any) -> None:
        self.after = after
        self.routes: list[WslRoute] = []
        self.created: list[Any] = []

    def windows_step(self, route: WslRoute) -> WslStepRun:
        self.routes.append(route)
        return WslStepRun(route.distro, route.state, "2026-11-30T00:00:00+00:00", 0)

    def create(
        self,
        report: Any,
        recommendation: Any,
        choice: SetupRequest,
        on_event: EventSink,
        cancel: threading.Event,
    ) -> EnvResult:
        self.created.append(recommendation)
        home = "/home/zoe/.local/share/gpuwizard"
        result = EnvResult(
            status="ok", name=choice.name, path=f"{home}/envs/tf", python=f"{home}/envs/tf/bin/python",
            framework_version=recommendation.plan.framework_version, manager="wsl", tool="uv",
        )  # fmt: skip
        on_event(result)
        return result


def open_page(qtbot: QtBot, steps: Steps) -> tuple[QWizard, InstallPage, WizardSession]:
    choice = SetupRequest("tensorflow", name="tf")
    session = WizardSession(
        report=WITHOUT_WSL,
        choice=choice,
        recommendation=recommend_for(WITHOUT_WSL, choice),
        detect=lambda: steps.after,
        create_env=steps.create,
        wsl_windows_step=steps.windows_step,
    )
    page = InstallPage(session)
    return show_between(qtbot, page, "Choose", "Test"), page, session


def test_the_windows_step_is_asked_then_run_and_the_environment_made(qtbot: QtBot):
    steps = Steps(after=WITH_WSL)
    _wizard, page, session = open_page(qtbot, steps)
    question = page.wsl_question
    assert question is not None and question.isVisible()
    assert "wsl --install -d Ubuntu-24.04" in question.text() and "administrator" in question.text()
    assert question.defaultButton() is question.not_now_button  # nothing runs by accident
    assert not steps.routes and not steps.created
    question.run_button.click()
    qtbot.waitUntil(lambda: page.state == OK, timeout=EVENT_MS)
    assert [route.state for route in steps.routes] == ["install_wsl"]
    # Looked at again after the step: the route is ready now, and that plan is made.
    (made,) = steps.created
    assert made.plan.target == "wsl2" and made.plan.wsl.state == "ready"
    assert session.report is WITH_WSL and session.recommendation is made


def test_not_now_changes_nothing_and_says_what_is_left(qtbot: QtBot):
    steps = Steps(after=WITH_WSL)
    _wizard, page, _session = open_page(qtbot, steps)
    question = page.wsl_question
    assert question is not None
    question.not_now_button.click()
    qtbot.waitUntil(lambda: page.state == FAILED, timeout=EVENT_MS)
    assert not steps.routes and not steps.created
    assert "wsl --install -d Ubuntu-24.04" in page.reason_label.text()


def test_a_restart_still_due_after_the_step_is_said_and_nothing_is_made(qtbot: QtBot):
    steps = Steps(after=WITHOUT_WSL)  # after installing WSL, wsl.exe says "not installed" until a restart
    _wizard, page, _session = open_page(qtbot, steps)
    question = page.wsl_question
    assert question is not None
    question.run_button.click()
    qtbot.waitUntil(lambda: page.state == FAILED, timeout=EVENT_MS)
    assert len(steps.routes) == 1 and not steps.created
    assert "restart" in page.reason_label.text()
