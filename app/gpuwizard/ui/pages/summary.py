"""The last page: the verdict, how to use the environment, what stands in the way, a saved report.

When the wizard made an environment, the page says how to activate it in each shell, which
interpreter to select in VS Code or PyCharm, the Jupyter kernel, and what the live test found.
Two reports can be saved, each with a sentence saying what it is for: the system report (JSON
the wizard opens again) and the support report (redacted, for someone helping). Being the last
page, it has Finish and no Cancel: nothing is left to cancel.
"""

from __future__ import annotations

import os
import shlex
from html import escape

from PySide6.QtCore import QLocale, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
    QWizard,
    QWizardPage,
)

from gpuwizard.core.envs.activation import activation_commands
from gpuwizard.core.envs.wsl_usage import wsl_usage
from gpuwizard.core.frameworks import framework_title
from gpuwizard.core.livetest import verdicts
from gpuwizard.core.livetest.events import LiveTestResult
from gpuwizard.core.machine.readiness import gpu_readiness, machine_has_nvidia_gpu, no_gpu_note
from gpuwizard.core.machine.system_report import SystemReport, gpu_list
from gpuwizard.ui.dialogs import save_file_name
from gpuwizard.ui.messages import display_text, finding_texts
from gpuwizard.ui.theme import Status, status_style
from gpuwizard.ui.widgets.labels import headline_label
from gpuwizard.ui.widgets.page_scroll import fill_with_scroll_area
from gpuwizard.ui.widgets.support_report import SupportReportControl
from gpuwizard.workflow.state.files import save_system_report
from gpuwizard.workflow.wizard.session import WizardSession


class SummaryPage(QWizardPage):
    """Sums up the machine and the environment made, and offers to save the report as JSON."""

    def __init__(self, session: WizardSession | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.setObjectName("summary_page")
        self.setTitle(self.tr("Summary"))
        self.setSubTitle(self.tr("The verdict, and what to do next."))
        self.report: SystemReport | None = None
        self.verdict = headline_label("verdict", self)
        self.todo = QLabel(self)
        self.todo.setObjectName("todo")
        self.todo.setWordWrap(True)
        self.todo.setTextFormat(Qt.TextFormat.RichText)
        self.environment = self._build_environment()
        content = QWidget(self)
        layout = QVBoxLayout(content)
        layout.addWidget(self.verdict)
        layout.addWidget(self.environment)
        layout.addWidget(self.todo)
        layout.addWidget(self._build_reports(content))
        layout.addStretch(1)
        # A small window (a laptop at 125 %) scrolls the page rather than cut it off (issue 37).
        self.scroll_area = fill_with_scroll_area(self, content, "summary_scroll")

    def _build_reports(self, parent: QWidget) -> QGroupBox:
        """The two reports, each button with a sentence on what its file is for; one status line."""
        box = QGroupBox(self.tr("Save a report"), parent)
        box.setObjectName("reports_box")
        self.save_button = QPushButton(self.tr("&Save the system report…"), box)
        self.save_button.setObjectName("save_report")
        self.save_button.clicked.connect(self._save)
        self.save_text = self._explanation(
            "save_report_text",
            self.tr(
                "What was found on this machine, with the plan, environment and test the wizard made: "
                "a JSON file the wizard can open again to show this machine and its plan."
            ),
            box,
        )
        self.support = SupportReportControl(self.session, lambda: self.report, box)
        self.support_text = self._explanation(
            "save_support_text",
            self.tr(
                "For someone helping you: the machine, PATH, the environments, the last tests and what "
                "is wrong, as a web page, Markdown or JSON, with your user name, home folder and GPU "
                "serial numbers replaced."
            ),
            box,
        )
        # What the sentence beside it says, for a screen reader on the button.
        self.save_button.setAccessibleDescription(self.save_text.text())
        self.support.button.setAccessibleDescription(self.support_text.text())
        grid = QGridLayout(box)
        grid.addWidget(self.save_button, 0, 0, Qt.AlignmentFlag.AlignTop)
        grid.addWidget(self.save_text, 0, 1)
        grid.addWidget(self.support, 1, 0, Qt.AlignmentFlag.AlignTop)
        grid.addWidget(self.support_text, 1, 1)
        # The page's one line about saving (either report), under both.
        grid.addWidget(self.support.take_status(), 2, 0, 1, 2)
        grid.setColumnStretch(1, 1)
        return box

    def _explanation(self, name: str, text: str, parent: QWidget) -> QLabel:
        label = QLabel(text, parent)
        label.setObjectName(name)
        label.setWordWrap(True)
        label.setTextFormat(Qt.TextFormat.PlainText)
        return label

    def _build_environment(self) -> QGroupBox:
        box = QGroupBox(self.tr("Your environment"), self)
        box.setObjectName("environment_box")
        form = QFormLayout(box)
        self.env_name = self._selectable("env_name", box)
        self.activate = self._selectable("activate", box)
        self.activate.setToolTip(self.tr("Run this in a new terminal to use the environment."))
        self.interpreter = self._selectable("interpreter", box)
        self.interpreter.setToolTip(
            self.tr("Select this interpreter in VS Code (Python: Select Interpreter) or PyCharm.")
        )
        self.copy_button = QPushButton(self.tr("&Copy the interpreter path"), box)
        self.copy_button.setObjectName("copy_interpreter")
        self.copy_button.clicked.connect(
            lambda: QGuiApplication.clipboard().setText(self.interpreter.property("path") or "")
        )
        self.kernel = self._selectable("kernel", box)
        self.test_line = self._selectable("test_line", box)
        form.addRow(self.tr("Name:"), self.env_name)
        form.addRow(self.tr("Activate:"), self.activate)
        form.addRow(self.tr("Interpreter:"), self.interpreter)
        copy_row = QHBoxLayout()
        copy_row.addWidget(self.copy_button)
        copy_row.addStretch(1)
        form.addRow("", copy_row)
        form.addRow(self.tr("Jupyter kernel:"), self.kernel)
        # An environment inside WSL 2: how to open it from VS Code, Jupyter and PyCharm.
        self.usage = self._selectable("wsl_usage", box)
        self.usage.hide()
        form.addRow(self.usage)
        form.addRow(self.tr("Live test:"), self.test_line)
        box.hide()
        return box

    def _wsl_ways(self, distro: str, path: str) -> str:
        """The ways to use an environment inside WSL 2 from Windows' tools, one paragraph each."""
        where = {
            "windows": self.tr("in PowerShell or cmd"),
            "distro": self.tr("in %1's shell").replace("%1", distro),
        }
        parts = []
        for way in wsl_usage(distro, path)[2:]:  # the first two are the activation above
            lines = [display_text(way.title)]
            if way.command:
                lines.append(f"{where[way.where]}: {way.command}")
            if way.then:
                lines.append(display_text(way.then))
            parts.append("\n".join(lines))
        return "\n\n".join(parts)

    def _selectable(self, name: str, parent: QWidget) -> QLabel:
        label = QLabel(parent)
        label.setObjectName(name)
        label.setWordWrap(True)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        return label

    def initializePage(self) -> None:
        """Show the environment the wizard made, if it made one; Finish without Cancel beside it."""
        wizard = self.wizard()
        if wizard is not None:
            # The last page: Cancel beside Finish would cancel nothing (the work is done).
            wizard.setOption(QWizard.WizardOption.NoCancelButtonOnLastPage, True)
        result = self.session.env_result if self.session else None
        if result is None or not result.ok or result.path is None or result.python is None:
            self.environment.hide()
            return
        windows = os.name == "nt"
        commands = activation_commands(
            result.manager or "venv", result.path, windows=windows, tool=result.tool
        )
        rec = self.session.recommendation if self.session else None
        if result.manager == "wsl" and rec is not None and rec.plan.wsl is not None:
            # Inside WSL 2: its shell opened from Windows, then the venv activated there (issue 39, point 4).
            distro = rec.plan.wsl.distro
            commands = [
                (self.tr("PowerShell or cmd"), f'wsl -d {distro} --cd "~"'),
                (
                    self.tr("then in %1").replace("%1", distro),
                    f"source {shlex.quote(result.path)}/bin/activate",
                ),
            ]
            self.usage.setText(self._wsl_ways(distro, result.path))
            self.usage.show()
        else:
            self.usage.hide()
        choice = self.session.choice if self.session else None
        framework = result.framework or (choice.framework if choice is not None else "")
        self.env_name.setText(
            self.tr("%1, %2 %3 in %4")
            .replace("%1", result.name)
            .replace("%2", framework_title(framework))
            .replace("%3", result.framework_build or result.framework_version or "")
            .replace("%4", result.path)
        )
        self.activate.setText("\n".join(f"{command}    ({shells})" for shells, command in commands))
        self.interpreter.setText(result.python)
        self.interpreter.setProperty("path", result.python)
        kernel = result.jupyter_kernel
        self.kernel.setText(kernel if kernel else self.tr("none (choose one on the Choose page next time)"))
        test = self.session.test_result if self.session else None
        self.test_line.setText(self._test_text(test))
        self.environment.show()
        self._show_outcome(result.name, test)

    def _show_outcome(self, name: str, test: LiveTestResult | None) -> None:
        """Lead with what the setup achieved; the machine's own state follows below."""
        if test is None:
            self.verdict.setText(self.tr("The environment %1 is ready (not tested).").replace("%1", name))
            self.verdict.setStyleSheet(status_style("good", self))
            return
        has_gpu = self.report is not None and machine_has_nvidia_gpu(self.report)
        made = (
            self.tr("The environment %1 is ready.")
            if verdicts.passed(test.verdict, has_gpu)
            else self.tr("The environment %1 was made.")
        )
        speedup = QLocale().toString(test.speedup, "f", 1) if test.speedup is not None else None
        headline = display_text(verdicts.headline(test.verdict, speedup))
        self.verdict.setText(made.replace("%1", name) + " " + headline)
        colours: dict[str, Status] = {"ok": "good", "warning": "warn", "error": "bad"}
        self.verdict.setStyleSheet(status_style(colours[verdicts.level(test.verdict, has_gpu)], self))

    def _test_text(self, test: LiveTestResult | None) -> str:
        """The live test's verdict in one line, and whether the setup was recorded as good."""
        if test is None:
            return self.tr("not run")
        text = display_text(verdicts.phrase(test.verdict))
        if test.speedup is not None and verdicts.on_gpu(test.verdict):
            text += " " + self.tr("(%1× the CPU)").replace("%1", QLocale().toString(test.speedup, "f", 1))
        if self.session is not None and self.session.snapshot is not None:
            text += "\n" + self.tr(
                "Recorded as the last good state: start the wizard again after a driver or framework "
                "update, and it checks what changed."
            )
        return text

    def set_report(self, report: SystemReport) -> None:
        """Sum up ``report``."""
        self.report = report
        self.verdict.setStyleSheet("")
        readiness = gpu_readiness(report)
        note = no_gpu_note(report)
        if readiness.ready:
            names = gpu_list(readiness.usable_gpus)
            self.verdict.setText(
                self.tr("This machine is ready for GPU frameworks: %1.").replace("%1", names)
            )
        elif readiness.other_gpus and not report.nvidia_gpus:
            self.verdict.setText(
                self.tr("%1: whether it trains is the live test's answer.").replace(
                    "%1", gpu_list(readiness.other_gpus)
                )
            )
        elif note is not None:
            # A fact with a way forward, not a fault (core/findings/no_gpu.py).
            self.verdict.setText(self.tr("No NVIDIA GPU here: PyTorch and TensorFlow run on the CPU."))
        else:
            self.verdict.setText(self.tr("This machine cannot train on a GPU yet."))
        notes = () if note is None else (note,)
        items = [finding_texts(f) for f in (*readiness.blocking, *readiness.warnings, *notes)]
        if items:
            heading = (
                self.tr("What to do first:")
                if readiness.blocking
                else self.tr("Worth a look:")
                if readiness.warnings
                else self.tr("The way forward:")
            )
            rows = "".join(
                f"<li><b>{escape(m, quote=False)}</b><br>{escape(h, quote=False)}</li>" for m, h in items
            )
            self.todo.setText(f"<p>{heading}</p><ol>{rows}</ol>")
        else:
            self.todo.setText(self.tr("Nothing stands in the way."))

    def _save(self) -> None:
        if self.report is None:
            return
        path = save_file_name(
            self, self.tr("Save the system report"), "gpuwizard-system.json", self.tr("JSON files (*.json)")
        )
        if path is None:
            return
        session = self.session
        made = session.env_result if session is not None and session.env_result else None
        try:
            save_system_report(
                self.report,
                path,
                recommendation=session.recommendation if session is not None and made else None,
                environment=made,
                test=session.test_result if session is not None and made else None,
            )
        except OSError as error:
            # The status line says it too: it must not keep naming a file saved earlier.
            text = self.tr("The report was not saved: %1").replace("%1", str(error))
            self.support.show_failed(text)
            QMessageBox.warning(self, self.tr("Not saved"), text)
            return
        self.support.show_saved(self.tr("Saved the system report to %1.").replace("%1", str(path)))
