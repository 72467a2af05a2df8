"""The wizard window: page ids, page order, and the detection worker. No business logic.

Detection starts as soon as the window is built, on a worker thread, so the window appears at
once and the detection page fills in when the report arrives (DESIGN.md section 6: the window
with results in under 1.5 s). Given a saved report (``--system``), no detection runs.
"""

from __future__ import annotations

from enum import IntEnum

from gpuwizard.core.system_report import SystemReport
from gpuwizard.ui.app import application_icon
from gpuwizard.ui.pages.detect import DetectPage
from gpuwizard.ui.pages.path import PathPage
from gpuwizard.ui.pages.summary import SummaryPage
from gpuwizard.ui.pages.welcome import WelcomePage
from gpuwizard.ui.workers import FunctionWorker
from gpuwizard.workflow.session import WizardSession
from PySide6.QtCore import QSize
from PySide6.QtWidgets import QWidget, QWizard


class PageId(IntEnum):
    """The wizard's pages in order (later issues add Choose, Install and Test)."""

    WELCOME = 0
    DETECT = 10
    PATH = 40
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
        self.detect_page = DetectPage()
        self.path_page = PathPage(session)
        self.summary_page = SummaryPage(session)
        self.setPage(PageId.WELCOME, self.welcome_page)
        self.setPage(PageId.DETECT, self.detect_page)
        self.setPage(PageId.PATH, self.path_page)
        self.setPage(PageId.SUMMARY, self.summary_page)
        self.detect_page.retry_button.clicked.connect(self.start_detection)
        self.worker: FunctionWorker | None = None

        if session.report is not None:
            if session.system_file is not None:
                self.detect_page.show_source(
                    self.tr("Showing the saved report %1. Nothing on this machine will change.").replace(
                        "%1", str(session.system_file)
                    )
                )
            self._report_ready(session.report)
        elif start_detection:
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

    def nextId(self) -> int:
        """The PATH page is in the sequence only when the session has a registry and a request."""
        following = super().nextId()
        if following == PageId.PATH and not self.session.wants_path_page:
            return int(PageId.SUMMARY)
        return following

    def done(self, result: int) -> None:
        """Closing waits for running work so its thread is not destroyed mid-run."""
        if self.worker is not None:
            self.worker.wait()
        self.path_page.wait_for_workers()
        super().done(result)
