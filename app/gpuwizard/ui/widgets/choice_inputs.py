"""The Choose page's inputs: framework and release, environment, GPUs, where packages come from.

The controls only; the page (:mod:`gpuwizard.ui.pages.choose`) reads them into a request,
fills them from the machine and reacts to their signals.
"""

from __future__ import annotations

from typing import Final

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from gpuwizard.ui.theme import status_style
from gpuwizard.ui.widgets.wheel_folder_status import WheelFolderStatus

#: The version list's data for "Recommended" (a release's data is its version).
RECOMMENDED: Final = ""


class ChoiceInputs(QWidget):
    """The inputs of the Choose page (object name ``choose_choices``)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._build()

    def _build(self) -> None:
        content = self
        content.setObjectName("choose_choices")
        layout = QVBoxLayout(content)
        layout.setContentsMargins(0, 0, 6, 0)
        layout.addWidget(self._build_framework_box(content))
        layout.addWidget(self._build_environment_box(content))
        layout.addWidget(self._build_gpu_box(content))
        layout.addWidget(self._build_source_box(content))
        layout.addStretch(1)

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

        self.name_edit = QLineEdit(box)
        self.name_edit.setObjectName("choose_env_name")
        self.name_edit.setAccessibleName(self.tr("Environment name"))
        self.name_edit.setToolTip(
            self.tr("The environment's folder name; also its name in conda and Jupyter.")
        )
        self.name_edit.setMaxLength(64)
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
        row = QHBoxLayout()
        row.addWidget(self.folder_edit, 1)
        row.addWidget(self.browse_button)
        # Whether the folder can install the plan (checked when picked and when the plan changes).
        self.folder_status = WheelFolderStatus(box)
        layout = QVBoxLayout(box)
        layout.addWidget(self.offline_check)
        layout.addLayout(row)
        layout.addWidget(self.folder_error)
        layout.addWidget(self.folder_status)
        self.folder_edit.setEnabled(False)
        self.browse_button.setEnabled(False)
        for signal in (self.offline_check.toggled, self.folder_edit.textChanged, self.jupyter_check.toggled):
            signal.connect(self._folder_inputs_changed)
        return box

    def _folder_inputs_changed(self) -> None:
        self.folder_status.set_inputs(
            self.offline_check.isChecked(), self.folder_edit.text(), self.jupyter_check.isChecked()
        )
