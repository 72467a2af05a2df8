"""``gpuwizard screenshots DIR``: render every wizard page to a PNG file.

Windows are rendered without being shown on screen (WA_DontShowOnScreen), so this works on a
desktop and offscreen alike. Nothing on this machine is read or changed beyond detection:

- the PATH page works on a temporary copy of the sample registry snapshot
  (``resources/samples/registry/windows-cuda12.json``) with the PATH request of the
  TensorFlow 2.10 plan on Windows;
- the Install, Test and Verify pages replay runs recorded from the real commands
  (``resources/samples/runs/``), so they show real output without creating or training anything.

Each page is shown by restarting the wizard at it, with the session holding what the pages
before it would have left there (the choice, the recommendation, the environment made).
"""

from __future__ import annotations

import shutil
import tempfile
from importlib import resources
from pathlib import Path
from typing import Final

from PySide6.QtCore import QEventLoop, Qt, QTimer
from PySide6.QtWidgets import QApplication, QWizardPage

from gpuwizard.adapters.registry import SnapshotFileEnvironment
from gpuwizard.core.envs.request import SetupRequest
from gpuwizard.core.machine.system_report import SystemReport
from gpuwizard.ui.app import make_application
from gpuwizard.ui.theme import Theme
from gpuwizard.ui.window_fit import PREFERRED_SIZE
from gpuwizard.workflow.envs.setup import recommend_for
from gpuwizard.workflow.machine.detect import detect_system
from gpuwizard.workflow.pathedit.request import PathRequest
from gpuwizard.workflow.wizard.replay import replay_env_create, replay_test, replay_verify
from gpuwizard.workflow.wizard.session import WizardSession

_CUDA_11_2: Final = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.2"
# What the TensorFlow 2.10 plan asks of PATH on Windows (``gpuwizard recommend``).
SAMPLE_PATH_REQUEST: Final = PathRequest(
    folders=(f"{_CUDA_11_2}\\bin", f"{_CUDA_11_2}\\libnvvp", "C:\\tools\\cuda\\bin"),
    dlls=("cudart64_110.dll", "cudnn64_8.dll"),
)
# The choice the recorded runs were made with (resources/samples/runs/README.md).
SAMPLE_CHOICE: Final = SetupRequest("pytorch", version="2.13", name="torch-cpu")
# The recorded runs the pages replay.
RUN_ENV_CREATE: Final = "env-create-torch-cpu"
RUN_TEST: Final = "test-torch-cpu"
RUN_VERIFY: Final = "verify-torch-cpu-framework-removed"
# How long a page may take to settle (its workers to finish) before it is grabbed anyway.
SETTLE_MS: Final = 30_000


def _settle(page: QWizardPage | None) -> None:
    """Wait until ``page`` is complete (its workers are done), then let layouts settle.

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
    # The Choose page asks the package indexes in the background: show its answer, not "Checking".
    waited = 0
    while getattr(page, "sources_ok", False) is None and waited < SETTLE_MS:
        pause = QEventLoop()
        QTimer.singleShot(50, pause.quit)
        pause.exec()
        waited += 50
    QApplication.processEvents()


def screenshot_session(report: SystemReport, registry: Path) -> WizardSession:
    """A session whose long steps replay recorded runs and whose PATH page edits ``registry``."""
    return WizardSession(
        report=report,
        path_store=SnapshotFileEnvironment(registry),
        path_request=SAMPLE_PATH_REQUEST,
        choice=SAMPLE_CHOICE,
        recommendation=recommend_for(report, SAMPLE_CHOICE),
        create_env=replay_env_create(RUN_ENV_CREATE),
        run_test=replay_test(RUN_TEST),
        verify=replay_verify(RUN_VERIFY),
        record_good=lambda *_args: None,
    )


def render_screenshots(
    directory: Path, report: SystemReport | None = None, lang: str | None = None, theme: Theme = "system"
) -> list[Path]:
    """Render each page to ``directory/NN-name.png``; returns the files written, in page order."""
    from gpuwizard.ui.wizard import PageId, SetupWizard  # noqa: PLC0415 - after the app exists

    make_application(lang, theme)
    with tempfile.TemporaryDirectory(prefix="gpuwizard-shots-") as scratch:
        snapshot = Path(scratch) / "registry.json"
        sample = resources.files("gpuwizard.resources").joinpath("samples/registry/windows-cuda12.json")
        with resources.as_file(sample) as source:
            shutil.copyfile(source, snapshot)
        session = screenshot_session(report or detect_system(), snapshot)
        wizard = SetupWizard(session, start_detection=False)
        wizard.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
        # Every picture the same size, whatever screen renders it (the window fits its screen).
        wizard.resize(PREFERRED_SIZE)
        wizard.show()
        directory.mkdir(parents=True, exist_ok=True)
        written: list[Path] = []
        for number, page_id in enumerate(PageId, 1):
            wizard.setStartId(page_id)
            wizard.restart()
            _settle(wizard.currentPage())
            path = directory / f"{number:02d}-{page_id.name.lower()}.png"
            if not wizard.grab().save(str(path)):
                raise OSError(f"{path}: could not write the image")
            written.append(path)
        wizard.close()
    return written
