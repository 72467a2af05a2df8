"""The system report as the detection page shows it.

It leads with the answer (can this machine train on a GPU?), then the three CUDA numbers
people confuse: what the driver supports, the toolkits on disk, and what a framework brings
with it. Then the GPUs, the findings with their fixes, and the details.
"""

from __future__ import annotations

from PySide6.QtCore import QLocale, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFormLayout,
    QGroupBox,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gpuwizard.core.machine.readiness import gpu_readiness, no_gpu_note
from gpuwizard.core.machine.system_report import GpuFacts, SystemReport, display_name, gpu_list
from gpuwizard.ui.widgets.finding_view import QtFindingView
from gpuwizard.ui.widgets.labels import headline_label


class QtReportView(QWidget):
    """Presents a :class:`SystemReport`; :meth:`set_report` fills it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("report_view")
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self.headline = headline_label("headline", self)
        self._layout.addWidget(self.headline)

        self.cuda_box = QGroupBox(self.tr("CUDA: three different numbers"), self)
        self.cuda_form = QFormLayout(self.cuda_box)
        self.cuda_form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self._layout.addWidget(self.cuda_box)

        self.gpu_box = QGroupBox(self.tr("Graphics hardware"), self)
        gpu_layout = QVBoxLayout(self.gpu_box)
        self.gpu_table = QTableWidget(0, 4, self.gpu_box)
        self.gpu_table.setObjectName("gpu_table")
        self.gpu_table.setAccessibleName(self.tr("GPUs"))
        self.gpu_table.setHorizontalHeaderLabels(
            [self.tr("Name"), self.tr("Architecture"), self.tr("Memory"), self.tr("Status")]
        )
        header_item = self.gpu_table.horizontalHeaderItem(1)
        if header_item is not None:
            header_item.setToolTip(
                self.tr(
                    "What a framework build must carry code for: the compute capability of an NVIDIA "
                    "GPU (8.6 for the GeForce RTX 30 series), the target of an AMD GPU (gfx1100 for the "
                    "Radeon RX 7900 series). A build runs only on the ones it was compiled for."
                )
            )
        self.gpu_table.verticalHeader().setVisible(False)
        self.gpu_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        # Tab must leave the table (arrow keys move between cells); by default a table keeps
        # Tab for itself and keyboard users could never reach the wizard's buttons.
        self.gpu_table.setTabKeyNavigation(False)
        # One line per GPU: a wrapped name would leave its row twice as high once the column
        # has widened.
        self.gpu_table.setWordWrap(False)
        self.gpu_table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.gpu_table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2, 3):
            self.gpu_table.horizontalHeader().setSectionResizeMode(
                column, QHeaderView.ResizeMode.ResizeToContents
            )
        self.gpu_table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        gpu_layout.addWidget(self.gpu_table)
        self._layout.addWidget(self.gpu_box)

        self.findings_box = QGroupBox(self.tr("What to look at"), self)
        self.findings_layout = QVBoxLayout(self.findings_box)
        self._layout.addWidget(self.findings_box)

        self.details_box = QGroupBox(self.tr("Details"), self)
        self.details_form = QFormLayout(self.details_box)
        self.details_form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self._layout.addWidget(self.details_box)
        self._layout.addStretch(1)
        self.finding_views: list[QtFindingView] = []

    # --- filling ------------------------------------------------------------------------

    def set_report(self, report: SystemReport) -> None:
        """Show ``report``, replacing whatever was shown."""
        self._show_headline(report)
        self._show_cuda(report)
        self._show_gpus(report)
        self._show_findings(report)
        self._show_details(report)

    def _show_headline(self, report: SystemReport) -> None:
        readiness = gpu_readiness(report)
        if readiness.ready:
            text = self.tr("Ready for GPU training on %1.").replace("%1", gpu_list(readiness.usable_gpus))
        elif report.nvidia_gpus or report.driver is not None:
            text = self.tr("An NVIDIA GPU is here, but GPU training does not work yet.")
        elif readiness.other_gpus:
            text = self.tr("%1 found: the next page checks which builds carry code for it.").replace(
                "%1", gpu_list(readiness.other_gpus)
            )
        elif no_gpu_note(report) is not None:
            # A fact with a way forward, not a fault (core/findings/no_gpu.py).
            text = self.tr(
                "No NVIDIA GPU here: PyTorch and TensorFlow run on the CPU, with their CPU builds."
            )
        else:
            text = self.tr("No usable NVIDIA GPU: GPU training is not possible here yet.")
        self.headline.setText(text)
        self.headline.setAccessibleName(text)

    def _show_cuda(self, report: SystemReport) -> None:
        _clear_form(self.cuda_form)
        driver = report.driver
        if driver is None:
            driver_text = self.tr("No NVIDIA driver answered, so no CUDA version can run yet.")
        elif driver.cuda_max:
            driver_text = (
                self.tr("CUDA %1 or older (driver %2)")
                .replace("%1", driver.cuda_max)
                .replace("%2", driver.version)
            )
        else:
            driver_text = self.tr("Unknown: driver %1 does not report it").replace("%1", driver.version)
        self._add_row(
            self.cuda_form,
            self.tr("Your driver supports"),
            driver_text,
            self.tr(
                "A limit, not something installed: the newest CUDA a framework build may use "
                "(nvidia-smi calls it “CUDA Version”)."
            ),
            "cuda_driver",
        )
        none_needed, why = self._toolkit_texts(report.os.family)
        if report.cuda_toolkits:
            parts = []
            for kit in sorted(report.cuda_toolkits, key=lambda k: (k.path_rank is None, k.path_rank or 0)):
                label = kit.version or self.tr("unknown version")
                if kit.path_rank == 0:
                    label += " " + self.tr("(first on PATH)")
                elif kit.on_path:
                    label += " " + self.tr("(on PATH)")
                parts.append(label)
            toolkit_text = ", ".join(parts)
        else:
            toolkit_text = none_needed
        self._add_row(self.cuda_form, self.tr("CUDA toolkits on disk"), toolkit_text, why, "cuda_toolkits")
        self._add_row(
            self.cuda_form,
            self.tr("The framework brings"),
            self.tr("Chosen in the next step, to match the driver and the GPU"),
            self.tr(
                "Must not be newer than what the driver supports, and must contain code for "
                "your GPU's compute capability."
            ),
            "cuda_framework",
        )

    def _toolkit_texts(self, family: str) -> tuple[str, str]:
        """What "no toolkit" means on the report's system, and when one is needed there.

        The report's, not this computer's: ``--system FILE`` shows another machine.
        """
        if family == "windows":
            return self.tr("None (PyTorch on Windows does not need one)"), self.tr(
                "Needed only to compile CUDA code, or for TensorFlow 2.10 or older in a venv "
                "without NVIDIA's CUDA wheels. PyTorch brings its own CUDA; TensorFlow 2.11+ uses "
                "the GPU only in WSL 2."
            )
        if family == "darwin":
            return self.tr("None (current frameworks have no CUDA build for macOS)"), self.tr(
                "CUDA for macOS ended with CUDA 10.2; PyTorch and TensorFlow use the GPU of a Mac "
                "through Apple's Metal."
            )
        return self.tr("None (PyTorch and current TensorFlow on Linux do not need one)"), self.tr(
            "Needed only for TensorFlow 2.10 or older on native Windows, or to compile CUDA "
            "code. PyTorch and TensorFlow 2.14+ on Linux bring their own CUDA."
        )

    def _show_gpus(self, report: SystemReport) -> None:
        locale = QLocale()
        self.gpu_table.setRowCount(len(report.gpus))
        statuses = {
            "ok": self.tr("working"),
            "lost": self.tr("not responding"),
            "no-driver": self.tr("no driver"),
        }
        for row, gpu in enumerate(report.gpus):
            memory = ""
            if gpu.memory_total_mib is not None:
                memory = locale.formattedDataSize(gpu.memory_total_mib * 1024 * 1024, 1)
            cells = [
                display_name(gpu),
                gpu.architecture or "—",
                memory or "—",
                statuses.get(gpu.status, gpu.status),
            ]
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if column == 0:
                    item.setToolTip(self._gpu_tooltip(gpu))
                self.gpu_table.setItem(row, column, item)
        if not report.gpus:
            self.gpu_table.setRowCount(1)
            item = QTableWidgetItem(self.tr("No graphics hardware was found"))
            self.gpu_table.setItem(0, 0, item)
            self.gpu_table.setSpan(0, 0, 1, 4)
        else:
            self.gpu_table.clearSpans()
        height = self.gpu_table.horizontalHeader().height() + 2 * self.gpu_table.frameWidth()
        height += sum(self.gpu_table.rowHeight(row) for row in range(self.gpu_table.rowCount()))
        self.gpu_table.setFixedHeight(height)

    def _gpu_tooltip(self, gpu: GpuFacts) -> str:
        """Where the GPU sits and which driver serves it, as far as the report tells."""
        lines = []
        if gpu.pci_bus_id:
            lines.append(self.tr("PCI bus %1").replace("%1", gpu.pci_bus_id))
        if gpu.pci_id:
            lines.append(self.tr("PCI id %1").replace("%1", gpu.pci_id))
        if gpu.driver_version:
            lines.append(self.tr("Driver %1").replace("%1", gpu.driver_version))
        if gpu.kernel_driver:
            lines.append(self.tr("Kernel driver %1").replace("%1", gpu.kernel_driver))
        return "\n".join(lines)

    def _show_findings(self, report: SystemReport) -> None:
        for view in self.finding_views:
            view.deleteLater()
        self.finding_views = [QtFindingView(finding, self.findings_box) for finding in report.findings]
        for view in self.finding_views:
            self.findings_layout.addWidget(view)
        self.findings_box.setVisible(bool(self.finding_views))

    def _show_details(self, report: SystemReport) -> None:
        _clear_form(self.details_form)
        os_info = report.os
        system = os_info.distribution or os_info.family
        system += f" · {os_info.arch}"
        if os_info.wsl:
            system += f" · WSL {os_info.wsl_version or 2}"
        self._add_row(self.details_form, self.tr("System"), system, None, "system")
        if report.python:
            python = report.python
            text = self.tr("Python %1 (%2-bit) at %3").replace("%1", python.version)
            text = text.replace("%2", str(python.bits or "?")).replace("%3", python.executable)
        else:
            text = self.tr("No Python found; the wizard can provide one")
        self._add_row(self.details_form, self.tr("Python"), text, None, "python")
        others = [
            p.version
            for p in report.interpreters
            if report.python is None or p.executable != report.python.executable
        ]
        if others:
            self._add_row(
                self.details_form,
                self.tr("Other Pythons"),
                ", ".join(dict.fromkeys(others)),
                None,
                "interpreters",
            )
        self._add_row(
            self.details_form,
            self.tr("Environment tools"),
            ", ".join(name for name, _ in report.managers.found()) or self.tr("none found"),
            None,
            "managers",
        )
        if report.cudnn:
            dnn = ", ".join(f"{d.version or '?'} ({d.location})" for d in report.cudnn)
        else:
            dnn = self.tr("none found")
        self._add_row(
            self.details_form,
            self.tr("cuDNN"),
            dnn,
            self.tr(
                "NVIDIA's deep-learning library. Frameworks bring their own, except TensorFlow 2.10 or older on Windows."
            ),
            "cudnn",
        )
        if os_info.family == "windows":
            state = {True: self.tr("on"), False: self.tr("off"), None: self.tr("unknown")}[
                report.long_paths_enabled
            ]
            self._add_row(self.details_form, self.tr("Long paths"), state, None, "long_paths")

    def _add_row(self, form: QFormLayout, label: str, value: str, explanation: str | None, name: str) -> None:
        """Add ``label: value``, with ``explanation`` as quieter text under the value."""
        label_widget = QLabel(label + ":", self)
        value_widget = QLabel(value, self)
        value_widget.setObjectName(name)
        value_widget.setWordWrap(True)
        value_widget.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        value_widget.setAccessibleName(label)
        label_widget.setBuddy(value_widget)
        if not explanation:
            form.addRow(label_widget, value_widget)
            return
        value_widget.setAccessibleDescription(explanation)
        note = QLabel(explanation, self)
        note.setObjectName(f"{name}_explained")
        note.setWordWrap(True)
        note.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        font = note.font()
        font.setPointSizeF(font.pointSizeF() * 0.9)
        note.setFont(font)
        cell = QWidget(self)
        stack = QVBoxLayout(cell)
        stack.setContentsMargins(0, 0, 0, 4)
        stack.setSpacing(1)
        stack.addWidget(value_widget)
        stack.addWidget(note)
        form.addRow(label_widget, cell)


def _clear_form(form: QFormLayout) -> None:
    while form.rowCount():
        form.removeRow(0)
