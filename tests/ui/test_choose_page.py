"""The Choose page with pytest-qt, offscreen, on the sample reports (issue 7, point 1).

The page sits in a plain QWizard followed by an empty page, so Next runs its ``validatePage``.
Most tests use the real recommender over the bundled compatibility data; it runs on a worker,
so the tests wait for the page with ``qtbot.waitUntil``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWizard, QWizardPage
from pytestqt.qtbot import QtBot

from gpuwizard.core.compat.plan import Recommendation, WishError
from gpuwizard.core.envs.request import SetupRequest
from gpuwizard.core.machine.system_report import SystemReport
from gpuwizard.ui.pages import choose as choose_module
from gpuwizard.ui.pages.choose import ChoosePage
from gpuwizard.workflow.envs.setup import recommend_for
from gpuwizard.workflow.machine.system_file import load_system_report
from gpuwizard.workflow.pathedit.request import PathRequest
from gpuwizard.workflow.wizard.session import WizardSession
from harness.keyboard import tab_through
from harness.waits import EVENT_MS, EVENT_S

SAMPLES = resources.files("gpuwizard.resources").joinpath("samples")
WINDOWS = "windows-rtx2080super-two-cuda.json"

Opener = Callable[..., tuple[QWizard, ChoosePage, WizardSession]]


def sample(name: str) -> SystemReport:
    return load_system_report(Path(str(SAMPLES.joinpath(name))))


def show_page(qtbot: QtBot, state: WizardSession) -> tuple[QWizard, ChoosePage]:
    """The page in a plain wizard; closing it first waits for the page's workers."""
    wizard = QWizard()
    page = ChoosePage(state)
    wizard.addPage(page)
    wizard.addPage(QWizardPage())  # so that Next leaves the page

    def stop(_wizard: QWizard) -> None:
        page.timer.stop()
        page.wait_for_workers()  # a QThread must not be destroyed while it runs

    qtbot.addWidget(wizard, before_close_func=stop)
    wizard.show()
    qtbot.waitExposed(wizard)
    return wizard, page


@pytest.fixture
def open_page(qtbot: QtBot) -> Opener:
    """Open the page on a sample report and wait for the first recommendation."""

    def open_(name: str, **session: Any) -> tuple[QWizard, ChoosePage, WizardSession]:
        state = WizardSession(report=sample(name), **session)
        wizard, page = show_page(qtbot, state)
        settle(qtbot, page)
        return wizard, page, state

    return open_


def settle(qtbot: QtBot, page: ChoosePage) -> None:
    qtbot.waitUntil(lambda: page.outcome is not None and not page.is_busy(), timeout=EVENT_MS)


def choose(
    qtbot: QtBot, page: ChoosePage, framework: str, version: str | None = None, manager: str | None = None
) -> None:
    """Pick in the inputs as a person would, then wait for the new recommendation."""
    radio = page.inputs.tensorflow_radio if framework == "tensorflow" else page.inputs.pytorch_radio
    radio.setChecked(True)
    if version is not None:
        qtbot.waitUntil(lambda: page.inputs.version_combo.findData(version) >= 0, timeout=EVENT_MS)
        page.inputs.version_combo.setCurrentIndex(page.inputs.version_combo.findData(version))
    if manager is not None:
        {"venv": page.inputs.venv_radio, "conda": page.inputs.conda_radio}[manager].setChecked(True)
    assert page.is_busy()  # the change is seen at once; the answer comes a little later
    settle(qtbot, page)


def next_button(wizard: QWizard) -> Any:
    return wizard.button(QWizard.WizardButton.NextButton)


class RecordingRecommender:
    """The real recommender, noting the thread of every call; optionally held at a gate."""

    def __init__(self, gated_calls: int = 0) -> None:
        self.threads: list[threading.Thread] = []
        self.choices: list[SetupRequest] = []
        self.gate = threading.Event()
        self.gated_calls = gated_calls

    def __call__(self, report: SystemReport, choice: SetupRequest) -> Recommendation:
        self.threads.append(threading.current_thread())
        self.choices.append(choice)
        if len(self.choices) <= self.gated_calls:
            assert self.gate.wait(EVENT_S), "the test never opened the gate"
        return recommend_for(report, choice)


def test_pytorch_shows_a_plan_with_the_torch_requirement(qtbot: QtBot, open_page: Opener):
    wizard, page, session = open_page("linux-h200.json")
    assert page.inputs.pytorch_radio.isChecked() and page.chosen_version() is None
    rec = page.recommendation
    assert rec is not None and rec.framework == "pytorch"
    assert any(req.startswith("torch==") for req in rec.plan.requirements)
    assert (
        "torch==" in page.panel.plan_pip.text()
        and rec.plan.framework_version in page.panel.plan_framework.text()
    )
    assert page.panel.headline.isVisible() and "possible" in page.panel.headline.text()
    assert f"CUDA {rec.plan.cuda}" in page.panel.plan_cuda.text()
    assert "envs" in page.panel.changes.text() and page.inputs.name_edit.text() in page.panel.changes.text()
    assert "No administrator rights" in page.panel.changes.text()
    assert not page.panel.error_label.isVisible()
    assert next_button(wizard).isEnabled()

    wizard.next()
    assert session.choice is not None and session.choice.framework == "pytorch"
    assert session.choice.name == "torch-gpu"
    assert session.recommendation is rec
    assert session.path_request is None  # PyTorch wheels bring CUDA: nothing for PATH


def test_the_version_list_is_the_frameworks_releases_newest_first(qtbot: QtBot, open_page: Opener):
    _wizard, page, _session = open_page("linux-h200.json")
    qtbot.waitUntil(lambda: page.inputs.version_combo.count() > 5, timeout=EVENT_MS)
    versions = [page.inputs.version_combo.itemData(i) for i in range(page.inputs.version_combo.count())]
    assert versions[0] == "" and page.inputs.version_combo.itemText(0) == "Recommended"
    assert "2.13" in versions and versions.index("2.13") < versions.index("2.10") < versions.index("1.12")

    choose(qtbot, page, "tensorflow")
    versions = [page.inputs.version_combo.itemData(i) for i in range(page.inputs.version_combo.count())]
    assert versions[0] == "" and "2.10" in versions and "1.12" not in versions
    assert page.recommendation is not None and page.recommendation.framework == "tensorflow"
    assert page.inputs.name_edit.text() == "tf-gpu"  # the default name follows the framework until edited


def test_tensorflow_2_10_in_a_venv_on_windows_adds_path_entries_and_the_path_request(
    qtbot: QtBot, open_page: Opener
):
    wizard, page, session = open_page(WINDOWS)
    choose(qtbot, page, "tensorflow", "2.10", "venv")
    rec = page.recommendation
    assert rec is not None and rec.plan.framework_version.startswith("2.10")
    assert rec.plan.path_entries
    changes = page.panel.changes.text()
    assert "PATH" in changes
    for entry in rec.plan.path_entries:
        assert entry in changes
    assert "You install yourself" in changes and "CUDA 11.2" in changes  # the system toolkit

    wizard.next()
    assert wizard.currentId() != wizard.startId()
    assert session.path_request == PathRequest(
        folders=tuple(rec.plan.path_entries), dlls=tuple(rec.plan.dlls_expected)
    )
    assert session.choice == SetupRequest("tensorflow", "2.10", manager="venv", name="tf-gpu")
    assert session.recommendation is rec

    # Back, and a plan without PATH entries: the PATH request goes with it.
    wizard.back()
    choose(qtbot, page, "pytorch")
    wizard.next()
    assert session.path_request is None
    assert session.choice is not None and session.choice.framework == "pytorch"


def test_tensorflow_on_windows_with_only_the_driver_takes_nvidias_wheels_and_no_path_step(
    qtbot: QtBot, open_page: Opener
):
    # Issue 21: no conda and no toolkit on this machine (the sample without its toolkits, cuDNN
    # and conda): the venv with NVIDIA's CUDA wheels, a start-up hook, and nothing for PATH.
    state = WizardSession(
        report=load_system_report(
            Path(__file__).parents[1] / "fixtures" / "reports" / "windows-gtx1060-566.36.json"
        )
    )
    wizard, page = show_page(qtbot, state)
    settle(qtbot, page)
    # No conda here: conda is still offered, made by py-rattler inside the wizard (issue 23).
    assert page.inputs.conda_radio.isEnabled() and "py-rattler" in page.inputs.conda_radio.toolTip()
    choose(qtbot, page, "tensorflow")
    rec = page.recommendation
    assert rec is not None and rec.plan.cuda_wheels is not None and not rec.plan.path_entries
    assert "NVIDIA's CUDA 11.8 and cuDNN 8.9 wheels" in page.panel.plan_cuda.text()
    assert "nvidia-cudnn-cu11==8.9.5.29" in page.panel.plan_pip.text()
    changes = page.panel.changes.text()
    assert "_gpuwizard_cuda_dlls.pth" in changes and "You install yourself" not in changes
    wizard.next()
    assert state.path_request is None  # no PATH page: nothing on the machine's PATH changes
    assert state.choice is not None and state.choice.framework == "tensorflow"


def test_automatic_picks_conda_where_it_brings_cuda_and_then_nothing_goes_on_path(
    qtbot: QtBot, open_page: Opener
):
    _wizard, page, _session = open_page(WINDOWS)
    assert page.inputs.conda_radio.isEnabled()
    choose(qtbot, page, "tensorflow", "2.10")
    rec = page.recommendation
    assert rec is not None and rec.plan.manager == "conda" and not rec.plan.path_entries
    assert page.panel.plan_conda.isVisible() and "cudatoolkit" in page.panel.plan_conda.text()
    assert "conda environment" in page.panel.changes.text() and "PATH, drivers" in page.panel.changes.text()


def test_conda_without_conda_is_made_by_py_rattler_and_the_page_says_so(qtbot: QtBot):
    # Issue 23, point 3: the conda choice is enabled on a machine without conda; its tooltip
    # names py-rattler, and the plan says who makes the environment and what goes in.
    state = WizardSession(
        report=load_system_report(
            Path(__file__).parents[1] / "fixtures" / "reports" / "windows-gtx1060-566.36.json"
        )
    )
    _wizard, page = show_page(qtbot, state)
    settle(qtbot, page)
    tip = page.inputs.conda_radio.toolTip()
    assert page.inputs.conda_radio.isEnabled()
    assert "with py-rattler, built into the wizard" in tip and "Miniforge" not in tip
    choose(qtbot, page, "tensorflow", "2.10", manager="conda")
    rec = page.recommendation
    assert rec is not None and rec.plan.manager == "conda" and rec.plan.conda_engine == "rattler"
    assert page.manager == "conda"
    assert "made by py-rattler" in page.panel.plan_manager.text()
    assert page.panel.plan_conda.text() == "python=3.10 cudatoolkit=11.2 cudnn=8.1.0 from conda-forge"
    assert "made by py-rattler" in page.panel.changes.text()


def test_with_conda_found_the_tooltip_names_the_tool(qtbot: QtBot, open_page: Opener):
    _wizard, page, _session = open_page(WINDOWS)  # conda is installed on that machine
    assert page.inputs.conda_radio.isEnabled() and "through conda" in page.inputs.conda_radio.toolTip()
    choose(qtbot, page, "tensorflow", "2.10", manager="conda")
    assert page.recommendation is not None and page.recommendation.plan.conda_engine == "conda"
    assert page.panel.plan_manager.text() == "conda environment, made by conda"


def test_without_a_gpu_the_headline_says_cpu_and_there_are_no_gpus_to_pick(qtbot: QtBot, open_page: Opener):
    wizard, page, session = open_page("no-gpu.json")
    assert "CPU" in page.panel.headline.text()
    assert page.recommendation is not None and page.recommendation.plan.cpu_only
    assert "CPU build" in page.panel.plan_cuda.text()
    assert not page.inputs.gpu_list.isVisible() and page.inputs.gpu_note.isVisible()
    assert "No NVIDIA GPU" in page.inputs.gpu_note.text()
    assert page.panel.findings_box.isVisible()
    assert any(view.finding.code == "NO_NVIDIA_GPU" for view in page.panel.finding_views)
    # No conda on that machine: the choice is there, and says py-rattler makes it (issue 23).
    assert page.inputs.conda_radio.isEnabled() and "py-rattler" in page.inputs.conda_radio.toolTip()
    assert page.inputs.name_edit.text() == "torch-cpu"
    wizard.next()
    assert session.choice is not None and session.choice.gpus is None


def test_the_recommendation_runs_off_the_ui_thread(qtbot: QtBot, open_page: Opener):
    recorder = RecordingRecommender()
    _wizard, page, _session = open_page("linux-h200.json", recommend=recorder)
    choose(qtbot, page, "tensorflow")
    assert len(recorder.threads) == 2
    assert all(thread is not threading.main_thread() for thread in recorder.threads)
    assert recorder.choices[-1].framework == "tensorflow"


def test_changes_in_quick_succession_make_one_recommendation_and_a_late_answer_is_dropped(qtbot: QtBot):
    recorder = RecordingRecommender(gated_calls=1)
    wizard, page = show_page(qtbot, WizardSession(report=sample(WINDOWS), recommend=recorder))
    try:
        # The first (PyTorch) answer is held back; meanwhile the person changes everything.
        qtbot.waitUntil(lambda: len(recorder.choices) == 1, timeout=EVENT_MS)
        assert page.is_busy() and not page.isComplete() and not next_button(wizard).isEnabled()
        qtbot.waitUntil(lambda: page.inputs.version_combo.findData("2.10") >= 0, timeout=EVENT_MS)
        page.inputs.tensorflow_radio.setChecked(True)
        page.inputs.version_combo.setCurrentIndex(page.inputs.version_combo.findData("2.10"))
        page.inputs.venv_radio.setChecked(True)
        qtbot.waitUntil(lambda: len(recorder.choices) == 2, timeout=EVENT_MS)
        recorder.gate.set()
        settle(qtbot, page)
        assert len(recorder.choices) == 2  # three changes, one debounced run
        assert recorder.choices[1] == SetupRequest("tensorflow", "2.10", manager="venv", name="tf-gpu")
        rec = page.recommendation
        assert rec is not None and rec.framework == "tensorflow" and rec.plan.manager == "venv"
        # The held PyTorch answer came last, and was not shown.
        page.wait_for_workers()
        QApplication.processEvents()  # deliver the held answer's queued signal
        assert page.recommendation is rec and "TensorFlow" in page.panel.headline.text()
    finally:
        recorder.gate.set()
        page.wait_for_workers()


def test_a_failing_recommender_shows_its_message_in_one_line(qtbot: QtBot, open_page: Opener):
    def broken(report: SystemReport, choice: SetupRequest) -> Recommendation:
        raise RuntimeError("the compatibility data is damaged\nTraceback (most recent call last): ...")

    wizard, page, _session = open_page("linux-h200.json", recommend=broken)
    assert page.panel.error_label.isVisible()
    text = page.panel.error_label.text()
    assert "the compatibility data is damaged" in text and "RuntimeError" in text
    assert "Traceback" not in text and "\n" not in text
    assert not page.panel.result_box.isVisible() and not page.panel.headline.isVisible()
    assert not page.isComplete() and not next_button(wizard).isEnabled()
    wizard.next()
    assert wizard.currentId() == wizard.startId()


def test_a_wish_error_is_shown_as_its_own_words(qtbot: QtBot, open_page: Opener):
    def refusing(report: SystemReport, choice: SetupRequest) -> Recommendation:
        if choice.framework == "tensorflow":
            raise WishError("TensorFlow 2.10 is not in the compatibility data for this machine")
        return recommend_for(report, choice)

    wizard, page, _session = open_page("linux-h200.json", recommend=refusing)
    assert next_button(wizard).isEnabled()
    choose(qtbot, page, "tensorflow")
    assert (
        page.panel.error_label.text() == "TensorFlow 2.10 is not in the compatibility data for this machine"
    )
    assert not next_button(wizard).isEnabled()
    choose(qtbot, page, "pytorch")  # and back to a working choice
    assert not page.panel.error_label.isVisible() and next_button(wizard).isEnabled()


@pytest.mark.parametrize(
    ("name", "words"), [("con", "device name"), ("../x", "not a plain name"), ("", "empty")]
)
def test_an_invalid_environment_name_blocks_next_with_the_reason(
    qtbot: QtBot, open_page: Opener, name: str, words: str
):
    wizard, page, session = open_page("linux-h200.json")
    assert next_button(wizard).isEnabled() and not page.inputs.name_error.isVisible()
    page.inputs.name_edit.clear()
    qtbot.keyClicks(page.inputs.name_edit, name)
    assert page.inputs.name_error.isVisible() and words in page.inputs.name_error.text()
    assert not page.isComplete() and not next_button(wizard).isEnabled()
    wizard.next()
    assert wizard.currentId() == wizard.startId() and session.choice is None

    page.inputs.name_edit.setText("demo")
    assert not page.inputs.name_error.isVisible() and next_button(wizard).isEnabled()
    assert not page.is_busy()  # the name does not change the recommendation
    wizard.next()
    assert session.choice is not None and session.choice.name == "demo"


def test_gpus_can_be_left_out_and_an_unusable_one_is_shown_greyed(qtbot: QtBot, open_page: Opener):
    wizard, page, session = open_page("linux-4xa100-one-lost.json")
    items = [page.inputs.gpu_list.item(row) for row in range(page.inputs.gpu_list.count())]
    assert len(items) == 4
    lost = [item for item in items if not item.flags() & Qt.ItemFlag.ItemIsEnabled]
    assert len(lost) == 1 and "not usable" in lost[0].text()
    assert lost[0].checkState() == Qt.CheckState.Unchecked
    usable = [item for item in items if item.flags() & Qt.ItemFlag.ItemIsEnabled]
    assert all(item.checkState() == Qt.CheckState.Checked for item in usable)
    assert page.selected_gpus() is None  # every usable GPU: no CUDA_VISIBLE_DEVICES

    usable[1].setCheckState(Qt.CheckState.Unchecked)
    settle(qtbot, page)
    kept = ",".join(str(item.data(Qt.ItemDataRole.UserRole)) for item in (usable[0], usable[2]))
    assert page.selected_gpus() == kept
    assert f"CUDA_VISIBLE_DEVICES={kept}" in page.panel.changes.text()

    for item in usable:
        item.setCheckState(Qt.CheckState.Unchecked)
    settle(qtbot, page)
    assert page.inputs.gpu_note.isVisible() and "at least one GPU" in page.inputs.gpu_note.text()
    assert not next_button(wizard).isEnabled()

    usable[0].setCheckState(Qt.CheckState.Checked)
    settle(qtbot, page)
    wizard.next()
    assert session.choice is not None and session.choice.gpus == str(usable[0].data(Qt.ItemDataRole.UserRole))


def test_a_saved_report_is_a_preview_and_the_page_still_recommends(qtbot: QtBot, open_page: Opener):
    _wizard, page, _session = open_page(WINDOWS, system_file=Path("saved.json"))
    assert page.preview_note.isVisible() and "nothing will be installed" in page.preview_note.text()
    assert page.recommendation is not None
    assert "preview" in page.panel.changes.text()
    assert "envs/torch-gpu" in page.panel.changes.text()  # that machine's home, not this one's


def test_a_choice_in_the_session_is_shown_and_its_wheel_folder_kept(
    qtbot: QtBot, open_page: Opener, tmp_path: Path
):
    earlier = SetupRequest(
        "tensorflow", "2.10", manager="venv", name="demo", jupyter=True, find_links=tmp_path, offline=True
    )
    wizard, page, session = open_page(WINDOWS, choice=earlier)
    assert page.inputs.tensorflow_radio.isChecked() and page.inputs.venv_radio.isChecked()
    qtbot.waitUntil(lambda: page.inputs.version_combo.count() > 2, timeout=EVENT_MS)
    assert page.chosen_version() == "2.10"
    assert page.inputs.name_edit.text() == "demo" and page.inputs.jupyter_check.isChecked()
    assert "ipykernel" in page.panel.changes.text() and "Jupyter kernel" in page.panel.changes.text()
    wizard.next()
    assert session.choice == earlier


def test_keyboard_tab_reaches_every_input_and_mnemonics_work(qtbot: QtBot, open_page: Opener):
    wizard, page, _session = open_page(WINDOWS)
    reached = tab_through(qtbot, wizard, presses=25)
    framework = {page.inputs.pytorch_radio, page.inputs.tensorflow_radio}
    manager = {page.inputs.auto_radio, page.inputs.venv_radio, page.inputs.conda_radio}
    assert framework & set(reached) and manager & set(reached)
    for widget in (
        page.inputs.version_combo,
        page.inputs.name_edit,
        page.inputs.jupyter_check,
        page.inputs.gpu_list,
        page.result_scroll,
    ):
        assert widget in reached, widget.objectName()
    assert next_button(wizard) in reached

    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_M, Qt.KeyboardModifier.AltModifier)
    assert QApplication.focusWidget() is page.inputs.name_edit
    qtbot.keyClick(page.inputs.name_edit, Qt.Key.Key_T, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(page.inputs.tensorflow_radio.isChecked, timeout=EVENT_MS)  # a mnemonic animates the click
    settle(qtbot, page)
    assert page.recommendation is not None and page.recommendation.framework == "tensorflow"


def test_inputs_have_accessible_names_and_jargon_has_tooltips(qtbot: QtBot, open_page: Opener):
    _wizard, page, _session = open_page(WINDOWS)
    inputs = [
        page.inputs.pytorch_radio,
        page.inputs.tensorflow_radio,
        page.inputs.version_combo,
        page.inputs.auto_radio,
        page.inputs.venv_radio,
        page.inputs.conda_radio,
        page.inputs.gpu_list,
        page.inputs.name_edit,
        page.inputs.jupyter_check,
    ]
    assert all(widget.accessibleName() for widget in inputs)
    assert "virtual environment" in page.inputs.venv_radio.toolTip()
    assert "conda" in page.inputs.conda_radio.toolTip() and "CUDA" in page.inputs.conda_radio.toolTip()
    assert "cuDNN" in page.panel.plan_cuda.toolTip()
    item = page.inputs.gpu_list.item(0)
    assert item is not None and "Compute capability" in item.toolTip()


def test_without_the_release_list_recommended_still_works(
    qtbot: QtBot, open_page: Opener, monkeypatch: pytest.MonkeyPatch
):
    def unreadable() -> dict[str, list[str]]:
        raise OSError("compat data unreadable")

    monkeypatch.setattr(choose_module, "release_lists", unreadable)
    wizard, page, _session = open_page("linux-h200.json")
    qtbot.waitUntil(page.inputs.versions_error.isVisible, timeout=EVENT_MS)
    assert "compat data unreadable" in page.inputs.versions_error.text()
    assert page.inputs.version_combo.count() == 1 and page.chosen_version() is None
    assert page.recommendation is not None and next_button(wizard).isEnabled()


def test_a_report_detected_again_is_recommended_for_anew(qtbot: QtBot, open_page: Opener):
    wizard, page, session = open_page("no-gpu.json")
    assert page.recommendation is not None and page.recommendation.plan.cpu_only
    wizard.next()
    wizard.back()
    session.report = sample("linux-h200.json")
    page.initializePage()
    settle(qtbot, page)
    assert page.recommendation is not None and not page.recommendation.plan.cpu_only
    assert page.inputs.gpu_list.isVisible() and page.inputs.gpu_list.count() == 1
