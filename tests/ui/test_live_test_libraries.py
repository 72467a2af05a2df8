"""The Test page lists where each CUDA library was loaded from (issue 21, point 4).

A fake test backend sends, from the worker thread, typed events shaped like the probe's: after
the training, a ``libraries`` event naming each CUDA library and its file and what the DLL
start-up hook did. The page shows them under the verdict, in a list the keyboard reaches; a CPU
build says that none was loaded; a new run clears them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QApplication, QWizard
from pytestqt.qtbot import QtBot

from gpuwizard.core.envs.request import SetupRequest
from gpuwizard.core.envs.result import env_result_from_json
from gpuwizard.core.events import Event
from gpuwizard.core.livetest.events import LIVE_TEST_EVENTS, LiveTestResult, result_from_json
from gpuwizard.ui.pages.live_test import LiveTestPage
from gpuwizard.workflow.envs.setup import recommend_for
from gpuwizard.workflow.livetest.run import LiveTestTarget
from gpuwizard.workflow.machine.system_file import load_system_report
from gpuwizard.workflow.wizard.session import WizardSession
from harness.keyboard import tab_through
from harness.waits import EVENT_MS
from harness.wizard_host import show_between

SAMPLES = resources.files("gpuwizard.resources").joinpath("samples")
SITE = r"C:\Users\Ana\envs\demo\Lib\site-packages\nvidia"
LIBRARIES = [
    {"name": "cudart64_110.dll", "path": SITE + r"\cuda_runtime\bin\cudart64_110.dll"},
    {"name": "cudnn64_8.dll", "path": SITE + r"\cudnn\bin\cudnn64_8.dll"},
    {"name": "nvcuda.dll", "path": r"C:\Windows\system32\nvcuda.dll"},
]
HOOK = {"active": True, "folders": [SITE + r"\cuda_runtime\bin", SITE + r"\cudnn\bin"], "problem": None}


class FakeTest:
    """A ``run_test`` that trains a little on the CPU, then names the libraries it was given."""

    def __init__(self, libraries: list[dict[str, str]], hook: dict[str, Any] | None) -> None:
        self.libraries = libraries
        self.hook = hook
        self.calls = 0

    def __call__(
        self,
        report: Any,
        target: LiveTestTarget,
        on_event: Callable[[Event], None],
        cancel: threading.Event,
    ) -> LiveTestResult:
        self.calls += 1
        events: list[dict[str, Any]] = [
            {"event": "start", "framework": "pytorch", "framework_version": "2.13.0+cpu", "built_with_cuda": False,
             "config": {"steps": 0, "cpu_steps": 3}},
            {"event": "device", "kind": "cpu", "name": "AMD EPYC", "threads": 2},
            {"event": "device_summary", "gpu_count": 0, "gpu_available": False, "gpu_used": False},
            *({"event": "step", "device": "cpu", "step": step, "loss": 2.0 / step, "samples_per_s": 800.0}
              for step in (1, 2, 3)),
            {"event": "libraries", "cuda_libraries": self.libraries, "cuda_wheels": [], "dll_hook": self.hook},
            {"event": "summary", "loss_first": 2.0, "loss_last": 0.67, "samples_per_s": {"gpu": None, "cpu": 800.0},
             "gpu_used": False},
        ]  # fmt: skip
        for data in events:
            on_event(LIVE_TEST_EVENTS.read(data))
        result = result_from_json(
            {"event": "result", "verdict": "cpu_only", "framework": "pytorch", "loss_first": 2.0,
             "loss_last": 0.67, "samples_per_s": {"cpu": 800.0}, "seconds": 3.0,
             "cuda_libraries": self.libraries, "cuda_wheels": [], "dll_hook": self.hook}
        )  # fmt: skip
        on_event(result)
        return result


def open_page(qtbot: QtBot, fake: FakeTest) -> tuple[QWizard, LiveTestPage]:
    machine = load_system_report(Path(str(SAMPLES.joinpath("no-gpu.json"))))
    choice = SetupRequest("pytorch", version="2.13", name="demo")
    session = WizardSession(
        report=machine,
        choice=choice,
        recommendation=recommend_for(machine, choice),
        env_result=env_result_from_json(
            {
                "event": "result",
                "status": "ok",
                "name": "demo",
                "path": "/e/demo",
                "python": "/e/demo/bin/python",
                "framework_version": "2.13.0",
            }
        ),
        run_test=fake,
    )
    page = LiveTestPage(session)
    return show_between(qtbot, page, "Install", "Summary"), page


def test_each_library_is_listed_with_the_file_it_came_from_and_the_keyboard_reaches_the_list(qtbot: QtBot):
    fake = FakeTest(LIBRARIES, HOOK)
    _wizard, page = open_page(qtbot, fake)
    qtbot.waitUntil(page.isComplete, timeout=EVENT_MS)
    view = page.libraries
    assert view.isVisible()
    rows = [(view.tree.topLevelItem(i).text(0), view.tree.topLevelItem(i).text(1)) for i in range(3)]
    assert rows == [(item["name"], item["path"]) for item in LIBRARIES]
    assert view.tree.topLevelItem(0).toolTip(1) == LIBRARIES[0]["path"]
    assert view.summary_label.text() == "The test loaded 3 CUDA libraries; each came from the file beside it."
    assert view.hook_label.text() == (
        "The environment's start-up hook put 2 NVIDIA wheel folders on the DLL search path."
    )
    assert view.tree.accessibleName() == "CUDA libraries and the files they were loaded from"
    assert view.tree in tab_through(qtbot, page.window(), presses=40)


def test_a_cpu_build_says_none_was_loaded_and_a_new_run_clears_the_list(qtbot: QtBot):
    fake = FakeTest([], None)
    _wizard, page = open_page(qtbot, fake)
    qtbot.waitUntil(page.isComplete, timeout=EVENT_MS)
    view = page.libraries
    assert view.isVisible() and not view.tree.isVisible() and not view.hook_label.isVisible()
    assert view.summary_label.text() == "The test loaded no CUDA library: the framework did not use one."
    fake.libraries = LIBRARIES[:1]
    page.run_again_button.click()
    assert view.isHidden()  # cleared at the start of the run
    qtbot.waitUntil(lambda: page.isComplete() and fake.calls == 2, timeout=EVENT_MS)
    QApplication.processEvents()
    assert view.tree.topLevelItemCount() == 1 and view.tree.isVisible()


def test_a_hook_that_added_nothing_says_why(qtbot: QtBot):
    problem = "OSError: [WinError 206] The filename or extension is too long"
    _wizard, page = open_page(qtbot, FakeTest([], {"active": False, "folders": [], "problem": problem}))
    qtbot.waitUntil(page.isComplete, timeout=EVENT_MS)
    assert page.libraries.hook_label.text() == f"The environment's start-up hook added no folder: {problem}"
