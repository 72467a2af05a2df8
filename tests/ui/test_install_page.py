"""The Install page with pytest-qt, offscreen, on fake environment backends (issue 7, points 1 and 3).

The fakes are plain functions run by the page on its worker thread, as the real
``setup_environment`` is; they send events shaped like a recorded ``gpuwizard env create
--json`` run (uv, offline, torch 2.13.0), with short sleeps between them. The real step runs in
``test_live_test_page.py``, with the live test after it.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWizard
from pytestqt.qtbot import QtBot

from fakes.env_steps import typed
from gpuwizard.core.envs.request import SetupRequest
from gpuwizard.core.envs.result import env_result_from_json
from gpuwizard.core.machine.system_report import SystemReport
from gpuwizard.ui.pages.install import CANCELLED, FAILED, LOG_LINES, OK, InstallPage
from gpuwizard.workflow.envs.setup import recommend_for
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


def make_session(**fields: Any) -> WizardSession:
    report = sample("no-gpu.json")
    choice = SetupRequest("pytorch", version="2.13", name="demo")
    if "create_env" in fields:
        fields["create_env"] = typed(fields["create_env"])
    return WizardSession(report=report, choice=choice, recommendation=recommend_for(report, choice), **fields)


def open_page(qtbot: QtBot, session: WizardSession) -> tuple[QWizard, InstallPage]:
    page = InstallPage(session)
    return show_between(qtbot, page, "Choose", "Test"), page  # onto the page: it starts at once


def ok_result(home: str = "/home/ana/.local/share/gpuwizard") -> Event:
    return {
        "event": "result", "status": "ok", "name": "demo", "path": f"{home}/envs/demo",
        "python": f"{home}/envs/demo/bin/python", "framework_version": "2.13.0",
        "framework_build": "2.13.0+cpu", "manager": "venv", "tool": "uv",
        "constraints": f"{home}/envs/demo/gpuwizard-constraints.txt", "variables": {},
        "jupyter_kernel": None, "seconds": 7.53, "log": f"{home}/logs/env-create-demo.log",
    }  # fmt: skip


PACKAGES = [
    ("filelock", "4.2.12"), ("fsspec", "2026.9.0"), ("jinja2", "3.1.6"), ("markupsafe", "3.0.4"),
    ("mpmath", "1.3.0"), ("networkx", "3.6.1"), ("setuptools", "84.2.1"), ("sympy", "1.14.0"),
    ("torch", "2.13.0+cpu"), ("typing-extensions", "4.16.0"),
]  # fmt: skip


def progress(
    action: str,
    message: str,
    package: str | None = None,
    version: str | None = None,
    *,
    count: int | None = None,
    percent: float | None = None,
) -> Event:  # fmt: skip
    return {
        "event": "progress", "phase": "install", "action": action, "package": package,
        "version": version, "count": count, "bytes_done": None, "bytes_total": None,
        "percent": percent, "message": message,
    }  # fmt: skip


def first_events() -> list[Event]:
    return [
        {"event": "start", "name": "demo", "path": "/home/ana/envs/demo", "manager": "venv", "tool": "uv",
         "framework": "pytorch", "framework_version": "2.13.0", "python_version": "3.11",
         "requirements": ["torch==2.13.0"], "index_url": None, "find_links": "/wheels", "offline": True,
         "log": "/home/ana/logs/env-create-demo.log"},
        {"event": "phase", "phase": "create", "message": "creating /home/ana/envs/demo with uv"},
        {"event": "log", "phase": "create", "tool": "uv", "line": "Using CPython 3.11.7 interpreter at: /usr/bin/python3"},
        {"event": "phase", "phase": "install", "message": "installing torch==2.13.0"},
        {"event": "log", "phase": "install", "tool": "uv", "line": "Resolved 10 packages in 11ms"},
        progress("resolve", "Resolved 10 packages in 11ms", count=10),
    ]  # fmt: skip


class FakeInstall:
    """A ``create_env`` that sends recorded-looking events from the worker thread.

    ``gate``: when given, the install pauses after four packages until the test opens it.
    ``wait_for_cancel``: the install waits for the cancel event, then rolls back.
    ``fail``: the install fails with this error and log tail.
    """

    def __init__(self, *, gate: threading.Event | None = None, wait_for_cancel: bool = False,
                 fail: tuple[str, list[str]] | None = None) -> None:  # fmt: skip
        self.gate = gate
        self.wait_for_cancel = wait_for_cancel
        self.fail = fail
        self.calls = 0
        self.threads: list[threading.Thread] = []
        self.saw_cancel = False

    def __call__(self, report: Any, recommendation: Any, choice: SetupRequest, on_event: Sink,
                 cancel: threading.Event) -> Event:  # fmt: skip
        self.calls += 1
        self.threads.append(threading.current_thread())
        for event in first_events():
            on_event(event)
            time.sleep(0.01)
        if self.wait_for_cancel:
            self.saw_cancel = cancel.wait(EVENT_S)
            return self._rolled_back(on_event, "cancelled", "cancelled by the user")
        if self.fail is not None:
            for line in self.fail[1]:
                on_event({"event": "log", "phase": "install", "tool": "pip", "line": line})
            return self._rolled_back(on_event, "failed", self.fail[0], self.fail[1])
        for number, (name, version) in enumerate(PACKAGES, 1):
            on_event({"event": "log", "phase": "install", "tool": "uv", "line": f" + {name}=={version}"})
            on_event(progress("installed", f" + {name}=={version}", name, version))
            time.sleep(0.01)
            if number == 4 and self.gate is not None:
                assert self.gate.wait(EVENT_S), "the test never opened the gate"
        for phase in ("verify", "constraints", "register"):
            on_event({"event": "phase", "phase": phase, "message": phase})
            time.sleep(0.01)
        result = ok_result()
        on_event(result)
        return result

    def _rolled_back(self, on_event: Sink, status: str, error: str, tail: list[str] | None = None) -> Event:
        on_event({"event": "phase", "phase": "rollback", "message": f"{status}: removing what was made"})
        time.sleep(0.05)
        result = {
            "event": "result", "status": status, "name": "demo", "path": "/home/ana/envs/demo",
            "python": None, "framework_version": None, "error": error, "log_tail": tail or [],
            "rollback_problems": [], "seconds": 1.2, "log": "/home/ana/logs/env-create-demo.log",
        }  # fmt: skip
        on_event(result)
        return result


def test_an_install_shows_progress_and_the_log_and_ends_complete(qtbot: QtBot):
    gate = threading.Event()
    fake = FakeInstall(gate=gate)
    session = make_session(create_env=fake)
    wizard, page = open_page(qtbot, session)
    next_button = wizard.button(QWizard.WizardButton.CommitButton)
    assert page.isCommitPage()

    # Paused after four of ten packages: a determinate bar, the package, the log, Cancel on, Back off.
    qtbot.waitUntil(lambda: page.progress.value() == 4, timeout=EVENT_MS)
    assert (page.progress.minimum(), page.progress.maximum()) == (0, 10)
    assert page.progress.text() == "4 of 10 packages"
    assert page.phase_label.text() == "Installing the packages…"
    assert page.detail_label.text() == "Package: markupsafe 3.0.4, installed"
    log = page.log_view.toPlainText()
    assert "== install: installing torch==2.13.0" in log and " + markupsafe==3.0.4" in log
    assert page.cancel_button.isEnabled() and not page.isComplete()
    assert not next_button.isEnabled()
    assert not wizard.button(QWizard.WizardButton.BackButton).isEnabled()
    assert fake.threads[0] is not threading.main_thread()

    gate.set()
    qtbot.waitUntil(page.isComplete, timeout=EVENT_MS)
    assert page.state == OK and session.env_result == env_result_from_json(ok_result())
    assert page.result_label.text() == "The environment demo is ready."
    assert page.env_path.text() == "/home/ana/.local/share/gpuwizard/envs/demo"
    assert page.env_python.text() == "/home/ana/.local/share/gpuwizard/envs/demo/bin/python"
    assert page.env_framework.text() == "2.13.0+cpu (made in 7.53 s)"
    assert not page.retry_button.isVisible() and not page.cancel_button.isEnabled()
    assert page.progress.value() == page.progress.maximum()
    assert next_button.isEnabled() and wizard.button(QWizard.WizardButton.BackButton).isEnabled()
    assert " + typing-extensions==4.16.0" in page.log_view.toPlainText()
    qtbot.waitUntil(
        lambda: page.log_view.verticalScrollBar().value() == page.log_view.verticalScrollBar().maximum(),
        timeout=EVENT_MS,
    )

    # Back and forward again: the environment exists, nothing runs twice.
    wizard.back()
    wizard.next()
    assert fake.calls == 1 and page.isComplete()


def test_cancel_during_an_install_rolls_back_and_says_nothing_was_left(qtbot: QtBot):
    fake = FakeInstall(wait_for_cancel=True)
    session = make_session(create_env=fake)
    wizard, page = open_page(qtbot, session)
    qtbot.waitUntil(lambda: "Resolved 10 packages" in page.log_view.toPlainText(), timeout=EVENT_MS)
    assert page.state == "running"

    stop_the_install(qtbot, page)
    assert page.phase_label.text() == "Cancelling: removing what was made…"
    assert not page.cancel_button.isEnabled()
    assert page.progress.maximum() == 0  # busy while it rolls back
    qtbot.waitUntil(lambda: page.state == CANCELLED, timeout=EVENT_MS)
    assert fake.saw_cancel
    assert page.result_label.text() == "Cancelled. Nothing was left behind."
    assert not page.isComplete() and session.env_result is None
    assert page.retry_button.isVisible() and page.retry_button.isEnabled()
    assert not wizard.button(QWizard.WizardButton.CommitButton).isEnabled()
    assert not page.finding_views

    # Retry runs it again, this time to the end.
    session.create_env = typed(FakeInstall())
    qtbot.mouseClick(page.retry_button, Qt.MouseButton.LeftButton)
    assert page.state == "running" and not page.result_box.isVisible()
    qtbot.waitUntil(page.isComplete, timeout=EVENT_MS)
    assert session.env_result is not None and session.env_result.status == "ok"


def test_a_failed_install_shows_the_reason_the_diagnosis_and_retry(qtbot: QtBot):
    tail = [
        "ERROR: Could not find a version that satisfies the requirement torch==2.13.0 (from versions: none)",
        "ERROR: No matching distribution found for torch==2.13.0",
    ]
    fake = FakeInstall(fail=("pip install failed with exit status 1", tail))
    session = make_session(create_env=fake)
    _wizard, page = open_page(qtbot, session)
    qtbot.waitUntil(lambda: page.state == FAILED, timeout=EVENT_MS)
    assert page.result_label.text() == "The environment could not be created."
    assert "Why: pip install failed with exit status 1" in page.reason_label.text()
    assert "Everything that was made has been removed." in page.reason_label.text()
    assert [view.finding.code for view in page.finding_views] == ["NO_MATCHING_DISTRIBUTION"]
    assert "torch==2.13.0" in page.finding_views[0].message_label.text()
    assert page.retry_button.isVisible() and not page.isComplete()
    assert tail[-1] in page.log_view.toPlainText()
    assert page.phase_label.text() == "Failed"


def test_a_download_with_a_size_shows_its_percentage(qtbot: QtBot):
    gate = threading.Event()

    def downloading(
        _report: Any, _recommendation: Any, _choice: SetupRequest, on_event: Sink, _cancel: Any
    ) -> Event:
        on_event({"event": "phase", "phase": "install", "message": "installing torch==2.13.0"})
        on_event(progress("download", "Collecting torch==2.13.0", "torch", "2.13.0"))
        on_event(progress("download", "Progress 90000000 of 200000000", "torch", "2.13.0", percent=45.0))
        assert gate.wait(EVENT_S)
        result = ok_result()
        on_event(result)
        return result

    _wizard, page = open_page(qtbot, make_session(create_env=downloading))
    qtbot.waitUntil(lambda: page.progress.value() == 45, timeout=EVENT_MS)
    assert page.progress.maximum() == 100 and page.progress.text() == "torch 45%"
    assert page.detail_label.text() == "Package: torch 2.13.0, downloading"
    gate.set()
    qtbot.waitUntil(page.isComplete, timeout=EVENT_MS)


def test_an_error_escaping_the_step_is_shown_not_raised(qtbot: QtBot):
    def broken(*_args: Any) -> Event:
        raise RuntimeError("disk on fire")

    _wizard, page = open_page(qtbot, make_session(create_env=broken))
    qtbot.waitUntil(lambda: page.state == FAILED, timeout=EVENT_MS)
    assert "RuntimeError: disk on fire" in page.reason_label.text()
    assert page.retry_button.isVisible()


def test_a_preview_installs_nothing(qtbot: QtBot):
    fake = FakeInstall()
    session = make_session(create_env=fake, system_file=Path("saved.json"))
    _wizard, page = open_page(qtbot, session)
    assert fake.calls == 0 and page.preview_note.isVisible()
    assert page.isComplete() and page.work.bridge is None
    assert "nothing is installed on this machine" in page.preview_note.text()
    assert "PyTorch 2.13" in page.intro.text() and "demo" in page.intro.text()
    assert "== install: torch==2.13.0 from" in page.log_view.toPlainText()


def test_a_flood_of_log_lines_reaches_the_page_in_a_few_batches(qtbot: QtBot):
    lines = 20_000

    def chatty(
        _report: Any, _recommendation: Any, _choice: SetupRequest, on_event: Sink, _cancel: Any
    ) -> Event:
        on_event({"event": "phase", "phase": "install", "message": "installing"})
        for number in range(lines):
            on_event({"event": "log", "phase": "install", "tool": "pip", "line": f"line {number}"})
        result = ok_result()
        on_event(result)
        return result

    session = make_session(create_env=chatty)
    wizard = QWizard()
    qtbot.addWidget(wizard)
    page = InstallPage(session)
    # What the flood costs the UI thread, seen from outside: each change of the log's text is
    # a relayout of it; one per batch, never one per line.
    changes: list[None] = []
    page.log_view.textChanged.connect(lambda: changes.append(None))
    wizard.addPage(page)
    wizard.show()
    qtbot.waitUntil(page.isComplete, timeout=EVENT_MS)
    assert 0 < len(changes) < 200
    assert page.log_view.blockCount() <= LOG_LINES + 1
    # Every line came, in order: the log keeps the last ones, none missing.
    shown = [line for line in page.log_view.toPlainText().splitlines() if line.startswith("line ")]
    assert shown == [f"line {number}" for number in range(lines - len(shown), lines)]
    assert len(shown) >= LOG_LINES - 10


def test_the_page_works_by_keyboard(qtbot: QtBot):
    gate = threading.Event()
    wizard, page = open_page(qtbot, make_session(create_env=FakeInstall(gate=gate)))
    qtbot.waitUntil(lambda: page.progress.value() == 4, timeout=EVENT_MS)
    reached = tab_through(qtbot, wizard)
    assert page.cancel_button in reached and page.log_view in reached
    gate.set()
    qtbot.waitUntil(page.isComplete, timeout=EVENT_MS)
    assert page.log_view.accessibleName() == "Installation log"
    assert page.cancel_button.text() == "&Cancel installation"


def test_closing_the_wizard_while_installing_cancels_and_waits(qtbot: QtBot):
    fake = FakeInstall(wait_for_cancel=True)
    _wizard, page = open_page(qtbot, make_session(create_env=fake))
    qtbot.waitUntil(lambda: "Resolved 10 packages" in page.log_view.toPlainText(), timeout=EVENT_MS)
    page.wait_for_workers()
    assert fake.saw_cancel and not any(worker.is_running() for worker in page.work.workers)
    qtbot.waitUntil(lambda: page.state == CANCELLED, timeout=EVENT_MS)


@pytest.mark.parametrize("outcome", ["ok", "cancelled", "failed"])
def test_the_end_states_render(qtbot: QtBot, tmp_path: Path, outcome: str):
    fake = {
        "ok": FakeInstall(),
        "cancelled": FakeInstall(wait_for_cancel=True),
        "failed": FakeInstall(fail=("pip install failed with exit status 1", [
            "ERROR: No matching distribution found for torch==2.13.0"])),
    }[outcome]  # fmt: skip
    _wizard, page = open_page(qtbot, make_session(create_env=fake))
    if outcome == "cancelled":
        qtbot.waitUntil(lambda: "Resolved" in page.log_view.toPlainText(), timeout=EVENT_MS)
        page.cancel()
    qtbot.waitUntil(lambda: page.state == outcome, timeout=EVENT_MS)
    QApplication.processEvents()
    folder = Path(os.environ.get("GPUWIZARD_TEST_SHOTS", str(tmp_path)))
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"install-{outcome}.png"
    assert page.window().grab().save(str(target))
    assert page.result_box.isVisible()


@pytest.mark.parametrize(
    ("phase", "message", "shown"),
    [
        (
            "dlls",
            "making the NVIDIA wheels' DLL folders visible",
            "Making the NVIDIA wheels' DLL folders visible…",
        ),
        (
            "verify",
            "importing torch in the new environment",
            "Checking that torch imports in the new environment…",
        ),
        # A phase of a newer wizard (a recording): what it does, never its key.
        ("defragment", "tidying the environment", "tidying the environment"),
    ],
)
def test_a_phase_is_shown_in_its_words_never_its_key(qtbot: QtBot, phase: str, message: str, shown: str):
    gate = threading.Event()

    def in_phase(
        _report: Any, _recommendation: Any, _choice: SetupRequest, on_event: Sink, _cancel: Any
    ) -> Event:
        on_event({"event": "phase", "phase": phase, "message": message})
        assert gate.wait(EVENT_S)
        result = ok_result()
        on_event(result)
        return result

    _wizard, page = open_page(qtbot, make_session(create_env=in_phase))
    try:
        qtbot.waitUntil(lambda: page.phase_label.text() == shown, timeout=EVENT_MS)
        assert f"== {phase}: {message}" in page.log_view.toPlainText()
    finally:
        gate.set()
    qtbot.waitUntil(page.isComplete, timeout=EVENT_MS)
