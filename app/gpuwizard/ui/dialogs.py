"""The wizard's file dialogs: they open in the user's Documents folder, then where the user last chose.

Qt's static dialogs start in the process's current directory when given no folder, which for a
wizard started from a shortcut or a terminal is wherever that happened to be (the program's
folder, the home of another tool). Every file dialog of the wizard goes through here instead:
the first one opens in the Documents folder (``QStandardPaths.DocumentsLocation``; the home
folder where there is none), and once the person picked a file or folder, the next dialog
opens where that was, for the rest of the session.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QStandardPaths
from PySide6.QtWidgets import QFileDialog, QWidget

# The folder of the person's last choice in this session (None: none yet). One per process, as
# the session is: every page's dialogs share it.
_last_folder: Path | None = None


def start_folder() -> Path:
    """Where the next dialog opens: the last chosen folder, else Documents, else the home folder."""
    if _last_folder is not None and _last_folder.is_dir():
        return _last_folder
    documents = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    if documents and Path(documents).is_dir():
        return Path(documents)
    return Path.home()


def remember_folder(folder: Path) -> None:
    """Open the following dialogs in ``folder`` (the person chose something there)."""
    global _last_folder  # noqa: PLW0603 - the session's one memory of where the person works
    _last_folder = folder


def forget_folder() -> None:
    """Forget the last chosen folder (a new session; tests)."""
    global _last_folder  # noqa: PLW0603 - see remember_folder
    _last_folder = None


def save_file_name(parent: QWidget, caption: str, file_name: str, filters: str) -> Path | None:
    """Ask where to save ``file_name`` (the suggested name); None when the person cancelled.

    Args:
        parent: The widget the dialog belongs to.
        caption: The dialog's title (translated by the caller).
        file_name: The suggested file name, without a folder.
        filters: Qt's name filters (``"JSON files (*.json)"``, translated by the caller).
    """
    name, _selected = QFileDialog.getSaveFileName(parent, caption, str(start_folder() / file_name), filters)
    if not name:
        return None
    path = Path(name)
    remember_folder(path.parent)
    return path


def existing_folder(parent: QWidget, caption: str, current: str = "") -> Path | None:
    """Ask for a folder; None when the person cancelled.

    ``current`` is the folder already given (a text field's value): the dialog opens there when
    it exists, else as every dialog does (:func:`start_folder`).
    """
    given = Path(current).expanduser() if current.strip() else None
    start = given if given is not None and given.is_dir() else start_folder()
    folder = QFileDialog.getExistingDirectory(parent, caption, str(start))
    if not folder:
        return None
    chosen = Path(folder)
    remember_folder(chosen)
    return chosen
