"""Where an install's packages come from, as text: each index, why, and whether it answers.

Shown by ``gpuwizard env create`` before anything is made, and by ``gpuwizard recommend`` (without
the answers: recommend asks nothing). Presentation only; the decisions are
:mod:`gpuwizard.core.envs.package_sources` and :mod:`gpuwizard.core.envs.index_reach`.
"""

from __future__ import annotations

import textwrap

from gpuwizard.cli.text.findings import finding_lines
from gpuwizard.core.envs.index_reach import IndexStatus, SourcesCheck, failure_words
from gpuwizard.core.envs.package_sources import PlanSources, index_reason


def source_lines(
    sources: PlanSources, width: int = 100, *, statuses: tuple[IndexStatus, ...] = ()
) -> list[str]:
    """``Packages from`` and one line per index (with its answer when ``statuses`` has one)."""
    if sources.offline:
        return [f"  Packages from  only the folder {sources.find_links}: nothing is downloaded"]
    answers = {status.index: status for status in statuses}
    lines = []
    for number, index in enumerate(sources.indexes):
        label = "Packages from" if number == 0 else ""
        status = answers.get(index)
        said = ""
        if status is not None and status.answer is not None:
            said = " - answers" if status.reached else f" - CANNOT BE REACHED: {failure_words(status)}"
        lines += textwrap.wrap(
            f"{index.shown} ({index_reason(index)}){said}",
            width,
            initial_indent=f"  {label:<13}  ",
            subsequent_indent=" " * 17,
        )
    if sources.find_links is not None:
        lines.append(f"  {'and':<13}  the folder {sources.find_links}")
    return lines


def check_text(check: SourcesCheck, width: int = 100) -> str:
    """The check before an install: the indexes and their answers, then what to do about the others."""
    lines = [
        "== sources: the package indexes this install uses",
        *source_lines(check.sources, width, statuses=check.statuses),
    ]
    if not check.checked and not check.sources.offline:
        lines.append("  (not asked: GPUWIZARD_NO_INDEX_CHECK=1)")
    for finding in check.findings:
        lines += finding_lines(finding, width)
    return "\n".join(lines) + "\n"
