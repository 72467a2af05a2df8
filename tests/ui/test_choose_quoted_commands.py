"""The Choose page's commands name an environment or a folder with spaces as one word (issue 41).

An outside check saw ``gpuwizard env create mein Labor ü ... --from-pypi.`` offered when PyTorch's
index did not answer, and ``--find-links /tmp/oc41 wheels 2.13 only torch`` in "pip installs:".
pytest-qt, offscreen, the real page and recommender on the sample machine without a GPU; the
indexes are a closed port and an https server of the test run. What the page shows (the command
under the finding, with its Copy button; the install line) is read as a POSIX shell reads it.
"""

from __future__ import annotations

import shlex
import socket
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import pytest
from PySide6.QtWidgets import QWizard, QWizardPage
from pytestqt.qtbot import QtBot

from gpuwizard.core.envs.request import SetupRequest
from gpuwizard.ui.pages.choose import ChoosePage
from gpuwizard.workflow.machine.system_file import load_system_report
from gpuwizard.workflow.wizard.session import WizardSession
from harness.http_server import serve, trust_test_ca
from harness.waits import EVENT_MS

NO_GPU = Path(str(resources.files("gpuwizard.resources").joinpath("samples", "no-gpu.json")))
NAME = "mein Labor ü"


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(autouse=True)
def _asking_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """The page asks for real here (tests/conftest.py turns asking off elsewhere), through no proxy."""
    monkeypatch.delenv("GPUWIZARD_NO_INDEX_CHECK", raising=False)
    for name in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    for name, value in trust_test_ca().items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("GPUWIZARD_PYTORCH_INDEX_URL", f"https://127.0.0.1:{closed_port()}/whl")


_OPEN: list[QWizard] = []  # the wizards of the running test: a page lives as long as its wizard


@pytest.fixture(autouse=True)
def _wizards_of_the_test() -> Iterator[None]:
    yield
    _OPEN.clear()


def open_choose(qtbot: QtBot, choice: SetupRequest) -> ChoosePage:
    wizard = QWizard()
    page = ChoosePage(WizardSession(report=load_system_report(NO_GPU), choice=choice))
    wizard.addPage(page)
    wizard.addPage(QWizardPage())

    def stop(_wizard: QWizard) -> None:
        page.timer.stop()
        page.wait_for_workers()

    qtbot.addWidget(wizard, before_close_func=stop)
    _OPEN.append(wizard)
    wizard.show()
    qtbot.waitExposed(wizard)
    qtbot.waitUntil(lambda: page.outcome is not None and not page.is_busy(), timeout=EVENT_MS)
    return page


def test_pypis_build_is_offered_as_a_command_with_the_name_as_one_word(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
):
    with serve(tls=True) as pypi:
        pypi.put("/simple/torch/", "<html></html>", content_type="text/html")
        pypi.put("/simple/pip/", "<html></html>", content_type="text/html")
        monkeypatch.setenv("PIP_INDEX_URL", f"{pypi.url}/simple")
        monkeypatch.setenv("UV_DEFAULT_INDEX", f"{pypi.url}/simple")
        page = open_choose(qtbot, SetupRequest(framework="pytorch", version="2.13", name=NAME))
        qtbot.waitUntil(lambda: page.sources_ok is not None, timeout=EVENT_MS)
    assert page.inputs.name_edit.text() == NAME
    card = next(
        card for card in page.sources_view.finding_views if card.finding.code == "PYPI_BUILD_AVAILABLE"
    )
    (command,) = card.fix.commands()  # on a line of its own, with a Copy button
    assert not command.endswith(".")
    words = shlex.split(command)
    assert words[words.index("env") :] == [
        "env", "create", NAME, "--framework", "pytorch", "--version", "2.13.0", "--from-pypi",
    ]  # fmt: skip
    assert card.hint_label.text() == "Install it from PyPI instead of PyTorch's index:"


def test_pip_installs_names_a_folder_with_spaces_as_one_word(qtbot: QtBot, tmp_path: Path):
    folder = tmp_path / "oc41 wheels 2.13 only torch"
    folder.mkdir()
    page = open_choose(qtbot, SetupRequest(framework="pytorch", version="2.13", name=NAME))
    page.inputs.offline_check.setChecked(True)
    page.inputs.folder_edit.setText(str(folder))
    qtbot.waitUntil(lambda: "--find-links" in page.panel.plan_pip.text(), timeout=EVENT_MS)
    words = shlex.split(page.panel.plan_pip.text())
    assert words[words.index("--find-links") + 1] == str(folder)
