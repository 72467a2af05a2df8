"""A fix as the wizard shows it: its sentences, and each command on a line of its own with a Copy button.

A command in a wrapped label breaks wherever Qt's line breaking allows, inside an option too
("--index-" / "url", after the hyphen, as Unicode's line-breaking rules permit), and two commands
in one sentence read as one. Here each command is a :class:`CommandLine`: monospaced, on one line
that never breaks (a long one scrolls sideways, with a scroll bar that says so), selectable, and
a Copy button that puts exactly the command on the clipboard. :class:`FixView` lays out a hint
cut by :func:`gpuwizard.core.findings.fix_parts.fix_parts`.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QSize, Qt, Slot
from PySide6.QtGui import QFontDatabase, QGuiApplication, QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from gpuwizard.core.findings.fix_parts import FixPart

# How narrow a command's line may get before its row stops shrinking (in average characters).
_MINIMUM_CHARACTERS = 16


class _SidewaysScroll(QScrollArea):
    """One line of content that scrolls sideways when wider than the room; as high as it needs."""

    def __init__(self, content: QWidget, parent: QWidget) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setWidget(content)
        # The content is at least the room wide, and wider (so: scrolled) only when it must be.
        self.setWidgetResizable(True)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        # No Tab stop of its own: the command (selectable) and its Copy button are the stops.
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self._bar_shown = False

    def _content_width(self) -> int:
        content = self.widget()
        return content.sizeHint().width() if content is not None else 0

    def _height(self, bar: bool) -> int:
        content = self.widget()
        height = content.sizeHint().height() if content is not None else 0
        if bar:
            height += self.horizontalScrollBar().sizeHint().height()
        return height + 2 * self.frameWidth()

    def sizeHint(self) -> QSize:
        """The whole line, and a scroll bar's height when it will not fit."""
        return QSize(self._content_width() + 2 * self.frameWidth(), self._height(self._bar_shown))

    def minimumSizeHint(self) -> QSize:
        """A few characters wide: the rest scrolls; never lower than the line."""
        narrow = self.fontMetrics().averageCharWidth() * _MINIMUM_CHARACTERS
        return QSize(min(narrow, self._content_width()), self._height(self._bar_shown))

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Make room for the scroll bar exactly when the line is wider than the room."""
        super().resizeEvent(event)
        needed = self._content_width() > event.size().width() - 2 * self.frameWidth()
        if needed != self._bar_shown:
            self._bar_shown = needed
            self.updateGeometry()


class CommandLine(QWidget):
    """One command: monospaced on one unbroken line, selectable, and a Copy button."""

    def __init__(self, command: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("fix_command")
        self.command = command
        self.text_label = QLabel(command)
        self.text_label.setObjectName("fix_command_text")
        self.text_label.setTextFormat(Qt.TextFormat.PlainText)
        self.text_label.setWordWrap(False)
        self.text_label.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.text_label.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self.text_label.setAccessibleName(self.tr("Command"))
        self.text_label.setAccessibleDescription(command)
        self.text_label.setToolTip(command)
        self.scroller = _SidewaysScroll(self.text_label, self)
        self.scroller.setObjectName("fix_command_scroll")
        self.copy_button = QPushButton(self.tr("Copy"), self)
        self.copy_button.setObjectName("fix_command_copy")
        self.copy_button.setAutoDefault(False)  # Enter means the wizard's Next; Space presses this
        self.copy_button.setAccessibleName(self.tr("Copy the command"))
        self.copy_button.setAccessibleDescription(command)
        self.copy_button.setToolTip(self.tr("Put this command on the clipboard, to paste into a terminal."))
        self.copy_button.clicked.connect(self.copy)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.scroller, 1)
        row.addWidget(self.copy_button, 0, Qt.AlignmentFlag.AlignTop)

    @Slot()
    def copy(self) -> None:
        """Put exactly the command on the clipboard, and say so on the button."""
        clipboard = QGuiApplication.clipboard()
        clipboard.setText(self.command)
        self.copy_button.setText(self.tr("Copied"))


class FixView(QWidget):
    """A hint cut into its parts: sentences as wrapped text, each command a :class:`CommandLine`."""

    def __init__(self, parts: Sequence[FixPart], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("fix_view")
        self.labels: list[QLabel] = []
        self.command_lines: list[CommandLine] = []
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        for part in parts:
            if part.command:
                line = CommandLine(part.text, self)
                self.command_lines.append(line)
                layout.addWidget(line)
            else:
                label = QLabel(part.text, self)
                label.setObjectName("fix_text")
                label.setTextFormat(Qt.TextFormat.PlainText)
                label.setWordWrap(True)
                label.setTextInteractionFlags(
                    Qt.TextInteractionFlag.TextSelectableByMouse
                    | Qt.TextInteractionFlag.TextSelectableByKeyboard
                )
                self.labels.append(label)
                layout.addWidget(label)
        if not parts:
            self.hide()

    def commands(self) -> list[str]:
        """The commands shown, in order."""
        return [line.command for line in self.command_lines]
