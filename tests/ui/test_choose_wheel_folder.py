"""The Choose page checks the offline folder of wheels when it is picked (issue 20, point 6), with pytest-qt.

The folder dialog is the boundary (patched to answer a folder); the check is the real one on a
worker: the wizard's uv resolves the plan against the folder of small built wheels
(``builders.wheels``, with real dependency metadata). The page shows what is missing with the
command that fetches it, keeps Next off until the folder can install the plan, and checks again
when the plan changes.
"""

from __future__ import annotations

import platform
import shutil
import sys
from dataclasses import replace
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QFileDialog, QWizard, QWizardPage
from pytestqt.qtbot import QtBot

from builders.wheels import build_wheel
from gpuwizard.core.compat.plan import Plan
from gpuwizard.core.machine.system_report import ManagerFacts, PythonFacts, SystemReport
from gpuwizard.ui.pages.choose import ChoosePage
from gpuwizard.ui.window_fit import MINIMUM_SIZE
from gpuwizard.workflow.envs.setup import release_planner
from gpuwizard.workflow.machine.system_file import load_system_report
from gpuwizard.workflow.wizard.session import WizardSession
from harness.waits import EVENT_MS

SAMPLES = resources.files("gpuwizard.resources").joinpath("samples")
UV = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")


def this_machine_as(sample: str) -> SystemReport:
    """A saved Linux report with this machine's uv and Python, so the check really runs here."""
    report = load_system_report(Path(str(SAMPLES.joinpath(sample))))
    assert UV is not None, "uv is a dependency of the wizard"
    python = PythonFacts(version=platform.python_version(), executable=sys.executable)
    return replace(report, managers=ManagerFacts(uv=UV), interpreters=(python,))


@pytest.fixture
def page(qtbot: QtBot, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> tuple[QWizard, ChoosePage]:
    wizard = QWizard()
    choose = ChoosePage(WizardSession(report=this_machine_as("linux-h200.json")))
    wizard.addPage(choose)
    wizard.addPage(QWizardPage())

    def stop(_wizard: QWizard) -> None:
        choose.timer.stop()
        choose.wait_for_workers()

    qtbot.addWidget(wizard, before_close_func=stop)
    wizard.show()
    qtbot.waitExposed(wizard)
    settle(qtbot, choose)
    return wizard, choose


def settle(qtbot: QtBot, page: ChoosePage) -> None:
    qtbot.waitUntil(lambda: page.outcome is not None and not page.is_busy(), timeout=EVENT_MS)


def checked(qtbot: QtBot, page: ChoosePage) -> str:
    """Wait for the folder's verdict; its text."""
    status = page.inputs.folder_status
    qtbot.waitUntil(lambda: not status.is_checking() and status.check is not None, timeout=EVENT_MS)
    settle(qtbot, page)
    return status.label.text()


def torch_wheel(folder: Path, plan: Plan, requires: tuple[str, ...]) -> None:
    """The plan's torch build as its index names it (2.15.0+cu128), small, with ``requires``."""
    label = f"+{plan.torch_variant}" if plan.index_url and plan.torch_variant else ""
    build_wheel(folder, "torch", plan.framework_version + label, requires=requires)


def pick(qtbot: QtBot, page: ChoosePage, monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """Tick "From a folder of wheels" and choose ``folder`` in the (patched) folder dialog."""
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(lambda *_args, **_kw: str(folder)))
    qtbot.mouseClick(page.inputs.offline_check, Qt.MouseButton.LeftButton)
    assert page.inputs.browse_button.isEnabled()
    qtbot.mouseClick(page.inputs.browse_button, Qt.MouseButton.LeftButton)
    assert page.inputs.folder_edit.text() == str(folder)


def next_button(wizard: QWizard) -> Any:
    return wizard.button(QWizard.WizardButton.NextButton)


def test_a_picked_folder_that_lacks_a_dependency_says_what_and_blocks_next_until_filled(
    qtbot: QtBot, page: tuple[QWizard, ChoosePage], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    wizard, choose = page
    plan = choose.recommendation.plan if choose.recommendation else None
    assert plan is not None and plan.framework == "pytorch"
    folder = tmp_path / "wheels"
    torch_wheel(folder, plan, requires=("filelock>=3.0",))

    pick(qtbot, choose, monkeypatch, folder)
    status = choose.inputs.folder_status
    assert status.isVisible() and "Checking the folder" in status.label.text()
    assert not next_button(wizard).isEnabled()  # not while the check runs

    text = checked(qtbot, choose)
    assert "cannot install torch" in text and "It has no wheel of filelock" in text
    assert "32-bit" not in text
    assert status.command.isVisible()
    # The folder's own torch wheel is used from the folder; only the rest is downloaded.
    assert status.command.text().startswith(f"pip download --dest {folder} --find-links {folder} ")
    assert "--only-binary=:all:" in status.command.text()
    assert f"--python-version {plan.python}" in status.command.text()
    assert not choose.isComplete() and not next_button(wizard).isEnabled()

    build_wheel(folder, "filelock", "3.16.1")
    qtbot.mouseClick(status.again_button, Qt.MouseButton.LeftButton)
    text = checked(qtbot, choose)
    assert (
        text.startswith("Holds torch ")
        and f"everything it needs for Python {plan.python}: 2 wheels, " in text
    )
    assert not status.command.isVisible()
    assert choose.isComplete() and next_button(wizard).isEnabled()
    wizard.next()
    choice = choose.session.choice
    assert choice is not None and choice.offline and choice.find_links == folder


def test_the_folder_is_checked_again_when_the_plan_changes(
    qtbot: QtBot, page: tuple[QWizard, ChoosePage], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    wizard, choose = page
    assert choose.recommendation is not None
    folder = tmp_path / "wheels"
    torch_wheel(folder, choose.recommendation.plan, requires=())
    pick(qtbot, choose, monkeypatch, folder)
    assert checked(qtbot, choose).startswith("Holds torch ")
    assert next_button(wizard).isEnabled()

    choose.inputs.tensorflow_radio.setChecked(True)
    settle(qtbot, choose)
    qtbot.waitUntil(lambda: "tensorflow" in choose.inputs.folder_status.label.text(), timeout=EVENT_MS)
    text = checked(qtbot, choose)
    assert "It has no tensorflow wheel at all" in text
    assert not next_button(wizard).isEnabled()

    qtbot.mouseClick(
        choose.inputs.offline_check, Qt.MouseButton.LeftButton
    )  # untick: packages from the index
    assert not choose.inputs.folder_status.isVisible()
    assert next_button(wizard).isEnabled()


def test_a_folder_of_another_release_offers_that_release_and_picking_it_checks_again(
    qtbot: QtBot, page: tuple[QWizard, ChoosePage], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    """Issue 41, point 8: the folder's own release is one click away, as env create offers --version."""
    wizard, choose = page
    assert choose.recommendation is not None and choose.session.report is not None
    recommended = choose.recommendation.plan
    planner = release_planner(choose.session.report, choose.current_choice())
    # An older release the table plans for the same Python (the folder's wheels were matched to it).
    older = next(
        plan
        for version in choose.releases["pytorch"]
        if (plan := planner(version)) is not None
        and plan.framework_version != recommended.framework_version
        and plan.python == recommended.python
    )
    folder = tmp_path / "wheels"
    torch_wheel(folder, older, requires=())

    pick(qtbot, choose, monkeypatch, folder)
    text = checked(qtbot, choose)
    status = choose.inputs.folder_status
    assert f"cannot install torch {recommended.framework_version}" in text
    assert status.offer_button.isVisible()
    assert older.framework_version in status.offer_button.text()
    assert f"The folder holds torch {older.framework_version}" in text
    # In the smallest window the verdict, the offer and the command stay within the column's
    # view (a long button once widened the column past it, cutting each line off mid-word).
    wizard.resize(MINIMUM_SIZE)
    qtbot.waitUntil(lambda: wizard.size() == MINIMUM_SIZE, timeout=EVENT_MS)
    view = choose.choices_scroll.viewport()
    for widget in (status.label, status.offer_button, status.command):
        right = widget.mapTo(view, QPoint(widget.width(), 0)).x()
        assert right <= view.width(), (widget.objectName(), right, view.width())

    qtbot.mouseClick(status.offer_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(
        lambda: (
            choose.recommendation is not None
            and choose.recommendation.plan.framework_version == older.framework_version
        ),
        timeout=EVENT_MS,
    )
    assert checked(qtbot, choose).startswith("Holds torch ")
    assert not status.offer_button.isVisible()
    assert next_button(wizard).isEnabled()
    assert choose.chosen_version() is not None
