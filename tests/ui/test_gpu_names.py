"""The Choose page shows each GPU's whole name (issue 20, point 8): never "NVIDIA …TX 2080 SUPER".

Before the fix the list elided the name in the middle to fit a 240-pixel column. Now the column
widens to the longest name (up to its maximum) and a longer name still wraps onto another line,
with the list as tall as its wrapped rows.
"""

from __future__ import annotations

import dataclasses
from importlib import resources
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QListWidgetItem
from pytestqt.qtbot import QtBot

from gpuwizard.core.machine.system_report import SystemReport
from gpuwizard.ui.pages.choose import ChoosePage
from gpuwizard.ui.wizard import PageId, SetupWizard
from gpuwizard.workflow.machine.system_file import load_system_report
from gpuwizard.workflow.wizard.session import WizardSession
from harness.kept_wizards import keep
from harness.waits import EVENT_MS

SAMPLES = resources.files("gpuwizard.resources").joinpath("samples")
LONG_NAME = "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition with a very long board name"


def sample(name: str) -> SystemReport:
    return load_system_report(Path(str(SAMPLES.joinpath(name))))


def open_choose(qtbot: QtBot, report: SystemReport) -> tuple[SetupWizard, ChoosePage]:
    wizard = SetupWizard(WizardSession(report=report), start_detection=False)
    keep(wizard)
    qtbot.addWidget(wizard)
    wizard.setStartId(PageId.CHOOSE)
    wizard.show()
    qtbot.waitExposed(wizard)
    page = wizard.choose_page
    qtbot.waitUntil(lambda: page.recommendation is not None, timeout=EVENT_MS)
    return wizard, page  # the caller holds the wizard: it owns the page


def items(page: ChoosePage) -> list[QListWidgetItem]:
    gpu_list = page.inputs.gpu_list
    found = [gpu_list.item(row) for row in range(gpu_list.count())]
    return [item for item in found if item is not None]


def test_the_whole_gpu_name_fits_on_its_line(qtbot: QtBot):
    _wizard, page = open_choose(qtbot, sample("windows-rtx2080super-two-cuda.json"))
    gpu_list = page.inputs.gpu_list
    (item,) = items(page)
    assert item.text().splitlines()[0] == "GPU 0: NVIDIA GeForce RTX 2080 SUPER"
    assert gpu_list.textElideMode() == Qt.TextElideMode.ElideNone
    # The row's full width (check box, name) fits the list: nothing to elide or wrap.
    assert gpu_list.viewport().width() >= gpu_list.sizeHintForColumn(0)
    rect = gpu_list.visualItemRect(item)
    lines = len(item.text().splitlines())
    assert rect.height() >= lines * QFontMetrics(gpu_list.font()).lineSpacing()
    assert gpu_list.height() >= rect.height()  # the list shows the whole row
    assert page.choices_scroll.width() <= 380  # within the column's widest


def test_a_name_longer_than_the_column_wraps_instead_of_being_cut(qtbot: QtBot):
    report = sample("windows-rtx2080super-two-cuda.json")
    gpu = dataclasses.replace(report.gpus[0], name=LONG_NAME)
    _wizard, page = open_choose(qtbot, dataclasses.replace(report, gpus=(gpu,)))
    gpu_list = page.inputs.gpu_list
    (item,) = items(page)
    assert LONG_NAME in item.text()
    assert gpu_list.wordWrap() and gpu_list.textElideMode() == Qt.TextElideMode.ElideNone
    line = QFontMetrics(gpu_list.font()).lineSpacing()
    # Two lines of text (name, compute capability), the name wrapped onto more than one.
    qtbot.waitUntil(lambda: gpu_list.visualItemRect(item).height() >= 3 * line, timeout=EVENT_MS)
    qtbot.waitUntil(lambda: gpu_list.height() >= gpu_list.visualItemRect(item).height(), timeout=EVENT_MS)
    assert gpu_list.visualItemRect(item).width() <= gpu_list.viewport().width()
