"""A preview (``gpuwizard --system FILE``) shows the PATH page when the plan changes PATH (issue 20, point 7).

On the Windows sample, TensorFlow 2.10 in a venv puts CUDA 11.2 and cuDNN on PATH. The Choose
page says "the next page shows the change first"; before the fix Next skipped the PATH page in
a preview, because a preview has no registry to change. The wizard opens here as the command
opens it (``session_for_this_machine`` with the saved report's file), with the real recommender.
"""

from __future__ import annotations

from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton, QWizard
from pytestqt.qtbot import QtBot

from gpuwizard.ui.wizard import PageId, SetupWizard
from gpuwizard.workflow.machine.system_file import load_system_report
from gpuwizard.workflow.wizard.session import session_for_this_machine
from harness.kept_wizards import close_kept, keep
from harness.waits import EVENT_MS

SAMPLES = resources.files("gpuwizard.resources").joinpath("samples")
WINDOWS = Path(str(SAMPLES.joinpath("windows-rtx2080super-two-cuda.json")))
CUDA_11_2 = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.2"


@pytest.fixture(autouse=True)
def _close_wizards() -> Iterator[None]:
    """Each wizard a test opens is closed after it, its workers waited for (harness/kept_wizards.py)."""
    yield
    close_kept()


def press_next(qtbot: QtBot, wizard: SetupWizard) -> None:
    qtbot.waitUntil(wizard.currentPage().isComplete, timeout=EVENT_MS)
    button = wizard.button(QWizard.WizardButton.NextButton)
    assert isinstance(button, QPushButton)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def test_a_preview_of_a_plan_that_changes_path_shows_the_path_page(qtbot: QtBot):
    session = session_for_this_machine(load_system_report(WINDOWS), WINDOWS)
    assert session.preview and session.path_store is None  # nothing of this machine is used
    wizard = SetupWizard(session)
    keep(wizard)
    qtbot.addWidget(wizard)
    wizard.show()
    qtbot.waitExposed(wizard)
    press_next(qtbot, wizard)
    press_next(qtbot, wizard)
    assert wizard.currentId() == PageId.CHOOSE

    choose = wizard.choose_page
    choose.inputs.tensorflow_radio.setChecked(True)
    qtbot.waitUntil(lambda: choose.inputs.version_combo.findData("2.10") > 0, timeout=EVENT_MS)
    choose.inputs.version_combo.setCurrentIndex(choose.inputs.version_combo.findData("2.10"))
    choose.inputs.venv_radio.setChecked(True)
    qtbot.waitUntil(
        lambda: choose.isComplete() and "2.10" in choose.panel.plan_framework.text(), timeout=EVENT_MS
    )
    assert "the next page shows the change first" in choose.panel.changes.text()
    press_next(qtbot, wizard)

    # The PATH page, as a preview: the folders the plan adds, nothing to apply.
    assert wizard.currentId() == PageId.PATH
    page = wizard.path_page
    assert page.isComplete()
    assert page.preview_note.isVisible() and "saved report" in page.preview_note.text()
    assert "does not hold that machine's PATH" in page.preview_note.text()
    assert "cudart64_110.dll" in page.intro.text()
    summary = page.diff_summary.text()
    assert "user PATH" in summary
    assert f"{CUDA_11_2}\\bin" in summary and "C:\\tools\\cuda\\bin" in summary
    assert page.diff_summary.isVisible() and not page.diff.isVisible()
    assert not page.entries_box.isVisible()  # a saved report holds no PATH values to list
    assert not page.apply_button.isEnabled() and not page.undo_button.isEnabled()

    # Choosing the system PATH says so, and that it would ask for administrator rights.
    page.scope_combo.setCurrentIndex(page.scope_combo.findData("system"))
    assert "system PATH" in page.diff_summary.text() and page.admin_note.isVisible()
    assert session.path_request is not None and session.path_request.scope == "system"

    # On to the preview's Install page: nothing is installed, so nothing is asked.
    assert wizard.button(QWizard.WizardButton.NextButton).text() == "&Next >"
    press_next(qtbot, wizard)
    assert wizard.install_question is None
    assert wizard.currentId() == PageId.INSTALL and wizard.install_page.preview_note.isVisible()


def test_a_preview_of_a_plan_without_path_changes_skips_the_page(qtbot: QtBot):
    session = session_for_this_machine(load_system_report(WINDOWS), WINDOWS)
    wizard = SetupWizard(session)
    keep(wizard)
    qtbot.addWidget(wizard)
    wizard.show()
    qtbot.waitExposed(wizard)
    press_next(qtbot, wizard)
    press_next(qtbot, wizard)
    choose = wizard.choose_page
    qtbot.waitUntil(lambda: choose.isComplete() and choose.recommendation is not None, timeout=EVENT_MS)
    assert choose.recommendation is not None
    assert not choose.recommendation.plan.path_entries  # PyTorch brings its own CUDA
    press_next(qtbot, wizard)
    assert wizard.currentId() == PageId.INSTALL
