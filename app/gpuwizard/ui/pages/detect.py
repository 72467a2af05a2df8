"""The detection page: shows the report as soon as the worker delivers it.

Detection starts when the wizard opens (see :class:`~gpuwizard.ui.wizard.SetupWizard`), so
by the time the person has read the welcome page the answer is usually there. Until then the
page shows a busy bar and Next stays disabled.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
    QWizardPage,
)

from gpuwizard.core.machine.system_report import SystemReport
from gpuwizard.ui.widgets.report_view import QtReportView


class DetectPage(QWizardPage):
    """Presents the system report; complete once there is one."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("detect_page")
        self.setTitle(self.tr("Your machine"))
        self.setSubTitle(self.tr("What the wizard found, and what it means for GPU training."))
        self.report: SystemReport | None = None

        self.source_label = QLabel(self)
        self.source_label.setObjectName("report_source")
        self.source_label.setWordWrap(True)
        self.source_label.hide()

        self.busy = QWidget(self)
        busy_layout = QVBoxLayout(self.busy)
        self.busy_label = QLabel(self.tr("Looking at this machine…"), self.busy)
        self.progress = QProgressBar(self.busy)
        self.progress.setRange(0, 0)  # busy: detection reports no steps
        self.progress.setAccessibleName(self.tr("Detection in progress"))
        busy_layout.addWidget(self.busy_label)
        busy_layout.addWidget(self.progress)
        busy_layout.addStretch(1)

        self.error = QWidget(self)
        error_layout = QHBoxLayout(self.error)
        self.error_label = QLabel(self.error)
        self.error_label.setWordWrap(True)
        self.error_label.setObjectName("detect_error")
        self.retry_button = QPushButton(self.tr("&Retry"), self.error)
        error_layout.addWidget(self.error_label, 1)
        error_layout.addWidget(self.retry_button)
        self.error.hide()

        self.view = QtReportView()
        self.report_scroll = QScrollArea(self)
        self.report_scroll.setObjectName("report_scroll")
        self.report_scroll.setWidget(self.view)
        self.report_scroll.setWidgetResizable(True)
        self.report_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.report_scroll.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # arrow keys and PgUp/PgDn scroll
        self.report_scroll.setAccessibleName(self.tr("System report"))
        self.report_scroll.hide()

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.source_label)
        layout.addWidget(self.busy)
        layout.addWidget(self.error)
        layout.addWidget(self.report_scroll, 1)

    def show_source(self, text: str) -> None:
        """Say where the report comes from (a saved file), above it."""
        self.source_label.setText(text)
        self.source_label.show()

    def show_report(self, report: SystemReport) -> None:
        """Present ``report`` and let the person go on."""
        self.report = report
        self.view.set_report(report)
        self.busy.hide()
        self.error.hide()
        self.report_scroll.show()
        self.completeChanged.emit()

    def show_failure(self, message: str) -> None:
        """Say that detection failed, with the reason, and offer to try again."""
        self.error_label.setText(self.tr("Detection failed: %1").replace("%1", message))
        self.busy.hide()
        self.error.show()
        self.completeChanged.emit()

    def show_busy(self) -> None:
        """Back to the busy state (a retry)."""
        self.error.hide()
        self.busy.show()
        self.completeChanged.emit()

    def isComplete(self) -> bool:
        """Next is enabled once a report is shown."""
        return self.report is not None
