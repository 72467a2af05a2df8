"""The whole wizard by keyboard alone (issue 20, point 5): Enter, Tab, Space and Alt+letters.

Every key goes to the widget that has the focus, as a person's keyboard does: nothing here
clicks, calls a page's method or sets a widget's value. The pages' long steps replay runs
recorded from the real commands (``resources/samples/runs/``), as the screenshots do, so the
Install and Test pages show real output without installing or training anything; the PATH page
works on a copy of the sample registry snapshot.

Before the fix, Enter on the Detect page pressed its hidden Retry button (QWizard gave it the
focus) and ran detection again instead of going on.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QPushButton, QWidget, QWizard
from pytestqt.qtbot import QtBot

from gpuwizard.adapters.registry import SnapshotFileEnvironment
from gpuwizard.core.machine.system_report import SystemReport
from gpuwizard.ui.pages.install import OK
from gpuwizard.ui.pages.live_test import DONE
from gpuwizard.ui.screenshots import RUN_ENV_CREATE, RUN_TEST, RUN_VERIFY
from gpuwizard.ui.wizard import PageId, SetupWizard
from gpuwizard.workflow.machine.system_file import load_system_report
from gpuwizard.workflow.wizard.replay import recorded_events, replay_env_create, replay_test, replay_verify
from gpuwizard.workflow.wizard.session import WizardSession
from harness.kept_wizards import keep
from harness.waits import EVENT_MS

SAMPLES = resources.files("gpuwizard.resources").joinpath("samples")
WINDOWS = "windows-rtx2080super-two-cuda.json"
NO_MODIFIER = Qt.KeyboardModifier.NoModifier
ALT = Qt.KeyboardModifier.AltModifier


def sample(name: str) -> SystemReport:
    return load_system_report(Path(str(SAMPLES.joinpath(name))))


class CountingDetection:
    """A detection that answers a sample and counts how often it was asked."""

    def __init__(self, report: SystemReport) -> None:
        self.report = report
        self.calls = 0

    def __call__(self) -> SystemReport:
        self.calls += 1
        return self.report


def record_nothing(*_args: object) -> None:
    return None


def open_wizard(qtbot: QtBot, session: WizardSession) -> SetupWizard:
    wizard = SetupWizard(session)
    keep(wizard)
    qtbot.addWidget(wizard)
    wizard.show()
    qtbot.waitExposed(wizard)
    wizard.activateWindow()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is not None, timeout=EVENT_MS)
    return wizard


def focused() -> QWidget:
    widget = QApplication.focusWidget()
    assert widget is not None, "nothing has the keyboard focus"
    assert widget.isVisible(), f"a hidden widget holds the focus: {widget!r} {widget.objectName()}"
    return widget


def press(qtbot: QtBot, key: Qt.Key, modifier: Qt.KeyboardModifier = NO_MODIFIER) -> None:
    """One key, to the widget with the focus (never a hidden one)."""
    qtbot.keyClick(focused(), key, modifier)


def type_text(qtbot: QtBot, text: str) -> None:
    qtbot.keyClicks(focused(), text)


def wait_for_focus(qtbot: QtBot, widget: QWidget) -> None:
    """A window that opens gets the focus once the window system has activated it (an event away)."""
    qtbot.waitUntil(lambda: QApplication.focusWidget() is widget, timeout=EVENT_MS)


def tab_until(qtbot: QtBot, wanted: Callable[[QWidget], bool], presses: int = 40) -> list[QWidget]:
    """Press Tab until the focused widget is ``wanted``; every widget it passes is shown."""
    reached: list[QWidget] = []
    for _ in range(presses):
        if wanted(focused()):
            return reached
        press(qtbot, Qt.Key.Key_Tab)
        reached.append(focused())
    raise AssertionError(f"Tab never reached the widget: {[w.objectName() or repr(w) for w in reached]}")


def tab_round(qtbot: QtBot, presses: int = 30) -> list[QWidget]:
    """Tab ``presses`` times; the focus never rests on a hidden widget (``focused`` checks)."""
    reached = []
    for _ in range(presses):
        press(qtbot, Qt.Key.Key_Tab)
        reached.append(focused())
    return reached


def on_the_page_or_forward(wizard: SetupWizard) -> Callable[[QWidget], bool]:
    """A widget of the current page, or the wizard's Next, Commit or Finish button.

    The wizard's own Back and Cancel buttons take Enter while they have the focus, as every
    dialog's buttons do (Qt documentation, QPushButton "autoDefault"); a walk that wants Enter
    to mean Next leaves them first, as a person would.
    """
    forward = {
        wizard.button(which)
        for which in (
            QWizard.WizardButton.NextButton,
            QWizard.WizardButton.CommitButton,
            QWizard.WizardButton.FinishButton,
        )
    }
    return lambda widget: widget in forward or wizard.currentPage().isAncestorOf(widget)


def enter_goes_on(qtbot: QtBot, wizard: SetupWizard, expected: PageId, timeout: int = 20_000) -> None:
    """Wait until the page lets the person go on, then Enter goes to ``expected``."""
    page = wizard.currentPage()
    qtbot.waitUntil(page.isComplete, timeout=timeout)
    tab_until(qtbot, on_the_page_or_forward(wizard))
    press(qtbot, Qt.Key.Key_Return)
    assert wizard.currentId() == expected, (wizard.currentId(), focused())


def wizard_button(wizard: SetupWizard, which: QWizard.WizardButton) -> QPushButton:
    button = wizard.button(which)
    assert isinstance(button, QPushButton)
    return button


@pytest.fixture
def windows_session(tmp_path: Path) -> WizardSession:
    registry = tmp_path / "registry.json"
    registry.write_bytes(Path(str(SAMPLES.joinpath("registry/windows-cuda12.json"))).read_bytes())
    return WizardSession(
        report=sample(WINDOWS),
        detect=CountingDetection(sample(WINDOWS)),
        path_store=SnapshotFileEnvironment(registry),
        create_env=replay_env_create(RUN_ENV_CREATE),
        run_test=replay_test(RUN_TEST),
        record_good=record_nothing,
    )


def test_enter_on_the_detect_page_goes_on_and_does_not_detect_again(qtbot: QtBot):
    detection = CountingDetection(sample("no-gpu.json"))
    wizard = open_wizard(qtbot, WizardSession(detect=detection))
    qtbot.waitUntil(wizard.detect_page.isComplete, timeout=EVENT_MS)
    assert detection.calls == 1
    press(qtbot, Qt.Key.Key_Return)
    assert wizard.currentId() == PageId.DETECT
    assert not wizard.detect_page.retry_button.isVisible()
    press(qtbot, Qt.Key.Key_Return)
    assert wizard.currentId() == PageId.CHOOSE
    assert detection.calls == 1


def walk_choose(qtbot: QtBot, wizard: SetupWizard) -> None:
    """TensorFlow 2.10 in a venv (the plan that puts CUDA 11.2 on PATH), named and with its GPU, by keys."""
    choose = wizard.choose_page
    qtbot.waitUntil(lambda: choose.inputs.version_combo.findData("2.10") > 0, timeout=EVENT_MS)
    press(qtbot, Qt.Key.Key_T, ALT)
    qtbot.waitUntil(
        choose.inputs.tensorflow_radio.isChecked, timeout=EVENT_MS
    )  # a mnemonic animates the click
    qtbot.waitUntil(lambda: choose.inputs.version_combo.findData("2.10") > 0, timeout=EVENT_MS)
    press(qtbot, Qt.Key.Key_V, ALT)
    assert focused() is choose.inputs.version_combo
    for _ in range(choose.inputs.version_combo.count()):
        if choose.inputs.version_combo.currentData() == "2.10":
            break
        press(qtbot, Qt.Key.Key_Down)
    assert choose.inputs.version_combo.currentData() == "2.10"
    press(qtbot, Qt.Key.Key_E, ALT)
    qtbot.waitUntil(choose.inputs.venv_radio.isChecked, timeout=EVENT_MS)
    press(qtbot, Qt.Key.Key_M, ALT)
    assert focused() is choose.inputs.name_edit
    press(qtbot, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    type_text(qtbot, "tf-keys")
    assert choose.inputs.name_edit.text() == "tf-keys"
    # Space ticks the GPU off and on again; the plan waits for a ticked one.
    press(qtbot, Qt.Key.Key_G, ALT)
    assert focused() is choose.inputs.gpu_list
    press(qtbot, Qt.Key.Key_Home)
    item = choose.inputs.gpu_list.currentItem()
    assert item is not None
    press(qtbot, Qt.Key.Key_Space)
    assert item.checkState() == Qt.CheckState.Unchecked
    assert not choose.isComplete()  # no GPU ticked
    press(qtbot, Qt.Key.Key_Space)
    assert item.checkState() == Qt.CheckState.Checked
    tab_round(qtbot, 25)
    qtbot.waitUntil(
        lambda: choose.isComplete() and "2.10" in choose.panel.plan_framework.text(), timeout=EVENT_MS
    )
    # The PATH page comes next, so this is not yet the step that installs.
    assert wizard_button(wizard, QWizard.WizardButton.NextButton).text() == "&Next >"


def walk_path(qtbot: QtBot, wizard: SetupWizard) -> None:
    """Alt+letters reach the PATH page's choices; Next reads Install, asks first, Escape backs out."""
    path = wizard.path_page
    qtbot.waitUntil(lambda: path.overview is not None and not path.is_busy(), timeout=EVENT_MS)
    focused()
    press(qtbot, Qt.Key.Key_A, ALT)
    assert focused() is path.scope_combo
    press(qtbot, Qt.Key.Key_C, ALT)
    assert focused() is path.other_combo
    tab_round(qtbot, 20)
    assert wizard_button(wizard, QWizard.WizardButton.NextButton).text() == "&Install"
    tab_until(qtbot, on_the_page_or_forward(wizard))
    press(qtbot, Qt.Key.Key_I, ALT)
    qtbot.waitUntil(
        lambda: wizard.install_question is not None and wizard.install_question.isVisible(), timeout=EVENT_MS
    )
    question = wizard.install_question
    assert question is not None
    wait_for_focus(qtbot, question.install_button)  # the default: Enter installs
    press(qtbot, Qt.Key.Key_Escape)  # backs out: nothing happens
    qtbot.waitUntil(lambda: wizard.install_question is None, timeout=EVENT_MS)
    assert wizard.currentId() == PageId.PATH and wizard.session.env_result is None
    qtbot.waitUntil(lambda: path.isAncestorOf(focused()), timeout=EVENT_MS)
    press(qtbot, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: wizard.install_question is not None, timeout=EVENT_MS)  # prepared in a worker
    question = wizard.install_question
    assert question is not None
    wait_for_focus(qtbot, question.install_button)
    press(qtbot, Qt.Key.Key_Return)
    assert wizard.currentId() == PageId.INSTALL


def test_every_page_by_keyboard_alone_from_welcome_to_finish(qtbot: QtBot, windows_session: WizardSession):
    session = windows_session
    wizard = open_wizard(qtbot, session)

    # Welcome: nothing to fill in; the focus is on Next.
    assert wizard.currentId() == PageId.WELCOME
    assert focused() is wizard_button(wizard, QWizard.WizardButton.NextButton)
    enter_goes_on(qtbot, wizard, PageId.DETECT)

    # Detect: the report is there; Tab reaches it (it scrolls by keyboard), Enter goes on.
    reached = tab_round(qtbot, 12)
    scroll = wizard.detect_page.report_scroll
    assert any(widget is scroll or scroll.isAncestorOf(widget) for widget in reached)
    enter_goes_on(qtbot, wizard, PageId.CHOOSE)
    assert isinstance(session.detect, CountingDetection) and session.detect.calls == 0

    walk_choose(qtbot, wizard)
    enter_goes_on(qtbot, wizard, PageId.PATH)
    assert session.choice is not None and session.choice.name == "tf-keys"
    walk_path(qtbot, wizard)

    # Install and Test: the recorded runs; Enter goes on once each is done.
    qtbot.waitUntil(lambda: wizard.install_page.state == OK, timeout=EVENT_MS)
    tab_round(qtbot, 12)
    enter_goes_on(qtbot, wizard, PageId.TEST)
    qtbot.waitUntil(lambda: wizard.test_page.state == DONE, timeout=EVENT_MS)
    tab_round(qtbot, 12)
    enter_goes_on(qtbot, wizard, PageId.SUMMARY)

    # Summary: Space presses a page's button; Enter, even there, is the wizard's Finish.
    summary = wizard.summary_page
    tab_until(qtbot, lambda widget: widget is summary.copy_button)
    press(qtbot, Qt.Key.Key_Space)
    assert QGuiApplication.clipboard().text() == recorded_events(RUN_ENV_CREATE)[-1]["python"]
    assert focused() is summary.copy_button
    with qtbot.waitSignal(wizard.finished, timeout=EVENT_MS):
        press(qtbot, Qt.Key.Key_Return)
    assert wizard.result() == QWizard.DialogCode.Accepted


def test_the_verify_start_page_by_keyboard(qtbot: QtBot):
    detection = CountingDetection(sample("no-gpu.json"))
    session = WizardSession(detect=detection, previous_setup=True, verify=replay_verify(RUN_VERIFY))
    wizard = open_wizard(qtbot, session)
    assert wizard.currentId() == PageId.VERIFY
    page = wizard.verify_page
    qtbot.waitUntil(page.isComplete, timeout=EVENT_MS)
    focused()
    # Space on "Check again" runs the checks again; Enter would not have (it is the wizard's).
    tab_until(qtbot, lambda widget: widget is page.again_button)
    press(qtbot, Qt.Key.Key_Space)
    qtbot.waitUntil(page.isComplete, timeout=EVENT_MS)
    tab_round(qtbot, 15)
    # Enter: "Set up again", on to Detect, which detects (the recorded verification brought no report).
    enter_goes_on(qtbot, wizard, PageId.DETECT)
    qtbot.waitUntil(wizard.detect_page.isComplete, timeout=EVENT_MS)
    assert detection.calls == 1
    enter_goes_on(qtbot, wizard, PageId.CHOOSE)


def test_buttons_inside_pages_never_take_enter_from_the_wizard(qtbot: QtBot, windows_session: WizardSession):
    wizard = open_wizard(qtbot, windows_session)
    wizard_buttons = {
        wizard.button(which) for which in QWizard.WizardButton if wizard.button(which) is not None
    }
    for page_id in wizard.pageIds():
        for button in wizard.page(page_id).findChildren(QPushButton):
            assert button not in wizard_buttons
            assert not button.autoDefault() and not button.isDefault(), (page_id, button.text())
