"""The wizard window: page ids, page order, and the detection worker. No business logic.

Detection starts as soon as the window is built, on a worker thread, so the window appears at
once and the detection page fills in when the report arrives (docs/architecture.md,
"Performance budgets": the window with results in under 1.5 s). Given a saved report
(``--system``), no detection runs.

When the wizard set this machine up before, it opens on the Verify page instead: that page
detects as part of its checks, and hands its report to the Detect page if the person sets up
again from there.

The step that changes the machine has a button of its own: on the last page before the Install
page (Choose, or PATH when the plan needs it) Next reads "Install", and pressing it first asks,
with what will be downloaded and written (:mod:`gpuwizard.ui.widgets.install_summary`). While the
install runs, Cancel, Escape and the window's close button ask before throwing it away (Back is
off then). In a preview nothing is installed, so nothing is asked and the button stays "Next".

Keyboard: Enter means the wizard's Next (or Install, Finish) wherever that button is enabled. So
push buttons inside pages are not "auto default" (in a dialog they would take Enter whenever
they have the focus), and a widget that is hidden never keeps the focus (QWizard gives a new
page's first focusable child the focus without asking whether it is visible).

Size: the window opens at the size the person last gave it (when the caller names a file to keep
it in; tests and screenshots name none) or its preferred size, made to fit the available room of
the screen it opens on, frame included; the pages scroll what does not fit
(:mod:`gpuwizard.ui.window_fit`, issue 37).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from enum import IntEnum
from pathlib import Path

from PySide6.QtCore import QRect, QSize, Qt, Slot
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QPushButton, QWidget, QWizard, QWizardPage

from gpuwizard.core.machine.system_report import SystemReport
from gpuwizard.ui.icon import application_icon
from gpuwizard.ui.pages.choose import ChoosePage
from gpuwizard.ui.pages.detect import DetectPage
from gpuwizard.ui.pages.install import RUNNING, InstallPage
from gpuwizard.ui.pages.live_test import LiveTestPage
from gpuwizard.ui.pages.path import PathPage
from gpuwizard.ui.pages.summary import SummaryPage
from gpuwizard.ui.pages.verify import VerifyPage
from gpuwizard.ui.pages.welcome import WelcomePage
from gpuwizard.ui.widgets.install_summary import InstallQuestion, StopQuestion
from gpuwizard.ui.widgets.source_check import shown_sources
from gpuwizard.ui.window_fit import (
    MINIMUM_SIZE,
    PREFERRED_SIZE,
    fitted_geometry,
    fitted_minimum,
    opening_screen,
    to_geometry,
    to_rect,
)
from gpuwizard.ui.workers import FunctionWorker
from gpuwizard.workflow.envs.prepare import default_envs_dir, planned_python_download
from gpuwizard.workflow.pathedit.request import path_request_from_plan
from gpuwizard.workflow.state.window_geometry import load_window_geometry, save_window_geometry
from gpuwizard.workflow.wizard.install_summary import InstallSummary, install_summary
from gpuwizard.workflow.wizard.session import WizardSession


class PageId(IntEnum):
    """The wizard's pages in order; PATH only when the plan needs it, VERIFY only as a start."""

    WELCOME = 0
    VERIFY = 5
    DETECT = 10
    CHOOSE = 20
    PATH = 40
    INSTALL = 50
    TEST = 60
    SUMMARY = 90


class SetupWizard(QWizard):
    """The GPU Setup Wizard window."""

    def __init__(
        self,
        session: WizardSession,
        parent: QWidget | None = None,
        *,
        start_detection: bool = True,
        geometry_file: Path | None = None,
    ) -> None:
        """The window for ``session``; ``geometry_file`` keeps its size between runs (None: not kept)."""
        super().__init__(parent)
        self.session = session
        self.setObjectName("setup_wizard")
        self.setWindowTitle(self.tr("GPU Setup Wizard"))
        self.setWizardStyle(QWizard.WizardStyle.ModernStyle)
        self.setOption(QWizard.WizardOption.NoBackButtonOnStartPage, True)
        self.geometry_file = geometry_file
        self._fitted: QRect | None = None  # the geometry the window was given, until it is shown
        self.fit_to_screen()
        logo = application_icon().pixmap(QSize(48, 48), self.devicePixelRatioF())
        self.setPixmap(QWizard.WizardPixmap.LogoPixmap, logo)

        self.welcome_page = WelcomePage(session.preview)
        self.verify_page = VerifyPage(session)
        self.detect_page = DetectPage()
        self.choose_page = ChoosePage(session)
        self.path_page = PathPage(session)
        self.install_page = InstallPage(session)
        self.test_page = LiveTestPage(session)
        self.summary_page = SummaryPage(session)
        for page_id, page in (
            (PageId.WELCOME, self.welcome_page),
            (PageId.VERIFY, self.verify_page),
            (PageId.DETECT, self.detect_page),
            (PageId.CHOOSE, self.choose_page),
            (PageId.PATH, self.path_page),
            (PageId.INSTALL, self.install_page),
            (PageId.TEST, self.test_page),
            (PageId.SUMMARY, self.summary_page),
        ):
            self.setPage(page_id, page)
        self.detect_page.retry_button.clicked.connect(self.start_detection)
        self.verify_page.report_detected.connect(self._report_ready)
        self.verify_page.set_up_again.connect(self._set_up_again)
        self.worker: FunctionWorker | None = None
        # The questions before installing and before stopping an install (None: not asked now).
        self.install_question: InstallQuestion | None = None
        self.stop_question: StopQuestion | None = None
        self._install_agreed = False
        # Preparing the question before Install (a worker: it asks uv), and its summary without uv.
        self._question_work: FunctionWorker | None = None
        self._without_uv: Callable[[], InstallSummary] | None = None
        self._next_text = self.buttonText(QWizard.WizardButton.NextButton)
        self._install_text = self.tr("&Install")
        self.currentIdChanged.connect(self._page_entered)
        for each in self.pageIds():
            self.page(each).completeChanged.connect(self._page_changed)
            _no_auto_default(self.page(each))  # before QWizard gives any of them the focus

        verify_first = session.previous_setup and not session.preview
        self.setStartId(PageId.VERIFY if verify_first else PageId.WELCOME)
        if session.report is not None:
            if session.system_file is not None:
                self.detect_page.show_source(
                    self.tr("Showing the saved report %1. Nothing on this machine will change.").replace(
                        "%1", str(session.system_file)
                    )
                )
            self._report_ready(session.report)
        elif start_detection and not verify_first:
            self.start_detection()

    # --- the window's size ----------------------------------------------------------------------

    def fit_to_screen(self) -> None:
        """Size and place the window to fit the screen it opens on, as last left where that fits."""
        saved = None
        if self.geometry_file is not None:
            saved = to_rect(load_window_geometry(self.geometry_file))
        available = opening_screen(saved).availableGeometry()
        self.setMinimumSize(fitted_minimum(MINIMUM_SIZE, available))
        self._fitted = fitted_geometry(PREFERRED_SIZE, MINIMUM_SIZE, available, saved)
        self.setGeometry(self._fitted)

    def _refit_to_the_real_frame(self) -> None:
        """Once shown, the frame is known: fit again if it is larger than estimated.

        Only while nobody has sized the window since :meth:`fit_to_screen` (screenshots set
        their own size); a frame the window system has not reported yet reads as none.
        """
        fitted, self._fitted = self._fitted, None
        handle = self.windowHandle()
        if fitted is None or handle is None or self.geometry() != fitted:
            return
        available = handle.screen().availableGeometry()
        if available.contains(self.frameGeometry()):
            return
        frame = handle.frameMargins()
        self.setMinimumSize(fitted_minimum(MINIMUM_SIZE, available, frame))
        self.setGeometry(fitted_geometry(PREFERRED_SIZE, MINIMUM_SIZE, available, fitted, frame))

    def _keep_geometry(self) -> None:
        """Keep the window's size and place for next time; losing them never stops the wizard."""
        if self.geometry_file is None or not self.isVisible():
            return
        normal = self.normalGeometry()  # a maximized window keeps the size it is restored to
        rect = normal if normal.isValid() else self.geometry()
        with contextlib.suppress(OSError):
            save_window_geometry(self.geometry_file, to_geometry(rect))

    def start_detection(self) -> None:
        """Detect this machine on a worker thread; the detection page fills in when done."""
        if self.worker is not None and self.worker.is_running():
            return
        self.detect_page.show_busy()
        self.worker = FunctionWorker(self.session.detect, self)
        self.worker.succeeded.connect(self._report_ready)
        self.worker.failed.connect(self.detect_page.show_failure)
        self.worker.start()

    def _report_ready(self, report: SystemReport) -> None:
        self.session.report = report
        self.detect_page.show_report(report)
        self.summary_page.set_report(report)

    def _set_up_again(self) -> None:
        self.next()

    @Slot(int)
    def _page_entered(self, page_id: int) -> None:
        """Detect on reaching the Detect page from Verify when the verification brought no report."""
        if page_id == PageId.DETECT and self.session.report is None and self.worker is None:
            self.start_detection()
        self._update_install_button()
        self._settle_keyboard()

    @Slot()
    def _page_changed(self) -> None:
        """A page's state changed: its plan (Install or Next), its buttons, what is shown."""
        self._update_install_button()
        if self.currentPage() is self.install_page and self.install_page.state == RUNNING:
            # QWizard enables Back again on any page's completeChanged (a Choose worker that
            # answers late, say); Back would cancel the install without asking (its cleanupPage).
            self.button(QWizard.WizardButton.BackButton).setEnabled(False)
        if self.stop_question is not None and not self.installing():
            self.stop_question.done(0)  # the install ended meanwhile: nothing is left to stop
        self._settle_keyboard()

    # --- the keyboard -----------------------------------------------------------------------

    def _settle_keyboard(self) -> None:
        """Enter goes to the wizard's button, and the focus is on something the person can see."""
        page = self.currentPage()
        if page is None or not self.isVisible():
            return  # the window's first page: showEvent settles it
        if _no_auto_default(page):
            self._restore_default_button()
        focus = self.focusWidget()
        if focus is not None and focus.isVisible() and focus.isEnabled():
            return
        # The wizard's own button rather than the page's next widget in the Tab order: walking
        # the focus chain from Python (nextInFocusChain) while a page changes made PySide6 6.11
        # invalidate its wrappers of the wizard's buttons, which were alive ("Internal C++ object
        # already deleted"; seen in tests/ui/test_keyboard_walk.py). Tab goes on from Next into the page.
        target = self._forward_button()
        if target is not None:
            target.setFocus(Qt.FocusReason.OtherFocusReason)
        elif focus is not None:
            focus.clearFocus()  # nothing to take it yet: keys go to the window, Enter to its default button

    def showEvent(self, event: QShowEvent) -> None:
        """Settle the keyboard on the first page once it is shown (QWizard picks its focus before)."""
        super().showEvent(event)
        self._refit_to_the_real_frame()
        self._settle_keyboard()

    def _restore_default_button(self) -> None:
        """Make the wizard's forward button the default again, as QWizard itself chooses it.

        A page's button that had the focus while it was still "auto default" took the dialog's
        default from the wizard's button; QWizard picks Next, or Commit on a commit page, or
        Finish where there is no next page (qwizard.cpp, QWizardPrivate::_q_updateButtonStates).
        """
        page = self.currentPage()
        if self.nextId() == -1:
            which = QWizard.WizardButton.FinishButton
        elif page.isCommitPage():
            which = QWizard.WizardButton.CommitButton
        else:
            which = QWizard.WizardButton.NextButton
        button = self.button(which)
        if isinstance(button, QPushButton):
            button.setDefault(True)

    def _forward_button(self) -> QWidget | None:
        """The enabled one of Next, Commit and Finish that is shown, if any."""
        for which in (
            QWizard.WizardButton.NextButton,
            QWizard.WizardButton.CommitButton,
            QWizard.WizardButton.FinishButton,
        ):
            button = self.button(which)
            if button is not None and button.isVisible() and button.isEnabled():
                return button
        return None

    # --- Install: its own button, a last summary, and a question before stopping it ------------

    def leads_to_install(self, page_id: int) -> bool:
        """True when Next on ``page_id`` goes to the Install page and installs (never in a preview)."""
        if self.session.preview:
            return False
        if page_id == PageId.PATH:
            return True
        if page_id != PageId.CHOOSE:
            return False
        shown = self.choose_page.recommendation
        request = path_request_from_plan(shown.plan) if shown is not None else None
        return not self.session.path_page_follows(request)

    def _update_install_button(self) -> None:
        for page_id in (PageId.CHOOSE, PageId.PATH):
            text = self._install_text if self.leads_to_install(page_id) else self._next_text
            page = self.page(page_id)
            if page.buttonText(QWizard.WizardButton.NextButton) != text:
                page.setButtonText(QWizard.WizardButton.NextButton, text)

    def validateCurrentPage(self) -> bool:
        """The page's own check; then, on the way to the Install page, the question with the summary."""
        if not super().validateCurrentPage():
            return False
        current = self.currentId()
        if self.nextId() != PageId.INSTALL or not self.leads_to_install(current):
            return True
        if self._install_agreed:
            self._install_agreed = False
            return True
        choice, recommendation = self.session.choice, self.session.recommendation
        if choice is None or recommendation is None:
            return True  # the Install page says there is no plan
        if self._question_work is not None and self._question_work.is_running():
            return False  # the question is being prepared: it opens when it is ready
        report = self.session.report
        sources = shown_sources(report, recommendation, choice)  # with the person's mirrors
        envs_folder = str(default_envs_dir())

        def summarise(*, ask_uv: bool = True) -> InstallSummary:
            # The Python build uv downloads when none of the plan's is installed is named too
            # (issue 37, point 6); finding it asks uv, a process: so this runs in a worker.
            python = None
            if ask_uv and report is not None:
                python = planned_python_download(report, recommendation.plan, choice)
            return install_summary(
                recommendation, choice, envs_folder=envs_folder, sources=sources, python_download=python
            )

        self._without_uv = lambda: summarise(ask_uv=False)
        work = FunctionWorker(summarise, self)
        work.succeeded.connect(self._question_ready)
        work.failed.connect(self._question_not_ready)
        self._question_work = work
        work.start()
        return False

    @Slot(object)
    def _question_ready(self, summary: object) -> None:
        if isinstance(summary, InstallSummary) and self.leads_to_install(self.currentId()):
            self.ask_to_install(summary)

    @Slot(str)
    def _question_not_ready(self, _message: str) -> None:
        # uv could not be asked: the question without the Python line (the install still checks it).
        if self._without_uv is not None and self.leads_to_install(self.currentId()):
            self.ask_to_install(self._without_uv())

    def ask_to_install(self, summary: InstallSummary) -> None:
        """Show what the install downloads and writes; go on to the Install page if the person agrees."""
        if self.install_question is not None:
            return
        question = InstallQuestion(summary, self, sources_ok=self.choose_page.sources_ok)
        self.install_question = question
        question.finished.connect(self._install_answered)
        question.open()

    @Slot(int)
    def _install_answered(self, _result: int) -> None:
        question, self.install_question = self.install_question, None
        if question is None:
            return
        question.deleteLater()
        self._take_keyboard_back()
        if question.agreed() and self.leads_to_install(self.currentId()):
            self._install_agreed = True
            self.next()

    def _take_keyboard_back(self) -> None:
        """After a question: the wizard is the active window again, whatever the window manager does."""
        if self.isVisible():
            self.activateWindow()
            self._settle_keyboard()

    def installing(self) -> bool:
        """True while the install runs and nobody has asked it to stop yet."""
        page = self.install_page
        return page.state == RUNNING and not page.work.cancel_event.is_set()

    def reject(self) -> None:
        """Cancel, Escape and the window's close button: while the install runs, ask first.

        QDialog's closeEvent calls reject() and keeps the window open when it is still visible
        afterwards (Qt documentation, QDialog "closeEvent"), so one question covers all three.
        """
        if self.installing():
            self.ask_to_stop()
            return
        super().reject()

    def ask_to_stop(self) -> None:
        """Ask whether to throw the running install away; Keep installing is the default."""
        if self.stop_question is not None:
            return
        question = StopQuestion(self)
        self.stop_question = question
        question.finished.connect(self._stop_answered)
        question.open()

    @Slot(int)
    def _stop_answered(self, _result: int) -> None:
        question, self.stop_question = self.stop_question, None
        if question is None:
            return
        question.deleteLater()
        self._take_keyboard_back()
        if question.agreed():
            self.install_page.cancel()
            super().reject()  # done() waits for the rollback, so nothing is left half made

    def nextId(self) -> int:
        """Verify leads to Detect; the PATH page is in the sequence only when the plan needs it."""
        current = self.currentId()
        if current == PageId.VERIFY:
            return int(PageId.DETECT)
        if current == PageId.WELCOME:
            return int(PageId.DETECT)
        following = super().nextId()
        if following == PageId.VERIFY:
            return int(PageId.DETECT)
        if following == PageId.PATH and not self.session.wants_path_page:
            return int(PageId.INSTALL)
        return following

    def done(self, result: int) -> None:
        """Closing waits for running work so its thread is not destroyed mid-run."""
        self._keep_geometry()
        if self.worker is not None:
            self.worker.wait()
        for page in (self.verify_page, self.choose_page, self.path_page, self.install_page, self.test_page):
            page.wait_for_workers()
        super().done(result)


def _no_auto_default(page: QWizardPage) -> bool:
    """Make the page's push buttons leave Enter to the wizard; True if one of them was the default.

    Inside a dialog a push button is "auto default": while it has the focus it takes Enter from
    the dialog's default button (Qt documentation, QPushButton "autoDefault"). Space still
    presses a focused button.
    """
    was_default = False
    for button in page.findChildren(QPushButton):
        if button.autoDefault():
            button.setAutoDefault(False)
        if button.isDefault():
            button.setDefault(False)
            was_default = True
    return was_default
