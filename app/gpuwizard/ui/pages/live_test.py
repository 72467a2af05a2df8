"""The Test page: the live training test in the new environment, with numbers, a verdict and fixes.

The session's ``run_test`` step runs the probe in the environment on a
:class:`~gpuwizard.ui.workers.FunctionWorker`; its events (DESIGN.md section 4: ``start``,
``device``, ``phase``, ``step``, ``matmul``, ``gpu_usage``, ``summary``, ``result``) come to the
UI thread through an :class:`~gpuwizard.ui.event_bridge.EventBridge` in batches. The page
draws the loss per step for the GPU and the CPU, shows samples/s on each and the speed-up,
the matrix-multiply rate, the GPU's utilisation and memory while it trains, and at the end the
verdict in plain words with the findings that explain it and say what to do. Stop sets the
step's cancel event, which ends the probe.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QLocale, Qt
from PySide6.QtWidgets import (
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QStyle,
    QVBoxLayout,
    QWidget,
    QWizardPage,
)

from gpuwizard.core.findings.model import Finding, finding_from_json
from gpuwizard.ui.deferred import call_soon
from gpuwizard.ui.event_bridge import Event
from gpuwizard.ui.theme import Status, status_style
from gpuwizard.ui.widgets.finding_view import QtFindingView, replace_finding_views
from gpuwizard.ui.widgets.labels import headline_label
from gpuwizard.ui.widgets.loss_chart import LossChart
from gpuwizard.ui.widgets.page_scroll import fill_with_scroll_area
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
        self.result: dict[str, Any] | None = None
        self.work = StreamedWork(self, self._take_events, self._show_result, self._crashed)
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
        columns.addWidget(self._build_numbers(content), 2)

        layout = QVBoxLayout(content)
        layout.addWidget(self.intro)
        layout.addWidget(self.preview_note)
        layout.addLayout(self._build_status(content))
        layout.addLayout(columns, 1)
        layout.addWidget(self._build_verdict(content))

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

    def _build_numbers(self, parent: QWidget) -> QGroupBox:
        box = QGroupBox(self.tr("Measurements"), parent)
        box.setObjectName("test_numbers")
        box.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self.numbers = QFormLayout(box)
        self.numbers.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.numbers.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        rows = (
            ("framework", self.tr("Framework:"), self.tr("Framework build")),
            ("gpu", self.tr("GPU:"), self.tr("The GPU the framework sees")),
            ("cpu", self.tr("CPU:"), self.tr("The CPU")),
            ("gpu_rate", self.tr("GPU samples/s:"), self.tr("Training samples per second on the GPU")),
            ("cpu_rate", self.tr("CPU samples/s:"), self.tr("Training samples per second on the CPU")),
            ("speedup", self.tr("Speed-up:"), self.tr("How many times faster the GPU trains than the CPU")),
            ("matmul", self.tr("Matrix multiply:"), self.tr("Matrix multiply rate on the GPU")),
            ("utilisation", self.tr("GPU utilisation:"), self.tr("GPU utilisation during the test")),
            ("memory", self.tr("GPU memory:"), self.tr("GPU memory in use during the test")),
        )
        self.values: dict[str, QLabel] = {}
        for key, label_text, accessible in rows:
            value = QLabel("—", box)
            value.setObjectName(f"test_{key}")
            value.setWordWrap(True)
            value.setTextFormat(Qt.TextFormat.PlainText)
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            value.setAccessibleName(accessible)
            label = QLabel(label_text, box)
            label.setBuddy(value)
            self.numbers.addRow(label, value)
            self.values[key] = value
        self.values["speedup"].setToolTip(
            self.tr("GPU samples per second divided by CPU samples per second, same network and data.")
        )
        self.values["matmul"].setToolTip(
            self.tr("TFLOP/s: trillions of floating-point operations per second on large matrix multiplies.")
        )
        self.values["utilisation"].setToolTip(
            self.tr("Share of time the GPU was running work, as the NVIDIA driver reports it (NVML).")
        )
        return box

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
            self.numbers.setRowVisible(self.values["matmul"], False)
            self._show_gpu_usage()
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
        if env is None or env.get("status") != "ok" or not env.get("python"):
            return None
        choice = self.session.choice
        framework = choice.framework if choice is not None else str(env.get("framework") or "pytorch")
        return LiveTestTarget(python=str(env["python"]), framework=framework, env_name=env.get("name"))

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
            self.tr("Starting %1 in the environment…").replace("%1", self._framework_name(target.framework))
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
        self._steps_total: int | None = None
        self._steps_done = 0
        self._config: dict[str, Any] = {}
        self._gpu_used: bool | None = None
        self._rates: dict[str, float] = {}
        self._matmul: dict[str, float] = {}
        self._usage: dict[int, tuple[int | None, int | None]] = {}
        self._usage_max: tuple[int | None, int | None] = (None, None)
        self._gpus: list[str] = []
        self._cpu = ""

    def _take_events(self, events: list[Event]) -> None:
        """One batch from the bridge: new points, the latest numbers, the last phase."""
        points: dict[str, list[tuple[float, float]]] = {}
        phase: Event | None = None
        changed: set[str] = set()
        for event in events:
            kind = event.get("event")
            if kind == "step":
                device = str(event.get("device"))
                loss, step, rate = event.get("loss"), event.get("step"), event.get("samples_per_s")
                if isinstance(loss, (int, float)) and isinstance(step, (int, float)):
                    points.setdefault(device, []).append((float(step), float(loss)))
                if isinstance(rate, (int, float)):
                    self._rates[device] = float(rate)
                    changed.add(f"{device}_rate")
                self._steps_done += 1
            elif kind == "phase":
                phase = event
            elif kind == "gpu_usage":
                self._take_usage(event)
                changed.add("usage")
            else:
                changed |= self._take_other(event)
        for device, new in points.items():
            self.chart.add_points(device, new)
        if phase is not None:
            self.phase_label.setText(self._phase_text(str(phase.get("phase")), phase.get("device")))
        self._show_numbers(changed)
        self._show_steps()

    def _take_other(self, event: Event) -> set[str]:
        kind = event.get("event")
        if kind == "start":
            self._config = dict(event.get("config") or {})
            self.values["framework"].setText(self._framework_text(event))
            return set()
        if kind == "device":
            if event.get("kind") == "gpu":
                self._gpus.append(str(event.get("name") or "GPU"))
            else:
                threads = event.get("threads")
                self._cpu = str(event.get("name") or "CPU") + (
                    self.tr(" (%n threads)", "", int(threads)) if isinstance(threads, int) else ""
                )
            return {"devices"}
        if kind == "device_summary":
            self._gpu_used = bool(event.get("gpu_used"))
            steps = int(self._config.get("steps") or 0) if self._gpu_used else 0
            total = steps + int(self._config.get("cpu_steps") or 0)
            self._steps_total = total or None
            return {"gpu_rate"}
        if kind == "matmul":
            tflops = event.get("tflops")
            if isinstance(tflops, (int, float)):
                self._matmul[str(event.get("dtype"))] = float(tflops)
            return {"matmul"}
        return set()

    def _take_usage(self, event: Event) -> None:
        index = int(event.get("index") or 0)
        utilisation, memory = event.get("utilisation_percent"), event.get("memory_used_mib")
        self._usage[index] = (
            int(utilisation) if isinstance(utilisation, (int, float)) else None,
            int(memory) if isinstance(memory, (int, float)) else None,
        )
        top_use, top_memory = self._usage_max
        if isinstance(utilisation, (int, float)):
            top_use = max(top_use or 0, int(utilisation))
        if isinstance(memory, (int, float)):
            top_memory = max(top_memory or 0, int(memory))
        self._usage_max = (top_use, top_memory)

    def _crashed(self, message: str) -> None:
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
        for key, value in self.values.items():
            value.setText("—")
            self.numbers.setRowVisible(value, key != "matmul")
        self._show_gpu_usage()

    def _show_steps(self) -> None:
        if self._steps_total:
            if self.progress.maximum() != self._steps_total:
                self.progress.setRange(0, self._steps_total)
                self.progress.setFormat(self.tr("step %v of %m"))
            value = min(self._steps_done, self._steps_total)
            if self.progress.value() != value:
                self.progress.setValue(value)

    def _show_numbers(self, changed: set[str]) -> None:
        locale = QLocale()
        if "devices" in changed:
            self.values["gpu"].setText(", ".join(self._gpus) if self._gpus else self.tr("none visible"))
            self.values["cpu"].setText(self._cpu or "—")
        if "gpu_rate" in changed:
            rate = self._rates.get("gpu")
            if rate is not None:
                self.values["gpu_rate"].setText(locale.toString(rate, "f", 0))
            elif self._gpu_used is False:
                self.values["gpu_rate"].setText(self.tr("not measured: no GPU is used"))
        if "cpu_rate" in changed and "cpu" in self._rates:
            self.values["cpu_rate"].setText(locale.toString(self._rates["cpu"], "f", 0))
        if "matmul" in changed and self._matmul:
            self.values["matmul"].setText(
                "\n".join(
                    self.tr("%1: %2 TFLOP/s")
                    .replace("%1", dtype)
                    .replace("%2", locale.toString(tflops, "f", 1))
                    for dtype, tflops in self._matmul.items()
                )
            )
            self.numbers.setRowVisible(self.values["matmul"], True)
        if "usage" in changed:
            self._show_gpu_usage()

    def _machine_has_nvidia_gpu(self) -> bool:
        report = self.session.report
        return report is not None and bool(report.nvidia_gpus) and report.driver is not None

    def _show_gpu_usage(self, *, final: bool = False) -> None:
        use_label, memory_label = self.values["utilisation"], self.values["memory"]
        if not self._machine_has_nvidia_gpu():
            use_label.setText(self.tr("no NVIDIA GPU on this machine"))
            self.numbers.setRowVisible(memory_label, False)
            return
        self.numbers.setRowVisible(memory_label, True)
        if not self._usage:
            text = (
                self.tr("not measured (the driver gave no samples)")
                if final
                else self.tr("waiting for samples…")
            )
            use_label.setText(text)
            memory_label.setText(text)
            return
        locale = QLocale()
        use_now = [u for u, _m in self._usage.values() if u is not None]
        memory_now = [m for _u, m in self._usage.values() if m is not None]
        top_use, top_memory = self._usage_max
        if use_now and top_use is not None:
            use_label.setText(
                self.tr("%1 % now, %2 % at most").replace("%1", str(max(use_now))).replace("%2", str(top_use))
                if not final
                else self.tr("%1 % at most").replace("%1", str(top_use))
            )
        if memory_now and top_memory is not None:
            memory_label.setText(
                self.tr("%1 MiB in use, %2 MiB at most")
                .replace("%1", locale.toString(sum(memory_now)))
                .replace("%2", locale.toString(top_memory))
                if not final
                else self.tr("%1 MiB at most").replace("%1", locale.toString(top_memory))
            )

    def _set_progress_done(self) -> None:
        maximum = self.progress.maximum() or 1
        self.progress.setRange(0, maximum)
        self.progress.setValue(maximum)

    def _show_result(self, result: dict[str, Any]) -> None:
        self.result = result
        self.state = DONE
        self.session.test_result = result
        self.stop_button.setEnabled(False)
        self.run_again_button.setEnabled(True)
        self._set_progress_done()
        self.progress.setFormat(self.tr("Finished"))
        self.phase_label.setText(self.tr("Finished in %1 s").replace("%1", str(result.get("seconds", "?"))))
        rates = result.get("samples_per_s") or {}
        for device in ("gpu", "cpu"):
            if isinstance(rates.get(device), (int, float)):
                self._rates[device] = float(rates[device])
        speedup = result.get("speedup")
        if isinstance(speedup, (int, float)):
            self.values["speedup"].setText(
                self.tr("%1×").replace("%1", QLocale().toString(float(speedup), "f", 1))
            )
        else:
            self.values["speedup"].setText(self.tr("— (needs both GPU and CPU)"))
        self._show_numbers({"gpu_rate", "cpu_rate", "matmul"})
        self._show_gpu_usage(final=True)
        verdict = str(result.get("verdict") or "broken")
        findings = [finding_from_json(f) for f in result.get("findings") or [] if isinstance(f, dict)]
        if verdict == "broken" and self.work.cancel_event.is_set():
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
            headline, colour = self._verdict_text(verdict, speedup)
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

    def _verdict_text(self, verdict: str, speedup: object) -> tuple[str, Status]:
        times = QLocale().toString(float(speedup), "f", 1) if isinstance(speedup, (int, float)) else None
        if verdict == "gpu_ok":
            if times is None:
                return self.tr("Your GPU trains."), "good"
            return self.tr("Your GPU trains, %1× faster than the CPU.").replace("%1", times), "good"
        if verdict == "gpu_slow":
            if times is None:
                return self.tr("Your GPU trains, but not clearly faster than the CPU."), "warn"
            return self.tr("Your GPU trains, but only %1× faster than the CPU.").replace("%1", times), "warn"
        if verdict == "cpu_only":
            return self.tr("Training works on the CPU only."), "warn"
        return self.tr("Training does not work in this environment."), "bad"

    def _why_text(self, result: dict[str, Any], verdict: str, findings: list[Finding]) -> str:
        parts = []
        first, last = result.get("loss_first"), result.get("loss_last")
        if verdict != "broken" and isinstance(first, (int, float)) and isinstance(last, (int, float)):
            locale = QLocale()
            parts.append(
                self.tr("The loss fell from %1 to %2: the network learns.")
                .replace("%1", locale.toString(float(first), "g", 3))
                .replace("%2", locale.toString(float(last), "g", 3))
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
            .replace("%1", self._framework_name(target.framework))
            .replace("%2", target.env_name or "—")
            .replace("%3", target.python)
        )

    def _framework_name(self, framework: str) -> str:
        return {"pytorch": "PyTorch", "tensorflow": "TensorFlow"}.get(framework, framework)

    def _framework_text(self, event: Event) -> str:
        version = str(event.get("framework_version") or "")
        name = self._framework_name(str(event.get("framework") or ""))
        cuda = event.get("cuda_build")
        build = (
            self.tr("CUDA %1 build").replace("%1", str(cuda))
            if cuda
            else self.tr("CPU build (no CUDA)")
            if event.get("built_with_cuda") is False
            else self.tr("build unknown")
        )
        return f"{name} {version} · {build}"

    def _phase_text(self, phase: str, device: object) -> str:
        where = {"gpu": self.tr("the GPU"), "cpu": self.tr("the CPU")}.get(str(device), self.tr("the device"))
        words = {
            "data": self.tr("Making the training data…"),
            "warmup": self.tr("Warming up on %1…").replace("%1", where),
            "train": self.tr("Training on %1…").replace("%1", where),
            "matmul": self.tr("Measuring the GPU's matrix multiply rate…"),
            "compare": self.tr("Checking that the GPU and the CPU compute the same…"),
        }
        return words.get(phase, phase)
