"""Findings as text: the block under a report's or a plan's "Findings", a diagnosis, a bracketed note."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from gpuwizard.core.findings.fix_parts import FixPart, fix_parts
from gpuwizard.core.findings.model import Finding
from gpuwizard.core.findings.unrecognised import UnrecognisedError
from gpuwizard.core.wizard_command import BY_NAME, WizardCommand

_INDENT = "    "


def finding_lines(finding: Finding, width: int) -> list[str]:
    """``SEVERITY CODE``, the message, then ``-> hint``, wrapped to ``width`` under the heading.

    A command the hint gives (``{command}``, ``{recreate}``...: :func:`fix_parts`) is a line of
    its own, further in and never wrapped, so that it is copied whole, without a period glued on.
    """
    lines = [f"  {finding.severity.upper():<8}{finding.code}"]
    lines += textwrap.wrap(finding.message, width, initial_indent=_INDENT, subsequent_indent=_INDENT)
    prefix = "-> "
    for part in fix_parts(finding.hint, finding.params) or (FixPart(finding.hint),):
        if part.command:
            lines.append(f"{_INDENT}      {part.text}")
        else:
            lines += textwrap.wrap(
                prefix + part.text, width, initial_indent=_INDENT, subsequent_indent=_INDENT + "   "
            )
        prefix = "   "
    return lines


def bracketed(severity: str, message: str, hint: str) -> str:
    """A finding said in passing, between progress lines: ``[severity] message`` and the hint."""
    return f"\n[{severity}] {message}\n{_INDENT}{hint}\n"


def render_diagnosis(
    findings: Sequence[Finding],
    width: int = 100,
    unrecognised: UnrecognisedError | None = None,
    wizard: WizardCommand = BY_NAME,
) -> str:
    """The findings of ``gpuwizard diagnose`` as readable text, one block each, no wider than ``width``.

    With no finding, the error the log holds (``unrecognised``) is quoted with the ways forward
    (``wizard``: how the person starts the wizard here, for the support report's command).
    """
    if not findings and unrecognised is not None:
        return render_unrecognised(unrecognised, width, wizard)
    if not findings:
        return "No known problem recognised.\n"
    lines = [_recognised(findings)]
    for finding in findings:
        lines += ["", f"{finding.severity.upper():<8} {finding.code}"]
        lines += textwrap.wrap(finding.message, width, initial_indent=_INDENT, subsequent_indent=_INDENT)
        evidence = finding.params.get("evidence")
        if evidence:
            # The whole quoted line (the diagnosis cut a long one around the match already),
            # wrapped, never cut: its end names what failed (the DLL, the package).
            lines += textwrap.wrap(
                f"seen: {evidence}",
                width,
                initial_indent=_INDENT,
                subsequent_indent=_INDENT + "      ",
                break_on_hyphens=False,  # a name (a package, a DLL) stays whole where it fits
            )
        lines += textwrap.wrap(
            "-> " + finding.hint, width, initial_indent=_INDENT, subsequent_indent=_INDENT + "   "
        )
    return "\n".join(lines) + "\n"


def _recognised(findings: Sequence[Finding]) -> str:
    """The heading: the problems (errors and warnings) and the notes, which need no fix."""
    problems = sum(finding.severity in ("error", "warning") for finding in findings)
    notes = len(findings) - problems
    said = [f"{problems} known problem{'s' if problems != 1 else ''}"] if problems else []
    said += [f"{notes} note{'s' if notes != 1 else ''}"] if notes else []
    heading = f"Recognised {' and '.join(said)}:"
    return heading if problems else f"{heading[:-1]}, no problem to fix:"


def render_unrecognised(error: UnrecognisedError, width: int = 100, wizard: WizardCommand = BY_NAME) -> str:
    """An error no finding explains: its lines as quoted, its component, and where to take it."""
    lines = ["Not recognised: the log ends in an error the wizard does not know yet:", ""]
    # The quoted lines stay whole (cut to a sane length before): they are what to search for.
    lines += [f"{_INDENT}{line}" for line in error.lines]
    if error.component:
        lines += ["", f"{_INDENT}from: {error.component}"]
    # Commands and links on lines of their own: a wrap would break them.
    lines += ["", f"{_INDENT}-> Attach a support report to your question:"]
    lines.append(f"{_INDENT}   {wizard.line('report --out report.html')}")
    if error.search_url:
        where = f"{error.component}'s issues" if error.project and error.component else "GitHub's issues"
        lines.append(f"{_INDENT}-> Search {where} for this error:")
        lines.append(f"{_INDENT}   {error.search_url}")
    return "\n".join(lines) + "\n"
