"""Saving from the wizard: where the dialogs open, and the line that says where the file went.

Issue 20, point 8: "Save the report…" on the Summary page wrote its file without a word while the
status line still named an earlier file, and every dialog opened in the current directory. Qt's
static dialog is replaced at its boundary (``QFileDialog.getSaveFileName`` and
``getExistingDirectory``) by one that notes the folder it was asked to open in and answers with
a path; the files are really written.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import pytest
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget, QWizard
from pytestqt.qtbot import QtBot

from gpuwizard.ui import dialogs
from gpuwizard.ui.pages.summary import SummaryPage
from gpuwizard.workflow.machine.system_file import load_system_report
from gpuwizard.workflow.wizard.session import WizardSession

SAMPLE = resources.files("gpuwizard.resources").joinpath("samples/windows-rtx2080super-two-cuda.json")


class SaveDialog:
    """Stands in for ``QFileDialog.getSaveFileName``: notes where it opened, answers the next path."""

    def __init__(self) -> None:
        self.opened_at: list[Path] = []
        self.answers: list[Path | None] = []

    def __call__(self, _parent: QWidget, _caption: str, directory: str, _filters: str) -> tuple[str, str]:
        self.opened_at.append(Path(directory))
        answer = self.answers.pop(0)
        return (str(answer), "") if answer is not None else ("", "")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A home folder of its own (Qt reads HOME and the XDG user-dirs file), and a fresh session memory."""
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))  # no user-dirs.dirs: ~/Documents
    dialogs.forget_folder()
    yield folder
    dialogs.forget_folder()


@pytest.fixture
def save_dialog(monkeypatch: pytest.MonkeyPatch) -> SaveDialog:
    dialog = SaveDialog()
    monkeypatch.setattr(QFileDialog, "getSaveFileName", dialog)
    return dialog


def open_summary(qtbot: QtBot) -> tuple[QWizard, SummaryPage]:
    session = WizardSession(report=load_system_report(Path(str(SAMPLE))))
    wizard = QWizard()
    qtbot.addWidget(wizard, before_close_func=lambda _w: page.support.wait_for_worker())
    page = SummaryPage(session)
    wizard.addPage(page)
    page.set_report(session.report)
    wizard.show()
    return wizard, page  # the caller holds the wizard: it owns the page


def test_save_the_report_says_where_it_went_and_the_line_names_the_latest_file(
    qtbot: QtBot, home: Path, save_dialog: SaveDialog, tmp_path: Path
):
    documents = home / "Documents"
    documents.mkdir()
    _wizard, page = open_summary(qtbot)
    status = page.support.status

    # The first dialog opens in Documents, with the suggested name.
    first = tmp_path / "reports" / "machine.json"
    first.parent.mkdir()
    save_dialog.answers.append(first)
    page.save_button.click()
    assert save_dialog.opened_at == [documents / "gpuwizard-system.json"]
    assert json.loads(first.read_text(encoding="utf-8"))["schema"] == "gpuwizard.system/1"
    assert status.text() == f"Saved the system report to {first}."

    # The support report: its dialog opens where the person chose last; the line names it.
    support = tmp_path / "reports" / "for the forum.md"
    save_dialog.answers.append(support)
    page.support.button.click()
    with qtbot.waitSignal(page.support.saved, timeout=60_000):
        pass
    assert save_dialog.opened_at[-1] == first.parent / "gpuwizard-support.html"
    assert support.read_text(encoding="utf-8").startswith("# GPU Setup Wizard support report")
    assert str(support) in status.text() and str(first) not in status.text()

    # The system report again, elsewhere: the line names that file, not the support report.
    again = tmp_path / "elsewhere" / "again.json"
    again.parent.mkdir()
    save_dialog.answers.append(again)
    page.save_button.click()
    assert save_dialog.opened_at[-1] == first.parent / "gpuwizard-system.json"
    assert again.is_file()
    assert status.text() == f"Saved the system report to {again}."

    # Cancelled: nothing written, the line unchanged.
    save_dialog.answers.append(None)
    page.save_button.click()
    assert save_dialog.opened_at[-1] == again.parent / "gpuwizard-system.json"
    assert status.text() == f"Saved the system report to {again}."


def test_a_report_that_cannot_be_saved_says_so_on_the_line_too(
    qtbot: QtBot, home: Path, save_dialog: SaveDialog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    warnings: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _parent, _title, text: warnings.append(text))
    _wizard, page = open_summary(qtbot)
    saved = tmp_path / "saved.json"
    save_dialog.answers.append(saved)
    page.save_button.click()
    assert page.support.status.text() == f"Saved the system report to {saved}."
    save_dialog.answers.append(tmp_path / "no such folder" / "report.json")
    page.save_button.click()
    assert warnings and warnings[0].startswith("The report was not saved: ")
    assert page.support.status.text() == warnings[0]  # the earlier file is no longer named
    assert not (tmp_path / "no such folder").exists()
    # Without a Documents folder, the home folder.
    dialogs.forget_folder()
    save_dialog.answers.append(None)
    page.save_button.click()
    assert save_dialog.opened_at[-1] == home / "gpuwizard-system.json"


def test_the_folder_dialog_opens_at_the_folder_given_else_in_documents_else_where_chosen_last(
    qtbot: QtBot, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    (home / "Documents").mkdir()
    opened: list[Path] = []
    answers: list[str] = []

    def folder_dialog(_parent: QWidget, _caption: str, directory: str) -> str:
        opened.append(Path(directory))
        return answers.pop(0)

    monkeypatch.setattr(QFileDialog, "getExistingDirectory", folder_dialog)
    parent = QWidget()
    qtbot.addWidget(parent)
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    answers.append(str(wheels))
    assert dialogs.existing_folder(parent, "The folder of wheels") == wheels
    assert opened == [home / "Documents"]
    answers.append("")  # cancelled
    assert dialogs.existing_folder(parent, "The folder of wheels", str(tmp_path / "gone")) is None
    assert opened[-1] == wheels  # the folder given does not exist: where the person chose last
    other = tmp_path / "other"
    other.mkdir()
    answers.append("")
    dialogs.existing_folder(parent, "The folder of wheels", str(other))
    assert opened[-1] == other
