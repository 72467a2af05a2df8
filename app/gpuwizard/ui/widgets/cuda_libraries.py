"""The Test page's list of CUDA libraries: each one the test loaded, and the file it came from.

Presentation only: it reads the live test's ``libraries`` event
(:class:`~gpuwizard.core.livetest.events.Libraries`), or a result that carries the same facts,
and shows a line of summary, a two-column list (library, loaded from: a wheel's folder, a
toolkit on PATH, the driver) that the keyboard reaches, and what the DLL start-up hook of a
Windows environment with NVIDIA's wheels did. Hidden until the test says.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGroupBox,
    QLabel,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gpuwizard.core.events import Event
from gpuwizard.core.livetest.events import Libraries, LiveTestResult
from gpuwizard.core.livetest.libraries import CudaLibrary, DllHook

#: The list shows this many rows before it scrolls.
_VISIBLE_ROWS = 8


class CudaLibrariesView(QGroupBox):
    """Where each CUDA library was loaded from (object name ``test_libraries``); hidden until known."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(self.tr("CUDA libraries"), parent)
        self.setObjectName("test_libraries")
        self.summary_label = self._label("test_libraries_summary")
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("test_libraries_list")
        self.tree.setColumnCount(2)
        self.tree.setHeaderLabels([self.tr("Library"), self.tr("Loaded from")])
        self.tree.setRootIsDecorated(False)
        self.tree.setUniformRowHeights(True)
        self.tree.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.tree.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.tree.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # a long folder keeps both ends
        self.tree.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.tree.setAccessibleName(self.tr("CUDA libraries and the files they were loaded from"))
        self.hook_label = self._label("test_libraries_hook")
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary_label)
        layout.addWidget(self.tree)
        layout.addWidget(self.hook_label)
        self.reset()

    def _label(self, name: str) -> QLabel:
        label = QLabel(self)
        label.setObjectName(name)
        label.setWordWrap(True)
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        return label

    # --- taking events ----------------------------------------------------------------------

    def reset(self) -> None:
        """Empty and hidden, before a run."""
        self.libraries: tuple[CudaLibrary, ...] = ()
        self.tree.clear()
        self.summary_label.clear()
        self.hook_label.clear()
        self.hide()

    def take(self, events: Iterable[Event]) -> None:
        """Take a batch of the test's events; a ``libraries`` event fills the list."""
        for event in events:
            if isinstance(event, Libraries):
                self.show_libraries(event.cuda_libraries, event.dll_hook)

    def take_result(self, result: LiveTestResult) -> None:
        """A result that knows the libraries (a replayed one, say) fills the list if no event did."""
        if not self.isHidden() or result.cancelled:
            return
        if result.cuda_libraries or result.cuda_wheels is not None:
            self.show_libraries(result.cuda_libraries, result.dll_hook)

    # --- showing ----------------------------------------------------------------------------

    def show_libraries(self, libraries: tuple[CudaLibrary, ...], hook: DllHook | None) -> None:
        """Show ``libraries`` (each with its file) and what the DLL hook did."""
        self.libraries = libraries
        self.tree.clear()
        for library in libraries:
            item = QTreeWidgetItem([library.name, library.path])
            item.setToolTip(1, library.path)
            self.tree.addTopLevelItem(item)
        self.tree.resizeColumnToContents(0)
        self.tree.setVisible(bool(libraries))
        if libraries:
            self.summary_label.setText(
                self.tr(
                    "The test loaded %n CUDA libraries; each came from the file beside it.",
                    "",
                    len(libraries),
                )
            )
            rows = min(len(libraries), _VISIBLE_ROWS)
            row = self.tree.sizeHintForRow(0)
            header = self.tree.header().sizeHint().height()
            self.tree.setFixedHeight(header + rows * row + 2 * self.tree.frameWidth() + 4)
        else:
            self.summary_label.setText(
                self.tr("The test loaded no CUDA library: the framework did not use one.")
            )
        self.hook_label.setText(self._hook_text(hook))
        self.hook_label.setVisible(hook is not None)
        self.show()

    def _hook_text(self, hook: DllHook | None) -> str:
        if hook is None:
            return ""
        if hook.active:
            return self.tr(
                "The environment's start-up hook put %n NVIDIA wheel folders on the DLL search path.",
                "",
                len(hook.folders),
            )
        if hook.problem:
            return self.tr("The environment's start-up hook added no folder: %1").replace("%1", hook.problem)
        return self.tr("The environment's start-up hook found no NVIDIA wheel folder to add.")
