"""Under the Choose page's folder of wheels: whether the folder can install the plan, and what it lacks.

When the offline box is ticked and an existing folder is named, the folder is checked against
the plan shown (``check_choice_folder``: a real offline resolution by uv, else pip, for the
plan's Python on this platform; nothing is installed) on a
:class:`~gpuwizard.ui.workers.FunctionWorker`, a short moment after the last change. The
verdict appears here: a green line with what the folder holds, or in red what it lacks, with
the release the folder holds when the table plans it (a button that picks that version, as
``env create`` offers ``--version``), the ``pip download`` command that fetches what is missing
(selectable, with a Copy button) and which machine can run it, and "Check again" for after the
folder was filled.

The page asks :meth:`WheelFolderStatus.ready` before it lets the person go on: an offline
install from a folder that lacks something would fail part-way through, after the environment
was started. A check that could not run (no uv and no pip) does not block: the install then
says what is missing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from PySide6.QtCore import Qt, QTimer, Signal, Slot
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from gpuwizard.core.compat.plan import Plan
from gpuwizard.core.envs.wheel_folder import WheelFolderCheck
from gpuwizard.core.machine.system_report import SystemReport
from gpuwizard.ui.messages import display_text
from gpuwizard.ui.theme import Status, status_style
from gpuwizard.ui.workers import FunctionWorker
from gpuwizard.workflow.envs.wheel_folder import ReleasePlan, check_choice_folder

#: How long the status waits after the last change (typing a path) before checking.
DEBOUNCE_MS: Final = 300

_Key = tuple[str, bool, Plan, int]


class WheelFolderStatus(QWidget):
    """The folder's verdict (object name ``choose_wheel_folder_status``).

    Signals:
        changed(): The verdict or its being under way changed (the page's completeness may have).
        use_version(str): The person took the release the folder holds (``2.13``): the page picks it.
    """

    changed = Signal()
    use_version = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("choose_wheel_folder_status")
        self.check: WheelFolderCheck | None = None
        self._offline = False
        self._folder = ""
        self._jupyter = False
        self._plan: Plan | None = None
        self._report: SystemReport | None = None
        self._release_plan: ReleasePlan | None = None
        self._key: _Key | None = None
        self._checked_key: _Key | None = None
        self._generation = 0
        self._workers: list[FunctionWorker] = []

        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(DEBOUNCE_MS)
        self.timer.timeout.connect(self.check_now)

        self.label = QLabel(self)
        self.label.setObjectName("choose_wheel_folder_verdict")
        self.label.setWordWrap(True)
        self.label.setAccessibleName(self.tr("What the folder of wheels holds"))
        self.offer_button = QPushButton(self)
        self.offer_button.setObjectName("choose_wheel_folder_offer")
        self.offer_button.clicked.connect(self._take_offer)
        self.command_label = QLabel(self)
        self.command_label.setWordWrap(True)
        self.command = QLineEdit(self)
        self.command.setObjectName("choose_wheel_folder_command")
        self.command.setReadOnly(True)
        self.command.setAccessibleName(self.tr("Command that downloads what the folder lacks"))
        self.command_label.setBuddy(self.command)
        self.copy_button = QPushButton(self.tr("Cop&y"), self)
        self.copy_button.setObjectName("choose_wheel_folder_copy")
        self.copy_button.setAccessibleName(self.tr("Copy the download command"))
        self.copy_button.clicked.connect(self._copy)
        self.again_button = QPushButton(self.tr("Chec&k again"), self)
        self.again_button.setObjectName("choose_wheel_folder_again")
        self.again_button.setToolTip(
            self.tr("Check the folder again, for example after adding wheels to it.")
        )
        self.again_button.clicked.connect(self.check_again)
        self._lay_out()
        self._show_nothing()

    def _lay_out(self) -> None:
        command_row = QHBoxLayout()
        command_row.setContentsMargins(0, 0, 0, 0)
        command_row.addWidget(self.command, 1)
        command_row.addWidget(self.copy_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label)
        layout.addWidget(self.offer_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.command_label)
        layout.addLayout(command_row)
        layout.addWidget(self.again_button)

    # --- what the page and the inputs tell it -------------------------------------------------

    def set_inputs(self, offline: bool, folder: str, jupyter: bool) -> None:
        """The inputs changed: the offline box, the folder's text, the Jupyter box."""
        self._offline, self._folder, self._jupyter = offline, folder.strip(), jupyter
        self._follow()

    def set_plan(
        self, plan: Plan | None, report: SystemReport | None, release_plan: ReleasePlan | None = None
    ) -> None:
        """The plan shown changed (None while there is none); ``release_plan`` plans other releases."""
        self._plan, self._report, self._release_plan = plan, report, release_plan
        self._follow()

    def ready(self) -> bool:
        """False while a folder is being checked or is known to lack something the plan needs."""
        if self._key is None:
            return True
        if self._checked_key != self._key or self.check is None:
            return False
        return not self.check.blocks

    def is_checking(self) -> bool:
        """True while a check is due or running."""
        return self._key is not None and self._checked_key != self._key

    def wait(self) -> None:
        """Block until running checks end (the wizard is closing)."""
        for worker in self._workers:
            worker.wait()

    # --- checking ---------------------------------------------------------------------------

    def _wanted(self) -> _Key | None:
        if not (self._offline and self._folder and self._plan is not None and self._report is not None):
            return None
        if not Path(self._folder).expanduser().is_dir():
            return None  # the page says "There is no such folder."
        return (self._folder, self._jupyter, self._plan, id(self._report))

    def _follow(self) -> None:
        key = self._wanted()
        if key == self._key:
            return
        self._key = key
        if key is None:
            self.timer.stop()
            self._show_nothing()
        else:
            self._show_checking()
            self.timer.start()
        self.changed.emit()

    @Slot()
    def check_again(self) -> None:
        """Check the same folder again (its files may have changed)."""
        if self._key is not None:
            self._checked_key = None
            self._show_checking()
            self.changed.emit()
            self.check_now()

    @Slot()
    def check_now(self) -> None:
        """Start the check of the current folder on a worker."""
        self.timer.stop()
        key, plan, report, release_plan = self._key, self._plan, self._report, self._release_plan
        if key is None or plan is None or report is None:
            return
        self._generation += 1
        generation, folder, jupyter = self._generation, Path(self._folder).expanduser(), self._jupyter
        self._workers = [worker for worker in self._workers if worker.is_running()]
        worker = FunctionWorker(
            lambda: (
                generation,
                key,
                check_choice_folder(report, plan, folder, jupyter=jupyter, release_plan=release_plan),
            ),
            self,
        )
        worker.succeeded.connect(self._checked)
        worker.failed.connect(self._failed)
        self._workers.append(worker)
        worker.start()

    @Slot(object)
    def _checked(self, outcome: object) -> None:
        if not isinstance(outcome, tuple) or outcome[0] != self._generation or outcome[1] != self._key:
            return  # an answer about an earlier folder or plan
        self._checked_key = self._key
        self.check = outcome[2]
        self._show_check(outcome[2])
        self.changed.emit()

    @Slot(str)
    def _failed(self, message: str) -> None:
        # A bug in the check must not keep the person from going on: the install will tell.
        self._checked_key = self._key
        self.check = None
        self._show(
            self.tr("The folder could not be checked (%1); the install will say what is missing.").replace(
                "%1", message
            ),
            "warn",
        )
        self.again_button.show()
        self.changed.emit()

    # --- showing ----------------------------------------------------------------------------

    def _show(self, text: str, status: Status) -> None:
        self.label.setText(text)
        self.label.setStyleSheet(status_style(status, self))
        self.label.setVisible(bool(text))
        self.setVisible(True)

    def _show_nothing(self) -> None:
        self.check = None
        self._checked_key = None
        self.label.clear()
        for widget in self._answers():
            widget.hide()
        self.hide()

    def _answers(self) -> tuple[QWidget, ...]:
        return (self.offer_button, self.command_label, self.command, self.copy_button, self.again_button)

    def _show_checking(self) -> None:
        for widget in self._answers():
            widget.hide()
        self._show(self.tr("Checking the folder against the plan…"), "muted")

    def _show_check(self, check: WheelFolderCheck) -> None:
        offer = check.offer_version if check.blocks and check.found else None
        framework = check.build.split(" ", 1)[0]
        lines = [
            display_text(check.summary()),
            *(display_text(text) for text in (*check.problems, *check.notes)),
        ]
        if offer is not None:
            # The same offer as env create's "--version 2.13": the release the folder holds.
            lines.append(
                self.tr("The folder holds %1 %2, which can be installed instead.")
                .replace("%1", framework)
                .replace("%2", check.found[0])
            )
        status: Status = "bad" if check.blocks else "warn" if check.notes or not check.ok else "good"
        self._show("\n".join(lines), status)
        if offer is not None:
            # Short: a button does not wrap, and a long one widened the page past its window.
            self.offer_button.setText(
                self.tr("&Use %1 %2").replace("%1", framework).replace("%2", check.found[0])
            )
            self.offer_button.setProperty("version", offer)
        self.offer_button.setVisible(offer is not None)
        has_command = bool(check.download)
        where = check.fetch_where()
        if has_command and where is not None:
            lead = (
                self.tr("Or fetch what is missing into the folder.")
                if offer is not None
                else self.tr("Fetch what is missing into the folder.")
            )
            self.command_label.setText(f"{lead} {display_text(where)}")
        self.command.setText(check.download_line() if has_command else "")
        self.command.setToolTip(check.download_line() if has_command else "")  # the whole line, wrapped
        self.command.setCursorPosition(0)
        for widget in (self.command_label, self.command, self.copy_button):
            widget.setVisible(has_command)
        self.again_button.setVisible(not check.ok)

    @Slot()
    def _take_offer(self) -> None:
        version = self.offer_button.property("version")
        if version:
            self.use_version.emit(str(version))

    @Slot()
    def _copy(self) -> None:
        clipboard = QGuiApplication.clipboard()
        if clipboard is not None:
            clipboard.setText(self.command.text())
