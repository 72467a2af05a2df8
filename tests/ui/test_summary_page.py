"""The summary page: how to use the environment the wizard made, and what its test found."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from gpuwizard.ui.pages.summary import SummaryPage
from gpuwizard.workflow.session import WizardSession
from gpuwizard.workflow.system_file import load_system_report
from gpuwizard.workflow.wizard_steps import Choice
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWizard
from pytestqt.qtbot import QtBot

SAMPLE = resources.files("gpuwizard.resources").joinpath("samples/windows-rtx2080super-two-cuda.json")


def open_summary(qtbot: QtBot, session: WizardSession) -> tuple[QWizard, SummaryPage]:
    wizard = QWizard()
    qtbot.addWidget(wizard)
    page = SummaryPage(session)
    wizard.addPage(page)
    page.set_report(session.report)
    wizard.show()
    return wizard, page  # the caller holds the wizard: it owns the page


def test_the_environment_is_explained_with_activation_interpreter_kernel_and_test(
    qtbot: QtBot, tmp_path: Path
):
    env = tmp_path / "envs" / "torch-gpu"
    session = WizardSession(report=load_system_report(Path(str(SAMPLE))), choice=Choice("pytorch"))
    session.env_result = {
        "event": "result", "status": "ok", "name": "torch-gpu", "path": str(env),
        "python": str(env / "bin" / "python"), "framework_version": "2.13.0", "framework_build": "2.13.0+cu126",
        "manager": "venv", "jupyter_kernel": "gpuwizard-torch-gpu",
    }  # fmt: skip
    session.test_result = {"event": "result", "verdict": "gpu_ok", "speedup": 41.5}
    _wizard, page = open_summary(qtbot, session)
    assert page.environment.isVisible()
    assert "PyTorch 2.13.0+cu126" in page.env_name.text()
    assert f"source {env}/bin/activate" in page.activate.text()
    assert page.interpreter.text() == str(env / "bin" / "python")
    assert page.kernel.text() == "gpuwizard-torch-gpu"
    assert "41.5" in page.test_line.text()
    page.copy_button.click()
    assert QGuiApplication.clipboard().text() == str(env / "bin" / "python")


def test_without_an_environment_the_section_is_hidden(qtbot: QtBot):
    session = WizardSession(report=load_system_report(Path(str(SAMPLE))))
    session.env_result = {"event": "result", "status": "cancelled", "name": "x"}
    _wizard, page = open_summary(qtbot, session)
    assert not page.environment.isVisible()
    assert page.verdict.text()
