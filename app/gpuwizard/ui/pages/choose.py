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
from dataclasses import dataclass, replace
from html import escape
from pathlib import Path
from typing import Final

from PySide6.QtCore import Qt, QTimer, Slot
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QRadioButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
    QWizardPage,
)

from gpuwizard.core.compat.plan import Plan, Recommendation, WishError
from gpuwizard.core.compat.tables import newest_first
from gpuwizard.core.envs.names import EnvNameError, check_env_name
from gpuwizard.core.envs.request import SetupRequest
from gpuwizard.core.envs.variables import GpuSelectionError, activation_variables
from gpuwizard.core.frameworks import framework_title
from gpuwizard.core.machine.system_report import GpuFacts, SystemReport, display_name
from gpuwizard.ui.messages import display_text
from gpuwizard.ui.theme import status_style
from gpuwizard.ui.widgets.finding_view import QtFindingView, replace_finding_views
from gpuwizard.ui.widgets.labels import headline_label
from gpuwizard.ui.workers import FunctionWorker
from gpuwizard.workflow.compat.data import load_compat
from gpuwizard.workflow.envs.prepare import SetupRefused, default_envs_dir
from gpuwizard.workflow.pathedit.request import path_request_from_plan
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
_CONDA_TOOLS: Final = ("conda", "mamba", "micromamba")
# The version list's data for "Recommended" (a release's data is its version).
RECOMMENDED: Final = ""


def release_lists() -> dict[str, list[str]]:
    """The releases the compatibility data knows, per framework, newest first (run on a worker)."""
    compat = load_compat()
    return {
        "pytorch": newest_first([row.version for row in compat.pytorch]),
        "tensorflow": newest_first([row.version for row in compat.tensorflow]),
    }


@dataclass(frozen=True)
class RecommendOutcome:
    """What one run of the recommender gave: a recommendation or one line saying why not.

    Attributes:
        generation: Which request this answers (older answers are dropped).
        choice: The choice it was asked for.
        recommendation: The answer, or None on failure.
        error: Why there is no answer (a refusal's message as is).
        unexpected: The failure was not a refusal (a bug, a broken data file).
    """

    generation: int
    choice: SetupRequest
    recommendation: Recommendation | None = None
    error: str | None = None
    unexpected: bool = False


def run_recommender(
    recommend: Callable[[SystemReport, SetupRequest], Recommendation],
    report: SystemReport,
    choice: SetupRequest,
    generation: int,
) -> RecommendOutcome:
    """Run ``recommend`` and turn any failure into a value (called on the worker thread)."""
    try:
        recommendation = recommend(report, choice)
    except (WishError, SetupRefused) as error:
        return RecommendOutcome(generation, choice, error=_one_line(str(error)))
    except Exception as error:  # noqa: BLE001 - every failure reaches the page as one line
        return RecommendOutcome(
            generation, choice, error=_one_line(f"{type(error).__name__}: {error}"), unexpected=True
        )
    return RecommendOutcome(generation, choice, recommendation=recommendation)


def _one_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[0] if lines else text.strip()


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
        self.finding_views: list[QtFindingView] = []

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

        choices = self._build_choices()
        self.choices_scroll = self._scroll(choices, "choose_choices_scroll")
        self.choices_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        needed = choices.minimumSizeHint().width() + self.choices_scroll.frameWidth() * 2
        self.choices_scroll.setFixedWidth(min(max(_CHOICES_WIDTH, needed), _CHOICES_WIDTH_MAX))
        self.result_scroll = self._scroll(self._build_result(), "choose_result_scroll")
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

    def _scroll(self, content: QWidget, name: str) -> QScrollArea:
        scroll = QScrollArea(self)
        scroll.setObjectName(name)
        scroll.setWidget(content)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        return scroll

    def _build_choices(self) -> QWidget:
        content = QWidget()
        content.setObjectName("choose_choices")
        layout = QVBoxLayout(content)
        layout.setContentsMargins(0, 0, 6, 0)
        layout.addWidget(self._build_framework_box(content))
        layout.addWidget(self._build_environment_box(content))
        layout.addWidget(self._build_gpu_box(content))
        layout.addWidget(self._build_source_box(content))
        layout.addStretch(1)
        return content

    def _build_framework_box(self, parent: QWidget) -> QGroupBox:
        box = QGroupBox(self.tr("Framework"), parent)
        self.pytorch_radio = QRadioButton(self.tr("&PyTorch"), box)
        self.pytorch_radio.setObjectName("choose_pytorch")
        self.tensorflow_radio = QRadioButton(self.tr("&TensorFlow"), box)
        self.tensorflow_radio.setObjectName("choose_tensorflow")
        self.pytorch_radio.setAccessibleName(self.tr("Framework: PyTorch"))
        self.tensorflow_radio.setAccessibleName(self.tr("Framework: TensorFlow"))
        self.pytorch_radio.setChecked(True)
        self.framework_group = QButtonGroup(box)
        self.framework_group.addButton(self.pytorch_radio)
        self.framework_group.addButton(self.tensorflow_radio)
        self.framework_group.buttonToggled.connect(self._framework_toggled)

        self.version_combo = QComboBox(box)
        self.version_combo.setObjectName("choose_version")
        self.version_combo.setAccessibleName(self.tr("Framework version"))
        self.version_combo.setToolTip(
            self.tr(
                "“Recommended” lets the wizard pick the newest release that works on this machine. "
                "Pick a release when a project needs that one."
            )
        )
        self.version_combo.addItem(self.tr("Recommended"), RECOMMENDED)
        self.version_combo.currentIndexChanged.connect(self._version_changed)
        version_label = QLabel(self.tr("&Version:"), box)
        version_label.setBuddy(self.version_combo)

        radios = QHBoxLayout()
        radios.addWidget(self.pytorch_radio)
        radios.addWidget(self.tensorflow_radio)
        radios.addStretch(1)
        self.versions_error = QLabel(box)
        self.versions_error.setObjectName("choose_versions_error")
        self.versions_error.setWordWrap(True)
        self.versions_error.hide()
        version_row = QHBoxLayout()
        version_row.addWidget(version_label)
        version_row.addWidget(self.version_combo, 1)
        layout = QVBoxLayout(box)
        layout.addLayout(radios)
        layout.addLayout(version_row)
        layout.addWidget(self.versions_error)
        return box

    def _build_environment_box(self, parent: QWidget) -> QGroupBox:
        box = QGroupBox(self.tr("Environment"), parent)
        self.auto_radio = QRadioButton(self.tr("&Automatic (best for the plan)"), box)
        self.auto_radio.setObjectName("choose_manager_auto")
        self.auto_radio.setToolTip(
            self.tr(
                "The wizard picks venv or conda: conda where it brings CUDA and cuDNN into the "
                "environment that would otherwise have to be installed on the system."
            )
        )
        self.venv_radio = QRadioButton(self.tr("v&env"), box)
        self.venv_radio.setObjectName("choose_manager_venv")
        self.venv_radio.setToolTip(
            self.tr(
                "venv: a Python virtual environment, a folder with its own Python packages "
                "(made with uv or pip). Needs nothing else installed."
            )
        )
        self.conda_radio = QRadioButton(self.tr("c&onda"), box)
        self.conda_radio.setObjectName("choose_manager_conda")
        for radio, name in (
            (self.auto_radio, self.tr("Environment manager: automatic")),
            (self.venv_radio, self.tr("Environment manager: venv")),
            (self.conda_radio, self.tr("Environment manager: conda")),
        ):
            radio.setAccessibleName(name)
        self.auto_radio.setChecked(True)
        self.manager_group = QButtonGroup(box)
        for radio in (self.auto_radio, self.venv_radio, self.conda_radio):
            self.manager_group.addButton(radio)
        self.manager_group.buttonToggled.connect(self._manager_toggled)

        self.name_edit = QLineEdit(box)
        self.name_edit.setObjectName("choose_env_name")
        self.name_edit.setAccessibleName(self.tr("Environment name"))
        self.name_edit.setToolTip(
            self.tr("The environment's folder name; also its name in conda and Jupyter.")
        )
        self.name_edit.setMaxLength(64)
        self.name_edit.textChanged.connect(self._name_changed)
        self.name_edit.textEdited.connect(self._name_typed)
        name_label = QLabel(self.tr("Na&me:"), box)
        name_label.setBuddy(self.name_edit)
        self.name_error = QLabel(box)
        self.name_error.setObjectName("choose_env_name_error")
        self.name_error.setWordWrap(True)
        self.name_error.setStyleSheet(status_style("bad", self))  # the text says what is wrong
        self.name_error.hide()

        self.jupyter_check = QCheckBox(self.tr("Register a &Jupyter kernel"), box)
        self.jupyter_check.setObjectName("choose_jupyter")
        self.jupyter_check.setAccessibleName(self.tr("Register a Jupyter kernel"))
        self.jupyter_check.setToolTip(
            self.tr("Installs ipykernel in the environment so that Jupyter and VS Code notebooks can use it.")
        )
        self.jupyter_check.toggled.connect(self._show_changes)

        name_row = QHBoxLayout()
        name_row.addWidget(name_label)
        name_row.addWidget(self.name_edit, 1)
        layout = QVBoxLayout(box)
        layout.addWidget(self.auto_radio)
        layout.addWidget(self.venv_radio)
        layout.addWidget(self.conda_radio)
        layout.addLayout(name_row)
        layout.addWidget(self.name_error)
        layout.addWidget(self.jupyter_check)
        return box

    def _build_gpu_box(self, parent: QWidget) -> QGroupBox:
        box = QGroupBox(self.tr("GPUs"), parent)
        self.gpu_label = QLabel(self.tr("&GPUs the environment uses:"), box)
        self.gpu_list = QListWidget(box)
        self.gpu_list.setObjectName("choose_gpus")
        self.gpu_list.setAccessibleName(self.tr("GPUs the environment uses (Space ticks or clears one)"))
        self.gpu_list.setToolTip(
            self.tr(
                "Untick a GPU to keep it free for other work: the environment then sets "
                "CUDA_VISIBLE_DEVICES to the ticked ones."
            )
        )
        self.gpu_list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        # Long names are elided (the full name is in the tooltip) rather than scrolled sideways.
        self.gpu_list.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.gpu_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.gpu_list.itemChanged.connect(self._gpus_changed)
        self.gpu_label.setBuddy(self.gpu_list)
        self.gpu_note = QLabel(box)
        self.gpu_note.setObjectName("choose_gpu_note")
        self.gpu_note.setWordWrap(True)
        self.gpu_note.hide()
        layout = QVBoxLayout(box)
        layout.addWidget(self.gpu_label)
        layout.addWidget(self.gpu_list)
        layout.addWidget(self.gpu_note)
        return box

    def _build_source_box(self, parent: QWidget) -> QGroupBox:
        box = QGroupBox(self.tr("Packages"), parent)
        box.setObjectName("choose_source_box")
        self.offline_check = QCheckBox(self.tr("From a &folder of wheels (offline)"), box)
        self.offline_check.setObjectName("choose_offline")
        self.offline_check.setAccessibleName(self.tr("Install packages from a folder of wheels, offline"))
        self.offline_check.setToolTip(
            self.tr(
                "For machines without internet: install only from a folder of .whl files "
                "(made with “pip download” on another machine). Nothing is fetched."
            )
        )
        self.folder_edit = QLineEdit(box)
        self.folder_edit.setObjectName("choose_wheel_folder")
        self.folder_edit.setAccessibleName(self.tr("Folder of wheels"))
        self.folder_edit.setPlaceholderText(self.tr("Folder of .whl files"))
        self.browse_button = QPushButton(self.tr("&Browse…"), box)
        self.browse_button.setObjectName("choose_browse")
        self.browse_button.setAccessibleName(self.tr("Choose the folder of wheels"))
        self.folder_error = QLabel(box)
        self.folder_error.setObjectName("choose_wheel_folder_error")
        self.folder_error.setWordWrap(True)
        self.folder_error.setStyleSheet(status_style("bad", self))
        self.folder_error.hide()
        self.offline_check.toggled.connect(self._source_changed)
        self.folder_edit.textChanged.connect(self._source_changed)
        self.browse_button.clicked.connect(self._browse)
        row = QHBoxLayout()
        row.addWidget(self.folder_edit, 1)
        row.addWidget(self.browse_button)
        layout = QVBoxLayout(box)
        layout.addWidget(self.offline_check)
        layout.addLayout(row)
        layout.addWidget(self.folder_error)
        self.folder_edit.setEnabled(False)
        self.browse_button.setEnabled(False)
        return box

    def _build_result(self) -> QWidget:
        content = QWidget()
        content.setObjectName("choose_result")
        self.status_label = QLabel(content)
        self.status_label.setObjectName("choose_status")
        self.status_label.setWordWrap(True)
        self.error_label = QLabel(content)
        self.error_label.setObjectName("choose_error")
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet(status_style("bad", self))
        self.error_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error_label.hide()
        self.headline = headline_label("choose_headline", content)

        self.result_box = QWidget(content)
        result_layout = QVBoxLayout(self.result_box)
        result_layout.setContentsMargins(0, 0, 0, 0)
        result_layout.addWidget(self._build_plan_box(self.result_box))
        result_layout.addWidget(self._build_changes_box(self.result_box))
        self.findings_box = QGroupBox(self.tr("What to look at"), self.result_box)
        self.findings_box.setObjectName("choose_findings")
        self.findings_layout = QVBoxLayout(self.findings_box)
        result_layout.addWidget(self.findings_box)
        self.alternatives_box = QGroupBox(self.tr("Alternatives, best first"), self.result_box)
        self.alternatives_box.setObjectName("choose_alternatives_box")
        self.alternatives = self._text_label("choose_alternatives", self.alternatives_box)
        self.alternatives.setAccessibleName(self.tr("Alternatives"))
        QVBoxLayout(self.alternatives_box).addWidget(self.alternatives)
        result_layout.addWidget(self.alternatives_box)
        self.result_box.hide()

        layout = QVBoxLayout(content)
        layout.setContentsMargins(6, 0, 0, 0)
        layout.addWidget(self.status_label)
        layout.addWidget(self.error_label)
        layout.addWidget(self.headline)
        layout.addWidget(self.result_box)
        layout.addStretch(1)
        return content

    def _text_label(self, name: str, parent: QWidget, *, rich: bool = True) -> QLabel:
        label = QLabel(parent)
        label.setObjectName(name)
        label.setWordWrap(True)
        label.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        return label

    def _build_plan_box(self, parent: QWidget) -> QGroupBox:
        box = QGroupBox(self.tr("The plan"), parent)
        box.setObjectName("choose_plan")
        form = QFormLayout(box)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)

        def row(name: str, label: str, tooltip: str = "", *, code: bool = False) -> QLabel:
            value = self._text_label(name, box, rich=False)
            if code:
                value.setFont(mono)
            caption = QLabel(label, box)
            if tooltip:
                caption.setToolTip(tooltip)
                value.setToolTip(tooltip)
            form.addRow(caption, value)
            return value

        self.plan_framework = row("plan_framework", self.tr("Framework:"))
        self.plan_python = row("plan_python", self.tr("Python:"))
        self.plan_cuda = row(
            "plan_cuda",
            self.tr("CUDA / cuDNN:"),
            self.tr(
                "CUDA is NVIDIA's platform for computing on the GPU; cuDNN is its library of "
                "deep-learning building blocks. A framework build is made for one CUDA version, "
                "and the driver must support it."
            ),
        )
        self.plan_driver = row(
            "plan_driver",
            self.tr("Driver:"),
            self.tr("The NVIDIA driver must be at least as new as the CUDA version of the build needs."),
        )
        self.plan_manager = row("plan_manager", self.tr("Environment:"))
        self.plan_conda = row(
            "plan_conda",
            self.tr("conda installs:"),
            self.tr(
                "conda: an environment manager that can also install CUDA and cuDNN into the environment."
            ),
            code=True,
        )
        self.plan_pip = row("plan_pip", self.tr("pip installs:"), code=True)
        self.plan_reasons = self._text_label("plan_reasons", box)
        form.addRow(QLabel(self.tr("Why:"), box), self.plan_reasons)
        self.plan_form = form
        return box

    def _build_changes_box(self, parent: QWidget) -> QGroupBox:
        box = QGroupBox(self.tr("What will change on this machine"), parent)
        box.setObjectName("choose_changes_box")
        self.changes = self._text_label("choose_changes", box)
        self.changes.setAccessibleName(self.tr("What will change on this machine"))
        QVBoxLayout(box).addWidget(self.changes)
        self.changes_box = box
        return box

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
        self.recommend_now()

    def cleanupPage(self) -> None:
        """Going back keeps the choices as they are (nothing here is a registered field)."""

    def isComplete(self) -> bool:
        """Next once a recommendation for the current choice is shown and the name is valid."""
        return (
            self.recommendation is not None
            and not self._pending
            and self._name_error is None
            and self.gpus_valid()
            and self.folder_valid()
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

    # --- the choice -----------------------------------------------------------------------

    @property
    def framework(self) -> str:
        """``pytorch`` or ``tensorflow``."""
        return "tensorflow" if self.tensorflow_radio.isChecked() else "pytorch"

    @property
    def manager(self) -> str | None:
        """``venv``, ``conda``, or None for the plan's."""
        if self.venv_radio.isChecked():
            return "venv"
        if self.conda_radio.isChecked() and self.conda_radio.isEnabled():
            return "conda"
        return None

    def chosen_version(self) -> str | None:
        """The release picked, or None for the recommended one."""
        data = self.version_combo.currentData()
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
        folder = self.folder_edit.text().strip()
        offline = self.offline_check.isChecked() and bool(folder)
        return SetupRequest(
            framework=self.framework,
            version=self.chosen_version(),
            manager=self.manager,
            gpus=self.selected_gpus() or None,
            name=self.name_edit.text(),
            jupyter=self.jupyter_check.isChecked(),
            find_links=Path(folder).expanduser() if offline else None,
            offline=offline,
            replace=self.name_edit.text() in self.existing_names,
        )

    def folder_valid(self) -> bool:
        """False when offline installs are asked for without an existing folder."""
        if not self.offline_check.isChecked():
            return True
        folder = self.folder_edit.text().strip()
        return bool(folder) and Path(folder).expanduser().is_dir()

    def set_choice(self, choice: SetupRequest) -> None:
        """Show ``choice`` in the inputs (a choice made earlier, or an answer file's)."""
        (self.tensorflow_radio if choice.framework == "tensorflow" else self.pytorch_radio).setChecked(True)
        self._select_version(choice.version)
        radio = {"venv": self.venv_radio, "conda": self.conda_radio}.get(
            choice.manager or "", self.auto_radio
        )
        (radio if radio.isEnabled() else self.auto_radio).setChecked(True)
        wanted = None if choice.gpus is None else set(choice.gpus.split(","))
        for item in self._gpu_items():
            if item.flags() & Qt.ItemFlag.ItemIsEnabled:
                ticked = wanted is None or str(item.data(Qt.ItemDataRole.UserRole)) in wanted
                item.setCheckState(Qt.CheckState.Checked if ticked else Qt.CheckState.Unchecked)
        self.name_edit.setText(choice.name)
        self._name_edited = True
        self.jupyter_check.setChecked(choice.jupyter)
        self.offline_check.setChecked(choice.offline)
        self.folder_edit.setText(str(choice.find_links) if choice.find_links is not None else "")

    # --- filling the inputs ---------------------------------------------------------------

    def _fill_from_report(self, report: SystemReport) -> None:
        found = {name for name, _path in report.managers.found()}
        has_conda = bool(found & set(_CONDA_TOOLS))
        self.conda_radio.setEnabled(has_conda)
        if has_conda:
            self.conda_radio.setToolTip(
                self.tr(
                    "conda: an environment manager (here through %1) that can also bring CUDA and "
                    "cuDNN into the environment, from conda-forge."
                ).replace("%1", next(name for name in _CONDA_TOOLS if name in found))
            )
        else:
            self.conda_radio.setToolTip(
                self.tr(
                    "No conda, mamba or micromamba was found on this machine. Install Miniforge "
                    "(conda-forge.org/download) to use conda."
                )
            )
            if self.conda_radio.isChecked():
                self.auto_radio.setChecked(True)
        self._fill_gpus(report.nvidia_gpus)
        if not self._name_edited:
            self._set_default_name()

    def _fill_gpus(self, gpus: Sequence[GpuFacts]) -> None:
        self.gpu_list.blockSignals(True)
        self.gpu_list.clear()
        for gpu in gpus:
            text = self.tr("GPU %1: %2").replace("%1", str(gpu.index)).replace("%2", display_name(gpu))
            if gpu.status != "ok":
                statuses = {"lost": self.tr("not responding"), "no-driver": self.tr("no driver")}
                text += "\n" + self.tr("not usable: %1").replace("%1", statuses.get(gpu.status, gpu.status))
            elif gpu.compute_capability:
                text += "\n" + self.tr("compute capability %1").replace("%1", gpu.compute_capability)
            item = QListWidgetItem(text, self.gpu_list)
            item.setData(Qt.ItemDataRole.UserRole, gpu.index)
            item.setToolTip(
                text
                + "\n\n"
                + self.tr(
                    "Compute capability is the GPU generation's feature level (8.6 for the GeForce "
                    "RTX 30 series); a framework build runs only on the levels it was made for."
                )
            )
            if gpu.status == "ok":
                item.setFlags(
                    Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsUserCheckable
                )
                item.setCheckState(Qt.CheckState.Checked)
            else:
                item.setFlags(Qt.ItemFlag.ItemIsUserCheckable)  # shown, greyed, not tickable
                item.setCheckState(Qt.CheckState.Unchecked)
        self.gpu_list.blockSignals(False)
        has_gpus = bool(gpus)
        self.gpu_label.setVisible(has_gpus)
        self.gpu_list.setVisible(has_gpus)
        self.gpu_note.setVisible(not has_gpus)
        if not has_gpus:
            self.gpu_note.setText(
                self.tr("No NVIDIA GPU was found, so there is nothing to pick: the plan is a CPU build.")
            )
        else:
            self._fit_gpu_list()

    def _fit_gpu_list(self) -> None:
        # Two lines per GPU (name, compute capability); the list scrolls past a few GPUs.
        rows = min(self.gpu_list.count(), _GPU_ROWS_SHOWN)
        height = sum(self.gpu_list.sizeHintForRow(row) for row in range(rows))
        self.gpu_list.setFixedHeight(height + 2 * self.gpu_list.frameWidth())

    def _gpu_items(self) -> list[QListWidgetItem]:
        items = [self.gpu_list.item(row) for row in range(self.gpu_list.count())]
        return [item for item in items if item is not None]

    def _set_default_name(self) -> None:
        short = {"pytorch": "torch", "tensorflow": "tf"}[self.framework]
        report = self.session.report
        kind = "gpu" if report is not None and report.nvidia_gpus else "cpu"
        self.name_edit.setText(f"{short}-{kind}")

    def _fill_versions(self) -> None:
        wanted = self._wanted_version
        self.version_combo.blockSignals(True)
        self.version_combo.clear()
        self.version_combo.addItem(self.tr("Recommended"), RECOMMENDED)
        versions = list(self.releases.get(self.framework, []))
        if wanted is not None and wanted not in versions:
            versions.append(wanted)  # an earlier choice the data no longer lists: the recommender says so
        for version in versions:
            self.version_combo.addItem(version, version)
        self.version_combo.setCurrentIndex(max(self.version_combo.findData(wanted), 0) if wanted else 0)
        self.version_combo.blockSignals(False)

    def _select_version(self, version: str | None) -> None:
        self._wanted_version = version
        self._fill_versions()
        self._schedule()

    # --- reacting to changes --------------------------------------------------------------

    @Slot()
    def _framework_toggled(self) -> None:
        if not self.framework_group.checkedButton():
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
        if self.manager_group.checkedButton() is not None:
            self._schedule()

    @Slot()
    def _gpus_changed(self) -> None:
        none_ticked = not self.gpus_valid()
        self.gpu_note.setText(self.tr("Tick at least one GPU.") if none_ticked else "")
        self.gpu_note.setVisible(none_ticked)
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
            check_env_name(self.name_edit.text(), manager=manager)
        except EnvNameError as error:
            self._name_error = str(error)
            self.name_error.setText(self.tr("This name cannot be used: %1").replace("%1", str(error)))
            self.name_error.setStyleSheet(status_style("bad", self))
            self.name_error.show()
        else:
            self._name_error = None
            exists = self.name_edit.text() in self.existing_names
            self.name_error.setText(
                self.tr(
                    "An environment of this name exists: it will be replaced (and put back if this fails)."
                )
                if exists
                else ""
            )
            self.name_error.setStyleSheet(status_style("warn", self))
            self.name_error.setVisible(exists)

    @Slot()
    def _source_changed(self) -> None:
        offline = self.offline_check.isChecked()
        self.folder_edit.setEnabled(offline)
        self.browse_button.setEnabled(offline)
        folder = self.folder_edit.text().strip()
        missing = offline and bool(folder) and not Path(folder).expanduser().is_dir()
        self.folder_error.setText(self.tr("There is no such folder.") if missing else "")
        self.folder_error.setVisible(missing)
        self._show_changes()
        self.completeChanged.emit()

    @Slot()
    def _browse(self) -> None:
        folder = QFileDialog.getExistingDirectory(
            self, self.tr("The folder of wheels"), self.folder_edit.text() or str(Path.home())
        )
        if folder:
            self.folder_edit.setText(folder)

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
            self.status_label.setText(self.tr("Waiting for the detection of this machine…"))
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
        self.status_label.setText(self.tr("Working out the plan…"))
        self.status_label.show()
        self.result_box.setEnabled(False)
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
        self.versions_error.setText(
            self.tr("The list of releases could not be read (%1); “Recommended” still works.").replace(
                "%1", _one_line(message)
            )
        )
        self.versions_error.show()

    @Slot(object)
    def _outcome_ready(self, outcome: object) -> None:
        if not isinstance(outcome, RecommendOutcome) or outcome.generation != self._generation:
            return  # an answer to an older choice: a newer one is on its way
        self.outcome = outcome
        self._pending = self.timer.isActive()
        self.status_label.hide()
        self.result_box.setEnabled(True)
        if outcome.recommendation is None:
            self._show_failure(outcome)
        else:
            self._show_recommendation(outcome.recommendation)
        self._check_name()
        self.completeChanged.emit()

    # --- showing the answer ---------------------------------------------------------------

    def _show_failure(self, outcome: RecommendOutcome) -> None:
        self.recommendation = None
        text = outcome.error or ""
        if outcome.unexpected:
            text = self.tr("The recommendation failed: %1").replace("%1", text)
        self.error_label.setText(text)
        self.error_label.show()
        self.headline.hide()
        self.result_box.hide()

    def _show_recommendation(self, rec: Recommendation) -> None:
        self.recommendation = rec
        self.error_label.hide()
        headline = self._headline(rec)
        self.headline.setText(headline)
        self.headline.setAccessibleName(headline)
        self.headline.show()
        self._show_plan(rec)
        self._show_changes()
        self._show_findings(rec)
        self._show_alternatives(rec.alternatives)
        self.result_box.show()

    def _headline(self, rec: Recommendation) -> str:
        plan = rec.plan
        title = framework_title(rec.framework)
        report = self.session.report
        if plan.cpu_only:
            if report is None or not report.nvidia_gpus:
                return self.tr(
                    "No NVIDIA GPU here: %1 will train on the CPU (slower, but it works)."
                ).replace("%1", title)
            return self.tr(
                "%1 will train on the CPU only: the GPU cannot be used (the reasons are below)."
            ).replace("%1", title)
        if plan.driver_update_required:
            return self.tr("GPU training with %1 is possible after a driver update.").replace("%1", title)
        if plan.target == "wsl2":
            return self.tr("GPU training with %1 is possible inside WSL 2 (Linux on this Windows).").replace(
                "%1", title
            )
        if rec.gpu_supported:
            return self.tr("GPU training with %1 is possible on this machine as it is.").replace("%1", title)
        return self.tr(
            "GPU training with %1 is possible with the plan below, not with exactly what you picked."
        ).replace("%1", title)

    def _plan_line(self, plan: Plan) -> str:
        parts = [f"{framework_title(plan.framework)} {plan.framework_version}"]
        parts.append(self._cuda_text(plan, short=True))
        parts.append(self.tr("Python %1").replace("%1", plan.python))
        parts.append(plan.manager)
        if plan.target == "wsl2":
            parts.append(self.tr("inside WSL 2"))
        if plan.driver_update_required:
            parts.append(self.tr("needs a driver update"))
        return " · ".join(parts)

    def _cuda_text(self, plan: Plan, *, short: bool = False) -> str:
        if plan.cpu_only or plan.cuda is None:
            return self.tr("CPU build") if short else self.tr("CPU build: no CUDA, runs on the processor")
        text = self.tr("CUDA %1").replace("%1", plan.cuda)
        if plan.cudnn:
            text = self.tr("CUDA %1, cuDNN %2").replace("%1", plan.cuda).replace("%2", plan.cudnn)
        if short:
            return text
        if plan.system_cuda_toolkit_required:
            return text + " " + self.tr("(must be installed on the system: the wizard does not install it)")
        return text + " " + self.tr("(comes inside the environment: no CUDA toolkit needed)")

    def _show_plan(self, rec: Recommendation) -> None:
        plan = rec.plan
        version = plan.framework_version
        if plan.torch_variant:
            version += " " + self.tr("(wheel %1)").replace("%1", plan.torch_variant)
        self.plan_framework.setText(f"{framework_title(plan.framework)} {version}")
        self.plan_python.setText(plan.python)
        self.plan_cuda.setText(self._cuda_text(plan))
        driver = self._driver_text(rec)
        self.plan_form.setRowVisible(self.plan_driver, driver is not None)
        self.plan_driver.setText(driver or "")
        inside = " " + self.tr("inside WSL 2") if plan.target == "wsl2" else ""
        manager = (
            self.tr("conda environment")
            if plan.manager == "conda"
            else self.tr("venv (Python virtual environment)")
        )
        self.plan_manager.setText(manager + inside)
        conda = ""
        if plan.manager == "conda":
            channels = "".join(f" -c {channel}" for channel in plan.conda_channels)
            conda = f"conda create{channels} {' '.join(plan.conda_packages)}"
        self.plan_form.setRowVisible(self.plan_conda, bool(conda))
        self.plan_conda.setText(conda)
        pip = f"pip install {' '.join(plan.requirements)}"
        if plan.index_url:
            pip += f"\n    --index-url {plan.index_url}"  # a line of its own rather than broken at a /
        self.plan_pip.setText(pip)
        # The recommender gives one reason per GPU; four identical GPUs need saying once.
        reasons = list(dict.fromkeys(display_text(text) for text in (*plan.reasons, *rec.notes)))
        self.plan_reasons.setText(_bullets(reasons))
        self.plan_form.setRowVisible(self.plan_reasons, bool(reasons))

    @staticmethod
    def _driver_minimum(rec: Recommendation) -> str | None:
        plan = rec.plan
        if plan.cpu_only or not plan.min_driver:
            return None
        # In WSL 2 the driver is the Windows one.
        driver_os = "windows" if plan.target == "wsl2" else rec.cuda_numbers.driver_os
        return plan.min_driver.get(driver_os)

    def _driver_text(self, rec: Recommendation) -> str | None:
        plan, numbers = rec.plan, rec.cuda_numbers
        minimum = self._driver_minimum(rec)
        if minimum is None:
            return None
        text = self.tr("%1 or newer").replace("%1", minimum)
        if numbers.driver is None:
            return text + "; " + self.tr("no NVIDIA driver answers now")
        if plan.driver_update_required:
            return text + "; " + self.tr("you have %1: update it first").replace("%1", numbers.driver)
        return text + "; " + self.tr("you have %1 (fine)").replace("%1", numbers.driver)

    @Slot()
    def _show_changes(self) -> None:
        rec = self.recommendation
        if rec is None:
            return
        self.changes.setText(_bullets(self.change_lines(rec), escaped=True))

    def change_lines(self, rec: Recommendation) -> list[str]:
        """What carrying out ``rec`` changes on this machine, one HTML line each (escaped)."""
        plan = rec.plan
        name = self.name_edit.text()
        lines: list[str] = []
        if self.session.preview:
            lines.append(
                "<b>" + escape(self.tr("Nothing: this is a preview; below is what it would do.")) + "</b>"
            )
        if plan.target == "wsl2":
            lines.append(
                escape(
                    self.tr(
                        "Nothing in Windows: this plan runs inside WSL 2. Start the wizard inside "
                        "your WSL 2 Linux to set it up there."
                    )
                )
            )
            return lines
        packages = list(plan.requirements) + (["ipykernel"] if self.jupyter_check.isChecked() else [])
        package_text = _code(", ".join(packages))
        choice = self.current_choice()
        if choice.replace:
            lines.append(
                escape(
                    self.tr(
                        "The existing environment %1 is replaced: it is moved aside, and put back if "
                        "the new one fails."
                    ).replace("%1", name)
                )
            )
        if plan.manager == "conda":
            lines.append(
                self.tr(
                    "A new conda environment %1 (in conda's environments folder) with %2, then %3 from pip."
                )
                .replace("%1", _code(name))
                .replace("%2", _code(" ".join(plan.conda_packages)))
                .replace("%3", package_text)
            )
        else:
            # A saved report is another machine's: its wizard home is not this one's.
            template = (
                self.tr(
                    "A new folder %1 in the wizard's home folder, holding a Python %2 environment with %3."
                )
                if self.session.preview
                else self.tr("A new folder %1 holding a Python %2 environment with %3.")
            )
            folder = f"envs/{name}" if self.session.preview else str(default_envs_dir() / name)
            lines.append(
                template.replace("%1", _code(folder))
                .replace("%2", escape(plan.python))
                .replace("%3", package_text)
            )
        if choice.offline and choice.find_links is not None:
            lines.append(
                self.tr("Packages come only from %1; nothing is downloaded.").replace(
                    "%1", _code(str(choice.find_links))
                )
            )
        try:
            variables = activation_variables(plan.framework, plan.cpu_only, choice.gpus)
        except GpuSelectionError:
            variables = {}
        if variables:
            lines.append(
                self.tr("Settings that apply only while the environment is active: %1.").replace(
                    "%1", _code(", ".join(f"{key}={value}" for key, value in variables.items()))
                )
            )
        if self.jupyter_check.isChecked():
            lines.append(escape(self.tr("A Jupyter kernel for this environment, for your user only.")))
        if plan.path_entries:
            folders = "".join(f"<br>&nbsp;&nbsp;{_code(entry)}" for entry in plan.path_entries)
            lines.append(
                escape(
                    self.tr(
                        "Your user PATH gets these folders (the next page shows the change first, "
                        "and it can be undone):"
                    )
                )
                + folders
            )
        if plan.system_cuda_toolkit_required and plan.cuda:
            lines.append(
                escape(
                    self.tr("You install yourself, the wizard does not: CUDA %1 and cuDNN %2 from NVIDIA.")
                    .replace("%1", plan.cuda)
                    .replace("%2", plan.cudnn or "?")
                )
            )
        if plan.driver_update_required:
            minimum = self._driver_minimum(rec)
            text = (
                self.tr("You install yourself, the wizard does not: an NVIDIA driver %1 or newer.").replace(
                    "%1", minimum
                )
                if minimum
                else self.tr("You install yourself, the wizard does not: a newer NVIDIA driver.")
            )
            lines.append(escape(text))
        nothing_else = (
            self.tr(
                "Nothing else: drivers and system files stay as they are. No administrator rights are needed."
            )
            if plan.path_entries
            else self.tr(
                "Nothing else: PATH, drivers and system files stay as they are. No administrator rights are needed."
            )
        )
        lines.append(escape(nothing_else))
        return lines

    def _show_findings(self, rec: Recommendation) -> None:
        self.finding_views = replace_finding_views(
            self.findings_box, self.findings_layout, self.finding_views, rec.findings
        )

    def _show_alternatives(self, alternatives: Sequence[Plan]) -> None:
        self.alternatives.setText(_bullets([self._plan_line(plan) for plan in alternatives], ordered=True))
        self.alternatives_box.setVisible(bool(alternatives))


def _code(text: str) -> str:
    return f"<code>{escape(text)}</code>"


def _bullets(lines: Sequence[str], *, escaped: bool = False, ordered: bool = False) -> str:
    """An HTML list; ``escaped``: the lines are HTML already."""
    tag = "ol" if ordered else "ul"
    items = "".join(f"<li>{line if escaped else escape(line)}</li>" for line in lines)
    return f"<{tag} style='margin-left: -20px'>{items}</{tag}>"
