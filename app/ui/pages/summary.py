"""The last page of this version: the verdict, what stands in the way, and a saved report."""

from __future__ import annotations

from html import escape
from pathlib import Path

from gpuwizard.core.readiness import gpu_readiness
from gpuwizard.core.system_report import SystemReport, gpu_list
from gpuwizard.ui.messages import finding_texts
from gpuwizard.ui.widgets.labels import headline_label
from gpuwizard.workflow.report_files import save_system_report
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
    QWizardPage,
)


class SummaryPage(QWizardPage):
    """Sums up the machine and offers to save the report as JSON."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("summary_page")
        self.setTitle(self.tr("Summary"))
        self.setSubTitle(self.tr("The verdict, and what to do next."))
        self.report: SystemReport | None = None
        self.verdict = headline_label("verdict", self)
        self.todo = QLabel(self)
        self.todo.setObjectName("todo")
        self.todo.setWordWrap(True)
        self.todo.setTextFormat(Qt.TextFormat.RichText)
        self.save_button = QPushButton(self.tr("&Save the report…"), self)
        self.save_button.setObjectName("save_report")
        self.save_button.setToolTip(
            self.tr("Save what was found as a JSON file, to share or to open later with --system.")
        )
        self.save_button.clicked.connect(self._save)
        layout = QVBoxLayout(self)
        layout.addWidget(self.verdict)
        layout.addWidget(self.todo)
        buttons = QHBoxLayout()
        buttons.addWidget(self.save_button)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        layout.addStretch(1)

    def set_report(self, report: SystemReport) -> None:
        """Sum up ``report``."""
        self.report = report
        readiness = gpu_readiness(report)
        if readiness.ready:
            names = gpu_list(readiness.usable_gpus)
            self.verdict.setText(
                self.tr("This machine is ready for GPU frameworks: %1.").replace("%1", names)
            )
        else:
            self.verdict.setText(self.tr("This machine cannot train on an NVIDIA GPU yet."))
        items = [finding_texts(f) for f in (*readiness.blocking, *readiness.warnings)]
        if items:
            heading = self.tr("What to do first:") if readiness.blocking else self.tr("Worth a look:")
            rows = "".join(
                f"<li><b>{escape(m, quote=False)}</b><br>{escape(h, quote=False)}</li>" for m, h in items
            )
            self.todo.setText(f"<p>{heading}</p><ol>{rows}</ol>")
        else:
            self.todo.setText(self.tr("Nothing stands in the way."))

    def _save(self) -> None:
        if self.report is None:
            return
        name, _ = QFileDialog.getSaveFileName(
            self, self.tr("Save the system report"), "gpuwizard-system.json", self.tr("JSON files (*.json)")
        )
        if not name:
            return
        try:
            save_system_report(self.report, Path(name))
        except OSError as error:
            QMessageBox.warning(
                self, self.tr("Not saved"), self.tr("The report was not saved: %1").replace("%1", str(error))
            )
