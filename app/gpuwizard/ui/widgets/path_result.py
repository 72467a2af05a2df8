"""The PATH page's result: what Apply or Undo did, what must be restarted, and which DLLs load.

Apart from the page (:mod:`gpuwizard.ui.pages.path`), which runs the steps: the box shows the
:class:`PathOutcome` of a step in words, the restart advice (a finding, or a note for a registry
snapshot file), and the DLL check made from a new process after Apply, each DLL with an icon and
where it loads from.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush
from PySide6.QtWidgets import (
    QGroupBox,
    QHeaderView,
    QLabel,
    QSizePolicy,
    QStyle,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gpuwizard.core.findings.model import Finding
from gpuwizard.ui.theme import status_color, status_style
from gpuwizard.ui.widgets.finding_view import QtFindingView
from gpuwizard.ui.widgets.labels import headline_label
from gpuwizard.workflow.pathedit.dll_check import DllResolution
from gpuwizard.workflow.pathedit.request import PathOutcome


class PathResultBox(QGroupBox):
    """The result of the last Apply or Undo, hidden until there is one."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTitle(self.tr("Result"))
        self.setObjectName("path_result")
        self.result_label = headline_label("path_result_text", self)
        font = self.result_label.font()
        font.setPointSizeF(font.pointSizeF() / 1.25)
        self.result_label.setFont(font)
        self.result_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.restart_note = QLabel(self)
        self.restart_note.setObjectName("path_restart")
        self.restart_note.setWordWrap(True)
        self.restart_box = QWidget(self)
        self.restart_layout = QVBoxLayout(self.restart_box)
        self.restart_layout.setContentsMargins(0, 0, 0, 0)
        self.restart_view: QtFindingView | None = None

        self.dll_heading = QLabel(self)
        self.dll_heading.setObjectName("path_dll_heading")
        self.dll_heading.setWordWrap(True)
        self.dlls = QTreeWidget(self)
        self.dlls.setObjectName("path_dlls")
        self.dlls.setAccessibleName(self.tr("DLLs a program started now finds"))
        self.dlls.setColumnCount(2)
        self.dlls.setHeaderLabels([self.tr("DLL"), self.tr("Where it loads from")])
        self.dlls.setRootIsDecorated(False)
        self.dlls.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.dlls.header().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.dlls.header().setStretchLastSection(True)
        self.dlls.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Minimum)

        layout = QVBoxLayout(self)
        layout.addWidget(self.result_label)
        layout.addWidget(self.restart_note)
        layout.addWidget(self.restart_box)
        layout.addWidget(self.dll_heading)
        layout.addWidget(self.dlls)
        self.hide()

    def show_outcome(self, outcome: PathOutcome, *, undo: bool) -> bool:
        """Show what Apply (or Undo) did, in place of any earlier result and DLL check.

        Args:
            outcome: What the step returned.
            undo: The step was Undo (its words differ).

        Returns:
            True when a change (or the lack of one) is shown; False for an error, shown in red.
        """
        self.show()
        self.dlls.clear()
        self.dlls.hide()
        self.dll_heading.hide()
        if self.restart_view is not None:
            self.restart_layout.removeWidget(self.restart_view)
            self.restart_view.deleteLater()
            self.restart_view = None
        self.restart_note.hide()
        applied = outcome.applied
        if outcome.error is not None or applied is None:
            self.result_label.setText(self.tr("Nothing was changed: %1").replace("%1", outcome.error or ""))
            self.result_label.setStyleSheet(status_style("bad", self))
            return False
        self.result_label.setStyleSheet("")
        change = applied.change
        scope = self.tr("system PATH") if change.scope == "system" else self.tr("user PATH")
        if applied.entry is None:
            self.result_label.setText(
                self.tr("Nothing to change: the %1 has the folders already.").replace("%1", scope)
            )
        elif undo:
            self.result_label.setText(
                self.tr("Undone: the %1 is back as it was before the change.").replace("%1", scope)
            )
        else:
            self.result_label.setText(
                self.tr(
                    "Done: the %1 is changed. The change is in the PATH journal; Undo reverts it."
                ).replace("%1", scope)
            )
        self._show_restart(outcome.restart, changed=applied.entry is not None)
        return True

    def _show_restart(self, restart: Finding | None, *, changed: bool) -> None:
        if restart is not None:
            self.restart_view = QtFindingView(restart, self.restart_box)
            self.restart_layout.addWidget(self.restart_view)
        elif changed:
            self.restart_note.setText(
                self.tr(
                    "This is a registry snapshot file: no program running here reads it. On the "
                    "machine it belongs to, programs started after the change see it; those "
                    "already open (terminals, VS Code, PyCharm, Jupyter) must be restarted."
                )
            )
            self.restart_note.show()

    def show_checking(self) -> None:
        """Say that the DLL check from a new process has started."""
        self.dll_heading.setText(self.tr("Checking from a new process which DLLs load…"))
        self.dll_heading.show()

    def show_dlls(self, resolution: DllResolution, names: Sequence[str]) -> None:
        """Show where a program started now loads each of ``names`` from, or why it does not.

        Args:
            resolution: What the check from a new process found.
            names: The DLLs to list, in this order.
        """
        found = sum(1 for n in names if n in resolution.found)
        self.dll_heading.setText(
            self.tr("DLLs a program started now finds: %1 of %2.")
            .replace("%1", str(found))
            .replace("%2", str(len(names)))
        )
        self.dll_heading.show()
        self.dlls.clear()
        good = self.style().standardIcon(QStyle.StandardPixmap.SP_DialogApplyButton)
        bad = self.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxCritical)
        for name in names:
            item = QTreeWidgetItem(self.dlls)
            item.setText(0, name)
            if name in resolution.found:
                item.setIcon(0, good)
                item.setText(1, self.tr("found: %1").replace("%1", resolution.found[name]))
                item.setForeground(1, QBrush(status_color("good", self.dlls)))
            else:
                item.setIcon(0, bad)
                reason = resolution.missing.get(name, "")
                item.setText(1, self.tr("not found: %1").replace("%1", reason))
                item.setForeground(1, QBrush(status_color("bad", self.dlls)))
            item.setToolTip(1, item.text(1))
        rows = max(len(names), 1)
        self.dlls.setFixedHeight(self.dlls.header().sizeHint().height() + rows * 24 + 6)
        self.dlls.show()
