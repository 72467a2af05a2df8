"""The "Save a support report…" control: the redacted report of ``gpuwizard report``, from the wizard.

The person asks where to save it (a web page, Markdown for an issue, or JSON); the report is
gathered, redacted and written on a worker, since asking each environment's interpreter takes
a second or more; the page stays responsive and says where the file went. The control's status
line is the page's one line about saving: it names the latest file saved from the page (the
Summary page's system report too, through :meth:`SupportReportControl.show_saved`), or says
that the latest save failed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import QHBoxLayout, QLabel, QMessageBox, QPushButton, QWidget

from gpuwizard.core.machine.system_report import SystemReport
from gpuwizard.core.support.document import OUTPUT_FORMATS
from gpuwizard.ui.dialogs import save_file_name
from gpuwizard.ui.theme import status_style
from gpuwizard.ui.workers import FunctionWorker
from gpuwizard.workflow.wizard.session import WizardSession


class SupportReportControl(QWidget):
    """A button that saves a support report, and a line saying where it was saved.

    Signals:
        saved(str): The file written.
    """

    saved = Signal(str)

    def __init__(
        self, session: WizardSession | None, report_of: Callable[[], SystemReport | None], parent: QWidget
    ) -> None:
        """``report_of`` gives the machine as the page shows it (None: detect it first)."""
        super().__init__(parent)
        self.session = session
        self.report_of = report_of
        self.worker: FunctionWorker | None = None
        self.button = QPushButton(self.tr("Save a support re&port…"), self)
        self.button.setObjectName("save_support_report")
        self.button.setToolTip(
            self.tr(
                "Save everything someone helping you needs (the machine, PATH, the environments, the "
                "last tests, what is wrong) as a web page, Markdown or JSON. GPU serial numbers and "
                "UUIDs, your user name and your home folder are replaced before it is written."
            )
        )
        self.button.clicked.connect(self.ask_and_save)
        self.status = QLabel(self)
        self.status.setObjectName("support_report_status")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.status.hide()  # until there is something to say (an empty line would still take room)
        self._layout = QHBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.addWidget(self.button)
        self._layout.addWidget(self.status, 1)

    def take_status(self) -> QLabel:
        """The status line, out of this control's row, for a page that lays it out itself."""
        self._layout.removeWidget(self.status)
        return self.status

    @Slot()
    def ask_and_save(self) -> None:
        """Ask where (Documents, or the folder last chosen), then save there on a worker."""
        path = save_file_name(
            self,
            self.tr("Save a support report"),
            "gpuwizard-support.html",
            self.tr("Web page (*.html);;Markdown (*.md);;JSON (*.json)"),
        )
        if path is not None:
            self.save(path)

    def save(self, path: Path) -> None:
        """Gather, redact and write the report to ``path`` on a worker (HTML unless it says otherwise)."""
        if self.worker is not None and self.worker.is_running():
            return
        if path.suffix.lower() not in OUTPUT_FORMATS:
            path = path.with_name(path.name + ".html")
        fmt = OUTPUT_FORMATS[path.suffix.lower()]
        session = self.session
        shown = self.report_of()

        def write() -> str:
            from gpuwizard.adapters.runner import StreamingSubprocessRunner  # noqa: PLC0415
            from gpuwizard.workflow.machine.detect import detect_system  # noqa: PLC0415
            from gpuwizard.workflow.support.bundle import write_support_report  # noqa: PLC0415

            report = shown if shown is not None else (session.detect if session else detect_system)()
            write_support_report(
                path,
                fmt,
                report=report,
                system_source="file" if session is not None and session.preview else "detected",
                path_store=session.path_store if session is not None else None,
                runner=StreamingSubprocessRunner(),
                cancel=threading.Event(),
            )
            return str(path)

        self.button.setEnabled(False)
        self.status.setStyleSheet("")
        self.status.setText(self.tr("Saving the support report…"))
        self.status.show()
        self.worker = FunctionWorker(write, self)
        # Bound slots, so the outcome arrives on the UI thread (queued).
        self.worker.succeeded.connect(self._saved)
        self.worker.failed.connect(self._failed)
        self.worker.start()

    def wait_for_worker(self, milliseconds: int = 30_000) -> None:
        """Wait for a save in progress (tests, and closing the wizard)."""
        if self.worker is not None:
            self.worker.wait(milliseconds)

    def show_saved(self, text: str) -> None:
        """Say on the status line that a file was saved (``text`` names it)."""
        self.status.setStyleSheet(status_style("good", self))
        self.status.setText(text)
        self.status.setAccessibleDescription(text)
        self.status.show()

    def show_failed(self, text: str) -> None:
        """Say on the status line that the latest save failed (no earlier file stays named)."""
        self.status.setStyleSheet(status_style("bad", self))
        self.status.setText(text)
        self.status.setAccessibleDescription(text)
        self.status.show()

    @Slot(object)
    def _saved(self, path: object) -> None:
        self.button.setEnabled(True)
        self.show_saved(
            self.tr(
                "Saved to %1, with serial numbers, UUIDs, your user name and home folder replaced."
            ).replace("%1", str(path))
        )
        self.saved.emit(str(path))

    @Slot(str)
    def _failed(self, message: str) -> None:
        self.button.setEnabled(True)
        text = self.tr("The support report was not saved: %1").replace("%1", message)
        self.show_failed(text)
        QMessageBox.warning(self, self.tr("Not saved"), text)
