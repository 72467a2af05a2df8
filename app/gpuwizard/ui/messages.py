"""Finding texts for the GUI, translated through Qt.

The core keeps English templates marked for ``lupdate`` in the ``findings`` context
(gpuwizard.core.findings.catalog); here they are translated and refilled with the finding's
parameters. A finding whose code this version does not know (a report saved by a newer
wizard) is shown with the English text it carries.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QCoreApplication

from gpuwizard.core.envs.changes import Change
from gpuwizard.core.findings.catalog_context import context_hint
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
    # A diagnosis made for this machine opens the hint with the build to install here.
    return message, context_hint(finding.code, params, hint, _translate_finding_text)


def _translate_finding_text(text: str) -> str:
    return QCoreApplication.translate("findings", text)


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
    """``text`` translated, when the core made it from a template (a plan's lines, reasons and notes).

    Parameters that are sentences themselves are translated the same way.
    """
    if not isinstance(text, TranslatableText):
        return text
    params = {name: display_text(value) for name, value in text.params.items()}
    try:
        return QCoreApplication.translate(text.context, text.template).format(**params)
    except (KeyError, IndexError):
        return str(text)


def change_html(change: Change) -> str:
    """A change a plan makes, translated, as HTML: its code parameters and folders set apart."""
    text = change.text
    params = {
        name: f"<code>{escape(display_text(value))}</code>"
        if name in change.code
        else escape(display_text(value))
        for name, value in text.params.items()
    }
    try:
        body = escape(QCoreApplication.translate(text.context, text.template)).format(**params)
    except (KeyError, IndexError):
        body = escape(str(text))
    if change.strong:
        body = f"<b>{body}</b>"
    return body + "".join(f"<br>&nbsp;&nbsp;<code>{escape(item)}</code>" for item in change.items)
