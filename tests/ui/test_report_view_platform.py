"""The Detect page speaks of the report's system, not of the computer showing it (issue 37, point 8).

``gpuwizard --system FILE`` shows another machine's report, so what "no CUDA toolkit" means is
chosen by the report's ``os.family``: these tests run on Linux and show Windows and macOS reports.
"""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from builders.reports import machine
from gpuwizard.ui.widgets.report_view import QtReportView


def toolkit_texts(qtbot: QtBot, family: str, **report: object) -> tuple[str, str]:
    view = QtReportView()
    qtbot.addWidget(view)
    view.set_report(machine(os=family, **report))  # type: ignore[arg-type]
    value = view.findChild(QLabel, "cuda_toolkits")
    why = view.findChild(QLabel, "cuda_toolkits_explained")
    assert value is not None and why is not None
    return value.text(), why.text()


def test_a_windows_report_says_what_windows_needs(qtbot: QtBot):
    value, why = toolkit_texts(qtbot, "windows")
    assert value == "None (PyTorch on Windows does not need one)"
    assert "Linux" not in value + why
    assert "TensorFlow 2.10 or older" in why and "WSL 2" in why


def test_a_wsl_report_is_a_linux_one(qtbot: QtBot):
    value, why = toolkit_texts(qtbot, "linux", wsl=True)
    assert value == "None (PyTorch and current TensorFlow on Linux do not need one)"
    assert "on Linux bring their own CUDA" in why


def test_a_mac_report_names_no_other_system(qtbot: QtBot):
    value, why = toolkit_texts(qtbot, "darwin")
    assert "macOS" in value
    assert "Linux" not in value + why and "Windows" not in value + why


@pytest.mark.parametrize("family", ["windows", "linux", "darwin"])
def test_toolkits_on_disk_are_listed_whatever_the_system(qtbot: QtBot, family: str):
    value, _why = toolkit_texts(qtbot, family, toolkits=[{"version": "12.4", "root": "/cuda", "on_path": True, "path_rank": 0}])  # fmt: skip
    assert value == "12.4 (first on PATH)"
