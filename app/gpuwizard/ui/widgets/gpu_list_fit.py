"""The Choose page's list of GPUs, sized so that every GPU's whole name shows (issue 20, point 8).

A list item is cut to its row's width; Qt elides it ("NVIDIA …TX 2080 SUPER") unless told
otherwise. Here the column of choices first widens to the longest line, up to its maximum;
a name longer still wraps onto a second line (word wrap, no eliding), and the list grows to
the height of the rows it shows, so no line is cut either.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QListWidget, QScrollArea, QWidget

from gpuwizard.ui.deferred import call_soon


def _side_margins(widget: QWidget, up_to: QWidget) -> int:
    """The left and right margins between ``widget`` and its ancestor ``up_to`` (layouts, frames)."""
    total = 0
    parent = widget.parentWidget()
    while parent is not None:
        margins = parent.contentsMargins()
        total += margins.left() + margins.right()
        layout = parent.layout()
        if layout is not None:
            inner = layout.contentsMargins()
            total += inner.left() + inner.right()
        if parent is up_to:
            break
        parent = parent.parentWidget()
    return total


class GpuListFit(QObject):
    """Keeps ``gpu_list`` showing whole names inside the column ``column`` (a scroll area).

    Args:
        gpu_list: The list of GPUs (a row per GPU, its name and a second line).
        column: The scroll area that holds the column of choices; its width is fixed.
        widths: The column's narrowest and widest width, in pixels.
        rows_shown: How many GPUs show before the list scrolls.
    """

    def __init__(
        self, gpu_list: QListWidget, column: QScrollArea, *, widths: tuple[int, int], rows_shown: int
    ) -> None:
        super().__init__(gpu_list)
        self.gpu_list = gpu_list
        self.column = column
        self.widths = widths
        self.rows_shown = rows_shown
        gpu_list.setTextElideMode(Qt.TextElideMode.ElideNone)
        gpu_list.setWordWrap(True)
        gpu_list.installEventFilter(self)
        self._width = -1

    def refit(self) -> None:
        """After the list was filled: widen the column for the longest name, then fit the height."""
        content = self.column.widget()
        if content is not None and self.gpu_list.count():
            frames = 2 * self.gpu_list.frameWidth()
            scroll_bar = (
                self.gpu_list.verticalScrollBar().sizeHint().width()
                if self.gpu_list.count() > self.rows_shown
                else 0
            )
            wanted = (
                self.gpu_list.sizeHintForColumn(0)
                + frames
                + scroll_bar
                + _side_margins(self.gpu_list, content)
                + 2 * self.column.frameWidth()
            )
            narrowest, widest = self.widths
            self.column.setFixedWidth(min(max(self.column.width(), narrowest, wanted), widest))
        self.fit_height()

    def fit_height(self) -> None:
        """Make the list as tall as the rows it shows, each as tall as its wrapped text."""
        count = self.gpu_list.count()
        if not count:
            return
        self.gpu_list.doItemsLayout()  # the rows' heights at the list's width, now
        rows = range(min(count, self.rows_shown))
        heights = [
            max(
                self.gpu_list.visualItemRect(self.gpu_list.item(row)).height(),
                self.gpu_list.sizeHintForRow(row),
            )
            for row in rows
        ]
        self.gpu_list.setFixedHeight(sum(heights) + 2 * self.gpu_list.frameWidth())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """A new width wraps the names anew: fit the height once the list has laid itself out."""
        if watched is self.gpu_list and event.type() == QEvent.Type.Resize:
            width = self.gpu_list.width()
            if width != self._width:
                self._width = width
                call_soon(self, self.fit_height)
        return False
