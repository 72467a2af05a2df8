"""The summary page for a conda environment made by py-rattler: its own scripts, not `conda activate`."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from PySide6.QtWidgets import QWizard
from pytestqt.qtbot import QtBot

from gpuwizard.core.envs.request import SetupRequest
from gpuwizard.core.envs.result import env_result_from_json
from gpuwizard.ui.pages.summary import SummaryPage
from gpuwizard.workflow.machine.system_file import load_system_report
from gpuwizard.workflow.wizard.session import WizardSession

SAMPLE = resources.files("gpuwizard.resources").joinpath("samples/windows-rtx2080super-two-cuda.json")


def test_a_rattler_environment_shows_its_activation_scripts_and_interpreter(qtbot: QtBot, tmp_path: Path):
    env = tmp_path / "envs" / "tf-gpu"
    report = load_system_report(Path(str(SAMPLE)))
    session = WizardSession(report=report, choice=SetupRequest("tensorflow"))
    session.env_result = env_result_from_json({
        "event": "result", "status": "ok", "name": "tf-gpu", "path": str(env),
        "python": str(env / "bin" / "python"), "framework_version": "2.10.1",
        "manager": "conda", "tool": "rattler", "jupyter_kernel": "gpuwizard-tf-gpu",
    })  # fmt: skip
    wizard = QWizard()
    qtbot.addWidget(wizard)
    page = SummaryPage(session)
    wizard.addPage(page)
    page.set_report(report)
    wizard.show()
    text = page.activate.text()
    assert f"source {env}/bin/activate    (bash, zsh)" in text
    assert f"source {env}/bin/activate.fish    (fish)" in text
    assert "conda activate" not in text
    assert page.interpreter.text() == str(env / "bin" / "python")
    assert page.kernel.text() == "gpuwizard-tf-gpu"
