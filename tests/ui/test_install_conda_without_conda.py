"""The wizard's Install page makes a conda environment on a machine without conda (issue 23).

The real step: this machine's report with no conda, mamba or micromamba, the Choose page's
answer "conda", and the real ``setup_environment``, which has py-rattler (inside the wizard)
make the environment from a local channel the tests build (``builders.conda_channels``:
conda-forge is not reachable here), then pip inside it installs a small stand-in torch.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from builders.conda_channels import python_channel
from builders.wheels import tiny_torch
from gpuwizard.core.envs.request import SetupRequest
from gpuwizard.core.machine.system_report import ManagerFacts
from gpuwizard.ui.pages.install import OK, InstallPage
from gpuwizard.workflow.envs.setup import recommend_for
from gpuwizard.workflow.machine.detect import detect_system
from gpuwizard.workflow.wizard.session import WizardSession
from harness.wizard_host import show_between

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the test channel's python is POSIX")


@pytest.mark.slow
def test_the_install_page_makes_a_conda_environment_with_py_rattler(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RATTLER_CACHE_DIR", str(tmp_path / "rattler-cache"))
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    tiny_torch(wheels, "2.13.0")
    detected = detect_system()
    report = dataclasses.replace(detected, managers=ManagerFacts(uv=detected.managers.uv))  # no conda here
    choice = SetupRequest(
        "pytorch", version="2.13", python="{}.{}".format(*sys.version_info[:2]), manager="conda",
        name="lab", channels=(python_channel().as_uri(),), find_links=wheels, offline=True,
    )  # fmt: skip
    recommendation = recommend_for(report, choice)
    assert recommendation.plan.conda_engine == "rattler"
    session = WizardSession(report=report, choice=choice, recommendation=recommendation)
    page = InstallPage(session)

    wizard = show_between(qtbot, page, "Choose", "Test")  # onto the page: it starts at once
    qtbot.waitUntil(lambda: page.state not in ("running", "idle"), timeout=300_000)

    log = page.log_view.toPlainText()
    assert page.state == OK, log[-3000:]
    assert page.result is not None
    assert (page.result.manager, page.result.tool) == ("conda", "rattler")
    prefix = Path(str(page.result.path))
    assert any((prefix / "conda-meta").glob("python-*.json"))
    # The engine's steps are shown as sentences, never as its JSON lines.
    assert "py-rattler" in log and "linked python" in log and '{"event"' not in log
    assert (prefix / "bin" / "activate").is_file()
    wizard.close()
