r"""The PATH page with pytest-qt, offscreen, on registry snapshot files (issue 6, point 5).

Every step runs on a worker; the tests wait for the page with ``qtbot.waitUntil``. The DLL
check really starts ``gpuwizard path _resolve-dlls`` in a new process, which off Windows says
"DLLs are looked for on Windows only".
"""

from __future__ import annotations

import json
import os
import shutil
import threading
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QStyle, QStyleOptionViewItem, QTreeWidget, QTreeWidgetItem, QWizard
from pytestqt.qtbot import QtBot

from gpuwizard.adapters.registry import SnapshotFileEnvironment
from gpuwizard.ui.pages.path import PathPage
from gpuwizard.ui.wizard import PageId, SetupWizard
from gpuwizard.workflow.machine.system_file import load_system_report
from gpuwizard.workflow.pathedit.request import PathRequest
from gpuwizard.workflow.state.path_journal import PathJournal
from gpuwizard.workflow.wizard.session import WizardSession
from harness.keyboard import tab_through
from harness.waits import EVENT_MS

RESOURCES = resources.files("gpuwizard.resources")
USER_KEY = "HKCU\\Environment"
SYSTEM_KEY = "HKLM\\SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Environment"
CUDA_11_2 = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.2"
CUDA_12_1 = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.1"
FOLDERS = (f"{CUDA_11_2}\\bin", f"{CUDA_11_2}\\libnvvp", "C:\\tools\\cuda\\bin")
REQUEST = PathRequest(folders=FOLDERS, dlls=("cudart64_110.dll", "cudnn64_8.dll"))


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    monkeypatch.setenv("GPUWIZARD_HOME", str(folder))
    return folder


def write_snapshot(
    path: Path,
    *,
    user: str,
    system: str,
    user_type: str = "REG_EXPAND_SZ",
    system_type: str = "REG_EXPAND_SZ",
) -> Path:
    data = {
        USER_KEY: {
            "Path": {"type": user_type, "value": user},
            "TEMP": {"type": "REG_EXPAND_SZ", "value": "%USERPROFILE%\\AppData\\Local\\Temp"},
        },
        SYSTEM_KEY: {"Path": {"type": system_type, "value": system}},
    }
    # The snapshot store's own layout, so that a restored value gives back the file byte for byte.
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def user_path(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))[USER_KEY]["Path"]


def open_path_page(
    qtbot: QtBot, store: SnapshotFileEnvironment, request: PathRequest = REQUEST, **session: Any
) -> tuple[SetupWizard, PathPage]:
    report = load_system_report(Path(str(RESOURCES.joinpath("samples/windows-rtx2080super-two-cuda.json"))))
    wizard = SetupWizard(
        WizardSession(report=report, path_store=store, path_request=request, **session), start_detection=False
    )
    qtbot.addWidget(wizard)
    # Straight to the PATH page: the session holds the request the Choose page would leave.
    wizard.setStartId(PageId.PATH)
    wizard.show()
    qtbot.waitExposed(wizard)
    assert wizard.currentId() == PageId.PATH
    page = wizard.path_page
    settle(qtbot, page)
    return wizard, page


def settle(qtbot: QtBot, page: PathPage, until: Callable[[], bool] = lambda: True) -> None:
    qtbot.waitUntil(lambda: page.overview is not None and not page.is_busy() and until(), timeout=EVENT_MS)


def top_items(tree: QTreeWidget) -> list[QTreeWidgetItem]:
    items = [tree.topLevelItem(i) for i in range(tree.topLevelItemCount())]
    return [item for item in items if item is not None]


def rows(page: PathPage) -> dict[str, list[QTreeWidgetItem]]:
    found: dict[str, list[QTreeWidgetItem]] = {}
    for scope in top_items(page.entries):
        children = [scope.child(i) for i in range(scope.childCount())]
        found[scope.text(0).split(" ·")[0]] = [child for child in children if child is not None]
    return found


def diff_lines(page: PathPage) -> list[str]:
    return [f"{item.text(0) or ' '}{item.text(1)}" for item in top_items(page.diff)]


def click(qtbot: QtBot, button: Any) -> None:
    assert button.isEnabled()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def test_entries_are_listed_with_their_problems_marked(
    qtbot: QtBot, tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
):
    # The live registry's folders are looked for on this machine; C:\ ones do not exist here,
    # %VARIABLES% unknown here cannot be looked for. A store that says it is the live registry
    # gives the page the same answers as on Windows, without touching any real registry.
    for name in ("SystemRoot", "SYSTEMROOT", "USERPROFILE"):
        monkeypatch.delenv(name, raising=False)

    class LiveLike(SnapshotFileEnvironment):
        def __init__(self, path: Path) -> None:
            super().__init__(path)
            self.identity = "live"

    snapshot = write_snapshot(
        tmp_path / "registry.json",
        system="C:\\CUDA\\v12.1\\bin;%SystemRoot%\\system32;C:\\CUDA\\v11.2\\bin",
        user="%USERPROFILE%\\bin;%SystemRoot%\\system32;;",
        user_type="REG_SZ",
    )
    _, page = open_path_page(qtbot, LiveLike(snapshot))
    found = rows(page)
    assert list(found) == ["System PATH", "User PATH"]
    system, user = found["System PATH"], found["User PATH"]
    assert [r.text(0) for r in system] == [
        "C:\\CUDA\\v12.1\\bin",
        "%SystemRoot%\\system32",
        "C:\\CUDA\\v11.2\\bin",
    ]
    assert [r.text(1) for r in system] == [
        "folder missing; CUDA 12.1",
        "",
        "folder missing; other CUDA version first; CUDA 11.2",
    ]
    assert [r.text(1) for r in user] == [
        "REG_SZ with %VARS%",
        "duplicate; REG_SZ with %VARS%",
        "empty",
        "empty",
    ]
    # Not colour alone: every marked row has an icon, the words, and a tooltip that explains.
    marked = [r for r in (*system, *user) if r.text(1) and not r.text(1).startswith("CUDA")]
    assert all(not r.icon(0).isNull() for r in marked)
    assert system[1].icon(0).isNull()
    assert "does not exist" in system[0].toolTip(1)
    assert "another CUDA version comes earlier" in system[2].toolTip(1)
    assert "only the first one counts" in user[1].toolTip(1)
    assert "never expands" in user[0].toolTip(1)
    codes = [v.finding.code for v in page.finding_views]
    assert {
        "PATH_REG_SZ_WITH_VARS",
        "PATH_ENTRY_MISSING",
        "PATH_DUPLICATE_ENTRY",
        "MULTIPLE_CUDA_ON_PATH",
    } <= set(codes)


def test_the_diff_shows_the_added_entries(qtbot: QtBot, tmp_path: Path, home: Path):
    sample = Path(str(RESOURCES.joinpath("samples/registry/windows-cuda12.json")))
    snapshot = tmp_path / "registry.json"
    shutil.copyfile(sample, snapshot)
    _, page = open_path_page(qtbot, SnapshotFileEnvironment(snapshot))
    added = [line[1:] for line in diff_lines(page) if line.startswith("+")]
    assert added == list(FOLDERS)
    assert not any(line.startswith("−") for line in diff_lines(page))
    assert "3 to add" in page.diff_summary.text() and "user PATH" in page.diff_summary.text()
    # The system PATH holds CUDA 12.1, which Windows puts first: the page says so.
    assert "PATH_SYSTEM_CUDA_FIRST" in [v.finding.code for v in page.finding_views]
    assert page.apply_button.isEnabled() and not page.undo_button.isEnabled()
    assert not page.admin_note.isVisible()

    # The system scope puts them before CUDA 12.1 and says who it concerns.
    page.scope_combo.setCurrentIndex(page.scope_combo.findData("system"))
    settle(
        qtbot,
        page,
        lambda: (
            page.overview is not None
            and page.overview.change is not None
            and page.overview.change.scope == "system"
        ),
    )
    assert diff_lines(page)[:4] == [
        f"+{FOLDERS[0]}",
        f"+{FOLDERS[1]}",
        f"+{FOLDERS[2]}",
        f" {CUDA_12_1}\\bin",
    ]
    assert page.admin_note.isVisible() and "administrator rights" in page.admin_note.text()
    assert "admin" in page.scope_combo.currentText()
    assert "PATH_SYSTEM_CUDA_FIRST" not in [v.finding.code for v in page.finding_views]
    assert page.session.path_request is not None and page.session.path_request.scope == "system"

    page.other_combo.setCurrentIndex(page.other_combo.findData("remove"))
    settle(qtbot, page, lambda: any(line.startswith("−") for line in diff_lines(page)))
    assert [line[1:] for line in diff_lines(page) if line.startswith("−")] == [
        f"{CUDA_12_1}\\bin",
        f"{CUDA_12_1}\\libnvvp",
    ]


def test_apply_writes_the_snapshot_off_the_ui_thread_and_checks_the_dlls(
    qtbot: QtBot, tmp_path: Path, home: Path
):
    snapshot = write_snapshot(
        tmp_path / "registry.json",
        user="%USERPROFILE%\\bin;C:\\tools",
        system="%SystemRoot%\\system32;%SystemRoot%",
    )
    store = SnapshotFileEnvironment(snapshot)
    threads: list[threading.Thread] = []
    for name in ("read_value", "replace_value"):
        original = getattr(store, name)

        def recording(*args: Any, _original: Any = original) -> Any:
            threads.append(threading.current_thread())
            return _original(*args)

        setattr(store, name, recording)

    _, page = open_path_page(qtbot, store)
    click(qtbot, page.apply_button)
    settle(qtbot, page, lambda: page.resolution is not None)

    value = user_path(snapshot)
    assert value == {"type": "REG_EXPAND_SZ", "value": "%USERPROFILE%\\bin;C:\\tools;" + ";".join(FOLDERS)}
    entries = PathJournal(home).entries()
    assert len(entries) == 1 and entries[0].action == "add" and entries[0].scope == "user"
    assert page.result_label.text().startswith("Done")
    assert page.restart_note.isVisible() and "snapshot" in page.restart_note.text()
    # The UI thread never touched the registry: reading, writing and reading back ran on workers.
    assert threads and all(t is not threading.main_thread() for t in threads)

    dlls = top_items(page.dlls)
    assert [d.text(0) for d in dlls] == ["cudart64_110.dll", "cudnn64_8.dll"]
    assert all(d.text(1).startswith("not found") for d in dlls)
    if os.name != "nt":
        assert all("DLLs are looked for on Windows only" in d.text(1) for d in dlls)
    assert page.dll_heading.text() == "DLLs a program started now finds: 0 of 2."

    # Applied: the plan has nothing left to do, and Undo is offered.
    assert "Nothing to change" in page.diff_summary.text()
    assert not page.apply_button.isEnabled() and page.undo_button.isEnabled()


def test_undo_by_keyboard_restores_the_file_byte_for_byte(qtbot: QtBot, tmp_path: Path, home: Path):
    sample = Path(str(RESOURCES.joinpath("samples/registry/windows-cuda12.json")))
    snapshot = tmp_path / "registry.json"
    shutil.copyfile(sample, snapshot)
    before = snapshot.read_bytes()
    _, page = open_path_page(qtbot, SnapshotFileEnvironment(snapshot))
    page.apply_button.setFocus()
    qtbot.keyClick(page.apply_button, Qt.Key.Key_Space)
    settle(qtbot, page, lambda: page.resolution is not None)
    assert snapshot.read_bytes() != before

    page.undo_button.setFocus()
    qtbot.keyClick(page.undo_button, Qt.Key.Key_Space)
    settle(qtbot, page, lambda: page.result_label.text().startswith("Undone"))
    assert snapshot.read_bytes() == before
    assert [e.action for e in PathJournal(home).entries()] == ["add", "undo"]
    assert not page.undo_button.isEnabled() and page.apply_button.isEnabled()
    assert not page.dlls.isVisible()


def test_undo_after_a_later_change_is_refused_with_a_message(qtbot: QtBot, tmp_path: Path, home: Path):
    snapshot = write_snapshot(tmp_path / "registry.json", user="C:\\tools", system="%SystemRoot%\\system32")
    _, page = open_path_page(qtbot, SnapshotFileEnvironment(snapshot), PathRequest(folders=FOLDERS))
    click(qtbot, page.apply_button)
    settle(qtbot, page, page.undo_button.isEnabled)
    data = json.loads(snapshot.read_text(encoding="utf-8"))
    data[USER_KEY]["Path"]["value"] += ";C:\\later"
    snapshot.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    later = snapshot.read_bytes()

    click(qtbot, page.undo_button)
    settle(qtbot, page, lambda: page.result_label.text().startswith("Nothing was changed"))
    assert "undoing it would lose that later change" in page.result_label.text()
    assert "Traceback" not in page.result_label.text() and "UndoConflict" not in page.result_label.text()
    assert snapshot.read_bytes() == later


def test_preview_mode_disables_apply_and_undo(qtbot: QtBot, tmp_path: Path, home: Path):
    snapshot = write_snapshot(tmp_path / "registry.json", user="C:\\tools", system="%SystemRoot%\\system32")
    before = snapshot.read_bytes()
    _, page = open_path_page(qtbot, SnapshotFileEnvironment(snapshot), system_file=Path("saved.json"))
    assert page.preview_note.isVisible() and "nothing on this machine changes" in page.preview_note.text()
    assert [line[1:] for line in diff_lines(page) if line.startswith("+")] == list(FOLDERS)
    assert not page.apply_button.isEnabled() and not page.undo_button.isEnabled()
    page.apply()  # even called directly, it does nothing
    assert not page.is_busy() and snapshot.read_bytes() == before


def test_a_path_too_long_is_refused_with_a_message_and_the_file_unchanged(
    qtbot: QtBot, tmp_path: Path, home: Path
):
    long_user = ";".join(f"C:\\folder{i:05d}\\{'x' * 40}" for i in range(640))  # about 32,600 characters
    snapshot = write_snapshot(tmp_path / "registry.json", user=long_user, system="%SystemRoot%\\system32")
    before = snapshot.read_bytes()
    _, page = open_path_page(qtbot, SnapshotFileEnvironment(snapshot))
    assert page.plan_error.isVisible()
    assert "more than the 32766 an environment variable can hold" in page.plan_error.text()
    assert "Traceback" not in page.plan_error.text() and "PathTooLong" not in page.plan_error.text()
    assert not page.apply_button.isEnabled()
    assert snapshot.read_bytes() == before and PathJournal(home).entries() == []


def test_a_path_grown_too_long_before_apply_changes_nothing(qtbot: QtBot, tmp_path: Path, home: Path):
    snapshot = write_snapshot(tmp_path / "registry.json", user="C:\\tools", system="%SystemRoot%\\system32")
    _, page = open_path_page(qtbot, SnapshotFileEnvironment(snapshot))
    # Someone else fills the user PATH between planning and Apply: the plan is made again, and
    # the new one does not fit.
    long_user = ";".join(f"C:\\folder{i:05d}\\{'x' * 40}" for i in range(640))
    write_snapshot(snapshot, user=long_user, system="%SystemRoot%\\system32")
    grown = snapshot.read_bytes()
    click(qtbot, page.apply_button)
    settle(qtbot, page, lambda: page.outcome is not None)
    assert page.result_label.text().startswith("Nothing was changed")
    assert "32766" in page.result_label.text() and "Traceback" not in page.result_label.text()
    assert snapshot.read_bytes() == grown and PathJournal(home).entries() == []
    assert page.plan_error.isVisible()  # the page read PATH again and shows why


def test_the_path_page_is_in_the_sequence_only_with_a_registry_and_a_request(
    qtbot: QtBot, tmp_path: Path, home: Path
):
    report = load_system_report(Path(str(RESOURCES.joinpath("samples/no-gpu.json"))))
    without = SetupWizard(WizardSession(report=report), start_detection=False)
    qtbot.addWidget(without)
    without.setStartId(PageId.CHOOSE)
    without.show()
    qtbot.waitUntil(without.choose_page.isComplete, timeout=EVENT_MS)
    assert without.nextId() == PageId.INSTALL
    assert without.path_page.overview is None  # never read anything

    snapshot = write_snapshot(tmp_path / "registry.json", user="C:\\tools", system="%SystemRoot%\\system32")
    wizard, _ = open_path_page(qtbot, SnapshotFileEnvironment(snapshot))
    assert wizard.nextId() == PageId.INSTALL


def test_the_page_is_keyboard_operable(qtbot: QtBot, tmp_path: Path, home: Path):
    snapshot = write_snapshot(tmp_path / "registry.json", user="C:\\tools", system="%SystemRoot%\\system32")
    wizard, page = open_path_page(qtbot, SnapshotFileEnvironment(snapshot))
    reached = tab_through(qtbot, wizard)
    for widget in (page.entries, page.scope_combo, page.other_combo, page.diff, page.apply_button):
        assert widget in reached, widget.objectName()
        assert widget.accessibleName()
    assert wizard.button(QWizard.WizardButton.NextButton) in reached


# --- issue 41, point 6: the CUDA version stays in sight, and the page speaks of its own controls -----

LONG_CUDA_BIN = f"{CUDA_12_1}\\bin"
CUPTI = f"{CUDA_12_1}\\extras\\CUPTI\\lib64"


def shown_text(tree: QTreeWidget, item: QTreeWidgetItem, column: int) -> str:
    """The text as the tree draws it in its cell: its delegate's text, then cut as the style cuts it.

    As QStyledItemDelegate::paint and QCommonStyle (viewItemDrawText) do it, off screen.
    """
    index = tree.indexFromItem(item, column)
    option = QStyleOptionViewItem()
    tree.initViewItemOption(option)
    option.rect = tree.visualRect(index)
    tree.itemDelegateForIndex(index).initStyleOption(option, index)
    style = tree.style()
    text_rect = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, option, tree)
    room = text_rect.width() - 2 * (
        style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, tree) + 1
    )
    return option.fontMetrics.elidedText(option.text, option.textElideMode, room)


def test_a_long_cuda_entry_keeps_its_version_in_sight(qtbot: QtBot, tmp_path: Path, home: Path):
    snapshot = write_snapshot(
        tmp_path / "registry.json",
        system=f"{LONG_CUDA_BIN};{CUPTI};%SystemRoot%\\system32",
        user="%USERPROFILE%\\bin",
    )
    wizard, page = open_path_page(qtbot, SnapshotFileEnvironment(snapshot))
    # As small as the window goes (as harness/laptop_screens.py walks it): the narrowest column.
    wizard.resize(wizard.minimumSize())
    qtbot.waitUntil(lambda: wizard.size() == wizard.minimumSize(), timeout=EVENT_MS)
    (entry, deeper, *_rest) = rows(page)["System PATH"]
    assert entry.text(0) == LONG_CUDA_BIN and entry.toolTip(0) == LONG_CUDA_BIN
    shown = shown_text(page.entries, entry, 0)
    assert shown != LONG_CUDA_BIN  # too long for the column at this size: cut
    assert shown.startswith("…") and shown.endswith("CUDA\\v12.1\\bin"), shown
    # Deeper in the toolkit, the version stays too, and the end.
    assert deeper.text(0) == CUPTI and deeper.toolTip(0) == CUPTI
    shown = shown_text(page.entries, deeper, 0)
    assert shown != CUPTI and "CUDA\\v12.1" in shown and shown.endswith("lib64"), shown
    # The planned change's lines keep their ends too.
    (added, *_others) = [item for item in top_items(page.diff) if item.text(0) == "+"]
    assert shown_text(page.diff, added, 1).endswith("CUDA\\v11.2\\bin")


def test_the_system_cuda_first_hint_names_the_pages_controls_not_a_command_line_option(
    qtbot: QtBot, tmp_path: Path, home: Path
):
    sample = Path(str(RESOURCES.joinpath("samples/registry/windows-cuda12.json")))
    snapshot = tmp_path / "registry.json"
    shutil.copyfile(sample, snapshot)
    _, page = open_path_page(qtbot, SnapshotFileEnvironment(snapshot))
    (view,) = [v for v in page.finding_views if v.finding.code == "PATH_SYSTEM_CUDA_FIRST"]
    hint = " ".join(label.text() for label in view.fix.labels)
    assert "--scope" not in hint and "--scope" not in view.accessibleDescription()
    assert "“Add to” to “System PATH (all users; admin)”" in hint
    assert "“Other CUDA” to “Move them to the end” or “Remove them”" in hint
