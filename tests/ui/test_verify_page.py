"""Where the wizard opens when the wizard set nothing up here, and the Verify page with nothing to verify.

Issue 20, point 4: ``gpuwizard verify`` on a machine the wizard never set up used to record an
empty last good state, and every later start opened on "Verify your setup: Everything works as
it did" with a green "NVIDIA driver: as before" on a machine without one.
"""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path

from PySide6.QtWidgets import QWizard
from pytestqt.qtbot import QtBot

from gpuwizard.ui.wizard import PageId, SetupWizard
from gpuwizard.workflow.machine.system_file import load_system_report
from gpuwizard.workflow.wizard.session import WizardSession, session_for_this_machine
from harness.entry_point import gpuwizard
from harness.waits import EVENT_MS

NO_GPU = str(resources.files("gpuwizard.resources").joinpath("samples/no-gpu.json"))


def home() -> Path:
    return Path(os.environ["GPUWIZARD_HOME"])  # a fresh one for every test (tests/conftest.py)


def open_wizard(qtbot: QtBot, session: WizardSession) -> SetupWizard:
    wizard = SetupWizard(session, start_detection=False)
    qtbot.addWidget(wizard)
    wizard.show()
    qtbot.waitExposed(wizard)
    return wizard


def test_after_a_verify_of_nothing_the_wizard_opens_on_welcome(qtbot: QtBot):
    done = gpuwizard("verify", "--system", NO_GPU, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Nothing to verify")
    assert not (home() / "last-good.json").exists()
    session = session_for_this_machine(load_system_report(Path(NO_GPU)))
    assert not session.previous_setup
    wizard = open_wizard(qtbot, session)
    assert wizard.currentId() == PageId.WELCOME


def test_an_empty_last_good_state_of_an_older_version_opens_on_welcome(qtbot: QtBot):
    old = {"schema": "gpuwizard.snapshot/1", "recorded": "2026-01-05T10:00:00+00:00", "driver_version": None,
           "driver_cuda_max": None, "gpus": [], "environments": [], "path_entries": []}  # fmt: skip
    (home() / "last-good.json").write_text(json.dumps(old))
    session = session_for_this_machine(load_system_report(Path(NO_GPU)))
    assert not session.previous_setup
    assert open_wizard(qtbot, session).currentId() == PageId.WELCOME


def test_the_verify_page_with_nothing_to_verify_says_so_and_leads_to_set_up(qtbot: QtBot):
    # Opened on Verify (as a wizard started before the last environment was removed would be).
    report = load_system_report(Path(NO_GPU))
    session = WizardSession(detect=lambda: report, previous_setup=True)
    wizard = open_wizard(qtbot, session)
    assert wizard.currentId() == PageId.VERIFY
    page = wizard.verify_page
    qtbot.waitUntil(page.isComplete, timeout=EVENT_MS)
    assert page.nothing_to_verify()
    assert (
        page.headline.text() == "Nothing to verify: the wizard has not set up anything on this machine yet."
    )
    assert "Everything works" not in page.headline.text()
    assert page.rows == [] and not page.repair_button.isVisible()
    assert page.buttonText(QWizard.WizardButton.NextButton) == "Set &up >"
    assert wizard.button(QWizard.WizardButton.NextButton).text() == "Set &up >"
    assert not (home() / "last-good.json").exists()
