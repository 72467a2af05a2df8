"""The Choose page: framework, version, environment manager and GPUs, and what that means.

Thin over :mod:`gpuwizard.workflow`: every change of the choice (debounced) runs the session's
recommender (``session.recommend``, the same step ``gpuwizard recommend`` runs) on a
:class:`~gpuwizard.ui.workers.FunctionWorker`, never on the UI thread, and the page shows what
comes back: a headline in plain words, the plan, the findings with their fixes, the
alternatives, and exactly what will change on this machine. A failure is one readable line.

Leaving the page stores the choice, the recommendation and, when the plan adds folders to
PATH, the PATH request in the session (the wizard then shows the PATH page).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Final

from PySide6.QtCore import Qt, QTimer, Slot
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QListWidgetItem,
    QScrollArea,
    QVBoxLayout,
    QWidget,
    QWizardPage,
)

from gpuwizard.core.compat.plan import Recommendation
from gpuwizard.core.compat.presentation import plan_view
from gpuwizard.core.envs.changes import plan_changes
from gpuwizard.core.envs.names import EnvNameError, check_env_name
from gpuwizard.core.envs.request import SetupRequest
from gpuwizard.core.machine.system_report import GpuFacts, SystemReport
from gpuwizard.ui.dialogs import existing_folder
from gpuwizard.ui.messages import change_html
from gpuwizard.ui.theme import status_style
from gpuwizard.ui.widgets.choice_fill import fill_gpu_list, fill_managers
from gpuwizard.ui.widgets.choice_inputs import RECOMMENDED, ChoiceInputs
from gpuwizard.ui.widgets.gpu_list_fit import GpuListFit
from gpuwizard.ui.widgets.plan_panel import PlanPanel
from gpuwizard.ui.widgets.source_check import SourceCheckView, shown_sources
from gpuwizard.ui.workers import FunctionWorker
from gpuwizard.workflow.envs.prepare import SetupRefused, default_envs_dir
from gpuwizard.workflow.envs.setup import from_pypi, release_planner
from gpuwizard.workflow.pathedit.request import path_request_from_plan
from gpuwizard.workflow.wizard.recommending import (
    RecommendOutcome,
    one_line,
    refresh_if_due,
    release_lists,
    run_recommender,
)
from gpuwizard.workflow.wizard.session import WizardSession
from gpuwizard.workflow.wizard.steps import environment_names

# How long the page waits after a change before recommending (typing, arrow keys in a combo).
DEBOUNCE_MS: Final = 150
# Narrowest the column of choices gets; the plan takes the rest. Longer translations widen it
# up to _CHOICES_WIDTH_MAX, so no input is cut off.
_CHOICES_WIDTH: Final = 270
_CHOICES_WIDTH_MAX: Final = 380
# GPUs shown before the list scrolls.
_GPU_ROWS_SHOWN: Final = 4


def _recommendation_key(choice: SetupRequest) -> SetupRequest:
    """The part of a choice the recommendation depends on (the name and Jupyter do not count)."""
    return replace(choice, name="", jupyter=False)


class ChoosePage(QWizardPage):
    """The person's choices on the left; the recommendation for them on the right."""

    def __init__(self, session: WizardSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.setObjectName("choose_page")
        self.setTitle(self.tr("Choose"))
        self.setSubTitle(
            self.tr("Pick a framework; the wizard works out a matching set and shows what it would change.")
        )
        self.recommendation: Recommendation | None = None
        self.outcome: RecommendOutcome | None = None
        self.releases: dict[str, list[str]] = {}
        self._generation = 0
        self._pending = False
        self._name_error: str | None = None
        self._name_edited = False
        self._report_shown: SystemReport | None = None
        # Names of the environments the wizard made before (one of them is replaced if chosen).
        self.existing_names: frozenset[str] = frozenset()
        self._wanted_version: str | None = None
        self._workers: list[FunctionWorker] = []
        self._refresh_started = False

        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(DEBOUNCE_MS)
        self.timer.timeout.connect(self.recommend_now)

        self.preview_note = QLabel(
            self.tr(
                "This is a preview of a saved report: the plan is for that machine, and nothing "
                "will be installed here."
            ),
            self,
        )
        self.preview_note.setObjectName("choose_preview_note")
        self.preview_note.setWordWrap(True)
        self.preview_note.setVisible(session.preview)

        choices = self.inputs = ChoiceInputs()
        self._connect_inputs()

        self.choices_scroll = self._scroll(choices, "choose_choices_scroll")
        self.choices_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        needed = choices.minimumSizeHint().width() + self.choices_scroll.frameWidth() * 2
        self.choices_scroll.setFixedWidth(min(max(_CHOICES_WIDTH, needed), _CHOICES_WIDTH_MAX))
        widths, rows = (_CHOICES_WIDTH, _CHOICES_WIDTH_MAX), _GPU_ROWS_SHOWN
        self.gpu_fit = GpuListFit(choices.gpu_list, self.choices_scroll, widths=widths, rows_shown=rows)
        self.panel = PlanPanel()
        # The answer's parts, as the page's own (tests and the wizard read them here).
        panel = self.panel
        self.panel.status_label, self.panel.error_label, self.panel.headline = (
            panel.status_label,
            panel.error_label,
            panel.headline,
        )
        self.panel.result_box, self.panel.changes, self.panel.findings_box = (
            panel.result_box,
            panel.changes,
            panel.findings_box,
        )
        self.panel.plan_framework, self.panel.plan_cuda, self.panel.plan_conda = (
            panel.plan_framework,
            panel.plan_cuda,
            panel.plan_conda,
        )
        self.panel.plan_pip, self.panel.alternatives = panel.plan_pip, panel.alternatives
        # Where the packages come from, asked in the background (ui/widgets/source_check.py).
        self.sources_view = self._place_sources_view(panel)
        self.result_scroll = self._scroll(self.panel, "choose_result_scroll")
        self.result_scroll.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # arrow keys and PgUp/PgDn scroll
        self.result_scroll.setAccessibleName(self.tr("The recommendation"))

        columns = QHBoxLayout()
        columns.addWidget(self.choices_scroll)
        columns.addWidget(self.result_scroll, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.preview_note)
        layout.addLayout(columns, 1)

    # --- building -------------------------------------------------------------------------

    def _place_sources_view(self, panel: PlanPanel) -> SourceCheckView:
        view = SourceCheckView.placed_in(panel, on_change=self.completeChanged)
        self.pypi_route = False  # the plan's release from PyPI (a way forward the page can take)
        view.use_pypi.connect(self._use_pypi)
        return view

    def _connect_inputs(self) -> None:
        self.inputs.framework_group.buttonToggled.connect(self._framework_toggled)
        self.inputs.version_combo.currentIndexChanged.connect(self._version_changed)
        self.inputs.manager_group.buttonToggled.connect(self._manager_toggled)
        self.inputs.name_edit.textChanged.connect(self._name_changed)
        self.inputs.name_edit.textEdited.connect(self._name_typed)
        self.inputs.jupyter_check.toggled.connect(self._show_changes)
        self.inputs.gpu_list.itemChanged.connect(self._gpus_changed)
        self.inputs.offline_check.toggled.connect(self._source_changed)
        self.inputs.folder_edit.textChanged.connect(self._source_changed)
        self.inputs.browse_button.clicked.connect(self._browse)
        self.inputs.folder_status.changed.connect(self.completeChanged)  # Next waits for the folder's check
        self.inputs.folder_status.use_version.connect(self._select_version)

    def _scroll(self, content: QWidget, name: str) -> QScrollArea:
        scroll = QScrollArea(self)
        scroll.setObjectName(name)
        scroll.setWidget(content)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        return scroll

    # --- the wizard's hooks ---------------------------------------------------------------

    def initializePage(self) -> None:
        """Fill the choices from the report (once per report) and recommend."""
        self.existing_names = frozenset(environment_names())
        report = self.session.report
        if report is not None and report is not self._report_shown:
            self._report_shown = report
            self.outcome = None  # a new report (detected again): recommend anew
            self._fill_from_report(report)
            if self.session.choice is not None:
                self.set_choice(self.session.choice)
        if not self.releases:
            self._start_worker(release_lists, self._releases_ready)
        if not self._refresh_started and not self.session.preview:
            # Newer compatibility data and releases, when the last check is a day old: a few kB
            # (the signed bundle and PyPI's release lists), on a worker, quietly offline.
            self._refresh_started = True
            self._start_worker(refresh_if_due, self._refresh_done)
        self.recommend_now()

    @Slot(object)
    def _refresh_done(self, refreshed: object) -> None:
        if refreshed is True:
            self.releases = {}
            self._start_worker(release_lists, self._releases_ready)
            self.outcome = None  # newer knowledge: recommend again
            self.recommend_now()

    def cleanupPage(self) -> None:
        """Going back keeps the choices as they are (nothing here is a registered field)."""

    def isComplete(self) -> bool:
        """Next once a recommendation for the current choice is shown and the name is valid.

        Not while an index the install needs is known not to answer (or a mirror setting cannot
        be used): the install would fail, so Install waits for one of the ways forward the page
        shows (PyPI's build, a folder of wheels, a proxy or mirror and asking again).
        """
        return (
            self.recommendation is not None
            and not self._pending
            and self._name_error is None
            and self.gpus_valid()
            and self.folder_valid()
            and self.sources_ok is not False
        )

    def validatePage(self) -> bool:
        """Store the choice, the recommendation and the PATH request in the session."""
        if not self.isComplete() or self.recommendation is None:
            return False
        self.session.choice = self.current_choice()
        self.session.recommendation = self.recommendation
        # None clears a request left by an earlier choice: the PATH page follows only when
        # this plan adds folders to PATH. The registry (session.path_store) is the wizard's.
        self.session.path_request = path_request_from_plan(self.recommendation.plan)
        return True

    def is_busy(self) -> bool:
        """True while a recommendation is due or running."""
        return self._pending

    def wait_for_workers(self) -> None:
        """Block until running workers end (closing the wizard must not destroy their threads)."""
        for worker in self._workers:
            worker.wait()
        self.inputs.folder_status.wait()
        self.sources_view.wait()

    @property
    def sources_ok(self) -> bool | None:
        """Whether the package indexes the install needs answer: None while they are being asked.

        False when one does not (its explanation, with the ways forward, is shown on this page),
        or a mirror setting cannot be used. True offline and in a preview: nothing is fetched.
        """
        return self.sources_view.ok

    # --- the choice -----------------------------------------------------------------------

    @property
    def framework(self) -> str:
        """``pytorch`` or ``tensorflow``."""
        return "tensorflow" if self.inputs.tensorflow_radio.isChecked() else "pytorch"

    @property
    def manager(self) -> str | None:
        """``venv``, ``conda``, or None for the plan's."""
        if self.inputs.venv_radio.isChecked():
            return "venv"
        if self.inputs.conda_radio.isChecked() and self.inputs.conda_radio.isEnabled():
            return "conda"
        return None

    def chosen_version(self) -> str | None:
        """The release picked, or None for the recommended one."""
        data = self.inputs.version_combo.currentData()
        return str(data) if data else None

    def selected_gpus(self) -> str | None:
        """``CUDA_VISIBLE_DEVICES`` for the ticked GPUs: None when every usable one is ticked."""
        usable = [item for item in self._gpu_items() if item.flags() & Qt.ItemFlag.ItemIsEnabled]
        ticked = [item for item in usable if item.checkState() == Qt.CheckState.Checked]
        if len(ticked) == len(usable):
            return None
        return ",".join(str(item.data(Qt.ItemDataRole.UserRole)) for item in ticked)

    def gpus_valid(self) -> bool:
        """False when GPUs are listed and none is ticked."""
        return self.selected_gpus() != ""

    def current_choice(self) -> SetupRequest:
        """The choice the inputs show; an existing environment of that name is replaced."""
        folder = self.inputs.folder_edit.text().strip()
        offline = self.inputs.offline_check.isChecked() and bool(folder)
        return SetupRequest(
            framework=self.framework,
            version=self.chosen_version(),
            manager=self.manager,
            gpus=self.selected_gpus() or None,
            name=self.inputs.name_edit.text(),
            jupyter=self.inputs.jupyter_check.isChecked(),
            find_links=Path(folder).expanduser() if offline else None,
            offline=offline,
            replace=self.inputs.name_edit.text() in self.existing_names,
        )

    def folder_valid(self) -> bool:
        """False when offline installs are asked for without a folder, or one the plan cannot come from."""
        if not self.inputs.offline_check.isChecked():
            return True
        folder = self.inputs.folder_edit.text().strip()
        # The folder's check (ui/widgets/wheel_folder_status.py) must have found everything the plan needs.
        return bool(folder) and Path(folder).expanduser().is_dir() and self.inputs.folder_status.ready()

    def set_choice(self, choice: SetupRequest) -> None:
        """Show ``choice`` in the inputs (a choice made earlier, or an answer file's)."""
        (
            self.inputs.tensorflow_radio if choice.framework == "tensorflow" else self.inputs.pytorch_radio
        ).setChecked(True)
        self._select_version(choice.version)
        radio = {"venv": self.inputs.venv_radio, "conda": self.inputs.conda_radio}.get(
            choice.manager or "", self.inputs.auto_radio
        )
        (radio if radio.isEnabled() else self.inputs.auto_radio).setChecked(True)
        wanted = None if choice.gpus is None else set(choice.gpus.split(","))
        for item in self._gpu_items():
            if item.flags() & Qt.ItemFlag.ItemIsEnabled:
                ticked = wanted is None or str(item.data(Qt.ItemDataRole.UserRole)) in wanted
                item.setCheckState(Qt.CheckState.Checked if ticked else Qt.CheckState.Unchecked)
        self.inputs.name_edit.setText(choice.name)
        self._name_edited = True
        self.inputs.jupyter_check.setChecked(choice.jupyter)
        self.inputs.offline_check.setChecked(choice.offline)
        self.inputs.folder_edit.setText(str(choice.find_links) if choice.find_links is not None else "")

    # --- filling the inputs ---------------------------------------------------------------

    def _fill_from_report(self, report: SystemReport) -> None:
        fill_managers(self.inputs, report)  # ui/widgets/choice_fill.py
        self._fill_gpus(report.nvidia_gpus)
        if not self._name_edited:
            self._set_default_name()

    def _fill_gpus(self, gpus: Sequence[GpuFacts]) -> None:
        fill_gpu_list(self.inputs, gpus)
        if gpus:
            self._fit_gpu_list()

    def _fit_gpu_list(self) -> None:
        self.gpu_fit.refit()  # whole names: a wider column, else wrapped; the list scrolls past a few GPUs

    def _gpu_items(self) -> list[QListWidgetItem]:
        items = [self.inputs.gpu_list.item(row) for row in range(self.inputs.gpu_list.count())]
        return [item for item in items if item is not None]

    def _set_default_name(self) -> None:
        short = {"pytorch": "torch", "tensorflow": "tf"}[self.framework]
        report = self.session.report
        kind = "gpu" if report is not None and report.nvidia_gpus else "cpu"
        self.inputs.name_edit.setText(f"{short}-{kind}")

    def _fill_versions(self) -> None:
        wanted = self._wanted_version
        self.inputs.version_combo.blockSignals(True)
        self.inputs.version_combo.clear()
        self.inputs.version_combo.addItem(self.tr("Recommended"), RECOMMENDED)
        versions = list(self.releases.get(self.framework, []))
        if wanted is not None and wanted not in versions:
            versions.append(wanted)  # an earlier choice the data no longer lists: the recommender says so
        for version in versions:
            self.inputs.version_combo.addItem(version, version)
        self.inputs.version_combo.setCurrentIndex(
            max(self.inputs.version_combo.findData(wanted), 0) if wanted else 0
        )
        self.inputs.version_combo.blockSignals(False)

    def _select_version(self, version: str | None) -> None:
        self._wanted_version = version
        self._fill_versions()
        self._schedule()

    # --- reacting to changes --------------------------------------------------------------

    @Slot()
    def _framework_toggled(self) -> None:
        if not self.inputs.framework_group.checkedButton():
            return
        self._wanted_version = None
        self._fill_versions()
        if not self._name_edited:
            self._set_default_name()
        self._schedule()

    @Slot()
    def _version_changed(self) -> None:
        self._wanted_version = self.chosen_version()
        self._schedule()

    @Slot()
    def _manager_toggled(self) -> None:
        if self.inputs.manager_group.checkedButton() is not None:
            self._schedule()

    @Slot()
    def _gpus_changed(self) -> None:
        none_ticked = not self.gpus_valid()
        self.inputs.gpu_note.setText(self.tr("Tick at least one GPU.") if none_ticked else "")
        self.inputs.gpu_note.setVisible(none_ticked)
        self._schedule()

    @Slot(str)
    def _name_typed(self, _text: str) -> None:
        self._name_edited = True

    @Slot(str)
    def _name_changed(self, _text: str) -> None:
        self._check_name()
        self._show_changes()
        self.completeChanged.emit()

    def _check_name(self) -> None:
        manager = self.recommendation.plan.manager if self.recommendation else (self.manager or "venv")
        try:
            check_env_name(self.inputs.name_edit.text(), manager=manager)
        except EnvNameError as error:
            self._name_error = str(error)
            self.inputs.name_error.setText(self.tr("This name cannot be used: %1").replace("%1", str(error)))
            self.inputs.name_error.setStyleSheet(status_style("bad", self))
            self.inputs.name_error.show()
        else:
            self._name_error = None
            exists = self.inputs.name_edit.text() in self.existing_names
            self.inputs.name_error.setText(
                self.tr(
                    "An environment of this name exists: it will be replaced (and put back if this fails)."
                )
                if exists
                else ""
            )
            self.inputs.name_error.setStyleSheet(status_style("warn", self))
            self.inputs.name_error.setVisible(exists)

    @Slot()
    def _source_changed(self) -> None:
        offline = self.inputs.offline_check.isChecked()
        self.inputs.folder_edit.setEnabled(offline)
        self.inputs.browse_button.setEnabled(offline)
        folder = self.inputs.folder_edit.text().strip()
        missing = offline and bool(folder) and not Path(folder).expanduser().is_dir()
        self.inputs.folder_error.setText(self.tr("There is no such folder.") if missing else "")
        self.inputs.folder_error.setVisible(missing)
        self._show_changes()
        self.completeChanged.emit()

    @Slot()
    def _browse(self) -> None:
        # Opens at the folder typed in, else in Documents or the folder last chosen (ui/dialogs.py).
        folder = existing_folder(self, self.tr("The folder of wheels"), self.inputs.folder_edit.text())
        if folder is not None:
            self.inputs.folder_edit.setText(str(folder))

    def _schedule(self) -> None:
        """Recommend again shortly: the Next button waits for the new answer."""
        if not self._pending:
            self._pending = True
            self.completeChanged.emit()
        self.timer.start()

    @Slot()
    def recommend_now(self) -> None:
        """Run the recommender for the current choice on a worker (unless already shown)."""
        self.timer.stop()
        report = self.session.report
        if report is None:
            self._pending = True
            self.panel.status_label.setText(self.tr("Waiting for the detection of this machine…"))
            self.completeChanged.emit()
            return
        choice = self.current_choice()
        shown = self.outcome
        if (
            shown is not None
            and shown.generation == self._generation
            and shown.recommendation is not None
            and _recommendation_key(shown.choice) == _recommendation_key(choice)
        ):
            self._pending = False
            self.completeChanged.emit()
            return
        self._generation += 1
        generation, recommend = self._generation, self.session.recommend
        self._pending = True
        self.panel.status_label.setText(self.tr("Working out the plan…"))
        self.panel.status_label.show()
        self.panel.result_box.setEnabled(False)
        self.completeChanged.emit()
        self._start_worker(
            lambda: run_recommender(recommend, report, choice, generation), self._outcome_ready
        )

    def _start_worker(self, function: Callable[[], object], slot: Callable[[object], None]) -> None:
        self._workers = [worker for worker in self._workers if worker.is_running()]
        worker = FunctionWorker(function, self)
        # Bound slots of the page, so the results arrive on the UI thread (queued).
        worker.succeeded.connect(slot)
        worker.failed.connect(self._worker_failed)
        self._workers.append(worker)
        worker.start()

    @Slot(object)
    def _releases_ready(self, releases: object) -> None:
        if isinstance(releases, dict):
            self.releases = releases
            self._fill_versions()

    @Slot(str)
    def _worker_failed(self, message: str) -> None:
        # Only the release list can get here (run_recommender returns its failures): the
        # version list then offers "Recommended" alone, which still works.
        self.inputs.versions_error.setText(
            self.tr("The list of releases could not be read (%1); “Recommended” still works.").replace(
                "%1", one_line(message)
            )
        )
        self.inputs.versions_error.show()

    @Slot(object)
    def _outcome_ready(self, outcome: object) -> None:
        if not isinstance(outcome, RecommendOutcome) or outcome.generation != self._generation:
            return  # an answer to an older choice: a newer one is on its way
        self.outcome = outcome
        self._pending = self.timer.isActive()
        self.panel.status_label.hide()
        self.panel.result_box.setEnabled(True)
        if outcome.recommendation is None:
            self.recommendation = None
            self.panel.show_failure(outcome.error or "", unexpected=outcome.unexpected)
            self.inputs.folder_status.set_plan(None, None)
        else:
            self._show_recommendation(outcome.recommendation)
        self._check_name()
        self.completeChanged.emit()

    # --- showing the answer ---------------------------------------------------------------

    @Slot()
    def _show_changes(self) -> None:
        rec = self.recommendation
        if rec is None:
            return
        self.panel.show_changes(self.change_lines(rec))
        self._show_sources(rec)

    def _show_sources(self, rec: Recommendation) -> None:
        """The install command as it will run, and the indexes asked (again when they changed)."""
        report, choice = self.session.report, self.current_choice()
        self.sources_view.show_plan(self.panel, report, rec, choice, preview=self.session.preview)

    @Slot(bool)
    def _use_pypi(self, take: bool) -> None:
        self.pypi_route = take
        if self.outcome is not None and self.outcome.recommendation is not None:
            self._show_recommendation(self.outcome.recommendation)
        self.completeChanged.emit()

    def _show_recommendation(self, rec: Recommendation) -> None:
        report = self.session.report
        if self.pypi_route and report is not None:
            try:
                rec = from_pypi(report, rec)
            except SetupRefused:
                self.pypi_route = False  # not for this plan: PyTorch's index it is
        self.sources_view.set_pypi_taken(self.pypi_route)
        self.recommendation = rec
        view = plan_view(rec, gpu_present=report is not None and bool(report.compute_gpus))
        self.panel.show_recommendation(rec, view, self.change_lines(rec))
        self._show_sources(rec)
        # The offline folder is checked against the plan (and offered the release it holds).
        release_plan = release_planner(report, self.current_choice()) if report is not None else None
        self.inputs.folder_status.set_plan(rec.plan, report, release_plan)

    def change_lines(self, rec: Recommendation) -> list[str]:
        """What carrying out ``rec`` changes on this machine, one HTML line each (escaped)."""
        choice = self.current_choice()
        changes = plan_changes(
            rec,
            choice,
            envs_folder=str(default_envs_dir()),
            preview=self.session.preview,
            sources=shown_sources(self.session.report, rec, choice),
        )
        return [change_html(change) for change in changes]
