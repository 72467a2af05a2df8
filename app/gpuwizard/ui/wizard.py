"""The wizard window: page ids, page order, and the detection worker. No business logic.

Detection starts as soon as the window is built, on a worker thread, so the window appears at
once and the detection page fills in when the report arrives (docs/architecture.md,
"Performance budgets": the window with results in under 1.5 s). Given a saved report
(``--system``), no detection runs.

When the wizard set this machine up before, it opens on the Verify page instead: that page
detects as part of its checks, and hands its report to the Detect page if the person sets up
again from there.
"""

from __future__ import annotations

from enum import IntEnum

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QWidget, QWizard

from gpuwizard.core.machine.system_report import SystemReport
from gpuwizard.ui.app import application_icon
from gpuwizard.ui.pages.choose import ChoosePage
from gpuwizard.ui.pages.detect import DetectPage
from gpuwizard.ui.pages.install import InstallPage
from gpuwizard.ui.pages.live_test import LiveTestPage
from gpuwizard.ui.pages.path import PathPage
from gpuwizard.ui.pages.summary import SummaryPage
from gpuwizard.ui.pages.verify import VerifyPage
from gpuwizard.ui.pages.welcome import WelcomePage
from gpuwizard.ui.workers import FunctionWorker
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
        self, session: WizardSession, parent: QWidget | None = None, *, start_detection: bool = True
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.setObjectName("setup_wizard")
        self.setWindowTitle(self.tr("GPU Setup Wizard"))
        self.setWizardStyle(QWizard.WizardStyle.ModernStyle)
        self.setOption(QWizard.WizardOption.NoBackButtonOnStartPage, True)
        self.setMinimumSize(QSize(720, 560))
        self.resize(QSize(880, 700))
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
        self.currentIdChanged.connect(self._page_entered)

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

    def _page_entered(self, page_id: int) -> None:
        """Detect on reaching the Detect page from Verify when the verification brought no report."""
        if page_id == PageId.DETECT and self.session.report is None and self.worker is None:
            self.start_detection()

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
        if self.worker is not None:
            self.worker.wait()
        for page in (self.verify_page, self.choose_page, self.path_page, self.install_page, self.test_page):
            page.wait_for_workers()
        super().done(result)
