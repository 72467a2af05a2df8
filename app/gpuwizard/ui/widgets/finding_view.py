"""One finding: a severity icon, the message, and the hint that says what to do.

The hint's commands (``{reinstall}``, ``{recreate}``, ``{command}``) are lines of their own,
monospaced with a Copy button (:mod:`gpuwizard.ui.widgets.fix_commands`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from html import escape

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QBoxLayout, QFrame, QHBoxLayout, QLabel, QStyle, QVBoxLayout, QWidget

from gpuwizard.core.findings.fix_parts import fix_parts
from gpuwizard.core.findings.model import Finding
from gpuwizard.ui.messages import finding_texts, severity_label
from gpuwizard.ui.widgets.fix_commands import FixView

_ICONS = {
    "error": QStyle.StandardPixmap.SP_MessageBoxCritical,
    "warning": QStyle.StandardPixmap.SP_MessageBoxWarning,
    "info": QStyle.StandardPixmap.SP_MessageBoxInformation,
}


class QtFindingView(QFrame):
    """Shows one :class:`Finding`; its text is selectable so people can paste it into a search."""

    def __init__(self, finding: Finding, parent: QWidget | None = None, *, hint: str | None = None) -> None:
        """``hint``: what to do in the page's own terms, instead of the finding's (None: the finding's)."""
        super().__init__(parent)
        self.finding = finding
        self.setObjectName(f"finding_{finding.code}")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        message, catalog_hint = finding_texts(finding)
        hint = catalog_hint if hint is None else hint

        icon = QLabel(self)
        size = self.style().pixelMetric(QStyle.PixelMetric.PM_MessageBoxIconSize)
        icon.setPixmap(
            self.style().standardIcon(_ICONS.get(finding.severity, _ICONS["info"])).pixmap(size, size)
        )
        icon.setAlignment(Qt.AlignmentFlag.AlignTop)

        self.message_label = QLabel(f"<b>{escape(message, quote=False)}</b>", self)
        # The hint's sentences, and each command on a line of its own with a Copy button.
        self.fix = FixView(fix_parts(hint, finding.params), self)
        # Its first sentence (the whole hint when it names no command to run).
        self.hint_label = self.fix.labels[0] if self.fix.labels else QLabel(self)
        if not self.fix.labels:
            self.hint_label.hide()
        self.code_label = QLabel(f"{severity_label(finding.severity)} · {finding.code}", self)
        self.code_label.setEnabled(False)  # secondary text, greyed by the style
        for label in (self.message_label, self.code_label):
            label.setWordWrap(True)
            label.setTextInteractionFlags(
                Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard
            )

        text = QVBoxLayout()
        text.addWidget(self.message_label)
        text.addWidget(self.fix)
        text.addWidget(self.code_label)
        row = QHBoxLayout(self)
        row.addWidget(icon)
        row.addLayout(text, 1)
        self.setAccessibleName(f"{severity_label(finding.severity)}: {message}")
        self.setAccessibleDescription(hint)


def replace_finding_views(
    box: QWidget,
    layout: QBoxLayout,
    shown: Sequence[QtFindingView],
    findings: Sequence[Finding],
    *,
    hint_for: Callable[[Finding], str | None] | None = None,
) -> list[QtFindingView]:
    """Show ``findings`` in ``box`` instead of the views ``shown``; ``box`` is hidden when there are none.

    ``hint_for`` gives a finding's hint in the page's own terms (None: the finding's).
    """
    for view in shown:
        layout.removeWidget(view)
        view.deleteLater()
    views = [
        QtFindingView(finding, box, hint=hint_for(finding) if hint_for is not None else None)
        for finding in findings
    ]
    for view in views:
        layout.addWidget(view)
    box.setVisible(bool(views))
    return views
