"""The Test page with pytest-qt, offscreen (issue 7, points 1 and 3).

Fake test backends send events shaped like recorded ``gpuwizard test --json`` runs from the
worker thread. One slow test cancels a real install from the CPU torch 2.13.0 wheel folder; the
real install and test run through the whole wizard in ``test_wizard_flow.py``.
"""

from __future__ import annotations

import math
import os
import re
import threading
import time
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QLocale, Qt
from PySide6.QtWidgets import QApplication, QWizard, QWizardPage
from pytestqt.qtbot import QtBot

from gpuwizard.core import events as core_events
from gpuwizard.core.envs.request import SetupRequest
from gpuwizard.core.envs.result import env_result_from_json
from gpuwizard.core.findings.model import finding_to_json, make_finding
from gpuwizard.core.livetest.events import LIVE_TEST_EVENTS, LiveTestResult, Phase, result_from_json
from gpuwizard.core.machine.system_report import SystemReport
from gpuwizard.ui.messages import finding_texts
from gpuwizard.ui.pages.install import CANCELLED, InstallPage
from gpuwizard.ui.pages.live_test import DONE, LiveTestPage
from gpuwizard.workflow.envs.setup import recommend_for
from gpuwizard.workflow.livetest.run import LiveTestTarget
from gpuwizard.workflow.machine.detect import detect_system
from gpuwizard.workflow.machine.system_file import load_system_report
from gpuwizard.workflow.wizard.session import WizardSession
from harness.install_page import stop_the_install
from harness.keyboard import tab_through
from harness.waits import EVENT_MS, EVENT_S
from harness.wizard_host import show_between

SAMPLES = resources.files("gpuwizard.resources").joinpath("samples")
Event = dict[str, Any]
Sink = Callable[[Event], None]


def sample(name: str) -> SystemReport:
    return load_system_report(Path(str(SAMPLES.joinpath(name))))


ENV_RESULT = {
    "event": "result", "status": "ok", "name": "demo", "path": "/home/ana/envs/demo",
    "python": "/home/ana/envs/demo/bin/python", "framework_version": "2.13.0",
}  # fmt: skip


def make_session(report: str = "no-gpu.json", **fields: Any) -> WizardSession:
    machine = sample(report)
    choice = SetupRequest("pytorch", version="2.13", name="demo")
    return WizardSession(
        report=machine,
        choice=choice,
        recommendation=recommend_for(machine, choice),
        env_result=env_result_from_json(ENV_RESULT),
        **fields,
    )


def open_page(qtbot: QtBot, session: WizardSession) -> tuple[QWizard, LiveTestPage]:
    page = LiveTestPage(session)
    return show_between(qtbot, page, "Install", "Summary"), page  # onto the page: it starts at once


def save_shot(widget: Any, name: str, tmp_path: Path) -> Path:
    QApplication.processEvents()
    folder = Path(os.environ.get("GPUWIZARD_TEST_SHOTS", str(tmp_path)))
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / name
    assert widget.window().grab().save(str(target))
    return target


def losses(count: int, first: float = 2.31, last: float = 0.05) -> list[float]:
    return [last + (first - last) * math.exp(-4 * step / count) for step in range(count)]


class FakeTest:
    """A ``run_test`` sending a recorded-looking stream: ``cpu_only``, ``gpu_ok``, or a failure."""

    def __init__(self, kind: str, *, wait_for_cancel: bool = False) -> None:
        self.kind = kind
        self.wait_for_cancel = wait_for_cancel
        self.calls = 0
        self.targets: list[LiveTestTarget] = []
        self.saw_cancel = False
        self.threads: list[threading.Thread] = []

    def __call__(
        self,
        report: Any,
        target: LiveTestTarget,
        on_event: core_events.EventSink,
        cancel: threading.Event,
    ) -> LiveTestResult:
        """The step as the session calls it: typed events, as the real one sends them."""
        result = self._run(report, target, lambda event: on_event(LIVE_TEST_EVENTS.read(event)), cancel)
        return result_from_json(result)

    def _run(self, report: Any, target: LiveTestTarget, on_event: Sink, cancel: threading.Event) -> Event:
        self.calls += 1
        self.targets.append(target)
        self.threads.append(threading.current_thread())
        if self.kind == "import_error":
            return self._broken(on_event, [make_finding(
                "FRAMEWORK_NOT_IMPORTABLE", error="ImportError: libcudnn.so.9: cannot open shared object file")])  # fmt: skip
        gpu = self.kind == "gpu_ok"
        on_event({
            "event": "start", "probe": "train_test", "framework": "pytorch",
            "framework_version": "2.13.0+cu126" if gpu else "2.13.0+cpu", "built_with_cuda": gpu,
            "cuda_build": "12.6" if gpu else None,
            "config": {"steps": 60, "cpu_steps": 20, "batch": 256, "cpu_batch": 64},
        })  # fmt: skip
        if gpu:
            on_event(
                {
                    "event": "device",
                    "kind": "gpu",
                    "index": 0,
                    "name": "NVIDIA H200",
                    "compute_capability": "9.0",
                }
            )
        on_event({"event": "device", "kind": "cpu", "name": "AMD EPYC", "threads": 2})
        on_event({"event": "device_summary", "gpu_count": int(gpu), "gpu_available": gpu, "gpu_used": gpu})
        on_event({"event": "phase", "phase": "data", "device": None})
        if gpu:
            self._train(on_event, "gpu", 60, 51_234.0, usage=True)
            for dtype, tflops in (("tf32", 350.2), ("float16", 690.5), ("bfloat16", 701.9)):
                on_event({"event": "matmul", "device": "gpu", "size": 8192, "dtype": dtype, "tflops": tflops})
        if self.wait_for_cancel:
            self._train(on_event, "cpu", 5, 470.0)
            self.saw_cancel = cancel.wait(EVENT_S)
            return self._broken(on_event, [make_finding("TEST_PROBE_KILLED", reason="cancelled")])
        self._train(on_event, "cpu", 20, 812.0)
        result: Event = {
            "event": "result", "verdict": self.kind, "framework": "pytorch",
            "framework_version": "2.13.0+cu126" if gpu else "2.13.0+cpu",
            "device": "NVIDIA H200" if gpu else "cpu", "loss_first": 2.31, "loss_last": 0.42 if gpu else 0.0297,
            "samples_per_s": {"gpu": 51234.0 if gpu else None, "cpu": 812.0}, "speedup": 63.1 if gpu else None,
            "seconds": 21.4, "findings": [], "python": target.python, "env": target.env_name,
        }  # fmt: skip
        on_event(result)
        return result

    def _train(self, on_event: Sink, device: str, steps: int, rate: float, *, usage: bool = False) -> None:
        on_event({"event": "phase", "phase": "train", "device": device})
        for step, loss in enumerate(losses(steps), 1):
            on_event({"event": "step", "device": device, "step": step, "loss": loss,
                      "samples_per_s": rate, "batch": 64})  # fmt: skip
            if usage and step % 10 == 0:
                on_event({"event": "gpu_usage", "index": 0, "utilisation_percent": 90 + step // 10,
                          "memory_used_mib": 2000 + step * 10})  # fmt: skip
            time.sleep(0.002)

    def _broken(self, on_event: Sink, findings: list[Any]) -> Event:
        for finding in findings:
            on_event({"event": "finding", **finding_to_json(finding)})
        result = {
            "event": "result", "verdict": "broken", "framework": "pytorch", "framework_version": None,
            "device": "cpu", "loss_first": None, "loss_last": None,
            "samples_per_s": {"gpu": None, "cpu": None}, "speedup": None, "seconds": 1.4,
            "findings": [finding_to_json(f) for f in findings],
        }  # fmt: skip
        on_event(result)
        return result


def test_a_cpu_only_test_draws_the_curve_and_says_why(qtbot: QtBot, tmp_path: Path):
    fake = FakeTest("cpu_only")
    session = make_session(run_test=fake)
    wizard, page = open_page(qtbot, session)
    qtbot.waitUntil(page.isComplete, timeout=EVENT_MS)
    assert fake.threads[0] is not threading.main_thread()
    assert fake.targets == [LiveTestTarget("/home/ana/envs/demo/bin/python", "pytorch", "demo")]
    assert page.chart.point_count("cpu") == 20 and page.chart.point_count("gpu") == 0
    assert "CPU: 20 steps, loss from 2.31" in page.chart.accessibleDescription()
    assert page.verdict_label.text() == "Training works on the CPU only."
    assert "this machine has no NVIDIA GPU" in page.why_label.text()
    assert "The loss fell from 2.31 to 0.0297" in page.why_label.text()
    assert page.values["cpu_rate"].text() == "812"
    assert page.values["gpu_rate"].text() == "not measured: no GPU is used"
    assert page.values["utilisation"].text() == "no NVIDIA GPU on this machine"
    assert page.values["framework"].text() == "PyTorch 2.13.0+cpu · CPU build (no CUDA)"
    assert page.values["gpu"].text() == "none visible"
    assert page.values["cpu"].text() == "AMD EPYC (2 threads)"
    assert session.test_result is not None and session.test_result.verdict == "cpu_only"
    assert page.progress.value() == page.progress.maximum() == 20
    assert page.run_again_button.isEnabled() and not page.stop_button.isEnabled()
    assert wizard.button(QWizard.WizardButton.NextButton).isEnabled()
    save_shot(page, "test-cpu_only.png", tmp_path)

    qtbot.mouseClick(page.run_again_button, Qt.MouseButton.LeftButton)
    assert page.state == "running" and not page.verdict_box.isVisible()
    qtbot.waitUntil(page.isComplete, timeout=EVENT_MS)
    assert fake.calls == 2 and page.chart.point_count("cpu") == 20


def test_a_gpu_test_shows_both_curves_the_speedup_matmul_and_usage(qtbot: QtBot, tmp_path: Path):
    fake = FakeTest("gpu_ok")
    _wizard, page = open_page(qtbot, make_session("linux-h200.json", run_test=fake))
    qtbot.waitUntil(page.isComplete, timeout=EVENT_MS)
    assert page.chart.point_count("gpu") == 60 and page.chart.point_count("cpu") == 20
    assert page.verdict_label.text() == "Your GPU trains, 63.1× faster than the CPU."
    assert page.values["speedup"].text() == "63.1×"
    assert page.values["gpu_rate"].text() == QLocale().toString(51234.0, "f", 0)  # 51,234 in English
    assert page.values["matmul"].text().splitlines() == [
        "tf32: 350.2 TFLOP/s", "float16: 690.5 TFLOP/s", "bfloat16: 701.9 TFLOP/s"]  # fmt: skip
    assert page.values["utilisation"].text() == "96 % at most"
    assert page.values["memory"].text() == f"{QLocale().toString(2600)} MiB at most"
    assert page.values["gpu"].text() == "NVIDIA H200"
    assert page.progress.maximum() == 80
    save_shot(page, "test-gpu_ok.png", tmp_path)


def test_a_failing_test_shows_the_diagnosis_with_its_fix(qtbot: QtBot, tmp_path: Path):
    fake = FakeTest("import_error")
    session = make_session("linux-h200.json", run_test=fake)
    _wizard, page = open_page(qtbot, session)
    qtbot.waitUntil(page.isComplete, timeout=EVENT_MS)
    assert page.verdict_label.text() == "Training does not work in this environment."
    assert [view.finding.code for view in page.finding_views] == ["FRAMEWORK_NOT_IMPORTABLE"]
    message, hint = finding_texts(page.finding_views[0].finding)
    assert "libcudnn.so.9" in message
    assert message in page.finding_views[0].message_label.text()
    assert page.finding_views[0].hint_label.text() == hint and "gpuwizard env create" in hint
    assert page.why_label.text() == "What failed, and what to do, is below."
    assert session.test_result is not None and session.test_result.verdict == "broken"
    assert page.chart.point_count() == 0 and page.chart.empty_text == "No training step ran."
    save_shot(page, "test-broken.png", tmp_path)


def test_stop_ends_a_running_test(qtbot: QtBot):
    fake = FakeTest("cpu_only", wait_for_cancel=True)
    _wizard, page = open_page(qtbot, make_session(run_test=fake))
    qtbot.waitUntil(lambda: page.chart.point_count("cpu") == 5, timeout=EVENT_MS)
    assert page.stop_button.isEnabled() and not page.isComplete()
    qtbot.mouseClick(page.stop_button, Qt.MouseButton.LeftButton)
    assert page.phase_label.text() == "Stopping the test…"
    qtbot.waitUntil(lambda: page.state == DONE, timeout=EVENT_MS)
    assert fake.saw_cancel
    assert page.verdict_label.text() == "You stopped the test before it finished."
    assert not page.finding_views  # the "probe killed" finding is about hangs, not about a Stop
    assert page.progress.text() == "Stopped" and page.progress.value() == 5
    assert page.session.test_result is None
    assert page.run_again_button.isEnabled()


def test_the_page_works_by_keyboard(qtbot: QtBot):
    fake = FakeTest("cpu_only")
    _wizard, page = open_page(qtbot, make_session(run_test=fake))
    qtbot.waitUntil(page.isComplete, timeout=EVENT_MS)
    reached = tab_through(qtbot, page.window())
    assert page.run_again_button in reached
    page.run_again_button.setFocus()
    qtbot.keyClick(page.run_again_button, Qt.Key.Key_Space)
    assert page.state == "running" and page.stop_button.isEnabled()
    qtbot.waitUntil(page.isComplete, timeout=EVENT_MS)
    assert fake.calls == 2
    assert page.chart.accessibleName() == "Training loss per step"


def test_a_preview_runs_nothing(qtbot: QtBot):
    fake = FakeTest("cpu_only")
    _wizard, page = open_page(qtbot, make_session(run_test=fake, system_file=Path("saved.json")))
    assert fake.calls == 0 and page.isComplete() and page.preview_note.isVisible()
    assert not page.stop_button.isVisible()


def test_without_an_environment_it_says_so(qtbot: QtBot):
    fake = FakeTest("cpu_only")
    session = make_session(run_test=fake)
    session.env_result = None
    _wizard, page = open_page(qtbot, session)
    assert fake.calls == 0 and page.isComplete()
    assert page.verdict_label.text() == "There is no environment to test: the installation did not finish."


def test_the_chart_is_readable_at_twice_the_pixels(qtbot: QtBot, tmp_path: Path):
    from gpuwizard.ui.widgets.loss_chart import LossChart

    chart = LossChart()
    qtbot.addWidget(chart)
    chart.resize(480, 260)
    chart.add_points("gpu", list(enumerate(losses(200), 1)))
    chart.add_points("cpu", [(step, loss + 0.1) for step, loss in enumerate(losses(20), 1)])
    chart.add_points("cpu", [(21, float("nan"))])  # skipped, never drawn
    assert chart.point_count() == 220
    image = chart.grab()
    assert not image.isNull()
    font = chart.font()
    font.setPointSizeF(font.pointSizeF() * 2)
    chart.setFont(font)
    assert chart.minimumSizeHint().height() > 2 * chart.fontMetrics().height()
    chart.resize(chart.sizeHint())
    save_shot(chart, "chart-large-font.png", tmp_path)


# --- the real steps on this machine ----------------------------------------------------------


def real_wizard(qtbot: QtBot, session: WizardSession) -> tuple[QWizard, InstallPage, LiveTestPage]:
    wizard = QWizard()
    wizard.setWizardStyle(QWizard.WizardStyle.ModernStyle)
    qtbot.addWidget(wizard)
    wizard.resize(880, 700)
    before = QWizardPage()
    before.setTitle("Choose")
    install, test = InstallPage(session), LiveTestPage(session)
    for page in (before, install, test):
        wizard.addPage(page)
    wizard.show()
    qtbot.waitExposed(wizard)
    return wizard, install, test


def real_session(torch_folder: Path, name: str) -> WizardSession:
    report = detect_system()  # this machine: its interpreters and uv are what create_env uses
    choice = SetupRequest("pytorch", version="2.13", name=name, find_links=torch_folder, offline=True)
    return WizardSession(report=report, choice=choice, recommendation=recommend_for(report, choice))


@pytest.mark.slow
def test_cancelling_a_real_install_leaves_nothing(qtbot: QtBot, torch_folder: Path):
    session = real_session(torch_folder, "wizard-cancel")
    wizard, install, _test = real_wizard(qtbot, session)
    wizard.next()
    qtbot.waitUntil(lambda: "== install:" in install.log_view.toPlainText(), timeout=300_000)
    stop_the_install(qtbot, install)
    qtbot.waitUntil(lambda: install.state not in ("running", "idle"), timeout=300_000)
    assert install.state == CANCELLED, install.log_view.toPlainText()[-3000:]
    assert install.result is not None and not Path(str(install.result.path)).exists()
    assert install.result_label.text() == "Cancelled. Nothing was left behind."
    assert session.env_result is None and not install.isComplete()


# --- what the test prepares before its first step (issue 20, point 8) -----------------------


class GatedReplay:
    """``run_test`` replaying the recorded CPU run with the probe's ``prepare`` events in place.

    The recording (``resources/samples/runs/test-torch-cpu.jsonl``) predates ``prepare``; the
    stages go where the probe now sends them. The stream halts after the compile stage until
    ``gate`` is set, as the real probe halts there for seconds.
    """

    def __init__(self) -> None:
        from gpuwizard.workflow.wizard.replay import recorded_events

        self.events = recorded_events("test-torch-cpu")
        self.gate = threading.Event()
        self.halted = threading.Event()

    def __call__(
        self,
        _report: Any,
        _target: LiveTestTarget,
        on_event: core_events.EventSink,
        cancel: threading.Event,
    ) -> LiveTestResult:
        on_event(LIVE_TEST_EVENTS.read({"event": "prepare", "stage": "import", "framework": "pytorch"}))
        for data in self.events:
            event = LIVE_TEST_EVENTS.read(data)
            on_event(event)
            if data == {"event": "phase", "phase": "warmup", "device": "cpu"}:
                on_event(
                    LIVE_TEST_EVENTS.read(
                        {"event": "prepare", "stage": "compile", "device": "cpu", "warmup_steps": 2}
                    )
                )
                self.halted.set()
                self.gate.wait(60)
        assert isinstance(event, LiveTestResult)
        return event


def test_the_page_says_what_the_test_prepares_before_the_first_step(qtbot: QtBot, tmp_path: Path):
    replay = GatedReplay()
    _wizard, page = open_page(qtbot, make_session(run_test=replay))
    try:
        qtbot.waitUntil(
            lambda: page.phase_label.text().startswith("Compiling the model for the CPU…"), timeout=EVENT_MS
        )
        assert page.chart.point_count() == 0
        assert page.progress.maximum() == 0  # busy: Qt animates the bar while nothing is counted
        assert page.chart.empty_text.startswith("Compiling the model for the CPU…\nThe first training steps")
        assert page.stage_timer.isActive()
        # The line moves on its own while the probe is silent: the seconds spent are counted.
        counted = re.compile(r"Compiling the model for the CPU… \(\d+ s\)")
        qtbot.waitUntil(lambda: counted.fullmatch(page.phase_label.text()) is not None, timeout=EVENT_MS)
        save_shot(page, "test-preparing.png", tmp_path)
    finally:
        replay.gate.set()
    qtbot.waitUntil(page.isComplete, timeout=EVENT_MS)
    assert not page.stage_timer.isActive()
    assert page.progress.maximum() == page.progress.value() == 20
    assert page.chart.point_count("cpu") == 20
    assert page.verdict_label.text() == "Training works on the CPU only."


def test_the_page_names_each_phase_in_words(qtbot: QtBot):
    gate = threading.Event()

    def training(
        _report: Any, _target: LiveTestTarget, on_event: core_events.EventSink, _cancel: threading.Event
    ) -> LiveTestResult:
        on_event(Phase(phase="train", device="gpu"))
        gate.wait(EVENT_S)
        result = result_from_json({"verdict": "broken", "framework": "pytorch", "seconds": 1.0})
        on_event(result)
        return result

    _wizard, page = open_page(qtbot, make_session(run_test=training))
    try:
        qtbot.waitUntil(lambda: page.phase_label.text() == "Training on the GPU…", timeout=EVENT_MS)
    finally:
        gate.set()
    qtbot.waitUntil(page.isComplete, timeout=EVENT_MS)


def test_a_recording_without_stages_still_replays(qtbot: QtBot):
    from gpuwizard.workflow.wizard.replay import replay_test

    _wizard, page = open_page(qtbot, make_session(run_test=replay_test("test-torch-cpu")))
    qtbot.waitUntil(page.isComplete, timeout=EVENT_MS)
    assert not page.stage_timer.isActive()
    assert page.chart.point_count("cpu") == 20
    assert page.verdict_label.text() == "Training works on the CPU only."


def test_a_cancelled_result_reads_as_stopped_not_broken(qtbot: QtBot):
    # What run_live_test now returns for a stopped test: verdict and status `cancelled`.
    def stopped(
        _report: Any,
        target: LiveTestTarget,
        on_event: core_events.EventSink,
        cancel: threading.Event,
    ) -> LiveTestResult:
        result = result_from_json(
            {"verdict": "cancelled", "framework": "pytorch", "python": target.python, "seconds": 2.0}
        )
        on_event(result)
        return result

    _wizard, page = open_page(qtbot, make_session(run_test=stopped))
    qtbot.waitUntil(page.isComplete, timeout=EVENT_MS)
    assert page.verdict_label.text() == "You stopped the test before it finished."
    assert page.progress.text() == "Stopped"
    assert page.session.test_result is None
