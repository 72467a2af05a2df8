"""The wizard with pytest-qt, offscreen: worker-driven detection, pages, keyboard, saved reports."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from importlib import resources
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication, QLabel, QWizard
from pytestqt.qtbot import QtBot

from gpuwizard.core.machine.system_report import SystemReport
from gpuwizard.ui.wizard import PageId, SetupWizard
from gpuwizard.workflow.machine.system_file import load_system_report
from gpuwizard.workflow.wizard.session import WizardSession
from harness.keyboard import tab_through
from harness.waits import EVENT_MS, EVENT_S

SAMPLES = resources.files("gpuwizard.resources").joinpath("samples")


def sample(name: str) -> SystemReport:
    return load_system_report(Path(str(SAMPLES.joinpath(name))))


class GatedDetection:
    """A detection that waits until the test opens the gate, and notes the thread it ran on."""

    def __init__(self, report: SystemReport | None = None, error: Exception | None = None) -> None:
        self.gate = threading.Event()
        self.report = report
        self.error = error
        self.threads: list[threading.Thread] = []

    def __call__(self) -> SystemReport:
        self.threads.append(threading.current_thread())
        assert self.gate.wait(EVENT_S), "the test never opened the gate"
        if self.error is not None:
            raise self.error
        assert self.report is not None
        return self.report


def open_wizard(
    qtbot: QtBot, detect: Callable[[], SystemReport] | None = None, **session: object
) -> SetupWizard:
    wizard = SetupWizard(WizardSession(detect=detect or GatedDetection(sample("no-gpu.json")), **session))  # type: ignore[arg-type]
    qtbot.addWidget(wizard)
    wizard.show()
    qtbot.waitExposed(wizard)
    return wizard


def test_the_window_is_up_before_detection_ends_and_fills_in_after(qtbot: QtBot):
    detection = GatedDetection(sample("linux-h200.json"))
    wizard = open_wizard(qtbot, detection)
    assert wizard.isVisible() and wizard.currentId() == PageId.WELCOME
    wizard.next()
    page = wizard.detect_page
    assert page.busy.isVisible() and not page.isComplete()
    assert not wizard.button(QWizard.WizardButton.NextButton).isEnabled()

    detection.gate.set()
    qtbot.waitUntil(page.isComplete, timeout=EVENT_MS)
    assert detection.threads and detection.threads[0] is not threading.main_thread()
    assert page.report_scroll.isVisible() and not page.busy.isVisible()
    assert wizard.button(QWizard.WizardButton.NextButton).isEnabled()
    assert "NVIDIA H200" in page.view.headline.text()
    assert page.view.gpu_table.item(0, 0).text() == "NVIDIA H200"
    assert page.view.findChild(QLabel, "cuda_driver").text().startswith("CUDA 13.3")


def test_findings_are_shown_with_their_hints(qtbot: QtBot):
    detection = GatedDetection(sample("windows-rtx2080super-two-cuda.json"))
    detection.gate.set()
    wizard = open_wizard(qtbot, detection)
    qtbot.waitUntil(wizard.detect_page.isComplete, timeout=EVENT_MS)
    views = wizard.detect_page.view.finding_views
    assert [v.finding.code for v in views] == ["MULTIPLE_CUDA_ON_PATH", "LONG_PATHS_DISABLED"]
    assert "12.1.1" in views[0].message_label.text()
    assert views[0].hint_label.text() and views[0].accessibleName().startswith("Warning")
    toolkits = wizard.detect_page.view.findChild(QLabel, "cuda_toolkits").text()
    assert toolkits == "12.1.1 (first on PATH), 11.2.2 (on PATH)"


def test_the_whole_path_by_keyboard_alone(qtbot: QtBot):
    detection = GatedDetection(sample("linux-4xa100-one-lost.json"))
    detection.gate.set()
    wizard = open_wizard(qtbot, detection)
    qtbot.waitUntil(wizard.detect_page.isComplete, timeout=EVENT_MS)
    qtbot.keyClick(wizard, Qt.Key.Key_Return)
    assert wizard.currentId() == PageId.DETECT
    # Tab reaches the report (so it scrolls with the keyboard) and comes back to Next.
    reached = tab_through(qtbot, wizard)
    scroll = wizard.detect_page.report_scroll
    assert any(w is scroll or scroll.isAncestorOf(w) for w in reached)
    next_button = wizard.button(QWizard.WizardButton.NextButton)
    assert next_button in reached
    while QApplication.focusWidget() is not next_button:
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
    qtbot.keyClick(next_button, Qt.Key.Key_Return)
    assert wizard.currentId() == PageId.CHOOSE
    assert "4 × NVIDIA A100-SXM4-80GB" not in wizard.summary_page.verdict.text()  # one is lost
    assert "3 × NVIDIA A100-SXM4-80GB" in wizard.summary_page.verdict.text()
    with qtbot.waitSignal(wizard.finished, timeout=EVENT_MS):
        qtbot.keyClick(wizard, Qt.Key.Key_Escape)


def test_a_failed_detection_says_why_and_can_be_retried(qtbot: QtBot):
    failing = GatedDetection(error=PermissionError("/sys: Permission denied"))
    failing.gate.set()
    wizard = open_wizard(qtbot, failing)
    wizard.next()
    page = wizard.detect_page
    qtbot.waitUntil(page.error.isVisible, timeout=EVENT_MS)
    assert "PermissionError" in page.error_label.text() and not page.isComplete()

    working = GatedDetection(sample("no-gpu.json"))
    working.gate.set()
    wizard.session.detect = working
    qtbot.mouseClick(page.retry_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(page.isComplete, timeout=EVENT_MS)
    assert "No NVIDIA GPU here" in page.view.headline.text()


def test_a_saved_report_is_shown_as_a_preview_without_detecting(qtbot: QtBot):
    never = GatedDetection()
    wizard = open_wizard(
        qtbot, never, report=sample("linux-gtx970-nouveau.json"), system_file=Path("saved.json")
    )
    wizard.next()
    assert never.threads == [] and wizard.worker is None
    assert wizard.detect_page.isComplete()
    assert "saved.json" in wizard.detect_page.source_label.text()
    assert "nouveau" in wizard.detect_page.view.finding_views[0].message_label.text()
    assert (
        "Nothing on this machine will change"
        in wizard.welcome_page.findChild(QLabel, "welcome_promise").text()
    )


def test_summary_offers_to_save_the_report(qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from PySide6.QtWidgets import QFileDialog

    wizard = open_wizard(qtbot, report=sample("wsl2-rtx4070-laptop.json"))
    target = tmp_path / "mine.json"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *args, **kwargs: (str(target), ""))
    wizard.setStartId(PageId.SUMMARY)
    wizard.restart()
    assert "ready" in wizard.summary_page.verdict.text()
    qtbot.mouseClick(wizard.summary_page.save_button, Qt.MouseButton.LeftButton)
    assert json.loads(target.read_text())["gpus"][0]["name"] == "NVIDIA GeForce RTX 4070 Laptop GPU"


def test_pages_render_sharp_at_200_percent(tmp_path: Path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "QT_SCALE_FACTOR": "2"}
    system = str(SAMPLES.joinpath("linux-h200.json"))
    subprocess.run(
        [sys.executable, "-m", "gpuwizard", "screenshots", str(tmp_path), "--system", system],
        env=env,
        check=True,
        capture_output=True,
        timeout=120,
    )
    image = QImage(str(tmp_path / "03-detect.png"))
    assert (image.width(), image.height()) == (1760, 1400)  # the 880 x 700 window at twice the pixels


def test_quitting_while_detection_runs_waits_for_the_worker(tmp_path: Path):
    # A real process: Qt prints "QThread: Destroyed while thread ... is still running" and may
    # crash when a running thread is destroyed at exit.
    # Detection asks the app to quit, then goes on once the quit has reached the app: the quit
    # comes while it runs, whatever the machine's speed (no timer decides which comes first).
    code = """
import sys, threading
from PySide6.QtCore import QEvent, QMetaObject, QObject, Qt
from gpuwizard.ui.app import make_application
app = make_application()
quitting = threading.Event()
class SeesQuit(QObject):
    def eventFilter(self, watched, event):
        if event.type() == QEvent.Type.Quit:
            quitting.set()
        return False
seer = SeesQuit()
app.installEventFilter(seer)
from gpuwizard.ui.wizard import SetupWizard
from gpuwizard.workflow.wizard.session import WizardSession
from gpuwizard.workflow.machine.system_file import load_system_report
from pathlib import Path
def slow():
    QMetaObject.invokeMethod(app, "quit", Qt.ConnectionType.QueuedConnection)
    assert quitting.wait(120)
    return load_system_report(Path(sys.argv[1]))
wizard = SetupWizard(WizardSession(detect=slow))
wizard.show()
app.exec()
print("clean exit")
"""
    done = subprocess.run(
        [sys.executable, "-c", code, str(SAMPLES.joinpath("no-gpu.json"))],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "clean exit"
    assert "Destroyed while thread" not in done.stderr


def test_a_window_destroyed_while_its_worker_runs_does_not_end_the_process():
    # Qt aborts the process when a running QThread is destroyed; a page's worker must outlive
    # the page (a window dropped without being closed takes its pages with it).
    # The function runs until the page is gone, and its thread is still running when the
    # script ends (it waits for the exit to begin): the process must wait for it rather than
    # destroy it. An event each, no pause that a loaded machine could outlast.
    code = """
import atexit, gc, threading
from PySide6.QtWidgets import QApplication, QWidget
app = QApplication([])
from gpuwizard.ui.workers import FunctionWorker
results = []
dropped, ended, exiting = threading.Event(), threading.Event(), threading.Event()
def late():
    try:
        assert dropped.wait(120)
        return "late"
    finally:
        ended.set()
        exiting.wait(120)
page = QWidget()
worker = FunctionWorker(late, page)
worker.succeeded.connect(results.append)
worker.start()
atexit.register(exiting.set)  # runs first: registered after the worker's own
del worker, page
gc.collect()
dropped.set()
assert ended.wait(120)
app.processEvents()
print("clean exit", results)
"""
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("clean exit")
    assert "Destroyed while thread" not in done.stderr
