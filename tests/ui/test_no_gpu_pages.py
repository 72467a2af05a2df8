"""A machine without an NVIDIA GPU on the Detect and Summary pages: a note with the way forward.

Issue 41, point 3: the same machine was "broken" in one place and "healthy" in the next. The pages
follow the one rule (``core/findings/no_gpu.py``): no NVIDIA GPU is a fact with a way forward (the
CPU builds), shown as a note; a GPU the driver does not serve stays a problem to fix first.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from pytestqt.qtbot import QtBot

from gpuwizard.core.machine.system_report import SystemReport
from gpuwizard.ui.wizard import PageId, SetupWizard
from gpuwizard.workflow.machine.system_file import load_system_report
from gpuwizard.workflow.wizard.session import WizardSession
from harness.waits import EVENT_MS

SAMPLES = resources.files("gpuwizard.resources").joinpath("samples")


def sample(name: str) -> SystemReport:
    return load_system_report(Path(str(SAMPLES.joinpath(name))))


def never_detect() -> SystemReport:
    raise AssertionError("the pages were given a saved report: nothing is detected")


def open_on(qtbot: QtBot, report: SystemReport, page: PageId) -> SetupWizard:
    wizard = SetupWizard(WizardSession(detect=never_detect, report=report, system_file=Path("saved.json")))
    qtbot.addWidget(wizard)
    wizard.setStartId(page)
    wizard.show()
    qtbot.waitExposed(wizard)
    return wizard


def test_the_detect_page_says_no_gpu_as_a_note_with_the_cpu_way_first(qtbot: QtBot):
    wizard = open_on(qtbot, sample("no-gpu.json"), PageId.DETECT)
    page = wizard.detect_page
    qtbot.waitUntil(page.isComplete, timeout=EVENT_MS)
    headline = page.view.headline.text()
    assert "No NVIDIA GPU here" in headline and "CPU" in headline
    assert "not possible" not in headline
    [view] = page.view.finding_views
    assert (view.finding.code, view.finding.severity) == ("NO_NVIDIA_GPU", "info")
    assert view.accessibleName().startswith("Note")
    assert view.hint_label.text().startswith("PyTorch and TensorFlow run on the CPU here")


def test_the_summary_gives_the_way_forward_not_a_problem_to_fix_first(qtbot: QtBot):
    wizard = open_on(qtbot, sample("no-gpu.json"), PageId.SUMMARY)
    summary = wizard.summary_page
    assert "No NVIDIA GPU here" in summary.verdict.text()
    todo = summary.todo.text()
    assert "The way forward:" in todo and "What to do first" not in todo
    assert "run on the CPU here" in todo
    assert "Nothing stands in the way" not in todo


def test_a_gpu_the_driver_does_not_serve_stays_a_problem_to_fix_first(qtbot: QtBot):
    # Not the no-GPU rule: an NVIDIA GPU driven by nouveau has a fix (NVIDIA's driver).
    wizard = open_on(qtbot, sample("linux-gtx970-nouveau.json"), PageId.SUMMARY)
    summary = wizard.summary_page
    assert "cannot train on a GPU yet" in summary.verdict.text()
    assert "What to do first:" in summary.todo.text()
