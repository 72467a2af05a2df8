"""``gpuwizard screenshots DIR``: render every wizard page to a PNG file.

Windows are rendered without being shown on screen (WA_DontShowOnScreen), so this works on a
desktop and offscreen alike. The PATH page works on a temporary copy of the sample registry
snapshot (``resources/samples/registry/windows-cuda12.json``) with the PATH request of the
TensorFlow 2.10 plan on Windows, so nothing on this machine is read or changed.
"""

from __future__ import annotations

import shutil
import tempfile
from importlib import resources
from pathlib import Path
from typing import Final

from gpuwizard.adapters.registry import SnapshotFileEnvironment
from gpuwizard.core.system_report import SystemReport
from gpuwizard.ui.app import make_application
from gpuwizard.workflow.detect import detect_system
from gpuwizard.workflow.path_request import PathRequest
from gpuwizard.workflow.session import WizardSession
from PySide6.QtCore import QEventLoop, Qt, QTimer
from PySide6.QtWidgets import QApplication, QWizardPage

_CUDA_11_2: Final = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.2"
#: What the TensorFlow 2.10 plan asks of PATH on Windows (``gpuwizard recommend``).
SAMPLE_PATH_REQUEST: Final = PathRequest(
    folders=(f"{_CUDA_11_2}\\bin", f"{_CUDA_11_2}\\libnvvp", "C:\\tools\\cuda\\bin"),
    dlls=("cudart64_110.dll", "cudnn64_8.dll"),
)
#: How long a page may take to settle (its workers to finish) before it is grabbed anyway.
SETTLE_MS: Final = 30_000


def _settle(page: QWizardPage | None) -> None:
    """Wait until ``page`` is complete (the PATH page reads PATH on a worker), then let layouts settle.

    One event loop that quits on ``completeChanged``, rather than a polling loop.
    """
    if page is not None and not page.isComplete():
        loop = QEventLoop()
        timer = QTimer()
        timer.setSingleShot(True)
        timer.timeout.connect(loop.quit)
        page.completeChanged.connect(loop.quit)
        timer.start(SETTLE_MS)
        while not page.isComplete() and timer.isActive():
            loop.exec()
        page.completeChanged.disconnect(loop.quit)
    QApplication.processEvents()


def render_screenshots(
    directory: Path, report: SystemReport | None = None, lang: str | None = None
) -> list[Path]:
    """Render each page to ``directory/NN-name.png``; returns the files written, in page order."""
    from gpuwizard.ui.wizard import PageId, SetupWizard  # noqa: PLC0415 - after the app exists

    make_application(lang)
    with tempfile.TemporaryDirectory(prefix="gpuwizard-shots-") as scratch:
        snapshot = Path(scratch) / "registry.json"
        sample = resources.files("gpuwizard.resources").joinpath("samples/registry/windows-cuda12.json")
        with resources.as_file(sample) as source:
            shutil.copyfile(source, snapshot)
        session = WizardSession(
            report=report or detect_system(),
            path_store=SnapshotFileEnvironment(snapshot),
            path_request=SAMPLE_PATH_REQUEST,
        )
        wizard = SetupWizard(session, start_detection=False)
        wizard.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
        wizard.show()
        directory.mkdir(parents=True, exist_ok=True)
        written: list[Path] = []
        number = 1
        while True:
            _settle(wizard.currentPage())
            path = directory / f"{number:02d}-{PageId(wizard.currentId()).name.lower()}.png"
            if not wizard.grab().save(str(path)):
                raise OSError(f"{path}: could not write the image")
            written.append(path)
            if wizard.nextId() == -1:
                break
            wizard.next()
            number += 1
        wizard.close()
    return written
