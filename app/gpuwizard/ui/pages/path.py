"""The PATH page: the PATH as it is, the planned change, Apply and Undo, and the proof.

Thin: every step is a function of :mod:`gpuwizard.workflow.pathedit.request` run on a
:class:`~gpuwizard.ui.workers.FunctionWorker` (reading the PATH looks for every folder, which
can hang on a dead network share; writing the system PATH waits for the UAC prompt), so the
window never freezes. The page only shows what the steps return: the entries with their
problems marked (an icon and words, not colour alone), the findings, the diff, the result of
Apply or Undo, which programs must be restarted, and which DLLs a program started now finds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Final

from PySide6.QtCore import Qt, Slot
from PySide6.QtGui import QBrush
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QStyle,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
    QWizardPage,
)

from gpuwizard.core.findings.model import Finding
from gpuwizard.core.pathedit.algebra import DUPLICATE, EMPTY, MISSING, OTHER_CUDA_FIRST, entry_of
from gpuwizard.core.pathedit.review import ScopeReview
from gpuwizard.ui.deferred import call_soon
from gpuwizard.ui.theme import diff_colors, status_color, status_style
from gpuwizard.ui.widgets.finding_view import QtFindingView, replace_finding_views
from gpuwizard.ui.widgets.labels import headline_label
from gpuwizard.ui.workers import FunctionWorker
from gpuwizard.workflow.pathedit.changes import PathChange
from gpuwizard.workflow.pathedit.dll_check import DllResolution
from gpuwizard.workflow.pathedit.request import (
    REG_SZ_WITH_VARS,
    PathOutcome,
    PathOverview,
    PathRequest,
    apply_request,
    check_dlls,
    path_overview,
    undo_last,
)
from gpuwizard.workflow.state.home import wizard_home
from gpuwizard.workflow.state.path_journal import PathJournal
from gpuwizard.workflow.wizard.session import WizardSession

# Problems worth a warning icon; the others are notes (they do no harm but make PATH longer).
_WARNING_PROBLEMS: Final = frozenset({OTHER_CUDA_FIRST, REG_SZ_WITH_VARS})


class PathPage(QWizardPage):
    """Shows and applies the session's :class:`PathRequest` on the session's registry."""

    def __init__(self, session: WizardSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.setObjectName("path_page")
        self.setTitle(self.tr("PATH"))
        self.setSubTitle(
            self.tr("Put the folders the plan needs on PATH, safely: see the change first, undo it any time.")
        )
        self.overview: PathOverview | None = None
        self.outcome: PathOutcome | None = None
        self.resolution: DllResolution | None = None
        self._busy = ""
        self._on_result: Callable[[Any], None] = lambda _result: None
        self._workers: list[FunctionWorker] = []

        content = QWidget(self)
        self.intro = QLabel(content)
        self.intro.setObjectName("path_intro")
        self.intro.setWordWrap(True)
        self.preview_note = QLabel(
            self.tr(
                "This is a preview of a saved report: nothing on this machine changes, "
                "so Apply and Undo are off."
            ),
            content,
        )
        self.preview_note.setObjectName("path_preview_note")
        self.preview_note.setWordWrap(True)
        self.preview_note.setVisible(session.preview)
        self.read_error = self._message_label("path_read_error", content)

        columns = QHBoxLayout()
        columns.addWidget(self._build_entries(content), 3)
        columns.addWidget(self._build_change(content), 2)

        self.findings_box = QWidget(content)
        self.findings_box.setObjectName("path_findings")
        self.findings_layout = QVBoxLayout(self.findings_box)
        self.findings_layout.setContentsMargins(0, 0, 0, 0)
        self.finding_views: list[QtFindingView] = []

        layout = QVBoxLayout(content)
        layout.addWidget(self.intro)
        layout.addWidget(self.preview_note)
        layout.addWidget(self.read_error)
        layout.addLayout(columns, 1)
        layout.addWidget(self._build_result(content))
        layout.addWidget(self.findings_box)

        self.scroll_area = QScrollArea(self)
        self.scroll_area.setObjectName("path_scroll")
        self.scroll_area.setWidget(content)
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QFrame.Shape.NoFrame)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.scroll_area)

    # --- building -------------------------------------------------------------------------

    def _message_label(self, name: str, parent: QWidget) -> QLabel:
        label = QLabel(parent)
        label.setObjectName(name)
        label.setWordWrap(True)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        label.setStyleSheet(status_style("bad", self))  # the text says what is wrong; red draws the eye
        label.hide()
        return label

    def _build_entries(self, parent: QWidget) -> QGroupBox:
        box = QGroupBox(self.tr("PATH now (system first, then user)"), parent)
        self.entries = QTreeWidget(box)
        self.entries.setObjectName("path_entries")
        self.entries.setAccessibleName(self.tr("PATH entries with their problems"))
        self.entries.setColumnCount(2)
        self.entries.setHeaderLabels([self.tr("Entry"), self.tr("Problem")])
        self.entries.setRootIsDecorated(True)
        self.entries.setUniformRowHeights(True)
        self.entries.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # keep ...\v12.1\bin readable
        self.entries.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.entries.setMinimumHeight(230)
        header = self.entries.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        layout = QVBoxLayout(box)
        layout.addWidget(self.entries)
        return box

    def _build_change(self, parent: QWidget) -> QGroupBox:
        box = QGroupBox(self.tr("Planned change"), parent)
        form = self._build_choices(box)
        self._build_diff(box)
        buttons = self._build_buttons(box)
        layout = QVBoxLayout(box)
        layout.addLayout(form)
        layout.addWidget(self.admin_note)
        layout.addWidget(self.diff_summary)
        layout.addWidget(self.diff, 1)
        layout.addWidget(self.plan_error)
        # Takes the diff's room while there is no diff, so the message stays under the choices.
        self.diff_filler = QWidget(box)
        self.diff_filler.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Expanding)
        self.diff_filler.hide()
        layout.addWidget(self.diff_filler, 1)
        layout.addLayout(buttons)
        return box

    def _build_choices(self, box: QWidget) -> QFormLayout:
        self.scope_combo = QComboBox(box)
        self.scope_combo.setObjectName("path_scope")
        self.scope_combo.addItem(self.tr("User PATH (you only)"), "user")
        self.scope_combo.addItem(self.tr("System PATH (all users; admin)"), "system")
        self.scope_combo.setAccessibleName(self.tr("Which PATH to change"))
        self.scope_combo.setToolTip(
            self.tr(
                "Windows puts the system PATH before the user PATH. Changing the system PATH "
                "asks for administrator rights."
            )
        )
        self.other_combo = QComboBox(box)
        self.other_combo.setObjectName("path_other_cuda")
        self.other_combo.addItem(self.tr("Keep them (after these)"), "keep")
        self.other_combo.addItem(self.tr("Move them to the end"), "end")
        self.other_combo.addItem(self.tr("Remove them"), "remove")
        self.other_combo.setAccessibleName(self.tr("What to do with other CUDA versions on PATH"))
        self.other_combo.setToolTip(
            self.tr("Entries of another CUDA version: the first CUDA on PATH is the one programs load.")
        )
        for combo in (self.scope_combo, self.other_combo):
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(12)
            combo.currentIndexChanged.connect(self._choice_changed)
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        scope_label = QLabel(self.tr("&Add to:"), box)
        scope_label.setBuddy(self.scope_combo)
        other_label = QLabel(self.tr("Other &CUDA:"), box)
        other_label.setBuddy(self.other_combo)
        form.addRow(scope_label, self.scope_combo)
        form.addRow(other_label, self.other_combo)
        return form

    def _build_diff(self, box: QWidget) -> None:
        self.admin_note = QLabel(box)
        self.admin_note.setObjectName("path_admin_note")
        self.admin_note.setWordWrap(True)
        self.admin_note.hide()
        self.diff_summary = QLabel(box)
        self.diff_summary.setObjectName("path_diff_summary")
        self.diff_summary.setWordWrap(True)
        self.diff = QTreeWidget(box)
        self.diff.setObjectName("path_diff")
        self.diff.setAccessibleName(self.tr("Planned PATH, entry by entry: + added, − removed"))
        self.diff.setColumnCount(2)
        self.diff.setHeaderHidden(True)
        self.diff.setRootIsDecorated(False)
        self.diff.setUniformRowHeights(True)
        self.diff.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.diff.header().setStretchLastSection(True)
        self.diff.header().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.diff.setMinimumHeight(120)
        self.plan_error = self._message_label("path_plan_error", box)

    def _build_buttons(self, box: QWidget) -> QHBoxLayout:
        self.apply_button = QPushButton(self.tr("A&pply"), box)
        self.apply_button.setObjectName("path_apply")
        self.apply_button.setAccessibleName(self.tr("Apply the planned PATH change"))
        self.apply_button.setToolTip(
            self.tr("Write the change, recorded in the PATH journal so that Undo can revert it exactly.")
        )
        self.apply_button.clicked.connect(self.apply)
        self.undo_button = QPushButton(self.tr("&Undo"), box)
        self.undo_button.setObjectName("path_undo")
        self.undo_button.setAccessibleName(self.tr("Undo the last PATH change"))
        self.undo_button.setToolTip(self.tr("Put back the PATH as it was before the last change, exactly."))
        self.undo_button.clicked.connect(self.undo)
        for button in (self.apply_button, self.undo_button):
            button.setEnabled(False)
        self.busy_bar = QProgressBar(box)
        self.busy_bar.setRange(0, 0)
        self.busy_bar.setTextVisible(False)
        self.busy_bar.setMaximumWidth(80)
        self.busy_bar.setAccessibleName(self.tr("Working"))
        self.busy_label = QLabel(box)
        self.busy_label.setObjectName("path_busy")
        for widget in (self.busy_bar, self.busy_label):
            widget.hide()
        buttons = QHBoxLayout()
        buttons.addWidget(self.apply_button)
        buttons.addWidget(self.undo_button)
        buttons.addWidget(self.busy_bar)
        buttons.addWidget(self.busy_label, 1)
        return buttons

    def _build_result(self, parent: QWidget) -> QGroupBox:
        self.result_box = QGroupBox(self.tr("Result"), parent)
        self.result_box.setObjectName("path_result")
        self.result_label = headline_label("path_result_text", self.result_box)
        font = self.result_label.font()
        font.setPointSizeF(font.pointSizeF() / 1.25)
        self.result_label.setFont(font)
        self.result_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.restart_note = QLabel(self.result_box)
        self.restart_note.setObjectName("path_restart")
        self.restart_note.setWordWrap(True)
        self.restart_box = QWidget(self.result_box)
        self.restart_layout = QVBoxLayout(self.restart_box)
        self.restart_layout.setContentsMargins(0, 0, 0, 0)
        self.restart_view: QtFindingView | None = None

        self.dll_heading = QLabel(self.result_box)
        self.dll_heading.setObjectName("path_dll_heading")
        self.dll_heading.setWordWrap(True)
        self.dlls = QTreeWidget(self.result_box)
        self.dlls.setObjectName("path_dlls")
        self.dlls.setAccessibleName(self.tr("DLLs a program started now finds"))
        self.dlls.setColumnCount(2)
        self.dlls.setHeaderLabels([self.tr("DLL"), self.tr("Where it loads from")])
        self.dlls.setRootIsDecorated(False)
        self.dlls.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.dlls.header().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.dlls.header().setStretchLastSection(True)
        self.dlls.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Minimum)

        layout = QVBoxLayout(self.result_box)
        layout.addWidget(self.result_label)
        layout.addWidget(self.restart_note)
        layout.addWidget(self.restart_box)
        layout.addWidget(self.dll_heading)
        layout.addWidget(self.dlls)
        self.result_box.hide()
        return self.result_box

    # --- the wizard's hooks ---------------------------------------------------------------

    @property
    def request(self) -> PathRequest | None:
        """The request shown (the session's, with the scope and CUDA choices made here)."""
        return self.session.path_request

    def initializePage(self) -> None:
        """Show the request and read the PATH (on a worker)."""
        request = self.request
        if request is None or self.session.path_store is None:
            return
        for combo, value in ((self.scope_combo, request.scope), (self.other_combo, request.other_cuda)):
            combo.blockSignals(True)
            combo.setCurrentIndex(max(combo.findData(value), 0))
            combo.blockSignals(False)
        if request.dlls:
            self.intro.setText(
                self.tr("The plan adds folders to PATH so that programs find %1.").replace(
                    "%1", ", ".join(request.dlls)
                )
            )
        else:
            self.intro.setText(self.tr("The plan adds folders to PATH."))
        identity = self.session.path_store.identity
        if identity.startswith("file:"):
            self.intro.setText(
                self.intro.text()
                + " "
                + self.tr("Working on the registry snapshot %1.").replace("%1", Path(identity[5:]).name)
            )
        self.refresh()

    def isComplete(self) -> bool:
        """Next waits while PATH is being read or written."""
        return not self._busy

    def is_busy(self) -> bool:
        """True while a step runs on a worker."""
        return bool(self._busy)

    def wait_for_workers(self) -> None:
        """Block until running steps end (closing the wizard must not destroy their threads)."""
        for worker in self._workers:
            worker.wait()

    # --- steps ----------------------------------------------------------------------------

    def _run(self, busy_text: str, function: Callable[[], Any], on_result: Callable[[Any], None]) -> None:
        self._workers = [w for w in self._workers if w.is_running()]
        self._set_busy(busy_text)
        self._on_result = on_result
        worker = FunctionWorker(function, self)
        # Bound slots of the page, so the results arrive on the UI thread (queued).
        worker.succeeded.connect(self._worker_succeeded)
        worker.failed.connect(self._worker_failed)
        self._workers.append(worker)
        worker.start()

    @Slot(object)
    def _worker_succeeded(self, result: object) -> None:
        self._set_busy("")
        self._on_result(result)

    @Slot(str)
    def _worker_failed(self, message: str) -> None:
        self._set_busy("")
        self._show_unexpected(message)

    def refresh(self) -> None:
        """Read both PATH values and plan the request again (on a worker)."""
        store, request = self.session.path_store, self.request
        if store is None or request is None:
            return
        journal = PathJournal(wizard_home())
        self._run(
            self.tr("Reading PATH…"),
            lambda: path_overview(store, request, journal),
            self._show_overview,
        )

    def apply(self) -> None:
        """Apply the planned change on a worker, then check the DLLs from a new process."""
        store, request = self.session.path_store, self.request
        change = self.overview.change if self.overview else None
        if not self._can_apply() or store is None or request is None or change is None:
            return
        journal = PathJournal(wizard_home())
        runner = self.session.runner
        self._run(
            self.tr("Applying…"),
            lambda: apply_request(store, journal, change, request, runner),
            self._applied,
        )

    def undo(self) -> None:
        """Revert the last recorded change of this registry on a worker."""
        store = self.session.path_store
        if not self._can_undo() or store is None:
            return
        journal = PathJournal(wizard_home())
        runner = self.session.runner
        self._run(self.tr("Undoing…"), lambda: undo_last(store, journal, runner), self._undone)

    def _applied(self, outcome: PathOutcome) -> None:
        self._show_outcome(outcome, undo=False)
        store, request = self.session.path_store, self.request
        if outcome.error is not None or store is None or request is None or not request.dlls:
            self.refresh()
            return
        runner = self.session.runner
        journal = PathJournal(wizard_home())
        self.dll_heading.setText(self.tr("Checking from a new process which DLLs load…"))
        self.dll_heading.show()

        def verify() -> tuple[DllResolution, PathOverview]:
            return check_dlls(store, request.dlls, runner), path_overview(store, request, journal)

        self._run(self.tr("Checking the DLLs…"), verify, self._verified)

    def _verified(self, result: tuple[DllResolution, PathOverview]) -> None:
        resolution, overview = result
        self._show_dlls(resolution)
        self._show_overview(overview)

    def _undone(self, outcome: PathOutcome) -> None:
        self._show_outcome(outcome, undo=True)
        self.refresh()

    def _choice_changed(self) -> None:
        request = self.request
        if request is None:
            return
        self.session.path_request = replace(
            request, scope=self.scope_combo.currentData(), other_cuda=self.other_combo.currentData()
        )
        self.refresh()

    # --- showing --------------------------------------------------------------------------

    def _set_busy(self, text: str) -> None:
        self._busy = text
        self.busy_label.setText(text)
        self.busy_label.setVisible(bool(text))
        self.busy_bar.setVisible(bool(text))
        self.scope_combo.setEnabled(not text)
        self.other_combo.setEnabled(not text)
        self._update_buttons()
        self.completeChanged.emit()

    def _can_apply(self) -> bool:
        change = self.overview.change if self.overview else None
        return not self.session.preview and not self._busy and change is not None and change.changed

    def _can_undo(self) -> bool:
        return (
            not self.session.preview
            and not self._busy
            and bool(self.overview and self.overview.undo_available)
        )

    def _update_buttons(self) -> None:
        self.apply_button.setEnabled(self._can_apply())
        self.undo_button.setEnabled(self._can_undo())

    def _show_unexpected(self, message: str) -> None:
        self.read_error.setText(
            self.tr("Something went wrong, and nothing was changed: %1").replace("%1", message)
        )
        self.read_error.show()

    def _show_overview(self, overview: PathOverview) -> None:
        self.overview = overview
        if overview.read_error is not None:
            self.read_error.setText(self.tr("PATH could not be read: %1").replace("%1", overview.read_error))
        self.read_error.setVisible(overview.read_error is not None)
        self._show_entries(overview.reviews)
        self._show_findings([*overview.findings, *overview.change_findings])
        self._show_diff(overview)
        self._update_buttons()

    def _show_entries(self, reviews: Sequence[ScopeReview]) -> None:
        self.entries.clear()
        names = {"system": self.tr("System PATH"), "user": self.tr("User PATH")}
        for review in reviews:
            scope = QTreeWidgetItem(self.entries)
            details = (
                self.tr("no value")
                if review.type is None
                else self.tr("%1 · entries: %2")
                .replace("%1", review.type)
                .replace("%2", str(len(review.entries)))
            )
            scope.setText(0, f"{names.get(review.scope, review.scope)} · {details}")
            font = scope.font(0)
            font.setBold(True)
            scope.setFont(0, font)
            scope.setFirstColumnSpanned(True)
            for entry in review.entries:
                item = QTreeWidgetItem(scope)
                text = entry_of(entry.segment)
                item.setText(0, entry.segment if text else self.tr("(empty entry)"))
                item.setToolTip(
                    0, entry.segment or self.tr("An empty entry: two ';' in a row, or one at the end.")
                )
                self._mark_problems(item, entry.problems, entry.cuda_version)
            scope.setExpanded(True)

    def _mark_problems(self, item: QTreeWidgetItem, problems: Sequence[str], cuda: str | None) -> None:
        words = {
            MISSING: self.tr("folder missing"),
            DUPLICATE: self.tr("duplicate"),
            OTHER_CUDA_FIRST: self.tr("other CUDA version first"),
            REG_SZ_WITH_VARS: self.tr("REG_SZ with %VARS%"),
            EMPTY: self.tr("empty"),
        }
        why = {
            MISSING: self.tr("Missing: this folder does not exist. It does no harm, but makes PATH longer."),
            DUPLICATE: self.tr(
                "Duplicate: this folder is on PATH earlier already (the system PATH comes first); "
                "only the first one counts."
            ),
            OTHER_CUDA_FIRST: self.tr(
                "Other CUDA version first: an entry of another CUDA version comes earlier, so "
                "programs load that version's DLLs, not these."
            ),
            REG_SZ_WITH_VARS: self.tr(
                "REG_SZ with %VARS%: this PATH is stored as REG_SZ, which Windows never expands, "
                "so the %VARIABLE% stays literal text and the folder is never searched."
            ),
            EMPTY: self.tr("Empty: harmless, an extra ';'."),
        }
        texts = [words.get(p, p) for p in problems]
        if cuda is not None:
            texts.append(self.tr("CUDA %1").replace("%1", cuda))
        item.setText(1, "; ".join(texts))
        if not problems:
            if cuda is not None:
                item.setToolTip(1, self.tr("An entry of CUDA %1.").replace("%1", cuda))
            return
        warning = any(p in _WARNING_PROBLEMS for p in problems)
        icon = (
            QStyle.StandardPixmap.SP_MessageBoxWarning
            if warning
            else QStyle.StandardPixmap.SP_MessageBoxInformation
        )
        item.setIcon(0, self.style().standardIcon(icon))
        item.setForeground(1, QBrush(status_color("warn" if warning else "info", self.entries)))
        tip = "\n".join(why.get(p, p) for p in problems)
        item.setToolTip(1, tip)
        item.setData(0, Qt.ItemDataRole.AccessibleDescriptionRole, tip)

    def _show_findings(self, findings: Sequence[Finding]) -> None:
        self.finding_views = replace_finding_views(
            self.findings_box, self.findings_layout, self.finding_views, findings
        )

    def _show_diff(self, overview: PathOverview) -> None:
        self.diff.clear()
        change = overview.change
        self.plan_error.setVisible(overview.plan_error is not None)
        if overview.plan_error is not None:
            self.plan_error.setText(
                self.tr("This change cannot be made: %1").replace("%1", overview.plan_error)
            )
        self.admin_note.setVisible(change is not None and change.scope == "system")
        self.admin_note.setText(self._admin_text(overview))
        self.diff.setVisible(change is not None)
        self.diff_filler.setVisible(change is None)
        if change is None:
            self.diff_summary.setText("")
            return
        self.diff_summary.setText(self._diff_summary(change))
        self._fill_diff(change)

    def _admin_text(self, overview: PathOverview) -> str:
        if overview.needs_admin:
            return self.tr(
                "Windows will ask for administrator rights when you apply: the system PATH is "
                "shared by every user."
            )
        if overview.registry == "live":
            return self.tr(
                "The wizard has administrator rights already: the system PATH is shared by every user."
            )
        return self.tr(
            "On the machine itself, changing the system PATH asks for administrator rights; "
            "this snapshot file needs none."
        )

    def _diff_summary(self, change: PathChange) -> str:
        scope = self.tr("system PATH") if change.scope == "system" else self.tr("user PATH")
        if not change.changed:
            return self.tr("Nothing to change: the folders are on the %1 already.").replace("%1", scope)
        edit = change.edit
        counts = (
            (
                (self.tr("%n to add", "", len(edit.added)), edit.added),
                (self.tr("%n to move", "", len(edit.moved)), edit.moved),
                (self.tr("%n to remove", "", len(edit.removed)), edit.removed),
            )
            if edit is not None
            else ()
        )
        parts = ", ".join(text for text, items in counts if items)
        if not parts:
            return self.tr("The %1 after the change:").replace("%1", scope)
        return self.tr("The %1 after the change (%2):").replace("%1", scope).replace("%2", parts)

    def _fill_diff(self, change: PathChange) -> None:
        first_change: QTreeWidgetItem | None = None
        bold = self.diff.font()
        bold.setBold(True)
        for line in change.diff():
            entry = line.entry or self.tr("(empty entry)")
            item = QTreeWidgetItem(self.diff)
            item.setText(0, "−" if line.op == "-" else line.op.strip())
            item.setText(1, entry)
            item.setFont(0, bold)
            if line.op == " ":
                item.setToolTip(1, self.tr("unchanged: %1").replace("%1", entry))
            else:
                added = line.op == "+"
                what = self.tr("added: %1") if added else self.tr("removed: %1")
                item.setToolTip(1, what.replace("%1", entry))
                text_colour, background = diff_colors(added, self.diff)
                for column in (0, 1):
                    item.setForeground(column, QBrush(text_colour))
                    item.setBackground(column, QBrush(background))
                if first_change is None:
                    first_change = item
            item.setData(1, Qt.ItemDataRole.AccessibleTextRole, item.toolTip(1))
        if first_change is not None:
            self.diff.scrollToItem(first_change, QAbstractItemView.ScrollHint.PositionAtCenter)

    def _show_outcome(self, outcome: PathOutcome, *, undo: bool) -> None:
        self.outcome = outcome
        self.result_box.show()
        self.dlls.clear()
        self.dlls.hide()
        self.dll_heading.hide()
        if self.restart_view is not None:
            self.restart_layout.removeWidget(self.restart_view)
            self.restart_view.deleteLater()
            self.restart_view = None
        self.restart_note.hide()
        applied = outcome.applied
        if outcome.error is not None or applied is None:
            self.result_label.setText(self.tr("Nothing was changed: %1").replace("%1", outcome.error or ""))
            self.result_label.setStyleSheet(status_style("bad", self))
            return
        self.result_label.setStyleSheet("")
        change = applied.change
        scope = self.tr("system PATH") if change.scope == "system" else self.tr("user PATH")
        if applied.entry is None:
            self.result_label.setText(
                self.tr("Nothing to change: the %1 has the folders already.").replace("%1", scope)
            )
        elif undo:
            self.result_label.setText(
                self.tr("Undone: the %1 is back as it was before the change.").replace("%1", scope)
            )
        else:
            self.result_label.setText(
                self.tr(
                    "Done: the %1 is changed. The change is in the PATH journal; Undo reverts it."
                ).replace("%1", scope)
            )
        self._show_restart(outcome.restart, changed=applied.entry is not None)
        # Once the layout has made room for it; with the page as context, so a closed page is skipped.
        call_soon(self, self._reveal_result)

    def _show_restart(self, restart: Finding | None, *, changed: bool) -> None:
        if restart is not None:
            self.restart_view = QtFindingView(restart, self.restart_box)
            self.restart_layout.addWidget(self.restart_view)
        elif changed:
            self.restart_note.setText(
                self.tr(
                    "This is a registry snapshot file: no program running here reads it. On the "
                    "machine it belongs to, programs started after the change see it; those "
                    "already open (terminals, VS Code, PyCharm, Jupyter) must be restarted."
                )
            )
            self.restart_note.show()

    def _reveal_result(self) -> None:
        # The page grew: lay it out now and let the scroll area take the new size (its
        # setWidgetResizable updates the scroll bars), so that the result can be scrolled to.
        content = self.scroll_area.widget()
        layout = content.layout() if content is not None else None
        if layout is not None:
            layout.activate()
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.ensureWidgetVisible(self.result_box)

    def _show_dlls(self, resolution: DllResolution) -> None:
        self.resolution = resolution
        request = self.request
        names = list(request.dlls) if request else [*resolution.found, *resolution.missing]
        found = sum(1 for n in names if n in resolution.found)
        self.dll_heading.setText(
            self.tr("DLLs a program started now finds: %1 of %2.")
            .replace("%1", str(found))
            .replace("%2", str(len(names)))
        )
        self.dll_heading.show()
        self.dlls.clear()
        good = self.style().standardIcon(QStyle.StandardPixmap.SP_DialogApplyButton)
        bad = self.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxCritical)
        for name in names:
            item = QTreeWidgetItem(self.dlls)
            item.setText(0, name)
            if name in resolution.found:
                item.setIcon(0, good)
                item.setText(1, self.tr("found: %1").replace("%1", resolution.found[name]))
                item.setForeground(1, QBrush(status_color("good", self.dlls)))
            else:
                item.setIcon(0, bad)
                reason = resolution.missing.get(name, "")
                item.setText(1, self.tr("not found: %1").replace("%1", reason))
                item.setForeground(1, QBrush(status_color("bad", self.dlls)))
            item.setToolTip(1, item.text(1))
        rows = max(len(names), 1)
        self.dlls.setFixedHeight(self.dlls.header().sizeHint().height() + rows * 24 + 6)
        self.dlls.show()
        # Once the layout has made room for it; with the page as context, so a closed page is skipped.
        call_soon(self, self._reveal_result)
