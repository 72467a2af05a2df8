"""The Install page: creates the environment of the plan, live, with Cancel and rollback.

A commit page: once the environment exists there is no way back to the choices. The page only
shows what the session's ``create_env`` step reports, typed (:mod:`gpuwizard.core.envs.events`:
``sources``, ``start``, ``phase``, ``log``, ``progress`` and last the result, README
"Environments"); a phase is shown in its words from core, translated; the step runs on a
:class:`~gpuwizard.ui.workers.FunctionWorker` and its events come to the UI thread through an
:class:`~gpuwizard.ui.event_bridge.EventBridge`, a batch at most every 50 ms, so a tool that
prints fast never freezes the window. Cancel sets the step's cancel event: the step kills the
running tool, removes what it made, and returns a ``cancelled`` result.
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any, Final

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QStyle,
    QVBoxLayout,
    QWidget,
    QWizard,
    QWizardPage,
)

from gpuwizard.core.compat.wsl_route import WslRoute
from gpuwizard.core.envs.events import (
    PHASE_CONTEXT,
    EnvLog,
    EnvPhase,
    EnvProgress,
    EnvResult,
    EnvSources,
    EnvStart,
    phase_words,
)
from gpuwizard.core.events import Event
from gpuwizard.core.findings.diagnosis import diagnose
from gpuwizard.core.findings.model import Finding
from gpuwizard.core.frameworks import framework_module, framework_title
from gpuwizard.ui.deferred import call_soon
from gpuwizard.ui.theme import status_style
from gpuwizard.ui.widgets.finding_view import QtFindingView, replace_finding_views
from gpuwizard.ui.widgets.install_preview import planned_steps
from gpuwizard.ui.widgets.install_summary import (
    StopQuestion,
    WindowsStepQuestion,
    ask_before_stopping,
    ask_windows_step,
)
from gpuwizard.ui.widgets.labels import headline_label
from gpuwizard.ui.widgets.page_scroll import fill_with_scroll_area
from gpuwizard.ui.workers import StreamedWork
from gpuwizard.workflow.wizard.session import WizardSession

# The log view keeps the last lines only; the full log is in the file the result names.
LOG_LINES: Final = 2000

RUNNING, OK, FAILED, CANCELLED, IDLE = "running", "ok", "failed", "cancelled", "idle"


class InstallPage(QWizardPage):
    """Creates the environment on entry and shows its progress; complete once it exists."""

    def __init__(self, session: WizardSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.setObjectName("install_page")
        self.setTitle(self.tr("Install"))
        self.setSubTitle(self.tr("The wizard creates the environment and installs the framework build."))
        self.setCommitPage(True)
        self.setButtonText(QWizard.WizardButton.CommitButton, self.tr("&Next >"))
        self.state = IDLE
        self.result: EnvResult | None = None
        #: The question the Cancel installation button opens, while it is open.
        self.stop_question: StopQuestion | None = None
        self.wsl_question: WindowsStepQuestion | None = None
        self.work = StreamedWork(self, self._take_events, self._show_result, self._crashed)
        self._phase = ""
        self._count_total: int | None = None
        self._count_done = 0
        self._source_findings: list[Finding] = []

        content = QWidget(self)
        self.intro = QLabel(content)
        self.intro.setObjectName("install_intro")
        self.intro.setWordWrap(True)
        self.intro.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.preview_note = QLabel(
            self.tr(
                "This is a preview of a saved report: nothing is installed on this machine. On the "
                "machine itself, this page creates the environment and shows its progress and log."
            ),
            content,
        )
        self.preview_note.setObjectName("install_preview_note")
        self.preview_note.setWordWrap(True)
        self.preview_note.setVisible(session.preview)

        layout = QVBoxLayout(content)
        layout.addWidget(self.intro)
        layout.addWidget(self.preview_note)
        layout.addWidget(self._build_progress(content))
        layout.addWidget(self._build_log(content), 1)
        layout.addWidget(self._build_result(content))

        self.scroll_area = fill_with_scroll_area(self, content, "install_scroll")

    # --- building -------------------------------------------------------------------------

    def _build_progress(self, parent: QWidget) -> QGroupBox:
        box = QGroupBox(self.tr("Progress"), parent)
        box.setObjectName("install_progress_box")
        self.phase_label = QLabel(self.tr("Waiting to start…"), box)
        self.phase_label.setObjectName("install_phase")
        self.phase_label.setWordWrap(True)
        font = self.phase_label.font()
        font.setBold(True)
        self.phase_label.setFont(font)
        self.progress = QProgressBar(box)
        self.progress.setObjectName("install_progress")
        self.progress.setRange(0, 0)
        self.progress.setAccessibleName(self.tr("Installation progress"))
        self.detail_label = QLabel(box)
        self.detail_label.setObjectName("install_detail")
        self.detail_label.setWordWrap(True)
        self.detail_label.setTextFormat(Qt.TextFormat.PlainText)
        self.detail_label.setAccessibleName(self.tr("Current package"))
        self.cancel_button = QPushButton(self.tr("&Cancel installation"), box)
        self.cancel_button.setObjectName("install_cancel")
        self.cancel_button.setAccessibleName(self.tr("Cancel the installation and remove what was made"))
        self.cancel_button.setToolTip(
            self.tr("Stop now: the running tool is ended and the half-made environment is removed.")
        )
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.ask_to_cancel)
        row = QHBoxLayout()
        row.addWidget(self.progress, 1)
        row.addWidget(self.cancel_button)
        layout = QVBoxLayout(box)
        layout.addWidget(self.phase_label)
        layout.addLayout(row)
        layout.addWidget(self.detail_label)
        return box

    def _build_log(self, parent: QWidget) -> QGroupBox:
        box = QGroupBox(self.tr("Log"), parent)
        self.log_view = QPlainTextEdit(box)
        self.log_view.setObjectName("install_log")
        self.log_view.setReadOnly(True)
        self.log_view.setTabChangesFocus(True)
        self.log_view.setMaximumBlockCount(LOG_LINES)
        self.log_view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.log_view.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.log_view.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self.log_view.setAccessibleName(self.tr("Installation log"))
        self.log_view.setMinimumHeight(self.fontMetrics().height() * 9)
        self.log_view.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        layout = QVBoxLayout(box)
        layout.addWidget(self.log_view)
        return box

    def _build_result(self, parent: QWidget) -> QGroupBox:
        self.result_box = QGroupBox(self.tr("Result"), parent)
        self.result_box.setObjectName("install_result")
        self.result_label = headline_label("install_result_text", self.result_box)
        self.result_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.result_label.setAccessibleName(self.tr("Installation result"))
        self.result_icon = QLabel(self.result_box)
        self.result_icon.setAlignment(Qt.AlignmentFlag.AlignTop)
        headline = QHBoxLayout()
        headline.addWidget(self.result_icon)
        headline.addWidget(self.result_label, 1)

        self.details = QWidget(self.result_box)
        form = QFormLayout(self.details)
        form.setContentsMargins(0, 0, 0, 0)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.env_path = self._value_label("install_env_path", self.tr("Environment folder"))
        self.env_python = self._value_label("install_env_python", self.tr("Interpreter"))
        self.env_python.setToolTip(
            self.tr("Select this interpreter in VS Code (Python: Select Interpreter) or PyCharm.")
        )
        self.env_framework = self._value_label("install_env_framework", self.tr("Framework build"))
        self.env_log = self._value_label("install_env_log", self.tr("Full log"))
        form.addRow(self.tr("Folder:"), self.env_path)
        form.addRow(self.tr("Interpreter:"), self.env_python)
        form.addRow(self.tr("Framework:"), self.env_framework)
        form.addRow(self.tr("Full log:"), self.env_log)

        self.reason_label = QLabel(self.result_box)
        self.reason_label.setObjectName("install_reason")
        self.reason_label.setWordWrap(True)
        self.reason_label.setTextFormat(Qt.TextFormat.RichText)
        self.reason_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.findings_box = QWidget(self.result_box)
        self.findings_layout = QVBoxLayout(self.findings_box)
        self.findings_layout.setContentsMargins(0, 0, 0, 0)
        self.finding_views: list[QtFindingView] = []

        self.retry_button = QPushButton(self.tr("&Retry"), self.result_box)
        self.retry_button.setObjectName("install_retry")
        self.retry_button.setAccessibleName(self.tr("Try the installation again"))
        self.retry_button.clicked.connect(self.start)
        buttons = QHBoxLayout()
        buttons.addWidget(self.retry_button)
        buttons.addStretch(1)

        layout = QVBoxLayout(self.result_box)
        layout.addLayout(headline)
        layout.addWidget(self.details)
        layout.addWidget(self.reason_label)
        layout.addWidget(self.findings_box)
        layout.addLayout(buttons)
        self.result_box.hide()
        return self.result_box

    def _value_label(self, name: str, accessible: str) -> QLabel:
        label = QLabel(self)
        label.setObjectName(name)
        label.setWordWrap(True)
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        label.setAccessibleName(accessible)
        return label

    # --- the wizard's calls -----------------------------------------------------------------

    def initializePage(self) -> None:
        """Start the installation, unless it runs already or made this environment already."""
        self.intro.setText(self._intro_text())
        if self.session.preview:
            self.phase_label.setText(self.tr("Nothing runs in a preview."))
            self._set_range(1, 0, self.tr("Not started"))
            self.cancel_button.hide()
            self.log_view.setPlainText(
                "\n".join(planned_steps(self.session.choice, self.session.recommendation))
            )
            return
        if self.state == RUNNING:
            return
        done = self.session.env_result
        choice = self.session.choice
        if done is not None and done.ok and choice is not None and done.name == choice.name:
            self._show_result(done)
            return
        self.start()

    def cleanupPage(self) -> None:
        """Going back (only possible when nothing runs) leaves the result as it is."""
        if self.state == RUNNING:
            self.cancel()
            self.wait_for_workers()

    def isComplete(self) -> bool:
        """Next is enabled once the environment exists (always in a preview)."""
        return self.session.preview or self.state == OK

    # --- actions ----------------------------------------------------------------------------

    def start(self) -> None:
        """Run ``create_env`` on a worker, with a fresh cancel event."""
        if self.state == RUNNING or self.session.preview:
            return
        session = self.session
        report, recommendation, choice = session.report, session.recommendation, session.choice
        self._reset()
        if report is None or recommendation is None or choice is None:
            name = choice.name if choice is not None else ""
            self._show_result(
                EnvResult(
                    status="failed",
                    name=name,
                    error=self.tr("there is no plan to install yet: choose a framework first"),
                )
            )
            return
        route = session.wsl_step_needed(recommendation)
        if route is not None:
            # Windows must be made ready first (issue 39): said, and asked, before anything runs.
            self.wsl_question = ask_windows_step(
                self, route, lambda agreed: self._windows_step_answered(route, agreed)
            )
            return
        self.state = RUNNING
        create_env = session.create_env
        self.work.start(lambda sink, cancel: create_env(report, recommendation, choice, sink, cancel))
        self.cancel_button.setEnabled(True)
        self.phase_label.setText(self.tr("Starting…"))
        self._announce()

    def _windows_step_answered(self, route: WslRoute, agreed: bool) -> None:
        """Run the Windows step and then the install (Yes), or say what is left to do (No)."""
        self.wsl_question = None
        session, choice = self.session, self.session.choice
        if choice is None:
            return
        if not agreed:
            self._show_result(
                EnvResult(
                    status="failed",
                    name=choice.name,
                    error=self.tr("WSL is not ready: run %1 yourself, then come back to this page.").replace(
                        "%1", " ; ".join(route.windows_commands)
                    ),
                )
            )
            return
        self.state = RUNNING
        self.work.start(lambda sink, cancel: session.prepare_wsl_and_create(route, choice, sink, cancel))
        self.cancel_button.setEnabled(True)
        self.phase_label.setText(self.tr("Making WSL ready: answer the windows Windows opens…"))
        self._announce()

    def ask_to_cancel(self) -> None:
        """The Cancel installation button: ask first, as closing the window does (Keep installing is the default)."""
        if self.state == RUNNING and not self.work.cancel_event.is_set() and self.stop_question is None:
            self.stop_question = ask_before_stopping(self, self._stop_answered)

    def _stop_answered(self, stop: bool) -> None:
        self.stop_question = None
        if stop:
            self.cancel()

    def cancel(self) -> None:
        """Ask the running step to stop; it removes what it made and returns ``cancelled``."""
        if self.state != RUNNING or not self.work.cancel():
            return
        self.cancel_button.setEnabled(False)
        self.phase_label.setText(self.tr("Cancelling: removing what was made…"))
        self._set_busy()
        self._log_lines([self.tr("== cancel requested: stopping and removing what was made")])

    def wait_for_workers(self, milliseconds: int = 120_000) -> None:
        """Cancel a running installation and wait for it to roll back (when the wizard closes)."""
        self.work.wait(milliseconds)

    # --- events -----------------------------------------------------------------------------

    def _take_events(self, events: list[Event]) -> None:
        """One batch from the bridge: the last phase, the last progress, the log lines."""
        lines: list[str] = []
        phase_text: str | None = None
        detail: str | None = None
        progress: EnvProgress | None = None
        for event in events:
            if isinstance(event, EnvStart):
                lines.append(self._start_line(event))
                if event.python_download is not None:
                    lines.append(self._python_line(event.python_download))
            elif isinstance(event, EnvPhase):
                self._phase = event.phase
                self._count_total, self._count_done, progress = None, 0, None
                phase_text = self._phase_text(event)
                lines.append(f"== {event.phase}: {event.message}")
            elif isinstance(event, EnvLog):
                lines.append(event.line)
            elif isinstance(event, EnvSources):
                # The package indexes asked before the install; unreachable ones come with findings.
                self._source_findings = list(event.findings)
            elif isinstance(event, EnvProgress):
                self._count(event)
                progress = event
                detail = self._detail_text(event)
        if phase_text is not None and not self.work.cancel_event.is_set():
            self.phase_label.setText(phase_text)
        if detail is not None:
            self.detail_label.setText(detail)
        if progress is not None or phase_text is not None:
            self._show_progress(progress)
        if lines:
            self._log_lines(lines)

    def _count(self, event: EnvProgress) -> None:
        count, action = event.count, event.action
        if count is not None and action == "resolve":
            self._count_total, self._count_done = count, 0
        elif action == "installed" and self._count_total:
            done = count if count is not None and not event.package else self._count_done + 1
            self._count_done = min(self._count_total, max(self._count_done, done))

    def _show_progress(self, event: EnvProgress | None) -> None:
        if self.work.cancel_event.is_set():
            self._set_busy()
        elif event is not None and event.percent is not None:
            package = event.package or ""
            self._set_range(100, round(event.percent), self.tr("%1 %p%").replace("%1", package).strip())
        elif self._count_total:
            self._set_range(
                self._count_total,
                self._count_done,
                self.tr("%v of %m packages"),
            )
        else:
            self._set_busy()

    def _set_range(self, maximum: int, value: int, text: str) -> None:
        if self.progress.maximum() != maximum:
            self.progress.setRange(0, maximum)
        if self.progress.value() != value:
            self.progress.setValue(value)
        if self.progress.format() != text:
            self.progress.setFormat(text)

    def _set_busy(self) -> None:
        if self.progress.maximum() != 0:
            self.progress.setRange(0, 0)

    def _log_lines(self, lines: list[str]) -> None:
        # One append per batch: a block per line costs the same, the layout runs once.
        self.log_view.appendPlainText("\n".join(lines[-LOG_LINES:]))

    def _crashed(self, message: str) -> None:
        name = self.session.choice.name if self.session.choice is not None else ""
        self._show_result(
            EnvResult(
                status="failed",
                name=name,
                error=self.tr("the installation stopped with an unexpected error: %1").replace("%1", message),
            )
        )

    # --- showing ----------------------------------------------------------------------------

    def _reset(self) -> None:
        self.result = None
        self.result_box.hide()
        self.log_view.clear()
        self.detail_label.clear()
        self._phase, self._count_total, self._count_done = "", None, 0
        self._source_findings = []
        self._set_busy()
        self.progress.show()
        self._show_findings([])

    def _show_result(self, result: EnvResult) -> None:
        if self.stop_question is not None:
            self.stop_question.done(0)  # the install ended meanwhile: nothing is left to stop
        status = result.status
        self.result = result
        self.state = status if status in (OK, CANCELLED) else FAILED
        self.cancel_button.setEnabled(False)
        self.result_box.show()
        ok = self.state == OK
        self.details.setVisible(ok)
        self.retry_button.setVisible(not ok)
        self.reason_label.setVisible(not ok)
        icon = (
            QStyle.StandardPixmap.SP_DialogApplyButton if ok else QStyle.StandardPixmap.SP_MessageBoxWarning
        )
        if self.state == FAILED:
            icon = QStyle.StandardPixmap.SP_MessageBoxCritical
        size = self.style().pixelMetric(QStyle.PixelMetric.PM_SmallIconSize)
        self.result_icon.setPixmap(self.style().standardIcon(icon).pixmap(size * 2, size * 2))
        if ok:
            self.session.env_result = result
            self._show_ready(result)
        else:
            self._show_not_made(result)
        self._announce()
        call_soon(self, self._reveal_result)

    def _show_ready(self, result: EnvResult) -> None:
        self.phase_label.setText(self.tr("All steps finished."))
        self._set_range(1, 1, self.tr("Done"))
        self.detail_label.clear()
        self.result_label.setStyleSheet(status_style("good", self))
        self.result_label.setText(self.tr("The environment %1 is ready.").replace("%1", result.name))
        self.env_path.setText(result.path or "")
        self.env_python.setText(result.python or "")
        build = result.framework_build or result.framework_version or ""
        seconds = result.seconds
        took = (
            self.tr("%1 (made in %2 s)").replace("%1", str(build)).replace("%2", str(seconds))
            if seconds is not None
            else str(build)
        )
        self.env_framework.setText(took)
        self.env_log.setText(result.log or self.tr("(none)"))
        self._show_findings([])

    def _show_not_made(self, result: EnvResult) -> None:
        problems = list(result.rollback_problems)
        cancelled = self.state == CANCELLED
        self.result_label.setStyleSheet("" if cancelled else status_style("bad", self))
        if cancelled:
            self.phase_label.setText(self.tr("Cancelled"))
            self.result_label.setText(
                self.tr("Cancelled. Nothing was left behind.")
                if not problems
                else self.tr("Cancelled, but not everything could be removed.")
            )
        else:
            self.phase_label.setText(self.tr("Failed"))
            self.result_label.setText(self.tr("The environment could not be created."))
        self._set_range(1, 0, self.tr("Stopped"))
        self.detail_label.clear()
        parts = []
        error = result.error
        if error and not cancelled:
            parts.append(self.tr("Why: %1").replace("%1", escape(str(error))))
        if problems:
            parts.append(
                self.tr("Still there, to remove by hand: %1").replace("%1", escape("; ".join(problems)))
            )
        elif result.log is not None and not cancelled:  # it ran (a refusal made nothing): all was removed
            parts.append(self.tr("Everything that was made has been removed."))
        if result.log:
            parts.append(self.tr("Full log: %1").replace("%1", escape(result.log)))
        self.reason_label.setText("<br>".join(parts))
        self.reason_label.setVisible(bool(parts))
        tail = "\n".join([*result.log_tail, error or ""])
        # A log's known error first; a refusal before the install (an index that does not
        # answer) has no log, but its findings came with the `sources` event.
        self._show_findings([] if cancelled else diagnose(tail) or self._source_findings)

    def _show_findings(self, findings: list[Finding]) -> None:
        self.finding_views = replace_finding_views(
            self.findings_box, self.findings_layout, self.finding_views, findings
        )

    def _announce(self) -> None:
        """Tell the wizard the state changed; while running, Back stays off (the step owns the folder)."""
        self.completeChanged.emit()
        self._sync_back()
        if self.state == RUNNING:
            # initializePage runs before the wizard updates its buttons, which enables Back again.
            call_soon(self, self._sync_back)

    def _sync_back(self) -> None:
        wizard = self.wizard()
        if wizard is not None and self.state == RUNNING and wizard.currentPage() is self:
            wizard.button(QWizard.WizardButton.BackButton).setEnabled(False)

    def _reveal_result(self) -> None:
        # The result took room from the log: show the log's last lines again, then the result.
        bar = self.log_view.verticalScrollBar()
        bar.setValue(bar.maximum())
        self.scroll_area.ensureWidgetVisible(self.result_box)

    # --- texts ------------------------------------------------------------------------------

    def _intro_text(self) -> str:
        choice, recommendation = self.session.choice, self.session.recommendation
        if choice is None or recommendation is None:
            return self.tr("No plan has been chosen yet.")
        plan = recommendation.plan
        framework = framework_title(plan.framework)
        build = {
            "cpu": self.tr("CPU build"),
            "rocm": self.tr("ROCm build (%1)").replace("%1", str(plan.torch_variant)),
            "xpu": self.tr("Intel GPU build (XPU)"),
            "mps": self.tr("build for the Apple GPU (MPS)"),
        }.get(plan.device) or self.tr("CUDA %1 build").replace("%1", str(plan.cuda))
        if plan.target == "wsl2" and plan.wsl is not None:
            return (
                self.tr("The environment %1 gets %2 %3 (%4) with Python %5, inside WSL 2 (%6).")
                .replace("%1", choice.name)
                .replace("%2", framework)
                .replace("%3", plan.framework_version)
                .replace("%4", build)
                .replace("%5", plan.python)
                .replace("%6", plan.wsl.distro)
            )
        return (
            self.tr("The environment %1 gets %2 %3 (%4) with Python %5.")
            .replace("%1", choice.name)
            .replace("%2", framework)
            .replace("%3", plan.framework_version)
            .replace("%4", build)
            .replace("%5", plan.python)
        )

    def _start_line(self, event: EnvStart) -> str:
        source = event.find_links or event.index_url or self.tr("the default index")
        return (
            self.tr("== creating %1 at %2 with %3 (%4), packages from %5")
            .replace("%1", event.name)
            .replace("%2", event.path)
            .replace("%3", event.tool)
            .replace("%4", event.manager)
            .replace("%5", source)
        )

    def _python_line(self, download: Mapping[str, Any]) -> str:
        """The Python build uv downloads (none of the plan's is installed here), and from where."""
        return (
            self.tr("== Python %1 is downloaded by uv from %2: none is installed here")
            .replace("%1", str(download.get("python") or "?"))
            .replace("%2", str(download.get("url") or "?"))
        )

    def _phase_text(self, event: EnvPhase) -> str:
        """The phase in its words from core, translated; a phase this version has no words for, by what it does."""
        words = phase_words(event.phase)
        if words is None:
            return event.message
        framework = (
            framework_module(self.session.choice.framework)
            if self.session.choice
            else self.tr("the framework")
        )
        return QCoreApplication.translate(PHASE_CONTEXT, words).replace("{module}", framework)

    def _detail_text(self, event: EnvProgress) -> str:
        package = event.package
        if not package:
            return event.message
        actions = {
            "resolve": self.tr("resolving"),
            "solve": self.tr("solving"),
            "download": self.tr("downloading"),
            "build": self.tr("building"),
            "install": self.tr("installing"),
            "installed": self.tr("installed"),
            "extract": self.tr("unpacking"),
            "link": self.tr("linking"),
            "transaction": self.tr("installing"),
        }
        action = actions.get(event.action, event.action)
        version = f" {event.version}" if event.version else ""
        return (
            self.tr("Package: %1%2, %3").replace("%1", package).replace("%2", version).replace("%3", action)
        )
