"""A diagnosis made for a machine reads in the reader's language (issue 22, point 2).

The machine's sentence ("For this machine (...), install ...") and what follows it are
templates of the catalog, translated through Qt like the finding's own texts; here a translator
that marks every text it is asked for shows that each part went through it.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, QTranslator
from PySide6.QtWidgets import QApplication

from gpuwizard.ui.messages import finding_texts
from gpuwizard.workflow.compat.data import load_compat
from gpuwizard.workflow.compat.diagnosis import diagnose_on_machine
from gpuwizard.workflow.machine.system_file import load_system_report

FIXTURES = Path(__file__).parents[1] / "fixtures"
NO_KERNEL = (
    FIXTURES / "recorded" / "diagnose" / "no-kernel-image_torch2.7.1-cu128-rtx2060_comfyui-10326_partial.txt"
)
DLL_LOG = "Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found\n"


class Marking(QTranslator):
    """Every text of the findings' context reads ``[source]``."""

    def translate(self, context: str, source: str, disambiguation: str | None = None, n: int = -1) -> str:
        return f"[{source}]" if context == "findings" else source

    def isEmpty(self) -> bool:  # noqa: N802 - Qt's name
        return False


def test_the_machines_sentence_and_the_rest_of_the_hint_are_translated(qapp: QApplication):
    pascal = load_system_report(FIXTURES / "reports" / "windows-gtx1080-531.79.json")
    [replaced], _ = diagnose_on_machine(
        NO_KERNEL.read_text(encoding="utf-8"), lambda: pascal, compat=load_compat
    )
    gtx1060 = load_system_report(FIXTURES / "reports" / "windows-gtx1060-566.36.json")
    [prepended], _ = diagnose_on_machine(DLL_LOG, lambda: gtx1060, compat=load_compat)
    # Without a translation, the GUI shows what the command line prints.
    assert finding_texts(replaced)[1] == replaced.hint
    assert finding_texts(prepended)[1] == prepended.hint
    marking = Marking(qapp)
    QCoreApplication.installTranslator(marking)
    try:
        _message, hint = finding_texts(replaced)
        # The machine's sentence, then the tail that replaces the generic advice: both translated.
        assert hint.startswith(
            "[For this machine (NVIDIA GeForce GTX 1080, compute capability 6.1, driver 531.79)"
        )
        assert "whl/cu126" in hint and "] [If the error comes from an extension" in hint
        assert "RTX 50" not in hint
        _message, hint = finding_texts(prepended)
        # Where the build is not the whole fix, the generic advice (translated) follows it.
        assert hint.startswith("[For this machine (NVIDIA GeForce GTX 1060 6GB")
        assert "] [Install CUDA 11" in hint
    finally:
        QCoreApplication.removeTranslator(marking)
