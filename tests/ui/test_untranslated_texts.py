"""Every title and text the wizard shows goes through tr() (issue 20, point 8).

In Spanish and Chinese the window titles mixed languages: Qt appends the application's display
name to every window title (``QPlatformWindow::formatWindowTitle``), and that name was English.
A translator that wraps every source text as ``«text»`` stands in for a language here: the
wizard is opened offscreen on saved reports with that translator installed, every page is
walked (the long steps replay recorded runs, as ``gpuwizard screenshots`` does), and every
window title, dialog title and caption, page title, button, label, group, list item and tooltip
shown must carry the mark, unless it is data (paths, versions, commands, names of programs).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Final

import pytest
from PySide6.QtCore import QTranslator
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QComboBox,
    QFileDialog,
    QGroupBox,
    QLabel,
    QMessageBox,
    QTableWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QWidget,
    QWizard,
)
from pytestqt.qtbot import QtBot

from gpuwizard.ui import dialogs
from gpuwizard.ui.app import name_the_application
from gpuwizard.ui.screenshots import screenshot_session
from gpuwizard.ui.wizard import PageId, SetupWizard
from gpuwizard.workflow.machine.system_file import load_system_report
from harness.waits import EVENT_MS

SAMPLES = resources.files("gpuwizard.resources").joinpath("samples")
OPEN, CLOSE = "«", "»"

# What is data, not words: folders, URLs, versions, requirements, command-line words, symbols.
_DATA_TOKEN: Final = re.compile(
    r"""
    .*[\\/%].*                          # a folder, a URL, a %VARIABLE%
    | -{1,2}[\w-]+                      # an option (--index-url)
    | [\w.+-]*\d[\w.+-]*                # a version, a build, a count (2.13.0+cpu, cu126, 962, x86_64)
    | [\w.-]+(==|>=|<=|~=)[\w.+*-]+     # a requirement (torch==2.13.0)
    | [^\w\s]+                          # symbols (+ - · → …)
    """,
    re.VERBOSE,
)
# Names that stay as they are in every language: programs, products, systems, shells.
_NAMES: Final = frozenset({
    "python", "pip", "install", "source", "activate", "conda", "create", "venv", "uv", "mamba", "micromamba",
    "bash", "zsh", "fish", "csh", "tcsh", "cmd", "powershell", "windows", "linux", "macos", "debian", "gnu",
    "ubuntu", "lts", "bookworm", "wsl", "nvidia", "geforce", "rtx", "gtx", "super", "cuda", "cudnn",
    "pytorch", "tensorflow", "torch", "jupyter", "kib", "mib", "gib",
})  # fmt: skip


class Marking(QTranslator):
    """A language in which every text reads ``«source»``: what is not marked skipped tr()."""

    def translate(self, context: str, source: str, disambiguation: str | None = None, n: int = -1) -> str:
        """Every text of every context, marked."""
        return f"{OPEN}{source}{CLOSE}"

    def isEmpty(self) -> bool:  # noqa: N802 - Qt's name
        """Never empty: Qt asks only translators that are not."""
        return False


_URL: Final = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+")
# A Windows folder, spaces and all, up to the end of its line, a ';' or a ')'.
_WINDOWS_FOLDER: Final = re.compile(r"(?:[A-Za-z]:|%\w+%|\\\\[^\\\s]+)\\[^;\n)]*")


def is_data(text: str) -> bool:
    """True when ``text`` holds no words to translate: only paths, versions, commands, names."""
    tokens = re.split(r"[\s,;:()\[\]]+", _WINDOWS_FOLDER.sub(" ", _URL.sub(" ", text)))
    return all(not token or _DATA_TOKEN.fullmatch(token) or token.casefold() in _NAMES for token in tokens)


def unmarked(text: str) -> bool:
    """A shown text that did not go through tr() and is not data."""
    plain = re.sub(r"<[^>]+>", " ", text).replace("&nbsp;", " ").strip()
    return bool(plain) and OPEN not in plain and not is_data(plain)


def shown_texts(wizard: SetupWizard) -> Iterator[tuple[str, str]]:
    """``(where, text)`` for every text the wizard shows now."""
    page = wizard.currentPage()
    yield "window title", wizard.windowTitle()
    yield "page title", page.title()
    yield "page subtitle", page.subTitle()
    for widget in wizard.findChildren(QWidget):
        if not widget.isVisible():
            continue
        where = f"{widget.metaObject().className()}#{widget.objectName()}"
        if widget.objectName() == "fix_command_text":
            continue  # a fix's command (ui/widgets/fix_commands.py): run as printed, never translated
        if widget.objectName() == "fix_text" and widget.parent() is not None:
            # A hint cut at its commands: the parts of one translated text, judged together.
            parts = widget.parent().findChildren(QLabel, "fix_text")
            yield where, " ".join(part.text() for part in parts)
            continue
        if isinstance(widget, QLabel):
            yield where, widget.text()
        if isinstance(widget, QAbstractButton):
            yield where, widget.text()
        if isinstance(widget, QGroupBox):
            yield where, widget.title()
        if isinstance(widget, QComboBox):
            yield from ((where, widget.itemText(i)) for i in range(widget.count()))
        if isinstance(widget, QTreeWidget):
            yield from _tree_texts(where, widget)
        if isinstance(widget, QTableWidget):
            yield from _table_texts(where, widget)
        yield f"{where} tooltip", widget.toolTip()
        yield f"{where} accessible name", widget.accessibleName()


def _tree_texts(where: str, tree: QTreeWidget) -> Iterator[tuple[str, str]]:
    if not tree.isHeaderHidden():
        header = tree.headerItem()
        yield from ((f"{where} header", header.text(c)) for c in range(header.columnCount()))

    def items(item: QTreeWidgetItem) -> Iterator[tuple[str, str]]:
        for column in range(item.columnCount()):
            yield where, item.text(column)
            yield f"{where} tooltip", item.toolTip(column)
        for index in range(item.childCount()):
            yield from items(item.child(index))

    for index in range(tree.topLevelItemCount()):
        yield from items(tree.topLevelItem(index))


def _table_texts(where: str, table: QTableWidget) -> Iterator[tuple[str, str]]:
    for column in range(table.columnCount()):
        header = table.horizontalHeaderItem(column)
        if header is not None and not table.horizontalHeader().isHidden():
            yield f"{where} header", header.text()
        for row in range(table.rowCount()):
            item = table.item(row, column)
            if item is not None:
                yield where, item.text()


@pytest.fixture
def marking(qapp: QApplication) -> Iterator[Marking]:
    translator = Marking(qapp)
    name = QGuiApplication.applicationDisplayName()
    assert qapp.installTranslator(translator)
    dialogs.forget_folder()
    yield translator
    qapp.removeTranslator(translator)
    QGuiApplication.setApplicationDisplayName(name)
    dialogs.forget_folder()


def test_the_is_data_rule():
    assert is_data(r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.1\bin")
    assert is_data("pip install torch==2.13.0\n    --index-url https://download.pytorch.org/whl/cu130")
    assert is_data("Debian GNU/Linux 12 (bookworm) · x86_64 · WSL 2")
    assert not is_data("Not saved")
    assert not is_data("PyTorch 2.13.0 (wheel cpu)")
    assert unmarked("<b>Saved</b> to C:\\x") and not unmarked("«Saved to %1»".replace("%1", "C:\\x"))


@pytest.mark.parametrize("name", ["windows-rtx2080super-two-cuda.json", "no-gpu.json"])
def test_every_text_on_every_page_goes_through_tr(qtbot: QtBot, marking: Marking, tmp_path: Path, name: str):
    registry = tmp_path / "registry.json"
    with resources.as_file(SAMPLES.joinpath("registry/windows-cuda12.json")) as source:
        shutil.copyfile(source, registry)
    session = screenshot_session(load_system_report(Path(str(SAMPLES.joinpath(name)))), registry)
    wizard = SetupWizard(session, start_detection=False)
    qtbot.addWidget(wizard, before_close_func=lambda w: w.done(0))
    wizard.show()
    qtbot.waitExposed(wizard)
    found: list[str] = []
    for page_id in PageId:
        wizard.setStartId(page_id)
        wizard.restart()
        page = wizard.currentPage()
        qtbot.waitUntil(page.isComplete, timeout=EVENT_MS)
        for button in QWizard.WizardButton.NextButton, QWizard.WizardButton.CancelButton:
            assert OPEN in wizard.button(button).text()  # Qt's own words are asked for too
        found += [
            f"{page_id.name}: {where}: {text!r}" for where, text in shown_texts(wizard) if unmarked(text)
        ]
    assert found == []


def test_dialog_titles_captions_and_the_application_name_go_through_tr(
    qtbot: QtBot, marking: Marking, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    # The name Qt appends to every window title, dialogs and message boxes included.
    name_the_application(QApplication.instance())
    assert QGuiApplication.applicationDisplayName() == f"{OPEN}GPU Setup Wizard{CLOSE}"

    asked: list[str] = []

    def save_dialog(_parent: QWidget, caption: str, _directory: str, filters: str) -> tuple[str, str]:
        asked.extend((caption, filters))
        return str(tmp_path / "no such folder" / "report.json"), ""  # so that saving fails

    def folder_dialog(_parent: QWidget, caption: str, _directory: str) -> str:
        asked.append(caption)
        return ""

    def warning(_parent: QWidget, title: str, text: str) -> None:
        asked.extend((title, text))

    monkeypatch.setattr(QFileDialog, "getSaveFileName", save_dialog)
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", folder_dialog)
    monkeypatch.setattr(QMessageBox, "warning", warning)
    registry = tmp_path / "registry.json"
    with resources.as_file(SAMPLES.joinpath("registry/windows-cuda12.json")) as source:
        shutil.copyfile(source, registry)
    report = load_system_report(Path(str(SAMPLES.joinpath("windows-rtx2080super-two-cuda.json"))))
    wizard = SetupWizard(screenshot_session(report, registry), start_detection=False)
    qtbot.addWidget(wizard, before_close_func=lambda w: w.done(0))
    wizard.show()

    wizard.setStartId(PageId.SUMMARY)
    wizard.restart()
    wizard.summary_page.save_button.click()  # a save dialog, then a warning: the folder is gone
    wizard.summary_page.support.button.click()
    qtbot.waitUntil(lambda: len(asked) >= 8, timeout=60_000)
    wizard.setStartId(PageId.CHOOSE)
    wizard.restart()
    choose = wizard.choose_page
    qtbot.waitUntil(choose.isComplete, timeout=EVENT_MS)
    choose.inputs.offline_check.setChecked(True)
    choose.inputs.browse_button.click()
    assert len(asked) == 9, asked
    assert [text for text in asked if OPEN not in text] == []


@pytest.mark.parametrize("lang", ["es", "zh_CN"])
def test_window_titles_are_in_one_language(lang: str):
    # A process of its own: the application name and the translators are process-wide.
    code = """
import sys
from PySide6.QtGui import QGuiApplication
from gpuwizard.ui.app import make_application
app = make_application(sys.argv[1])
from gpuwizard.ui.wizard import SetupWizard
from gpuwizard.workflow.wizard.session import WizardSession
print(SetupWizard(WizardSession(), start_detection=False).windowTitle())
print(QGuiApplication.applicationDisplayName())
"""
    done = subprocess.run(
        [sys.executable, "-c", code, lang],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    title, name = done.stdout.splitlines()
    assert title != "GPU Setup Wizard"
    # The window's title ends with the display name, so Qt appends nothing English to it; the
    # dialogs' titles get the name in the same language.
    assert name == title
