"""What the detected machine puts in the Choose page's inputs: the GPUs to use, and whether conda can be.

One tickable item per NVIDIA GPU, unusable ones greyed; the conda choice, naming its engine.

Its texts keep the Choose page's translation context (they were that page's own), so moving
them here changed no translation (a literal context: pyside6-lupdate reads only literals).
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QListWidgetItem

from gpuwizard.core.machine.conda_engines import found_conda_tool
from gpuwizard.core.machine.system_report import GpuFacts, SystemReport, display_name
from gpuwizard.ui.widgets.choice_inputs import ChoiceInputs


def fill_gpu_list(inputs: ChoiceInputs, gpus: Sequence[GpuFacts]) -> None:
    """Show ``gpus`` in ``inputs.gpu_list`` (all usable ones ticked), or say there are none."""
    inputs.gpu_list.blockSignals(True)
    inputs.gpu_list.clear()
    for gpu in gpus:
        text = (
            QCoreApplication.translate("ChoosePage", "GPU %1: %2")
            .replace("%1", str(gpu.index))
            .replace("%2", display_name(gpu))
        )
        if gpu.status != "ok":
            statuses = {
                "lost": QCoreApplication.translate("ChoosePage", "not responding"),
                "no-driver": QCoreApplication.translate("ChoosePage", "no driver"),
            }
            text += "\n" + QCoreApplication.translate("ChoosePage", "not usable: %1").replace(
                "%1", statuses.get(gpu.status, gpu.status)
            )
        elif gpu.compute_capability:
            text += "\n" + QCoreApplication.translate("ChoosePage", "compute capability %1").replace(
                "%1", gpu.compute_capability
            )
        item = QListWidgetItem(text, inputs.gpu_list)
        item.setData(Qt.ItemDataRole.UserRole, gpu.index)
        item.setToolTip(
            text
            + "\n\n"
            + QCoreApplication.translate(
                "ChoosePage",
                "Compute capability is the GPU generation's feature level (8.6 for the GeForce "
                "RTX 30 series); a framework build runs only on the levels it was made for.",
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
    inputs.gpu_list.blockSignals(False)
    has_gpus = bool(gpus)
    inputs.gpu_label.setVisible(has_gpus)
    inputs.gpu_list.setVisible(has_gpus)
    inputs.gpu_note.setVisible(not has_gpus)
    if not has_gpus:
        inputs.gpu_note.setText(
            QCoreApplication.translate(
                "ChoosePage", "No NVIDIA GPU was found, so there is nothing to pick: the plan is a CPU build."
            )
        )


def fill_managers(inputs: ChoiceInputs, report: SystemReport) -> None:
    """The conda choice, on every machine, saying which engine makes the environment here.

    conda, mamba or micromamba when one is installed; else py-rattler, which ships inside the
    wizard (issue 23): the core decides which (``core/machine/conda_engines.py``).
    """
    tool = found_conda_tool(report.managers)
    inputs.conda_radio.setEnabled(True)
    if tool is not None:
        inputs.conda_radio.setToolTip(
            QCoreApplication.translate(
                "ChoosePage",
                "conda: an environment manager (here through %1) that can also bring CUDA and "
                "cuDNN into the environment, from conda-forge.",
            ).replace("%1", tool)
        )
        return
    inputs.conda_radio.setToolTip(
        QCoreApplication.translate(
            "ChoosePage",
            "conda: an environment manager that can also bring CUDA and cuDNN into the environment, "
            "from conda-forge. No conda is installed here, and none is needed: the wizard makes "
            "the environment with py-rattler, built into the wizard.",
        )
    )
