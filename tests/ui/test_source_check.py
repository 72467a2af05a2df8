"""The Choose page asks the plan's package indexes in the background (issue 20, points 1 and 6).

pytest-qt, offscreen, the real page and recommender on the sample machine without a GPU (its
plan installs from PyTorch's index). The index is pointed, through ``GPUWIZARD_PYTORCH_INDEX_URL``,
at a closed port on 127.0.0.1, at an https server of the test run, or at an http one whose
requests are counted; the check runs on a worker and the tests wait on the page's answer. The
commands the page shows name an environment or a folder with spaces as one word (issue 41).
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QLabel, QWidget, QWizard, QWizardPage
from pytestqt.qtbot import QtBot

from gpuwizard.core.envs.request import SetupRequest
from gpuwizard.ui.pages.choose import ChoosePage
from gpuwizard.ui.window_fit import MINIMUM_SIZE, PREFERRED_SIZE, fitted_geometry
from gpuwizard.ui.wizard import PageId, SetupWizard
from gpuwizard.workflow.machine.system_file import load_system_report
from gpuwizard.workflow.wizard.session import WizardSession
from harness.http_server import Site, closed_port, serve, trust_test_ca
from harness.waits import EVENT_MS

NO_GPU = Path(str(resources.files("gpuwizard.resources").joinpath("samples", "no-gpu.json")))


@pytest.fixture(autouse=True)
def _asking_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """The page asks for real here (tests/conftest.py turns asking off elsewhere), through no proxy."""
    monkeypatch.delenv("GPUWIZARD_NO_INDEX_CHECK", raising=False)
    for name in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    for name, value in trust_test_ca().items():
        monkeypatch.setenv(name, value)
    # PyPI (asked for PyPI's build as a way forward) is a closed port here: nothing leaves the machine.
    monkeypatch.setenv("PIP_INDEX_URL", f"https://127.0.0.1:{closed_port()}/simple")
    monkeypatch.setenv("UV_DEFAULT_INDEX", f"https://127.0.0.1:{closed_port()}/simple")


_OPEN: list[QWizard] = []  # the wizards of the running test: a page lives as long as its wizard


@pytest.fixture(autouse=True)
def _wizards_of_the_test() -> Iterator[None]:
    yield
    _OPEN.clear()


def open_choose(qtbot: QtBot, **session: object) -> ChoosePage:
    wizard = QWizard()
    page = ChoosePage(WizardSession(report=load_system_report(NO_GPU), **session))  # type: ignore[arg-type]
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


@contextmanager
def pypi_only(monkeypatch: pytest.MonkeyPatch) -> Iterator[Site]:
    """PyTorch's index unreachable (a closed port), PyPI a server of the test run that answers."""
    monkeypatch.setenv("GPUWIZARD_PYTORCH_INDEX_URL", f"https://127.0.0.1:{closed_port()}/whl")
    with serve(tls=True) as pypi:
        pypi.put("/simple/torch/", "<html></html>", content_type="text/html")
        pypi.put("/simple/pip/", "<html></html>", content_type="text/html")
        monkeypatch.setenv("PIP_INDEX_URL", f"{pypi.url}/simple")
        monkeypatch.setenv("UV_DEFAULT_INDEX", f"{pypi.url}/simple")
        yield pypi


def answered(qtbot: QtBot, page: ChoosePage) -> None:
    qtbot.waitUntil(lambda: page.sources_ok is not None, timeout=EVENT_MS)


def lines(page: ChoosePage) -> list[str]:
    return [label.text() for label in page.sources_view.index_labels]


def test_acceptance_an_index_on_a_closed_port_is_explained_before_anything_is_downloaded(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
):
    port = closed_port()
    monkeypatch.setenv("GPUWIZARD_PYTORCH_INDEX_URL", f"https://127.0.0.1:{port}/whl")
    page = open_choose(qtbot)
    view = page.sources_view
    assert view.isVisible()
    answered(qtbot, page)
    assert page.sources_ok is False
    # Said once, by the finding: which index, what failed, the ways forward (issue 41, point 4).
    (card, *_others) = view.finding_views
    assert card.finding.code == "PACKAGE_INDEX_UNREACHABLE" and card.isVisible()
    assert card.message_label.text() == (
        f"<b>The package index https://127.0.0.1:{port}/whl/cpu cannot be reached: "
        f"127.0.0.1:{port} refused the connection.</b>"
    )
    assert "HTTPS_PROXY" in card.finding.hint and "--find-links DIR --offline" in card.finding.hint
    assert not view.status_label.isVisible() and lines(page) == []
    assert view.again_button.isVisible()
    # The install would fail: Install (Next) stays off, and the page says why in one line.
    assert not page.isComplete()
    assert view.blocked_note.isVisible() and "Install stays off" in view.blocked_note.text()
    assert page.panel.result_box.layout().indexOf(view) == 0  # the answer leads with it
    # The plan's command and "what will change" name the index as it will be used.
    assert page.recommendation is not None
    requirement = page.recommendation.plan.requirements[0]
    assert (
        page.panel.plan_pip.text()
        == f"pip install {requirement}\n    --index-url https://127.0.0.1:{port}/whl/cpu"
    )
    changes = page.panel.changes.text()
    assert "Packages are downloaded from" in changes and f"https://127.0.0.1:{port}/whl/cpu" in changes


def test_a_reachable_index_shows_green(qtbot: QtBot, monkeypatch: pytest.MonkeyPatch):
    with serve(tls=True) as site:
        site.put("/whl/cpu/torch/", "<html></html>", content_type="text/html")
        monkeypatch.setenv("GPUWIZARD_PYTORCH_INDEX_URL", f"{site.url}/whl")
        page = open_choose(qtbot)
        answered(qtbot, page)
        assert site.seen == ["/whl/cpu/torch/"]
    view = page.sources_view
    assert page.sources_ok is True
    assert lines(page) == [
        f"✓ {site.url}/whl/cpu (your mirror of PyTorch's index, from GPUWIZARD_PYTORCH_INDEX_URL): answers"
    ]
    assert "answer" in view.status_label.text()
    assert view.finding_views == [] and not view.again_button.isVisible()
    assert page.isComplete() and not view.blocked_note.isVisible()
    assert page.panel.result_box.layout().indexOf(view) == 2  # after what will change


def test_offline_nothing_is_asked_and_the_command_names_only_the_folder(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    with serve() as site:
        monkeypatch.setenv("GPUWIZARD_PYTORCH_INDEX_URL", f"{site.url}/whl")
        page = open_choose(qtbot)
        answered(qtbot, page)
        asked = list(site.seen)
        page.inputs.offline_check.setChecked(True)
        page.inputs.folder_edit.setText(str(tmp_path))
        qtbot.waitUntil(lambda: not page.sources_view.isVisible(), timeout=EVENT_MS)
        assert site.seen == asked  # nothing more asked once offline
    assert page.recommendation is not None
    requirement = page.recommendation.plan.requirements[0]
    # The sample machine has no uv: pip, with the folder alone (issue 20, point 6).
    assert page.panel.plan_pip.text() == f"pip install {requirement}\n    --no-index --find-links {tmp_path}"
    assert "--index-url" not in page.panel.plan_pip.text()
    assert page.sources_ok is True


def test_a_preview_of_a_saved_report_asks_nothing(qtbot: QtBot, monkeypatch: pytest.MonkeyPatch):
    with serve() as site:
        monkeypatch.setenv("GPUWIZARD_PYTORCH_INDEX_URL", f"{site.url}/whl")
        page = open_choose(qtbot, system_file=NO_GPU)
        assert not page.sources_view.isVisible() and page.sources_ok is True
        assert site.seen == []


def test_a_mirror_that_is_not_https_is_said_on_the_page(qtbot: QtBot, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("GPUWIZARD_PYTORCH_INDEX_URL", "http://mirror.example/whl")
    page = open_choose(qtbot)
    assert page.sources_ok is False
    assert not page.isComplete() and page.sources_view.blocked_note.isVisible()
    assert "GPUWIZARD_PYTORCH_INDEX_URL: http://mirror.example/whl is not an https:// URL" in (
        page.sources_view.status_label.text()
    )


def test_pypis_build_is_a_way_forward_the_page_takes_by_itself(qtbot: QtBot, monkeypatch: pytest.MonkeyPatch):
    # PyTorch's index unreachable, PyPI (a mirror of the test run) reachable: the page offers
    # PyPI's build of the same release, and one button switches the plan to it and back.
    with pypi_only(monkeypatch) as pypi:
        page = open_choose(qtbot)
        answered(qtbot, page)
        view = page.sources_view
        assert page.sources_ok is False
        assert "PYPI_BUILD_AVAILABLE" in [card.finding.code for card in view.finding_views]
        assert view.pypi_button.isVisible() and view.pypi_button.text() == "&Switch to PyPI's build"
        assert page.recommendation is not None and page.recommendation.plan.index_url is not None
        release = page.recommendation.plan.framework_version
        assert not page.isComplete()  # no Install from an index that does not answer

        qtbot.mouseClick(view.pypi_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: page.sources_ok is True, timeout=EVENT_MS)
        qtbot.waitUntil(page.isComplete, timeout=EVENT_MS)  # a way that works: Install again
        plan = page.recommendation.plan
        assert plan.index_url is None and plan.framework_version == release
        assert lines(page) == [f"✓ {pypi.url}/simple (your PyPI mirror, from PIP_INDEX_URL): answers"]
        assert view.pypi_button.isVisible() and view.pypi_button.text() == "Switch back to PyTorch's inde&x"
        page.validatePage()
        assert page.session.recommendation is not None and page.session.recommendation.plan.index_url is None

        qtbot.mouseClick(view.pypi_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: page.sources_ok is False, timeout=EVENT_MS)
        assert page.recommendation.plan.index_url is not None


# --- issue 41, point 4: on a laptop's screen, said once, with the ways forward in sight --------------

#: The window on 1366 × 768 at 125 % (harness/laptop_screens.py), the smallest of the laptop screens:
#: 1093 × 566 logical pixels less the taskbar, a Windows frame around the window.
LAPTOP = fitted_geometry(PREFERRED_SIZE, MINIMUM_SIZE, QRect(0, 0, 1093, 566)).size()


def in_sight(widget: QWidget, viewport: QWidget) -> bool:
    """Whether all of ``widget`` is inside ``viewport`` as the scroll area shows it now."""
    top_left = widget.mapTo(viewport, QPoint(0, 0))
    return viewport.rect().contains(QRect(top_left, widget.size()))


def test_on_a_laptop_screen_the_unreachable_index_is_said_once_with_its_ways_forward_in_sight(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
):
    port = closed_port()
    monkeypatch.setenv("GPUWIZARD_PYTORCH_INDEX_URL", f"https://127.0.0.1:{port}/whl")
    wizard = SetupWizard(WizardSession(report=load_system_report(NO_GPU)), start_detection=False)
    qtbot.addWidget(wizard, before_close_func=lambda w: w.done(0))
    wizard.show()
    qtbot.waitExposed(wizard)
    wizard.resize(LAPTOP)
    wizard.setStartId(PageId.CHOOSE)
    wizard.restart()
    page = wizard.choose_page
    qtbot.waitUntil(lambda: page.outcome is not None and not page.is_busy(), timeout=EVENT_MS)
    answered(qtbot, page)
    qtbot.waitUntil(page.sources_view.blocked_note.isVisible, timeout=EVENT_MS)
    assert wizard.size() == LAPTOP

    # Install is there, and off.
    install = wizard.button(QWizard.WizardButton.NextButton)
    assert "Install" in install.text() and not install.isEnabled()
    # Once: one text on the page says the index cannot be reached.
    saying = [
        label.text()
        for label in page.findChildren(QLabel)
        if label.isVisible() and "cannot be reached" in label.text()
    ]
    assert len(saying) == 1, saying
    # The message, its ways forward and the buttons that take them, without scrolling.
    view = page.sources_view
    (card, *_others) = view.finding_views
    viewport = page.result_scroll.viewport()
    assert page.result_scroll.verticalScrollBar().value() == 0
    for widget in (card.message_label, card.fix, view.again_button, view.blocked_note):
        assert in_sight(widget, viewport), widget.objectName()


NAME = "mein Labor ü"  # an environment name with a space and a non-ASCII letter


def test_pypis_build_is_offered_as_a_command_with_the_name_as_one_word(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
):
    # Issue 41: "gpuwizard env create mein Labor ü ... --from-pypi." was offered, the name in two.
    with pypi_only(monkeypatch):
        page = open_choose(qtbot, choice=SetupRequest(framework="pytorch", version="2.13", name=NAME))
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

    # A name typed afterwards is the one the command gives (the indexes are not asked again).
    page.inputs.name_edit.setText("zweites Labor")
    card = next(
        card for card in page.sources_view.finding_views if card.finding.code == "PYPI_BUILD_AVAILABLE"
    )
    (command,) = card.fix.commands()
    assert shlex.split(command)[shlex.split(command).index("create") + 1] == "zweites Labor"


def test_pip_installs_names_a_folder_with_spaces_as_one_word(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    monkeypatch.setenv("GPUWIZARD_PYTORCH_INDEX_URL", f"https://127.0.0.1:{closed_port()}/whl")
    folder = tmp_path / "oc41 wheels 2.13 only torch"
    folder.mkdir()
    page = open_choose(qtbot, choice=SetupRequest(framework="pytorch", version="2.13", name=NAME))
    page.inputs.offline_check.setChecked(True)
    page.inputs.folder_edit.setText(str(folder))
    qtbot.waitUntil(lambda: "--find-links" in page.panel.plan_pip.text(), timeout=EVENT_MS)
    words = shlex.split(page.panel.plan_pip.text())
    assert words[words.index("--find-links") + 1] == str(folder)
