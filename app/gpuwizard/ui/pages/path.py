"""The PATH page: the PATH as it is, the planned change, Apply and Undo, and the proof.

Thin: every step is a function of :mod:`gpuwizard.workflow.pathedit.request` run on a
:class:`~gpuwizard.ui.workers.FunctionWorker` (reading the PATH looks for every folder, which
can hang on a dead network share; writing the system PATH waits for the UAC prompt), so the
window never freezes. The page only shows what the steps return: the entries with their
problems marked (an icon and words, not colour alone), the findings, the diff, the result of
Apply or Undo, which programs must be restarted, and which DLLs a program started now finds.

The views that show them are widgets of their own: the PATH entries and the planned change in
:mod:`gpuwizard.ui.widgets.path_views`, the result and the DLL check in
:mod:`gpuwizard.ui.widgets.path_result`; the page builds them, runs the steps and says which to show.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from html import escape
from pathlib import Path
from typing import Any

from PySide6.QtCore import Slot
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
    QWizardPage,
)

from gpuwizard.core.findings.model import Finding
from gpuwizard.ui.deferred import call_soon
from gpuwizard.ui.widgets.finding_view import QtFindingView, replace_finding_views
from gpuwizard.ui.widgets.labels import error_label
from gpuwizard.ui.widgets.path_result import PathResultBox
from gpuwizard.ui.widgets.path_views import PathEntriesView, PlannedChangeView
from gpuwizard.ui.workers import FunctionWorker
from gpuwizard.workflow.pathedit.dll_check import DllResolution
from gpuwizard.workflow.pathedit.request import (
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
        self.read_error = error_label("path_read_error", content)

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

    def _build_entries(self, parent: QWidget) -> QGroupBox:
        box = QGroupBox(self.tr("PATH now (system first, then user)"), parent)
        self.entries_box = box
        self.entries = PathEntriesView(box)
        layout = QVBoxLayout(box)
        layout.addWidget(self.entries)
        return box

    def _build_change(self, parent: QWidget) -> QGroupBox:
        box = QGroupBox(self.tr("Planned change"), parent)
        form = self._build_choices(box)
        self.change_view = PlannedChangeView(box)
        # Its parts stay the page's attributes too: the page's interface names its widgets.
        self.admin_note = self.change_view.admin_note
        self.diff_summary = self.change_view.diff_summary
        self.diff = self.change_view.diff
        self.plan_error = self.change_view.plan_error
        buttons = self._build_buttons(box)
        layout = QVBoxLayout(box)
        layout.addLayout(form)
        layout.addWidget(self.change_view, 1)
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
        self.scope_label = QLabel(self.tr("&Add to:"), box)
        self.scope_label.setBuddy(self.scope_combo)
        self.other_label = QLabel(self.tr("Other &CUDA:"), box)
        self.other_label.setBuddy(self.other_combo)
        form.addRow(self.scope_label, self.scope_combo)
        form.addRow(self.other_label, self.other_combo)
        return form

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
        self.result_box = PathResultBox(parent)
        # Its parts stay the page's attributes too: the page's interface names its widgets.
        self.result_label = self.result_box.result_label
        self.restart_note = self.result_box.restart_note
        self.dll_heading = self.result_box.dll_heading
        self.dlls = self.result_box.dlls
        return self.result_box

    # --- the wizard's hooks ---------------------------------------------------------------

    @property
    def request(self) -> PathRequest | None:
        """The request shown (the session's, with the scope and CUDA choices made here)."""
        return self.session.path_request

    def initializePage(self) -> None:
        """Show the request and read the PATH (on a worker); in a preview without a registry, the request alone."""
        request = self.request
        if request is None or (self.session.path_store is None and not self.session.preview):
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
        if self.session.path_store is None:
            self._show_preview_request(request)
            return
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
        self.result_box.show_checking()

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
        if self.session.path_store is None:
            self._show_preview_request(self.session.path_request)
        self.refresh()

    # --- showing --------------------------------------------------------------------------

    def _show_preview_request(self, request: PathRequest) -> None:
        """A preview of a saved report: it holds no PATH values, so show the folders the plan adds."""
        self.entries_box.hide()
        self.preview_note.setText(
            self.tr(
                "This is a preview of a saved report: nothing on this machine changes, so Apply and "
                "Undo are off. A saved report does not hold that machine's PATH, so this page lists "
                "the folders the plan adds; on the machine itself it shows PATH entry by entry and "
                "the exact change."
            )
        )
        scope = self.tr("system PATH") if request.scope == "system" else self.tr("user PATH")
        folders = "".join(f"<li><code>{escape(folder)}</code></li>" for folder in request.folders)
        summary = self.tr("The %1 gets these folders, in this order, before any other CUDA version:")
        self.diff_summary.setText(f"<p>{escape(summary.replace('%1', scope))}</p><ul>{folders}</ul>")
        self.diff.hide()
        self.change_view.diff_filler.show()
        self.admin_note.setText(
            self.tr("On the machine itself, changing the system PATH asks for administrator rights.")
        )
        self.admin_note.setVisible(request.scope == "system")

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
        self.entries.show_reviews(overview.reviews)
        self._show_findings([*overview.findings, *overview.change_findings])
        self.change_view.show_overview(overview)
        self._update_buttons()

    def _show_findings(self, findings: Sequence[Finding]) -> None:
        self.finding_views = replace_finding_views(
            self.findings_box, self.findings_layout, self.finding_views, findings, hint_for=self._page_hint
        )

    def _page_hint(self, finding: Finding) -> str | None:
        """What to do in this page's terms, where the finding's hint names a command-line option."""
        if finding.code != "PATH_SYSTEM_CUDA_FIRST":
            return None
        # The controls as the page shows them (translated), without their keyboard mnemonics.
        return (
            self.tr(
                "DLLs with the same name (cuDNN's, for one) load from the first folder on PATH. Set "
                "“%1” to “%2” (Windows asks for administrator rights when you apply), and “%3” to "
                "“%4” or “%5”, so that these folders come before the other version."
            )
            .replace("%1", _control_words(self.scope_label.text()))
            .replace("%2", self.scope_combo.itemText(max(self.scope_combo.findData("system"), 0)))
            .replace("%3", _control_words(self.other_label.text()))
            .replace("%4", self.other_combo.itemText(max(self.other_combo.findData("end"), 0)))
            .replace("%5", self.other_combo.itemText(max(self.other_combo.findData("remove"), 0)))
        )

    def _show_outcome(self, outcome: PathOutcome, *, undo: bool) -> None:
        self.outcome = outcome
        if self.result_box.show_outcome(outcome, undo=undo):
            # Once the layout has made room for it; with the page as context, so a closed page is skipped.
            call_soon(self, self._reveal_result)

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
        self.result_box.show_dlls(resolution, names)
        # Once the layout has made room for it; with the page as context, so a closed page is skipped.
        call_soon(self, self._reveal_result)


def _control_words(label: str) -> str:
    """A control's label as words: "&Add to:" -> "Add to", "添加到(&A):" -> "添加到"."""
    words = re.sub(r"\(&\w\)|&(?=\S)", "", label)
    return words.strip().rstrip(":：").strip()
