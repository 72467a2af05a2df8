"""Finding texts for the GUI, translated through Qt.

The core keeps English templates marked for ``lupdate`` in the ``findings`` context
(gpuwizard.core.findings.catalog); here they are translated and refilled with the finding's
parameters. A finding whose code this version does not know (a report saved by a newer
wizard) is shown with the English text it carries.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from gpuwizard.core.findings.model import Finding, UnknownFindingCode, template_for
from gpuwizard.core.texts import TranslatableText


def finding_texts(finding: Finding) -> tuple[str, str]:
    """The translated ``(message, hint)`` of ``finding``."""
    try:
        template = template_for(finding.code, finding.params.get("variant"))
    except UnknownFindingCode:
        return finding.message, finding.hint
    params = dict(finding.params)
    # In messages the scope is a word of the sentence ("the user PATH"); hints keep it as typed,
    # since there it is a command-line value (--scope user).
    words = dict(params)
    if params.get("scope") in ("user", "system"):
        words["scope"] = _scope_word(params["scope"])
    try:
        message = QCoreApplication.translate("findings", template.message).format(**words)
        hint = QCoreApplication.translate("findings", template.hint).format(**params)
    except (KeyError, IndexError):
        return finding.message, finding.hint
    return message, hint


def _scope_word(scope: str) -> str:
    if scope == "system":
        return QCoreApplication.translate("findings", "system", "the PATH's scope, as in 'the system PATH'")
    return QCoreApplication.translate("findings", "user", "the PATH's scope, as in 'the user PATH'")


def severity_label(severity: str) -> str:
    """The translated word for a severity."""
    labels = {
        "error": QCoreApplication.translate("findings", "Problem"),
        "warning": QCoreApplication.translate("findings", "Warning"),
        "info": QCoreApplication.translate("findings", "Note"),
    }
    return labels.get(severity, severity)


def display_text(text: str) -> str:
    """``text`` translated, when the core made it from a template (a plan's reasons and notes)."""
    if not isinstance(text, TranslatableText):
        return text
    try:
        return QCoreApplication.translate(text.context, text.template).format(**text.params)
    except (KeyError, IndexError):
        return str(text)
