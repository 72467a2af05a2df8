"""The Install page explains an unreachable package index with a card (issue 20, point 1).

Two ways it shows: the install itself failed on the index (the newcomer's case: the events of the
wizard's own recorded log, replayed, whose uv lines said "failed to lookup address information"
and before this change got no card), and the check before the install refused (the real
``setup_environment``, with PyTorch's index pointed at a closed port on 127.0.0.1).
"""

from __future__ import annotations

import json
import socket
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QWizard
from pytestqt.qtbot import QtBot

from gpuwizard.core.envs.events import ENV_CREATE_EVENTS
from gpuwizard.core.envs.request import SetupRequest
from gpuwizard.core.envs.result import EnvResult
from gpuwizard.core.events import EventSink
from gpuwizard.ui.pages.install import FAILED, InstallPage
from gpuwizard.workflow.envs.setup import recommend_for
from gpuwizard.workflow.machine.system_file import load_system_report
from gpuwizard.workflow.wizard.session import WizardSession
from harness.waits import EVENT_MS
from harness.wizard_host import show_between

NO_GPU = Path(str(resources.files("gpuwizard.resources").joinpath("samples", "no-gpu.json")))
RECORDED_LOG = (
    Path(__file__).parents[1]
    / "fixtures"
    / "recorded"
    / "diagnose"
    / "package-index-unreachable_gpuwizard-env-create-log-uv-dns-download.pytorch.org_recorded-here.txt"
)


def session(**fields: Any) -> WizardSession:
    report = load_system_report(NO_GPU)
    choice = SetupRequest("pytorch", version="2.13", name="newcomer")
    return WizardSession(report=report, choice=choice, recommendation=recommend_for(report, choice), **fields)


def install(qtbot: QtBot, state: WizardSession) -> tuple[QWizard, InstallPage]:
    page = InstallPage(state)
    wizard = show_between(qtbot, page, "Choose", "Test")
    qtbot.waitUntil(lambda: page.state == FAILED, timeout=EVENT_MS)
    return wizard, page


def replayed_log(*_args: object) -> EnvResult:
    """The install as the newcomer's wizard ran it: the recorded log's events, in order."""
    on_event: EventSink = _args[3]  # type: ignore[assignment]
    events = [
        ENV_CREATE_EVENTS.read(json.loads(line))
        for line in RECORDED_LOG.read_text(encoding="utf-8").splitlines()
        if line.startswith("{")
    ]
    for event in events:
        on_event(event)
    assert isinstance(events[-1], EnvResult)
    return events[-1]


def test_an_install_that_failed_on_the_index_gets_the_diagnosis_card(qtbot: QtBot):
    _wizard, page = install(qtbot, session(create_env=replayed_log))
    assert [view.finding.code for view in page.finding_views] == ["PACKAGE_INDEX_UNREACHABLE"]
    card = page.finding_views[0]
    assert card.isVisible()
    assert "download.pytorch.org cannot be looked up (DNS)" in card.finding.message
    assert "GPUWIZARD_PYTORCH_INDEX_URL" in card.finding.hint


def test_a_refusal_before_the_install_shows_its_explanation(qtbot: QtBot, monkeypatch: pytest.MonkeyPatch):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.delenv("GPUWIZARD_NO_INDEX_CHECK", raising=False)
    for name in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GPUWIZARD_PYTORCH_INDEX_URL", f"https://127.0.0.1:{port}/whl")
    monkeypatch.setenv(
        "PIP_INDEX_URL", f"https://127.0.0.1:{port}/simple"
    )  # PyPI's build: not asked beyond 127.0.0.1
    _wizard, page = install(qtbot, session())  # the real setup_environment
    assert page.result is not None and page.result.log is None  # refused: nothing was made
    assert f"127.0.0.1:{port} refused the connection" in page.reason_label.text()
    codes = [view.finding.code for view in page.finding_views]
    assert codes[0] == "PACKAGE_INDEX_UNREACHABLE" and page.finding_views[0].isVisible()
