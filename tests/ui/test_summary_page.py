"""The summary page: how to use the environment the wizard made, and what its test found."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWizard
from pytestqt.qtbot import QtBot

from gpuwizard.core.envs.request import SetupRequest
from gpuwizard.core.envs.result import env_result_from_json
from gpuwizard.core.livetest.events import result_from_json
from gpuwizard.ui.pages.summary import SummaryPage
from gpuwizard.workflow.machine.system_file import load_system_report
from gpuwizard.workflow.wizard.session import WizardSession

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
    session = WizardSession(report=load_system_report(Path(str(SAMPLE))), choice=SetupRequest("pytorch"))
    session.env_result = env_result_from_json({
        "event": "result", "status": "ok", "name": "torch-gpu", "path": str(env),
        "python": str(env / "bin" / "python"), "framework_version": "2.13.0", "framework_build": "2.13.0+cu126",
        "manager": "venv", "jupyter_kernel": "gpuwizard-torch-gpu",
    })  # fmt: skip
    session.test_result = result_from_json({"event": "result", "verdict": "gpu_ok", "speedup": 41.5})
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
    session.env_result = env_result_from_json({"event": "result", "status": "cancelled", "name": "x"})
    _wizard, page = open_summary(qtbot, session)
    assert not page.environment.isVisible()
    assert page.verdict.text()


def test_a_support_report_is_saved_on_a_worker_redacted(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    # The Windows sample comes from user "ana": her home folder must not reach the file.
    session = WizardSession(report=load_system_report(Path(str(SAMPLE))))
    _wizard, page = open_summary(qtbot, session)
    target = tmp_path / "for the forum.md"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *_args: (str(target), "Markdown (*.md)"))
    page.support.button.click()
    assert not page.support.button.isEnabled()  # saving: not twice at once
    with qtbot.waitSignal(page.support.saved, timeout=60_000) as saved:
        pass
    assert saved.args == [str(target)]
    text = target.read_text(encoding="utf-8")
    assert text.startswith("# GPU Setup Wizard support report")
    assert "NVIDIA GeForce RTX 2080 SUPER" in text
    assert "C:\\Users\\ana" not in text and "C:\\\\Users\\\\ana" not in text
    assert "%USERPROFILE%" in text
    assert page.support.button.isEnabled()
    assert str(target) in page.support.status.text()


def test_a_support_report_that_cannot_be_written_says_so(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    session = WizardSession(report=load_system_report(Path(str(SAMPLE))))
    _wizard, page = open_summary(qtbot, session)
    warnings: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _parent, _title, text: warnings.append(text))
    page.support.save(tmp_path / "no such folder" / "report")  # no suffix: a web page
    qtbot.waitUntil(lambda: bool(warnings), timeout=60_000)
    assert warnings[0].startswith("The support report was not saved: ")
    assert not (tmp_path / "no such folder").exists()
    assert page.support.button.isEnabled()
    assert page.support.status.text() == warnings[0]  # the line says so too, naming no earlier file


def test_an_environment_inside_wsl_says_how_to_open_it_from_windows(qtbot: QtBot):
    from gpuwizard.core.compat.plan import parse_wish
    from gpuwizard.core.compat.recommend import recommend
    from gpuwizard.workflow.compat.data import load_compat

    report = load_system_report(
        Path(__file__).parents[1] / "fixtures" / "reports" / "windows-rtx4070-581.57-wsl-ubuntu2404.json"
    )
    session = WizardSession(report=report, choice=SetupRequest("tensorflow", name="tf"))
    session.recommendation = recommend(report, parse_wish("tensorflow", None), load_compat())
    env = "/home/zoe/.local/share/gpuwizard/envs/tf"
    session.env_result = env_result_from_json({
        "event": "result", "status": "ok", "name": "tf", "path": env, "python": f"{env}/bin/python",
        "framework_version": "2.21.0", "manager": "wsl", "tool": "uv",
    })  # fmt: skip
    _wizard, page = open_summary(qtbot, session)
    # Its shell opened from Windows, then the Linux venv activated there: no Windows script.
    assert page.activate.text().splitlines() == [
        'wsl -d Ubuntu-24.04 --cd "~"    (PowerShell or cmd)',
        f"source {env}/bin/activate    (then in Ubuntu-24.04)",
    ]
    usage = page.usage.text()
    assert page.usage.isVisible()
    assert "code --remote wsl+Ubuntu-24.04 /home/zoe" in usage
    assert "jupyter lab --no-browser" in usage and "On WSL" in usage
    assert page.interpreter.text() == f"{env}/bin/python"


# --- issue 41, point 7: the last page ---------------------------------------------------------------


def test_the_last_page_has_finish_and_no_cancel_and_says_what_each_report_is(qtbot: QtBot, tmp_path: Path):
    from gpuwizard.ui.screenshots import screenshot_session
    from gpuwizard.ui.wizard import PageId, SetupWizard

    registry = tmp_path / "registry.json"
    registry.write_text(
        resources.files("gpuwizard.resources").joinpath("samples/registry/windows-cuda12.json").read_text()
    )
    wizard = SetupWizard(
        screenshot_session(load_system_report(Path(str(SAMPLE))), registry), start_detection=False
    )
    qtbot.addWidget(wizard, before_close_func=lambda w: w.done(0))
    wizard.show()
    qtbot.waitExposed(wizard)
    wizard.setStartId(PageId.SUMMARY)
    wizard.restart()
    page = wizard.summary_page
    assert wizard.currentPage() is page
    assert wizard.button(QWizard.WizardButton.FinishButton).isVisible()
    assert not wizard.button(QWizard.WizardButton.CancelButton).isVisible()
    # Each report with a sentence of its own, beside its button: which file, for whom.
    assert page.save_button.text() == "&Save the system report…"
    assert page.save_text.isVisible() and "JSON file the wizard can open again" in page.save_text.text()
    assert page.support_text.isVisible() and page.support_text.text().startswith("For someone helping you")
    assert "replaced" in page.support_text.text()
    assert page.save_text.text() != page.support_text.text()
    assert page.save_button.accessibleDescription() == page.save_text.text()
    assert page.support.button.accessibleDescription() == page.support_text.text()
