"""The first page: what the wizard will do, and the promise that nothing changes unasked."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget, QWizardPage

from gpuwizard.ui.widgets.page_scroll import fill_with_scroll_area


class WelcomePage(QWizardPage):
    """Says what the wizard does, in the order it does it."""

    def __init__(self, preview: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("welcome_page")
        self.setTitle(self.tr("Set up your GPU for deep learning"))
        self.setSubTitle(self.tr("From “I have a GPU” to “my framework trains on it”, with proof."))
        steps = [
            self.tr(
                "Look at this machine: the GPU (NVIDIA, AMD, Intel or Apple), its driver, CUDA and cuDNN on disk, and Python."
            ),
            self.tr("Recommend a PyTorch or TensorFlow setup that fits, and explain every “no”."),
            self.tr("Create an environment with the right build, and fix PATH where it is needed."),
            self.tr("Train a small network on the GPU and on the CPU, and show the numbers."),
        ]
        intro = QLabel(self.tr("This wizard will:"), self)
        body = QLabel("<ol>" + "".join(f"<li>{step}</li>" for step in steps) + "</ol>", self)
        body.setWordWrap(True)
        body.setObjectName("welcome_steps")
        body.setAccessibleName(self.tr("What the wizard will do"))
        promise_text = self.tr(
            "Nothing on this machine changes until you have seen exactly what will change and "
            "agreed. Every change can be undone."
        )
        if preview:
            promise_text = self.tr(
                "You are looking at a saved system report: the wizard only shows what it would "
                "do. Nothing on this machine will change."
            )
        promise = QLabel(promise_text, self)
        promise.setWordWrap(True)
        promise.setObjectName("welcome_promise")
        content = QWidget(self)
        layout = QVBoxLayout(content)
        layout.addWidget(intro)
        layout.addWidget(body)
        layout.addWidget(promise)
        layout.addStretch(1)
        # Long translations at a large text size scroll rather than get cut off (issue 37). Out
        # of the Tab order: the page has nothing to fill in, so QWizard leaves the focus on Next
        # (it gives a page's first focusable child the focus), and the text fits the smallest
        # window in every shipped language; the wheel still scrolls it.
        self.scroll_area = fill_with_scroll_area(self, content, "welcome_scroll")
        self.scroll_area.setFocusPolicy(Qt.FocusPolicy.NoFocus)
