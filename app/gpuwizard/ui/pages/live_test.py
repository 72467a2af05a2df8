"""The Test page: the live training test in the new environment, with numbers, a verdict and fixes.

The session's ``run_test`` step runs the probe in the environment on a
:class:`~gpuwizard.ui.workers.FunctionWorker`; its typed events
(:mod:`gpuwizard.core.livetest.events`) come to the UI thread through an
:class:`~gpuwizard.ui.event_bridge.EventBridge` in batches. The page draws the loss per step for
the GPU and the CPU, shows the measurements (:class:`~gpuwizard.ui.widgets.test_numbers.TestNumbers`)
as they come, and at the end the verdict in plain words (:mod:`gpuwizard.core.livetest.verdicts`)
with the findings that explain it and say what to do. Stop sets the step's cancel event, which
ends the probe; the result then says ``cancelled`` (no verdict), as ``gpuwizard test`` does.

Before the first step the probe announces its slow preparations (``prepare`` events: importing
the framework, starting CUDA, compiling the model); the page names each, with the seconds it
has taken so far and a busy progress bar, so a pause of several seconds visibly moves.

After the training the probe names each CUDA library it loaded and the file it came from
(``libraries`` event); the page lists them under the verdict
(:class:`~gpuwizard.ui.widgets.cuda_libraries.CudaLibrariesView`).
"""

from __future__ import annotations

import posixpath

from PySide6.QtCore import QElapsedTimer, QLocale, Qt, QTimer
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QStyle,
    QVBoxLayout,
    QWidget,
    QWizardPage,
)

from gpuwizard.core.events import Event
from gpuwizard.core.findings.model import Finding
from gpuwizard.core.frameworks import framework_title
from gpuwizard.core.livetest import verdicts
from gpuwizard.core.livetest.events import (
    DeviceSummary,
    LiveTestResult,
    Phase,
    Prepare,
    Start,
    Step,
)
from gpuwizard.core.livetest.stages import phase_line, stage_line, stage_why
from gpuwizard.core.machine.readiness import machine_has_nvidia_gpu
from gpuwizard.ui.deferred import call_soon
from gpuwizard.ui.messages import display_text
from gpuwizard.ui.theme import Status, status_style
from gpuwizard.ui.widgets.cuda_libraries import CudaLibrariesView
from gpuwizard.ui.widgets.finding_view import QtFindingView, replace_finding_views
from gpuwizard.ui.widgets.labels import headline_label
from gpuwizard.ui.widgets.loss_chart import LossChart
from gpuwizard.ui.widgets.page_scroll import fill_with_scroll_area
from gpuwizard.ui.widgets.test_numbers import TestNumbers
from gpuwizard.ui.workers import StreamedWork
from gpuwizard.workflow.livetest.run import LiveTestTarget
from gpuwizard.workflow.wizard.session import WizardSession

RUNNING, DONE, IDLE = "running", "done", "idle"


class LiveTestPage(QWizardPage):
    """Runs the live test on entry and shows it as it goes; complete once there is a verdict."""

    def __init__(self, session: WizardSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.setObjectName("live_test_page")
        self.setTitle(self.tr("Test"))
        self.setSubTitle(
            self.tr("A small network trains on the GPU and on the CPU: does the GPU work, and how fast?")
        )
        self.state = IDLE
        self.result: LiveTestResult | None = None
        self.work = StreamedWork(self, self._take_events, self._show_result, self._crashed)
        # A slow preparation's line shows the seconds it has taken, redrawn every second.
        self.stage_clock = QElapsedTimer()
        self.stage_timer = QTimer(self)
        self.stage_timer.setInterval(1000)
        self.stage_timer.timeout.connect(self._show_stage)
        self._reset_numbers()

        content = QWidget(self)
        self.intro = QLabel(content)
        self.intro.setObjectName("test_intro")
        self.intro.setWordWrap(True)
        self.preview_note = QLabel(
            self.tr(
                "This is a preview of a saved report: no test runs. On the machine itself, this page "
                "trains a small network in the new environment and shows the loss, the speed and the verdict."
            ),
            content,
        )
        self.preview_note.setObjectName("test_preview_note")
        self.preview_note.setWordWrap(True)
        self.preview_note.setVisible(session.preview)

        chart_box = QGroupBox(self.tr("Loss per training step"), content)
        self.chart = LossChart(chart_box)
        chart_layout = QVBoxLayout(chart_box)
        chart_layout.addWidget(self.chart)
        columns = QHBoxLayout()
        columns.addWidget(chart_box, 3)
        self.numbers = TestNumbers(self._machine_has_nvidia_gpu, content)
        self.values = self.numbers.values
        columns.addWidget(self.numbers, 2)

        layout = QVBoxLayout(content)
        layout.addWidget(self.intro)
        layout.addWidget(self.preview_note)
        layout.addLayout(self._build_status(content))
        layout.addLayout(columns, 1)
        layout.addWidget(self._build_verdict(content))
        self.libraries = CudaLibrariesView(content)
        layout.addWidget(self.libraries)

        self.scroll_area = fill_with_scroll_area(self, content, "test_scroll")

    # --- building -------------------------------------------------------------------------

    def _build_status(self, parent: QWidget) -> QVBoxLayout:
        self.phase_label = QLabel(self.tr("Waiting to start…"), parent)
        self.phase_label.setObjectName("test_phase")
        self.phase_label.setWordWrap(True)
        font = self.phase_label.font()
        font.setBold(True)
        self.phase_label.setFont(font)
        self.progress = QProgressBar(parent)
        self.progress.setObjectName("test_progress")
        self.progress.setRange(0, 0)
        self.progress.setAccessibleName(self.tr("Test progress"))
        self.stop_button = QPushButton(self.tr("&Stop the test"), parent)
        self.stop_button.setObjectName("test_stop")
        self.stop_button.setAccessibleName(self.tr("Stop the running test"))
        self.stop_button.setEnabled(False)
        self.stop_button.clicked.connect(self.cancel)
        self.run_again_button = QPushButton(self.tr("&Run again"), parent)
        self.run_again_button.setObjectName("test_run_again")
        self.run_again_button.setAccessibleName(self.tr("Run the test again"))
        self.run_again_button.setEnabled(False)
        self.run_again_button.clicked.connect(self.start)
        row = QHBoxLayout()
        row.addWidget(self.progress, 1)
        row.addWidget(self.stop_button)
        row.addWidget(self.run_again_button)
        status = QVBoxLayout()
        status.addWidget(self.phase_label)
        status.addLayout(row)
        return status

    def _build_verdict(self, parent: QWidget) -> QGroupBox:
        self.verdict_box = QGroupBox(self.tr("Verdict"), parent)
        self.verdict_box.setObjectName("test_verdict_box")
        self.verdict_icon = QLabel(self.verdict_box)
        self.verdict_icon.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.verdict_label = headline_label("test_verdict", self.verdict_box)
        self.verdict_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.verdict_label.setAccessibleName(self.tr("Verdict"))
        headline = QHBoxLayout()
        headline.addWidget(self.verdict_icon)
        headline.addWidget(self.verdict_label, 1)
        self.why_label = QLabel(self.verdict_box)
        self.why_label.setObjectName("test_why")
        self.why_label.setWordWrap(True)
        self.why_label.setTextFormat(Qt.TextFormat.PlainText)
        self.why_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.findings_box = QWidget(self.verdict_box)
        self.findings_box.setObjectName("test_findings")
        self.findings_layout = QVBoxLayout(self.findings_box)
        self.findings_layout.setContentsMargins(0, 0, 0, 0)
        self.finding_views: list[QtFindingView] = []
        layout = QVBoxLayout(self.verdict_box)
        layout.addLayout(headline)
        layout.addWidget(self.why_label)
        layout.addWidget(self.findings_box)
        self.verdict_box.hide()
        return self.verdict_box

    # --- the wizard's calls -----------------------------------------------------------------

    def initializePage(self) -> None:
        """Start the test for the environment just made, unless it runs already."""
        self.intro.setText(self._intro_text())
        if self.session.preview:
            self.phase_label.setText(self.tr("Nothing runs in a preview."))
            self.progress.setRange(0, 1)
            self.progress.setValue(0)
            self.progress.setFormat(self.tr("Not started"))
            self.stop_button.hide()
            self.run_again_button.hide()
            self.numbers.form.setRowVisible(self.values["matmul"], False)
            self.numbers.show_gpu_usage()
            return
        if self.state == IDLE:
            self.start()

    def cleanupPage(self) -> None:
        """Leaving backwards stops a running test."""
        if self.state == RUNNING:
            self.cancel()
            self.wait_for_workers()

    def isComplete(self) -> bool:
        """Next is enabled once the test has a verdict, whatever it is (always in a preview)."""
        return self.session.preview or self.state == DONE

    # --- actions ----------------------------------------------------------------------------

    def target(self) -> LiveTestTarget | None:
        """The interpreter and framework to test: the environment the Install page made."""
        env = self.session.env_result
        if env is None or not env.ok or not env.python:
            return None
        choice = self.session.choice
        framework = choice.framework if choice is not None else (env.framework or "pytorch")
        if env.manager == "wsl" and env.path:
            # Made inside WSL 2: the probe runs in its distribution (envs/NAME in the wizard's folder there).
            rec = self.session.recommendation
            route = rec.plan.wsl if rec is not None else None
            return LiveTestTarget(
                python=env.python,
                framework=framework,
                env_name=env.name,
                distro=route.distro if route is not None else None,
                wsl_home=posixpath.dirname(posixpath.dirname(env.path.rstrip("/"))),
            )
        return LiveTestTarget(python=env.python, framework=framework, env_name=env.name)

    def start(self) -> None:
        """Run ``run_test`` on a worker, with a fresh cancel event."""
        if self.state == RUNNING or self.session.preview:
            return
        target, report = self.target(), self.session.report
        self._reset()
        if target is None or report is None:
            self.state = DONE
            self.phase_label.setText(self.tr("Nothing to test"))
            self._show_verdict_text(
                self.tr("There is no environment to test: the installation did not finish."), "bad", "broken"
            )
            self.completeChanged.emit()
            return
        self.state = RUNNING
        session = self.session
        self.work.start(lambda sink, cancel: session.test_and_record(report, target, sink, cancel))
        self.stop_button.setEnabled(True)
        self.run_again_button.setEnabled(False)
        self.phase_label.setText(
            self.tr("Starting %1 in the environment…").replace("%1", framework_title(target.framework))
        )
        self.completeChanged.emit()

    def cancel(self) -> None:
        """Stop the running test (the probe is ended; the verdict says it was stopped)."""
        if self.state != RUNNING or not self.work.cancel():
            return
        self.stop_button.setEnabled(False)
        self.phase_label.setText(self.tr("Stopping the test…"))

    def wait_for_workers(self, milliseconds: int = 30_000) -> None:
        """Stop a running test and wait for it (when the wizard closes)."""
        self.work.wait(milliseconds)

    # --- events -----------------------------------------------------------------------------

    def _reset_numbers(self) -> None:
        self._stage: Prepare | None = None
        self._steps_total: int | None = None
        self._steps_done = 0
        self._config_steps = (0, 0)

    def _take_events(self, events: list[Event]) -> None:
        """One batch from the bridge: new points, the latest numbers, the last phase."""
        points: dict[str, list[tuple[float, float]]] = {}
        phase: Phase | None = None
        stage = self._stage
        for event in events:
            if isinstance(event, Step):
                if event.loss is not None:
                    points.setdefault(event.device, []).append((float(event.step), event.loss))
                self._steps_done += 1
                stage = None
            elif isinstance(event, Phase):
                phase, stage = event, None
            elif isinstance(event, Prepare):
                phase, stage = None, event
            elif isinstance(event, Start):
                self._config_steps = (event.steps, event.cpu_steps)
            elif isinstance(event, DeviceSummary):
                steps, cpu_steps = self._config_steps
                self._steps_total = ((steps if event.gpu_used else 0) + cpu_steps) or None
        self.numbers.take(events)
        self.libraries.take(events)
        for device, new in points.items():
            self.chart.add_points(device, new)
        if phase is not None:
            self.phase_label.setText(display_text(phase_line(phase)))
        if stage is not self._stage:
            self._enter_stage(stage)
        if self._stage is None:
            self._show_steps()

    def _enter_stage(self, stage: Prepare | None) -> None:
        """A slow preparation begins (busy bar, its line with the seconds), or the last one ended."""
        self._stage = stage
        if stage is None:
            self.stage_timer.stop()
            if not self.chart.point_count():
                self.chart.set_empty_text(self.tr("The loss appears here as the network trains."))
            return
        self.stage_clock.start()
        self.stage_timer.start()
        self.progress.setRange(0, 0)  # Qt animates a busy bar: the test is alive
        self._show_stage()
        why = stage_why(stage)
        if not self.chart.point_count():
            self.chart.set_empty_text(
                display_text(stage_line(stage)) + ("\n" + display_text(why) if why is not None else "")
            )

    def _show_stage(self) -> None:
        if self._stage is None or self.work.cancel_event.is_set():  # "Stopping the test…" stays
            return
        seconds = self.stage_clock.elapsed() // 1000 if self.stage_clock.isValid() else 0
        line = display_text(stage_line(self._stage))
        self.phase_label.setText(
            line if seconds < 1 else self.tr("%1 (%2 s)").replace("%1", line).replace("%2", str(seconds))
        )

    def _crashed(self, message: str) -> None:
        self._enter_stage(None)
        self.state = DONE
        self.result = None
        self.stop_button.setEnabled(False)
        self.run_again_button.setEnabled(True)
        self.phase_label.setText(self.tr("The test stopped"))
        self._set_progress_done()
        self._show_verdict_text(self.tr("The test could not run: %1").replace("%1", message), "bad", "broken")
        self.completeChanged.emit()

    # --- showing ----------------------------------------------------------------------------

    def _reset(self) -> None:
        self.result = None
        self._reset_numbers()
        self.chart.clear()
        self.chart.set_empty_text(self.tr("The loss appears here as the network trains."))
        self.verdict_box.hide()
        self._show_findings([])
        self.progress.setRange(0, 0)
        self.progress.resetFormat()
        self.numbers.reset()
        self.libraries.reset()

    def _show_steps(self) -> None:
        if self._steps_total:
            if self.progress.maximum() != self._steps_total:
                self.progress.setRange(0, self._steps_total)
                self.progress.setFormat(self.tr("step %v of %m"))
            value = min(self._steps_done, self._steps_total)
            if self.progress.value() != value:
                self.progress.setValue(value)

    def _machine_has_nvidia_gpu(self) -> bool:
        report = self.session.report
        return report is not None and machine_has_nvidia_gpu(report)

    def _set_progress_done(self) -> None:
        maximum = self.progress.maximum() or 1
        self.progress.setRange(0, maximum)
        self.progress.setValue(maximum)

    def _show_result(self, result: LiveTestResult) -> None:
        self._enter_stage(None)
        self.result = result
        self.state = DONE
        self.session.test_result = result
        self.stop_button.setEnabled(False)
        self.run_again_button.setEnabled(True)
        self._set_progress_done()
        self.progress.setFormat(self.tr("Finished"))
        seconds = "?" if result.seconds is None else str(result.seconds)
        self.phase_label.setText(self.tr("Finished in %1 s").replace("%1", seconds))
        self.numbers.take_result(result)
        self.libraries.take_result(result)
        verdict = result.verdict
        findings = list(result.findings)
        if result.cancelled or (verdict == "broken" and self.work.cancel_event.is_set()):
            # Stopped on purpose: no verdict to keep, and the "probe killed" finding speaks of
            # hangs, which this was not.
            self.session.test_result = None
            findings = [f for f in findings if f.code != "TEST_PROBE_KILLED"]
            self.phase_label.setText(self.tr("Stopped"))
            self.progress.setValue(min(self._steps_done, self.progress.maximum()))
            self.progress.setFormat(self.tr("Stopped"))
            self._show_verdict_text(
                self.tr("You stopped the test before it finished."),
                "warn",
                "stopped",
                self.tr("Run it again for a verdict."),
            )
        else:
            headline, colour = self._verdict_text(verdict, result.speedup)
            self._show_verdict_text(headline, colour, verdict, self._why_text(result, verdict, findings))
        self._show_findings(findings)
        if not self.chart.point_count():
            self.chart.set_empty_text(self.tr("No training step ran."))
        self.completeChanged.emit()
        call_soon(self, self._reveal_verdict)

    def _show_verdict_text(self, headline: str, status: Status, verdict: str, why: str = "") -> None:
        self.verdict_box.show()
        icons = {
            "gpu_ok": QStyle.StandardPixmap.SP_DialogApplyButton,
            "gpu_slow": QStyle.StandardPixmap.SP_MessageBoxWarning,
            "cpu_only": QStyle.StandardPixmap.SP_MessageBoxInformation,
            "stopped": QStyle.StandardPixmap.SP_MessageBoxWarning,
        }
        icon = icons.get(verdict, QStyle.StandardPixmap.SP_MessageBoxCritical)
        size = self.style().pixelMetric(QStyle.PixelMetric.PM_SmallIconSize) * 2
        self.verdict_icon.setPixmap(self.style().standardIcon(icon).pixmap(size, size))
        self.verdict_label.setStyleSheet(status_style(status, self))
        self.verdict_label.setText(headline)
        self.why_label.setText(why)
        self.why_label.setVisible(bool(why))

    def _show_findings(self, findings: list[Finding]) -> None:
        self.finding_views = replace_finding_views(
            self.findings_box, self.findings_layout, self.finding_views, findings
        )

    def _reveal_verdict(self) -> None:
        self.scroll_area.ensureWidgetVisible(self.verdict_box)

    # --- texts ------------------------------------------------------------------------------

    def _verdict_text(self, verdict: str, speedup: float | None) -> tuple[str, Status]:
        times = QLocale().toString(speedup, "f", 1) if speedup is not None else None
        level = verdicts.level(verdict, self._machine_has_nvidia_gpu())
        colours: dict[str, Status] = {"ok": "good", "warning": "warn", "error": "bad"}
        return display_text(verdicts.headline(verdict, times)), colours[level]

    def _why_text(self, result: LiveTestResult, verdict: str, findings: list[Finding]) -> str:
        parts = []
        first, last = result.loss_first, result.loss_last
        if verdict != "broken" and first is not None and last is not None:
            locale = QLocale()
            parts.append(
                self.tr("The loss fell from %1 to %2: the network learns.")
                .replace("%1", locale.toString(first, "g", 3))
                .replace("%2", locale.toString(last, "g", 3))
            )
        if verdict == "cpu_only":
            if not self._machine_has_nvidia_gpu():
                parts.append(
                    self.tr(
                        "Why: this machine has no NVIDIA GPU the wizard could use, so the CPU is what "
                        "there is. The environment works; training will be slower than on a GPU."
                    )
                )
            elif findings:
                parts.append(
                    self.tr("Why: the framework does not see the GPU. Below: the cause and the fix.")
                )
            else:
                parts.append(self.tr("Why: the framework sees no GPU."))
        elif verdict == "broken":
            parts.append(
                self.tr("What failed, and what to do, is below.")
                if findings
                else self.tr("The test gave no reason; the full output is in the log.")
            )
        elif verdict == "gpu_slow":
            parts.append(self.tr("Below: what may slow it down."))
        return "\n".join(parts)

    def _intro_text(self) -> str:
        target = self.target()
        if target is None:
            return self.tr("The test runs in the environment the previous page creates.")
        return (
            self.tr("Testing %1 in the environment %2 (%3).")
            .replace("%1", framework_title(target.framework))
            .replace("%2", target.env_name or "—")
            .replace("%3", target.python)
        )
