"""The step that changes the machine has its own button, a last summary, and a question to stop it.

Issue 20, point 2: Next on Choose started a multi-GB download without saying so, and Cancel or
closing the window during the install threw it away without asking. Now the last page before the
Install page says "Install", pressing it shows what is downloaded (about how much, from where) and
written first, and Cancel, Escape or closing the window while the install runs ask before
stopping it. The whole wizard runs offscreen on the sample reports with the real recommender;
the install is a fake step that waits to be cancelled (nothing is downloaded here).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QPushButton, QWizard
from pytestqt.qtbot import QtBot

from fakes.env_steps import typed
from gpuwizard.core.envs.request import SetupRequest
from gpuwizard.core.machine.system_report import SystemReport
from gpuwizard.ui.pages.install import CANCELLED, OK, RUNNING
from gpuwizard.ui.widgets.install_summary import InstallQuestion
from gpuwizard.ui.wizard import PageId, SetupWizard
from gpuwizard.workflow.envs.prepare import default_envs_dir
from gpuwizard.workflow.envs.setup import recommend_for
from gpuwizard.workflow.machine.system_file import load_system_report
from gpuwizard.workflow.wizard.install_summary import install_summary
from gpuwizard.workflow.wizard.session import WizardSession
from harness.install_page import stop_the_install
from harness.kept_wizards import keep
from harness.waits import EVENT_MS, EVENT_S

SAMPLES = resources.files("gpuwizard.resources").joinpath("samples")
Event = dict[str, Any]
Sink = Callable[[Event], None]
CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def sample(name: str) -> SystemReport:
    return load_system_report(Path(str(SAMPLES.joinpath(name))))


class HeldInstall:
    """A ``create_env`` that starts, then waits until it is cancelled or released."""

    def __init__(self) -> None:
        self.calls = 0
        self.started = threading.Event()
        self.release = threading.Event()
        self.saw_cancel = False

    def __call__(
        self, _r: Any, _rec: Any, choice: SetupRequest, on_event: Sink, cancel: threading.Event
    ) -> Event:
        self.calls += 1
        on_event({"event": "phase", "phase": "install", "message": "installing torch"})
        self.started.set()
        while not cancel.is_set() and not self.release.is_set():
            cancel.wait(0.05)  # not a guess: a polling interval (either event ends the loop)
        self.saw_cancel = cancel.is_set()
        if self.saw_cancel:
            result = {"event": "result", "status": "cancelled", "name": choice.name, "path": "/x",
                      "error": "cancelled by the user", "rollback_problems": []}  # fmt: skip
        else:
            result = {"event": "result", "status": "ok", "name": choice.name, "path": "/x",
                      "python": "/x/bin/python", "framework_version": "2.13.0", "manager": "venv"}  # fmt: skip
        on_event(result)
        return result


def open_wizard(qtbot: QtBot, session: WizardSession) -> SetupWizard:
    wizard = SetupWizard(session)
    keep(wizard)
    qtbot.addWidget(wizard)
    wizard.show()
    qtbot.waitExposed(wizard)
    return wizard


def next_button(wizard: SetupWizard) -> QPushButton:
    button = wizard.button(QWizard.WizardButton.NextButton)
    assert isinstance(button, QPushButton)
    return button


def to_choose(qtbot: QtBot, wizard: SetupWizard) -> None:
    wizard.next()
    qtbot.waitUntil(wizard.detect_page.isComplete, timeout=EVENT_MS)
    wizard.next()
    assert wizard.currentId() == PageId.CHOOSE
    choose = wizard.choose_page
    qtbot.waitUntil(lambda: choose.isComplete() and choose.recommendation is not None, timeout=EVENT_MS)


def press_next(qtbot: QtBot, wizard: SetupWizard) -> None:
    qtbot.mouseClick(next_button(wizard), Qt.MouseButton.LeftButton)


def asked(qtbot: QtBot, wizard: SetupWizard) -> InstallQuestion:
    qtbot.waitUntil(
        lambda: wizard.install_question is not None and wizard.install_question.isVisible(), timeout=EVENT_MS
    )
    assert wizard.install_question is not None
    return wizard.install_question


def to_a_running_install(qtbot: QtBot, fake: HeldInstall) -> SetupWizard:
    session = WizardSession(report=sample("no-gpu.json"), create_env=typed(fake))
    wizard = open_wizard(qtbot, session)
    to_choose(qtbot, wizard)
    press_next(qtbot, wizard)
    qtbot.mouseClick(asked(qtbot, wizard).install_button, Qt.MouseButton.LeftButton)
    assert wizard.currentId() == PageId.INSTALL
    assert fake.started.wait(EVENT_S)
    qtbot.waitUntil(lambda: wizard.install_page.state == RUNNING, timeout=EVENT_MS)
    # Back is off while it runs (the step owns the folder); the page turns it off once the wizard is done updating it.
    back = wizard.button(QWizard.WizardButton.BackButton)
    qtbot.waitUntil(lambda: not back.isEnabled(), timeout=EVENT_MS)
    return wizard


# --- Install: its own button and the last summary ----------------------------------------------


def test_next_on_choose_reads_install_and_asks_with_what_is_downloaded_and_written(qtbot: QtBot):
    fake = HeldInstall()
    fake.release.set()
    session = WizardSession(report=sample("no-gpu.json"), create_env=typed(fake))
    wizard = open_wizard(qtbot, session)
    assert next_button(wizard).text() == "&Next >"  # Welcome
    to_choose(qtbot, wizard)
    assert next_button(wizard).text() == "&Install"  # no PATH page: this is the step that installs

    press_next(qtbot, wizard)
    question = asked(qtbot, wizard)
    assert wizard.currentId() == PageId.CHOOSE and fake.calls == 0
    details = question.informativeText()
    name = wizard.choose_page.inputs.name_edit.text()
    assert name in question.text()
    assert CPU_INDEX in details  # where from
    assert "GB" in details or "MB" in details  # about how much
    assert str(default_envs_dir() / name) in details  # what is written
    assert "torch==" in details
    assert question.defaultButton() is question.install_button
    assert question.escapeButton() is question.back_button

    # Escape backs out: still on Choose, nothing installed, the question can come again.
    qtbot.keyClick(question, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: wizard.install_question is None, timeout=EVENT_MS)
    assert wizard.currentId() == PageId.CHOOSE and fake.calls == 0

    press_next(qtbot, wizard)
    qtbot.mouseClick(asked(qtbot, wizard).install_button, Qt.MouseButton.LeftButton)
    assert wizard.currentId() == PageId.INSTALL
    qtbot.waitUntil(lambda: wizard.install_page.state == OK, timeout=EVENT_MS)
    assert fake.calls == 1
    # Back on another page, the button is Next again.
    assert next_button(wizard).text() != "&Install"


def test_a_preview_never_says_install_and_asks_nothing(qtbot: QtBot):
    fake = HeldInstall()
    session = WizardSession(
        report=sample("no-gpu.json"), system_file=Path("saved.json"), create_env=typed(fake)
    )
    wizard = open_wizard(qtbot, session)
    to_choose(qtbot, wizard)
    assert next_button(wizard).text() == "&Next >"
    press_next(qtbot, wizard)
    assert wizard.install_question is None
    assert wizard.currentId() == PageId.INSTALL and fake.calls == 0  # the preview's Install page runs nothing


def test_with_a_folder_of_wheels_nothing_is_downloaded_and_the_folder_is_named(qtbot: QtBot, tmp_path: Path):
    folder = tmp_path / "wheels"
    folder.mkdir()
    (folder / "torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl").write_bytes(b"\0" * 3_000_000)
    (folder / "filelock-3.16.1-py3-none-any.whl").write_bytes(b"\0" * 500_000)
    (folder / "notes.txt").write_bytes(b"\0" * 9_000_000)  # not a wheel: not counted
    report = sample("no-gpu.json")
    choice = SetupRequest("pytorch", version="2.13", name="torch-offline", find_links=folder, offline=True)
    summary = install_summary(recommend_for(report, choice), choice, envs_folder=str(tmp_path / "envs"))
    assert summary.download_bytes is None and summary.wheel_bytes == 3_500_000
    assert summary.sources == (str(folder),)

    question = InstallQuestion(summary)
    qtbot.addWidget(question)
    details = question.informativeText()
    assert "Nothing is downloaded" in details and str(folder) in details
    assert "3.5 MB" in details  # the folder's wheels, in decimal units
    assert CPU_INDEX not in details and "pypi.org" not in details
    assert str(tmp_path / "envs" / "torch-offline") in details


def test_the_summary_names_the_plans_indexes_or_pypi(qtbot: QtBot, tmp_path: Path):
    report = sample("windows-rtx2080super-two-cuda.json")
    tf = SetupRequest("tensorflow", version="2.10", manager="venv", name="tf")
    summary = install_summary(recommend_for(report, tf), tf, envs_folder=str(tmp_path))
    assert summary.sources == ("https://pypi.org/simple",)  # TensorFlow comes from PyPI
    assert summary.download_bytes is not None and summary.download_bytes > 100_000_000
    question = InstallQuestion(summary)
    qtbot.addWidget(question)
    assert "https://pypi.org/simple (PyPI)" in question.informativeText()


# --- stopping a running install asks first -----------------------------------------------------


@pytest.mark.parametrize("how", ["cancel button", "escape", "close"])
def test_closing_during_the_install_asks_and_keep_installing_leaves_it_running(qtbot: QtBot, how: str):
    fake = HeldInstall()
    wizard = to_a_running_install(qtbot, fake)
    if how == "cancel button":
        qtbot.mouseClick(wizard.button(QWizard.WizardButton.CancelButton), Qt.MouseButton.LeftButton)
    elif how == "escape":
        qtbot.keyClick(wizard, Qt.Key.Key_Escape)
    else:
        assert not wizard.close()  # the window stays
    question = wizard.stop_question
    assert question is not None and question.isVisible()
    assert question.text() == "Stop the install?"
    assert question.informativeText() == "What was downloaded and made so far is removed."
    assert (
        question.defaultButton() is question.keep_button and question.escapeButton() is question.keep_button
    )

    qtbot.keyClick(question, Qt.Key.Key_Escape)  # Escape keeps installing
    qtbot.waitUntil(lambda: wizard.stop_question is None, timeout=EVENT_MS)
    assert wizard.isVisible() and wizard.currentId() == PageId.INSTALL
    assert wizard.install_page.state == RUNNING and not wizard.install_page.work.cancel_event.is_set()

    fake.release.set()  # the install goes on to the end, untouched
    qtbot.waitUntil(lambda: wizard.install_page.state == OK, timeout=EVENT_MS)
    assert not fake.saw_cancel


def test_stop_cancels_the_install_rolls_it_back_and_closes(qtbot: QtBot):
    fake = HeldInstall()
    wizard = to_a_running_install(qtbot, fake)
    with qtbot.waitSignal(wizard.rejected, timeout=EVENT_MS):
        wizard.close()
        question = wizard.stop_question
        assert question is not None
        qtbot.mouseClick(question.stop_button, Qt.MouseButton.LeftButton)
    assert fake.saw_cancel and not wizard.isVisible()
    qtbot.waitUntil(
        lambda: wizard.install_page.state == CANCELLED, timeout=EVENT_MS
    )  # the rolled-back result


def test_an_install_that_ends_while_asked_closes_the_question(qtbot: QtBot):
    fake = HeldInstall()
    wizard = to_a_running_install(qtbot, fake)
    qtbot.keyClick(wizard, Qt.Key.Key_Escape)
    assert wizard.stop_question is not None
    fake.release.set()
    qtbot.waitUntil(lambda: wizard.stop_question is None, timeout=EVENT_MS)
    assert wizard.install_page.state == OK and not fake.saw_cancel
    assert wizard.isVisible()
    # Nothing runs now: Cancel closes at once.
    with qtbot.waitSignal(wizard.rejected, timeout=EVENT_MS):
        qtbot.mouseClick(wizard.button(QWizard.WizardButton.CancelButton), Qt.MouseButton.LeftButton)
    assert QApplication.activeModalWidget() is None


def test_the_summary_warns_when_an_index_did_not_answer_on_choose(qtbot: QtBot, tmp_path: Path):
    report = sample("no-gpu.json")
    choice = SetupRequest("pytorch", version="2.13", name="torch-cpu")
    summary = install_summary(recommend_for(report, choice), choice, envs_folder=str(tmp_path))
    unreachable = InstallQuestion(summary, sources_ok=False)
    checking = InstallQuestion(summary, sources_ok=None)
    fine = InstallQuestion(summary)
    for question in (unreachable, checking, fine):
        qtbot.addWidget(question)
    assert "did not answer" in unreachable.informativeText()
    assert "still being checked" in checking.informativeText()
    assert "did not answer" not in fine.informativeText() and "still" not in fine.informativeText()


def test_back_stays_off_while_the_install_runs_even_when_an_earlier_page_changes(qtbot: QtBot):
    fake = HeldInstall()
    wizard = to_a_running_install(qtbot, fake)
    back = wizard.button(QWizard.WizardButton.BackButton)
    # QWizard turns Back on again on any page's completeChanged (a Choose worker answering late).
    wizard.choose_page.completeChanged.emit()
    assert not back.isEnabled()
    fake.release.set()
    qtbot.waitUntil(lambda: wizard.install_page.state == OK, timeout=EVENT_MS)


def test_the_pages_cancel_button_asks_too_and_keep_installing_leaves_it_running(qtbot: QtBot):
    fake = HeldInstall()
    wizard = to_a_running_install(qtbot, fake)
    page = wizard.install_page
    qtbot.mouseClick(page.cancel_button, Qt.MouseButton.LeftButton)
    question = page.stop_question
    assert question is not None and question.isVisible()
    assert question.defaultButton() is question.keep_button
    qtbot.mouseClick(question.keep_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.stop_question is None, timeout=EVENT_MS)
    assert page.state == RUNNING and not page.work.cancel_event.is_set()
    assert wizard.isVisible()

    stop_the_install(qtbot, page)  # Stop: cancelled and rolled back, the window stays open
    qtbot.waitUntil(lambda: page.state == CANCELLED, timeout=EVENT_MS)
    assert fake.saw_cancel and wizard.isVisible()


def test_the_pages_question_closes_when_the_install_ends_meanwhile(qtbot: QtBot):
    fake = HeldInstall()
    wizard = to_a_running_install(qtbot, fake)
    page = wizard.install_page
    qtbot.mouseClick(page.cancel_button, Qt.MouseButton.LeftButton)
    assert page.stop_question is not None
    fake.release.set()
    qtbot.waitUntil(lambda: page.state == OK and page.stop_question is None, timeout=EVENT_MS)
    assert not fake.saw_cancel
