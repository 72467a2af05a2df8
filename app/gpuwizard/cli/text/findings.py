"""Findings as text: the block under a report's or a plan's "Findings", a diagnosis, a bracketed note."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from gpuwizard.core.findings.model import Finding

_INDENT = "    "


def finding_lines(finding: Finding, width: int) -> list[str]:
    """``SEVERITY CODE``, the message, then ``-> hint``, wrapped to ``width`` under the heading."""
    lines = [f"  {finding.severity.upper():<8}{finding.code}"]
    lines += textwrap.wrap(finding.message, width, initial_indent=_INDENT, subsequent_indent=_INDENT)
    lines += textwrap.wrap(
        "-> " + finding.hint, width, initial_indent=_INDENT, subsequent_indent=_INDENT + "   "
    )
    return lines


def bracketed(severity: str, message: str, hint: str) -> str:
    """A finding said in passing, between progress lines: ``[severity] message`` and the hint."""
    return f"\n[{severity}] {message}\n{_INDENT}{hint}\n"


def render_diagnosis(findings: Sequence[Finding], width: int = 100) -> str:
    """The findings of ``gpuwizard diagnose`` as readable text, one block each, no wider than ``width``."""
    if not findings:
        return "No known problem recognised.\n"
    count = len(findings)
    lines = [f"Recognised {count} known problem{'s' if count != 1 else ''}:"]
    for finding in findings:
        lines += ["", f"{finding.severity.upper():<8} {finding.code}"]
        lines += textwrap.wrap(finding.message, width, initial_indent=_INDENT, subsequent_indent=_INDENT)
        evidence = finding.params.get("evidence")
        if evidence:
            lines.append(
                _INDENT + textwrap.shorten(f"seen: {evidence}", max(width - 4, 40), placeholder=" …")
            )
        lines += textwrap.wrap(
            "-> " + finding.hint, width, initial_indent=_INDENT, subsequent_indent=_INDENT + "   "
        )
    return "\n".join(lines) + "\n"
