"""The question before Install names the Python uv downloads too, and the Install page's log says it (issue 37, point 6).

On a machine without the plan's Python, uv downloads one from another host than the package
indexes: the summary the person agrees to lists that place beside the indexes (and GitHub's
copy, where uv turns to it), and the Install page's first lines say it again from the ``start``
event. The wizard runs offscreen on a sample report whose interpreters are taken away; the real
uv says which build it would download, offline; the install itself is a fake step.
"""

from __future__ import annotations

import shutil
import sys
import threading
from collections.abc import Callable
from dataclasses import replace
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QWizard
from pytestqt.qtbot import QtBot

from fakes.env_steps import typed
from gpuwizard.core.envs.python_download import PBS_ASTRAL, PBS_GITHUB, PythonDownload
from gpuwizard.core.envs.request import SetupRequest
from gpuwizard.core.machine.system_report import SystemReport
from gpuwizard.ui.pages.install import OK
from gpuwizard.ui.widgets.install_summary import InstallQuestion
from gpuwizard.ui.wizard import PageId, SetupWizard
from gpuwizard.workflow.envs.setup import recommend_for
from gpuwizard.workflow.machine.system_file import load_system_report
from gpuwizard.workflow.wizard.install_summary import install_summary
from gpuwizard.workflow.wizard.session import WizardSession
from harness.kept_wizards import keep
from harness.waits import EVENT_MS

SAMPLES = resources.files("gpuwizard.resources").joinpath("samples")
UV = shutil.which("uv", path=str(Path(sys.executable).parent))
MIRROR = "https://python-mirror.example/pbs"
Event = dict[str, Any]


def sample() -> SystemReport:
    return load_system_report(Path(str(SAMPLES.joinpath("no-gpu.json"))))


def without_pythons() -> SystemReport:
    """The sample machine with the wizard's uv and no interpreter at all: uv has to download one."""
    report = sample()
    return replace(report, interpreters=(), managers=replace(report.managers, uv=UV))


def start_with_a_python_download(
    _report: Any, rec: Any, choice: SetupRequest, on_event: Callable[[Event], None], _cancel: threading.Event
) -> Event:
    """A ``create_env`` that says what ``env create`` says first when uv downloads the Python, then succeeds."""
    python = rec.plan.python
    on_event({
        "event": "start", "name": choice.name, "path": "/envs/lab", "manager": "venv", "tool": "uv",
        "framework": "pytorch", "framework_version": rec.plan.framework_version, "python_version": python,
        "python_download": {"python": python, "url": f"{MIRROR}/cpython-{python}.9.tar.gz"},
    })  # fmt: skip
    result = {"event": "result", "status": "ok", "name": choice.name, "path": "/envs/lab",
              "python": "/envs/lab/bin/python", "framework_version": "2.13.0", "manager": "venv"}  # fmt: skip
    on_event(result)
    return result


@pytest.mark.skipif(UV is None, reason="uv is a project dependency; not installed here")
def test_the_question_and_the_log_name_the_python_download(qtbot: QtBot, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("UV_PYTHON_INSTALL_MIRROR", MIRROR)
    session = WizardSession(report=without_pythons(), create_env=typed(start_with_a_python_download))
    wizard = SetupWizard(session)
    keep(wizard)
    qtbot.addWidget(wizard)
    wizard.show()
    qtbot.waitExposed(wizard)
    wizard.next()
    qtbot.waitUntil(wizard.detect_page.isComplete, timeout=EVENT_MS)
    wizard.next()
    choose = wizard.choose_page
    qtbot.waitUntil(lambda: choose.isComplete() and choose.recommendation is not None, timeout=EVENT_MS)
    assert choose.recommendation is not None
    python = choose.recommendation.plan.python
    wizard.button(QWizard.WizardButton.NextButton).click()
    qtbot.waitUntil(lambda: wizard.install_question is not None, timeout=EVENT_MS)
    question = wizard.install_question
    assert question is not None and wizard.currentId() == PageId.CHOOSE
    download = question.summary.python_download
    assert download is not None and download.python == python and download.url.startswith(MIRROR + "/")
    details = question.informativeText()
    assert f"No Python {python} is installed here, so uv downloads one too, from:" in details
    assert f"<code>{download.url}</code>" in details
    assert "python-mirror.example" in [host.host for host in question.summary.hosts]

    question.install_button.click()
    page = wizard.install_page
    qtbot.waitUntil(lambda: page.state == OK, timeout=EVENT_MS)
    said = f"== Python {python} is downloaded by uv from {MIRROR}/cpython-{python}.9.tar.gz: none is installed here"
    assert said in page.log_view.toPlainText()


def test_githubs_copy_is_listed_where_uv_turns_to_it(qtbot: QtBot, tmp_path: Path):
    wanted = SetupRequest.checked(framework="pytorch", version="2.13", name="lab")
    rec = recommend_for(sample(), wanted)
    path = "/20261110/cpython-3.13.9%2B20261110-x86_64-pc-windows-msvc-install_only_stripped.tar.gz"
    download = PythonDownload("3.13", PBS_ASTRAL + path, version="3.13.9", fallback_url=PBS_GITHUB + path)
    summary = install_summary(rec, wanted, envs_folder=str(tmp_path), python_download=download)
    question = InstallQuestion(summary)
    qtbot.addWidget(question)
    details = question.informativeText()
    assert f"<code>{PBS_ASTRAL + path}</code>" in details
    assert f"<code>{PBS_GITHUB + path}</code> (GitHub's copy, if the first does not answer)" in details
    assert [host.host for host in summary.hosts][-2:] == ["releases.astral.sh", "github.com"]


def test_no_python_download_is_named_where_the_plans_python_is_installed(qtbot: QtBot, tmp_path: Path):
    wanted = SetupRequest.checked(framework="pytorch", version="2.13", name="lab")
    summary = install_summary(recommend_for(sample(), wanted), wanted, envs_folder=str(tmp_path))
    question = InstallQuestion(summary)
    qtbot.addWidget(question)
    assert summary.python_download is None
    assert "uv downloads one too" not in question.informativeText()
