"""The PATH page's views of PATH: the values as they are, and the planned change with its diff.

Apart from the page (:mod:`gpuwizard.ui.pages.path`), which runs the steps: each view fills
itself from what a step returned, the entries of both PATH values with their problems marked
(an icon and words, not colour alone), or the planned change in words and line by line.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QFontMetrics
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QHeaderView,
    QLabel,
    QSizePolicy,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gpuwizard.core.pathedit.algebra import DUPLICATE, EMPTY, MISSING, OTHER_CUDA_FIRST, entry_of
from gpuwizard.core.pathedit.review import ScopeReview
from gpuwizard.ui.theme import diff_colors, status_color
from gpuwizard.ui.widgets.labels import error_label
from gpuwizard.workflow.pathedit.changes import PathChange
from gpuwizard.workflow.pathedit.request import REG_SZ_WITH_VARS, PathOverview

# Problems worth a warning icon; the others are notes (they do no harm but make PATH longer).
_WARNING_PROBLEMS: Final = frozenset({OTHER_CUDA_FIRST, REG_SZ_WITH_VARS})
#: The part of a folder that names its CUDA version (``CUDA\v12.1``, ``cuda-12.4``, ``CUDA/12.1``).
_CUDA_VERSION: Final = re.compile(r"cuda(?:[\\/]v?|-)\d+(?:\.\d+)*", re.IGNORECASE)
_ELLIPSIS: Final = "…"


def entry_elided(text: str, metrics: QFontMetrics, room: int) -> str:
    r"""``text`` cut to ``room`` pixels as a PATH entry is best read: its end kept, and its CUDA version.

    Whole when it fits. Otherwise its start goes ("…Toolkit\CUDA\v12.1\bin"), never the CUDA
    version a person compares: where the start alone cannot go far enough, the middle after the
    version goes instead ("…CUDA\v12.1…\CUPTI\lib64").
    """
    if metrics.horizontalAdvance(text) <= room:
        return text
    cut = metrics.elidedText(text, Qt.TextElideMode.ElideLeft, room)
    version = _CUDA_VERSION.search(text)
    if version is None or version.group(0) in cut:
        return cut
    kept = _ELLIPSIS + version.group(0)
    rest = text[version.end() :]
    return kept + metrics.elidedText(rest, Qt.TextElideMode.ElideLeft, room - metrics.horizontalAdvance(kept))


class _EntryDelegate(QStyledItemDelegate):
    """Draws a column of PATH entries cut by :func:`entry_elided` (the whole entry is its tooltip)."""

    def __init__(self, column: int, parent: QWidget) -> None:
        super().__init__(parent)
        self.column = column

    def initStyleOption(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        """The item's options, with its text cut to the room the style gives it."""
        super().initStyleOption(option, index)
        if index.column() != self.column:
            return
        widget = option.widget
        style = widget.style() if widget is not None else QApplication.style()
        text_rect = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, option, widget)
        # The style keeps this margin on each side of an item's text (QCommonStyle, viewItemDrawText).
        margin = style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, widget) + 1
        option.text = entry_elided(option.text, option.fontMetrics, text_rect.width() - 2 * margin)


class PathEntriesView(QTreeWidget):
    """The entries of each PATH value (system first, then user) and the problems of each."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("path_entries")
        self.setAccessibleName(self.tr("PATH entries with their problems"))
        self.setColumnCount(2)
        self.setHeaderLabels([self.tr("Entry"), self.tr("Problem")])
        self.setRootIsDecorated(True)
        self.setUniformRowHeights(True)
        # A long entry loses its start, never its end nor its CUDA version: "…Toolkit\CUDA\v12.1\bin"
        # (cut in the middle, the version a person compares went). The tooltip has it whole.
        self.setTextElideMode(Qt.TextElideMode.ElideLeft)
        self.setItemDelegateForColumn(0, _EntryDelegate(0, self))
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setMinimumHeight(230)
        header = self.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)

    def show_reviews(self, reviews: Sequence[ScopeReview]) -> None:
        """Show the reviewed PATH values, a row per scope with a row per entry under it.

        Args:
            reviews: One review per PATH value read, in the order Windows searches them.
        """
        self.clear()
        names = {"system": self.tr("System PATH"), "user": self.tr("User PATH")}
        for review in reviews:
            scope = QTreeWidgetItem(self)
            details = (
                self.tr("no value")
                if review.type is None
                else self.tr("%1 · entries: %2")
                .replace("%1", review.type)
                .replace("%2", str(len(review.entries)))
            )
            scope.setText(0, f"{names.get(review.scope, review.scope)} · {details}")
            font = scope.font(0)
            font.setBold(True)
            scope.setFont(0, font)
            scope.setFirstColumnSpanned(True)
            for entry in review.entries:
                item = QTreeWidgetItem(scope)
                text = entry_of(entry.segment)
                item.setText(0, entry.segment if text else self.tr("(empty entry)"))
                item.setToolTip(
                    0, entry.segment or self.tr("An empty entry: two ';' in a row, or one at the end.")
                )
                self._mark_problems(item, entry.problems, entry.cuda_version)
            scope.setExpanded(True)

    def _mark_problems(self, item: QTreeWidgetItem, problems: Sequence[str], cuda: str | None) -> None:
        words = {
            MISSING: self.tr("folder missing"),
            DUPLICATE: self.tr("duplicate"),
            OTHER_CUDA_FIRST: self.tr("other CUDA version first"),
            REG_SZ_WITH_VARS: self.tr("REG_SZ with %VARS%"),
            EMPTY: self.tr("empty"),
        }
        why = {
            MISSING: self.tr("Missing: this folder does not exist. It does no harm, but makes PATH longer."),
            DUPLICATE: self.tr(
                "Duplicate: this folder is on PATH earlier already (the system PATH comes first); "
                "only the first one counts."
            ),
            OTHER_CUDA_FIRST: self.tr(
                "Other CUDA version first: an entry of another CUDA version comes earlier, so "
                "programs load that version's DLLs, not these."
            ),
            REG_SZ_WITH_VARS: self.tr(
                "REG_SZ with %VARS%: this PATH is stored as REG_SZ, which Windows never expands, "
                "so the %VARIABLE% stays literal text and the folder is never searched."
            ),
            EMPTY: self.tr("Empty: harmless, an extra ';'."),
        }
        texts = [words.get(p, p) for p in problems]
        if cuda is not None:
            texts.append(self.tr("CUDA %1").replace("%1", cuda))
        item.setText(1, "; ".join(texts))
        if not problems:
            if cuda is not None:
                item.setToolTip(1, self.tr("An entry of CUDA %1.").replace("%1", cuda))
            return
        warning = any(p in _WARNING_PROBLEMS for p in problems)
        icon = (
            QStyle.StandardPixmap.SP_MessageBoxWarning
            if warning
            else QStyle.StandardPixmap.SP_MessageBoxInformation
        )
        item.setIcon(0, self.style().standardIcon(icon))
        item.setForeground(1, QBrush(status_color("warn" if warning else "info", self)))
        tip = "\n".join(why.get(p, p) for p in problems)
        item.setToolTip(1, tip)
        item.setData(0, Qt.ItemDataRole.AccessibleDescriptionRole, tip)


class PathDiffView(QTreeWidget):
    """The PATH value after the planned change, entry by entry: ``+`` added, ``−`` removed."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("path_diff")
        self.setAccessibleName(self.tr("Planned PATH, entry by entry: + added, − removed"))
        self.setColumnCount(2)
        self.setHeaderHidden(True)
        self.setRootIsDecorated(False)
        self.setUniformRowHeights(True)
        self.setTextElideMode(Qt.TextElideMode.ElideLeft)  # as the entries: the CUDA version stays
        self.setItemDelegateForColumn(1, _EntryDelegate(1, self))
        self.header().setStretchLastSection(True)
        self.header().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.setMinimumHeight(120)

    def show_change(self, change: PathChange) -> None:
        """Show the lines of ``change``'s diff, scrolled to its first added or removed line.

        Args:
            change: The planned change of one PATH value.
        """
        self.clear()
        first_change: QTreeWidgetItem | None = None
        bold = self.font()
        bold.setBold(True)
        for line in change.diff():
            entry = line.entry or self.tr("(empty entry)")
            item = QTreeWidgetItem(self)
            item.setText(0, "−" if line.op == "-" else line.op.strip())
            item.setText(1, entry)
            item.setFont(0, bold)
            if line.op == " ":
                item.setToolTip(1, self.tr("unchanged: %1").replace("%1", entry))
            else:
                added = line.op == "+"
                what = self.tr("added: %1") if added else self.tr("removed: %1")
                item.setToolTip(1, what.replace("%1", entry))
                text_colour, background = diff_colors(added, self)
                for column in (0, 1):
                    item.setForeground(column, QBrush(text_colour))
                    item.setBackground(column, QBrush(background))
                if first_change is None:
                    first_change = item
            item.setData(1, Qt.ItemDataRole.AccessibleTextRole, item.toolTip(1))
        if first_change is not None:
            self.scrollToItem(first_change, QAbstractItemView.ScrollHint.PositionAtCenter)


class PlannedChangeView(QWidget):
    """The planned change: who must agree to it, what it does, its diff, or why it cannot be made."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("path_planned_change")
        self.admin_note = QLabel(self)
        self.admin_note.setObjectName("path_admin_note")
        self.admin_note.setWordWrap(True)
        self.admin_note.hide()
        self.diff_summary = QLabel(self)
        self.diff_summary.setObjectName("path_diff_summary")
        self.diff_summary.setWordWrap(True)
        self.diff = PathDiffView(self)
        self.plan_error = error_label("path_plan_error", self)
        # Takes the diff's room while there is no diff, so the message stays under the choices.
        self.diff_filler = QWidget(self)
        self.diff_filler.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Expanding)
        self.diff_filler.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.admin_note)
        layout.addWidget(self.diff_summary)
        layout.addWidget(self.diff, 1)
        layout.addWidget(self.plan_error)
        layout.addWidget(self.diff_filler, 1)

    def show_overview(self, overview: PathOverview) -> None:
        """Show the change planned in ``overview``, or why there is none.

        Args:
            overview: What reading PATH and planning the request found.
        """
        change = overview.change
        self.plan_error.setVisible(overview.plan_error is not None)
        if overview.plan_error is not None:
            self.plan_error.setText(
                self.tr("This change cannot be made: %1").replace("%1", overview.plan_error)
            )
        self.admin_note.setVisible(change is not None and change.scope == "system")
        self.admin_note.setText(self._admin_text(overview))
        self.diff.setVisible(change is not None)
        self.diff_filler.setVisible(change is None)
        if change is None:
            self.diff.clear()
            self.diff_summary.setText("")
            return
        self.diff_summary.setText(self._diff_summary(change))
        self.diff.show_change(change)

    def _admin_text(self, overview: PathOverview) -> str:
        if overview.needs_admin:
            return self.tr(
                "Windows will ask for administrator rights when you apply: the system PATH is "
                "shared by every user."
            )
        if overview.registry == "live":
            return self.tr(
                "The wizard has administrator rights already: the system PATH is shared by every user."
            )
        return self.tr(
            "On the machine itself, changing the system PATH asks for administrator rights; "
            "this snapshot file needs none."
        )

    def _diff_summary(self, change: PathChange) -> str:
        scope = self.tr("system PATH") if change.scope == "system" else self.tr("user PATH")
        if not change.changed:
            return self.tr("Nothing to change: the folders are on the %1 already.").replace("%1", scope)
        edit = change.edit
        counts = (
            (
                (self.tr("%n to add", "", len(edit.added)), edit.added),
                (self.tr("%n to move", "", len(edit.moved)), edit.moved),
                (self.tr("%n to remove", "", len(edit.removed)), edit.removed),
            )
            if edit is not None
            else ()
        )
        parts = ", ".join(text for text, items in counts if items)
        if not parts:
            return self.tr("The %1 after the change:").replace("%1", scope)
        return self.tr("The %1 after the change (%2):").replace("%1", scope).replace("%2", parts)
