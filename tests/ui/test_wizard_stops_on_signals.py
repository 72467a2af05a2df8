"""Ctrl+C and SIGTERM close the wizard as its Close button does (issue 41, point 1).

Before, Qt's event loop never let Python's handlers run: ``timeout 20 gpuwizard`` was still
running after 684 s. Each test starts the wizard as its own process (offscreen), waits for a
line it prints when the window is up (an event filter of the child's, not a sleep), sends real
signals and checks the process ends with 130, cancelled (docs/architecture.md, "Exit codes").
With an install running, the first signal asks "Stop the install?" as the Close button does; a
second answers Stop (the install is cancelled and rolled back); Keep installing leaves it running
and a later signal, with nothing running, closes at once.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

from harness.proc import end
from harness.waits import EVENT_S

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(300),  # the guard against the old hang: only SIGKILL ended the wizard
    pytest.mark.skipif(sys.platform != "linux", reason="sends POSIX signals to a child process"),
]

TESTS = Path(__file__).resolve().parent.parent
SAMPLE = str(resources.files("gpuwizard.resources").joinpath("samples", "no-gpu.json"))

#: Prints its signs on stdout: "shown" once a wizard window shows, "asked" once the stop
#: question shows.
SIGNS = """
import sys
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication
from gpuwizard.ui.app import make_application
from gpuwizard.ui.wizard import SetupWizard

class Signs(QObject):
    def eventFilter(self, watched, event):
        if event.type() == QEvent.Type.Show:
            if isinstance(watched, SetupWizard):
                print("shown", flush=True)
            elif watched.objectName() == "stop_install_question":
                print("asked", flush=True)
        return False

app = make_application()
signs = Signs()
app.installEventFilter(signs)
"""

#: The real command, ``gpuwizard --system SAMPLE``, as ``gpuwizard`` runs it.
COMMAND = (
    SIGNS
    + """
from gpuwizard.cli.main import main
sys.exit(main(["--system", sys.argv[1]]))
"""
)

#: The wizard with an install that runs until it is cancelled (or released through stdin), on
#: the stop signals as ``gpuwizard`` runs them. Commands on stdin: "keep" answers the stop
#: question Keep installing, "release" lets the install end well. Prints "installing" once the
#: install runs, "kept", "installed", and at the end whether the install saw its cancel.
INSTALLING = (
    SIGNS
    + """
import os, threading, time
sys.path.insert(0, sys.argv[2])
from pathlib import Path
from PySide6.QtCore import QSocketNotifier
from PySide6.QtWidgets import QWizard
from fakes.env_steps import typed
from gpuwizard.ui.pages.install import OK
from gpuwizard.ui.stop_signals import StopSignals
from gpuwizard.workflow.machine.system_file import load_system_report
from gpuwizard.workflow.wizard.session import WizardSession

class HeldInstall:
    def __init__(self):
        self.started, self.release, self.saw_cancel = threading.Event(), threading.Event(), False

    def __call__(self, _report, _recommendation, choice, on_event, cancel):
        on_event({"event": "phase", "phase": "install", "message": "installing torch"})
        self.started.set()
        while not cancel.is_set() and not self.release.is_set():
            cancel.wait(0.05)
        self.saw_cancel = cancel.is_set()
        if self.saw_cancel:
            result = {"event": "result", "status": "cancelled", "name": choice.name, "path": "/x",
                      "error": "cancelled by the user", "rollback_problems": []}
        else:
            result = {"event": "result", "status": "ok", "name": choice.name, "path": "/x",
                      "python": "/x/bin/python", "framework_version": "2.13.0", "manager": "venv"}
        on_event(result)
        return result

def until(condition):
    # The child's own guard: the test's per-test limit ends a child that never gets there.
    while not condition():
        app.processEvents()
        time.sleep(0.005)

fake = HeldInstall()
with StopSignals() as stops:
    wizard = SetupWizard(WizardSession(report=load_system_report(Path(sys.argv[1])), create_env=typed(fake)))
    wizard.show()
    wizard.next()
    until(wizard.detect_page.isComplete)
    wizard.next()
    until(lambda: wizard.choose_page.isComplete() and wizard.choose_page.recommendation is not None)
    wizard.button(QWizard.WizardButton.NextButton).click()
    until(lambda: wizard.install_question is not None and wizard.install_question.isVisible())
    wizard.install_question.install_button.click()
    until(fake.started.is_set)
    print("installing", flush=True)

    def command():
        for word in os.read(0, 4096).decode().split():
            if word == "keep":
                wizard.stop_question.keep_button.click()
                print("kept", flush=True)
            elif word == "release":
                fake.release.set()

    def complete():
        if wizard.install_page.state == OK:
            print("installed", flush=True)

    stdin = QSocketNotifier(0, QSocketNotifier.Type.Read)
    stdin.activated.connect(command)
    wizard.install_page.completeChanged.connect(complete)
    try:
        code = stops.run(app, wizard)
    except KeyboardInterrupt:
        code = 130
print(f"install saw its cancel: {fake.saw_cancel}", flush=True)
sys.exit(code)
"""
)


def start(script: str, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.Popen(
        [sys.executable, "-c", script, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def wait_for(child: subprocess.Popen[str], sign: str) -> None:
    """Read the child's lines until ``sign``: the event, not a clock."""
    assert child.stdout is not None
    for line in child.stdout:
        if line.strip() == sign:
            return
    child.wait(EVENT_S)
    assert child.stderr is not None
    raise AssertionError(
        f"the wizard ended ({child.returncode}) before {sign!r}: {child.stderr.read()[-3000:]}"
    )


def finish(child: subprocess.Popen[str]) -> tuple[int, str, str]:
    out, err = child.communicate(timeout=EVENT_S)
    return child.returncode, out, err


def tell(child: subprocess.Popen[str], command: str) -> None:
    assert child.stdin is not None
    child.stdin.write(command + "\n")
    child.stdin.flush()


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_closes_the_wizard_with_nothing_running_and_exits_130(stop: signal.Signals):
    child = start(COMMAND, SAMPLE)
    try:
        wait_for(child, "shown")
        child.send_signal(stop)
        code, _out, err = finish(child)
    finally:
        end(child.pid)
    assert code == 130, err
    assert "Traceback" not in err and "QThread" not in err, err


def test_with_an_install_running_the_first_signal_asks_and_the_second_stops_it():
    child = start(INSTALLING, SAMPLE, str(TESTS))
    try:
        wait_for(child, "installing")
        child.send_signal(signal.SIGINT)
        wait_for(child, "asked")  # as the Close button does: "Stop the install?"
        child.send_signal(signal.SIGINT)
        code, out, err = finish(child)
    finally:
        end(child.pid)
    assert code == 130, err
    assert "install saw its cancel: True" in out  # stopped and rolled back, not abandoned
    assert "Traceback" not in err and "QThread" not in err, err


def test_keep_installing_leaves_the_install_running_and_a_later_signal_closes_at_once():
    child = start(INSTALLING, SAMPLE, str(TESTS))
    try:
        wait_for(child, "installing")
        child.send_signal(signal.SIGTERM)
        wait_for(child, "asked")
        tell(child, "keep")
        wait_for(child, "kept")
        tell(child, "release")
        wait_for(child, "installed")  # the install went on to the end, untouched
        child.send_signal(signal.SIGTERM)  # nothing runs now: no question, the window closes
        code, out, err = finish(child)
    finally:
        end(child.pid)
    assert code == 130, err
    assert "install saw its cancel: False" in out
    assert "asked" not in out.split()  # the second signal asked nothing
    assert "Traceback" not in err and "QThread" not in err, err
