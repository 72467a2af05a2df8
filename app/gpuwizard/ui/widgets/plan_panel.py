"""The Choose page's answer: the headline, the plan, what it will change, findings, alternatives.

Presentation only: the page computes the recommendation on a worker and hands it here with its
presentation (:mod:`gpuwizard.core.compat.presentation`), which this panel lays out.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QFormLayout, QGroupBox, QLabel, QSizePolicy, QVBoxLayout, QWidget

from gpuwizard.core.compat.plan import Recommendation
from gpuwizard.core.compat.presentation import PlanView
from gpuwizard.ui.messages import display_text
from gpuwizard.ui.theme import status_style
from gpuwizard.ui.widgets.finding_view import QtFindingView, replace_finding_views
from gpuwizard.ui.widgets.labels import headline_label


class PlanPanel(QWidget):
    """The answer side of the Choose page (object name ``choose_result``)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.finding_views: list[QtFindingView] = []
        self._build()

    def _build(self) -> None:
        content = self
        content.setObjectName("choose_result")
        self.status_label = QLabel(content)
        self.status_label.setObjectName("choose_status")
        self.status_label.setWordWrap(True)
        self.error_label = QLabel(content)
        self.error_label.setObjectName("choose_error")
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet(status_style("bad", self))
        self.error_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error_label.hide()
        self.headline = headline_label("choose_headline", content)

        self.result_box = QWidget(content)
        result_layout = QVBoxLayout(self.result_box)
        result_layout.setContentsMargins(0, 0, 0, 0)
        result_layout.addWidget(self._build_plan_box(self.result_box))
        result_layout.addWidget(self._build_changes_box(self.result_box))
        self.findings_box = QGroupBox(self.tr("What to look at"), self.result_box)
        self.findings_box.setObjectName("choose_findings")
        self.findings_layout = QVBoxLayout(self.findings_box)
        result_layout.addWidget(self.findings_box)
        self.alternatives_box = QGroupBox(self.tr("Alternatives, best first"), self.result_box)
        self.alternatives_box.setObjectName("choose_alternatives_box")
        self.alternatives = self._text_label("choose_alternatives", self.alternatives_box)
        self.alternatives.setAccessibleName(self.tr("Alternatives"))
        QVBoxLayout(self.alternatives_box).addWidget(self.alternatives)
        result_layout.addWidget(self.alternatives_box)
        # How current the knowledge is: the data's date and source, and what it does not know yet.
        self.freshness = self._text_label("choose_data_freshness", self.result_box, rich=False)
        self.freshness.setAccessibleName(self.tr("Compatibility data"))
        result_layout.addWidget(self.freshness)
        self.result_box.hide()

        layout = QVBoxLayout(content)
        layout.setContentsMargins(6, 0, 0, 0)
        layout.addWidget(self.status_label)
        layout.addWidget(self.error_label)
        layout.addWidget(self.headline)
        layout.addWidget(self.result_box)
        layout.addStretch(1)

    def _text_label(self, name: str, parent: QWidget, *, rich: bool = True) -> QLabel:
        label = QLabel(parent)
        label.setObjectName(name)
        label.setWordWrap(True)
        label.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        return label

    def _build_plan_box(self, parent: QWidget) -> QGroupBox:
        box = QGroupBox(self.tr("The plan"), parent)
        box.setObjectName("choose_plan")
        form = QFormLayout(box)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)

        def row(name: str, label: str, tooltip: str = "", *, code: bool = False) -> QLabel:
            value = self._text_label(name, box, rich=False)
            if code:
                value.setFont(mono)
            caption = QLabel(label, box)
            if tooltip:
                caption.setToolTip(tooltip)
                value.setToolTip(tooltip)
            form.addRow(caption, value)
            return value

        self.plan_framework = row("plan_framework", self.tr("Framework:"))
        self.plan_python = row("plan_python", self.tr("Python:"))
        self.plan_cuda = row(
            "plan_cuda",
            self.tr("CUDA / cuDNN:"),
            self.tr(
                "CUDA is NVIDIA's platform for computing on the GPU; cuDNN is its library of "
                "deep-learning building blocks. A framework build is made for one CUDA version, "
                "and the driver must support it."
            ),
        )
        self.plan_driver = row(
            "plan_driver",
            self.tr("Driver:"),
            self.tr("The NVIDIA driver must be at least as new as the CUDA version of the build needs."),
        )
        self.plan_manager = row("plan_manager", self.tr("Environment:"))
        self.plan_conda = row(
            "plan_conda",
            self.tr("conda installs:"),
            self.tr(
                "conda: an environment manager that can also install CUDA and cuDNN into the environment."
            ),
            code=True,
        )
        self.plan_pip = row("plan_pip", self.tr("pip installs:"), code=True)
        self.plan_reasons = self._text_label("plan_reasons", box)
        form.addRow(QLabel(self.tr("Why:"), box), self.plan_reasons)
        self.plan_form = form
        return box

    def _build_changes_box(self, parent: QWidget) -> QGroupBox:
        box = QGroupBox(self.tr("What will change on this machine"), parent)
        box.setObjectName("choose_changes_box")
        self.changes = self._text_label("choose_changes", box)
        self.changes.setAccessibleName(self.tr("What will change on this machine"))
        QVBoxLayout(box).addWidget(self.changes)
        self.changes_box = box
        return box

    def show_failure(self, error: str, *, unexpected: bool) -> None:
        """No recommendation: say why (one line)."""
        text = error
        if unexpected:
            text = self.tr("The recommendation failed: %1").replace("%1", text)
        self.error_label.setText(text)
        self.error_label.show()
        self.headline.hide()
        self.result_box.hide()

    def show_recommendation(self, rec: Recommendation, view: PlanView, changes: Sequence[str]) -> None:
        """The recommendation ``rec`` as ``view`` presents it; ``changes``: HTML lines."""
        self.error_label.hide()
        headline = display_text(view.headline)
        self.headline.setText(headline)
        self.headline.setAccessibleName(headline)
        self.headline.show()
        self._show_plan(view)
        self.show_changes(changes)
        self.finding_views = replace_finding_views(
            self.findings_box, self.findings_layout, self.finding_views, rec.findings
        )
        alternatives = [display_text(line) for line in view.alternatives]
        self.alternatives.setText(bullets(alternatives, ordered=True))
        self.alternatives_box.setVisible(bool(alternatives))
        self.freshness.setText(display_text(view.freshness) if view.freshness is not None else "")
        self.freshness.setVisible(view.freshness is not None)
        self.result_box.show()

    def show_changes(self, changes: Sequence[str]) -> None:
        """What carrying the plan out changes, one HTML line each."""
        self.changes.setText(bullets(changes, escaped=True))

    def _show_plan(self, view: PlanView) -> None:
        self.plan_framework.setText(display_text(view.framework))
        self.plan_python.setText(view.python)
        self.plan_cuda.setText(display_text(view.cuda))
        self.plan_form.setRowVisible(self.plan_driver, view.driver is not None)
        self.plan_driver.setText(display_text(view.driver) if view.driver is not None else "")
        self.plan_manager.setText(display_text(view.manager))
        self.plan_form.setRowVisible(self.plan_conda, view.conda_command is not None)
        # py-rattler has no command: its line is a sentence (the packages and their channel).
        self.plan_conda.setText(display_text(view.conda_command) if view.conda_command is not None else "")
        self.plan_pip.setText(view.pip_command)
        reasons = list(dict.fromkeys(display_text(text) for text in view.reasons))
        self.plan_reasons.setText(bullets(reasons))
        self.plan_form.setRowVisible(self.plan_reasons, bool(reasons))


def bullets(lines: Sequence[str], *, escaped: bool = False, ordered: bool = False) -> str:
    """An HTML list; ``escaped``: the lines are HTML already."""
    tag = "ol" if ordered else "ul"
    items = "".join(f"<li>{line if escaped else escape(line)}</li>" for line in lines)
    return f"<{tag} style='margin-left: -20px'>{items}</{tag}>"
