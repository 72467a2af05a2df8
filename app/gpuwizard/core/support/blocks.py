"""The blocks a support report is laid out in, and the helpers that make them from the document.

A :class:`SupportView` is a summary, findings and sections made of a few kinds of blocks
(paragraphs, facts, tables, findings, raw text, subsections); the HTML and Markdown renderers
(core/support/html.py, core/support/markdown.py and the template in resources/report/) read
only these types. They live apart from the view that builds them (core/support/view.py and the
section builders beside it) so that the renderers depend on the shape alone. The helpers below
turn the document's loose values (anything JSON holds, or nothing) into block text, for every
section builder alike.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import ClassVar, TypeAlias

from gpuwizard.core.findings.fix_parts import FixPart, fix_parts
from gpuwizard.core.findings.model import SEVERITY_ORDER

# --- the blocks -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Mark:
    """A short badge beside a value (``missing folder``, ``CUDA 12.1``), with its level."""

    text: str
    level: str = "info"


@dataclass(frozen=True)
class Cell:
    """One table cell: text, shown as code (paths, versions) or not, with badges."""

    text: str
    code: bool = False
    level: str = ""
    marks: tuple[Mark, ...] = ()


@dataclass(frozen=True)
class Fact:
    """A labelled value (``Driver: 546.33``)."""

    label: str
    value: str
    code: bool = False
    level: str = ""
    marks: tuple[Mark, ...] = ()


@dataclass(frozen=True)
class FindingItem:
    """A finding with where it was found (``detection``, ``PATH``, ``environment demo``...).

    ``parts``: the hint cut at the commands it names (each a block of its own in the page);
    empty when it names none.
    """

    severity: str
    code: str
    message: str
    hint: str
    where: str
    parts: tuple[FixPart, ...] = ()


@dataclass(frozen=True)
class Paragraph:
    """A sentence or two."""

    kind: ClassVar[str] = "paragraph"
    text: str
    level: str = ""


@dataclass(frozen=True)
class Facts:
    """Labelled values."""

    kind: ClassVar[str] = "facts"
    facts: tuple[Fact, ...]


@dataclass(frozen=True)
class Table:
    """A table with a caption; ``empty`` is said instead when it has no rows."""

    kind: ClassVar[str] = "table"
    caption: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]
    empty: str = "none"


@dataclass(frozen=True)
class Findings:
    """Findings, errors first."""

    kind: ClassVar[str] = "findings"
    items: tuple[FindingItem, ...]
    empty: str = "No findings."


@dataclass(frozen=True)
class Raw:
    """Long raw text (JSON, tracebacks), folded away unless asked for."""

    kind: ClassVar[str] = "raw"
    summary: str
    text: str


@dataclass(frozen=True)
class Section:
    """A heading and its blocks (a section may hold subsections)."""

    kind: ClassVar[str] = "section"
    anchor: str
    title: str
    blocks: tuple[Block, ...]
    level: int = 2


Block: TypeAlias = "Paragraph | Facts | Table | Findings | Raw | Section"


@dataclass(frozen=True)
class Summary:
    """The box at the top: overall level, a headline, key facts and the finding counts."""

    level: str
    headline: str
    detail: str
    facts: tuple[Fact, ...]
    counts: Mapping[str, int]


@dataclass(frozen=True)
class SupportView:
    """Everything a renderer lays out, in order."""

    title: str
    generated: str
    wizard_version: str
    redaction: tuple[str, ...]
    summary: Summary
    findings: tuple[FindingItem, ...]
    sections: tuple[Section, ...]


# --- making blocks from the document's values ---------------------------------------------------


def value_text(value: object, missing: str = "—") -> str:
    """A value as text: ``missing`` for none or empty, ``yes``/``no`` for booleans.

    >>> value_text(None), value_text(""), value_text(True), value_text(3, "?"), value_text(None, "unknown")
    ('—', '—', 'yes', '3', 'unknown')
    """
    if value is None or value == "":
        return missing
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def code_cell(value: object, missing: str = "—") -> Cell:
    """A table cell shown as code (a path, a version), or as plain ``missing`` when there is none."""
    return Cell(value_text(value, missing), code=value not in (None, ""))


def raw_json(summary: str, data: object) -> Raw:
    """Data as indented JSON, folded away under ``summary``."""
    return Raw(summary, json.dumps(data, indent=2, ensure_ascii=False))


def when_text(value: object) -> str:
    """An ISO 8601 time as ``2026-05-01 10:00 UTC`` (as written when it is not one).

    >>> when_text("2026-05-01T10:00:07+00:00"), when_text("2026-05-01T12:00:00+02:00"), when_text(None)
    ('2026-05-01 10:00 UTC', '2026-05-01 10:00 UTC', '—')
    """
    if not value:
        return "—"
    try:
        moment = datetime.fromisoformat(str(value))
    except ValueError:
        return str(value)
    if moment.tzinfo is None:
        return moment.strftime("%Y-%m-%d %H:%M")
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def finding_items(findings: Iterable[object], where: str) -> list[FindingItem]:
    """The findings (JSON form) that are objects, as items found at ``where``; others are skipped."""
    items = []
    for finding in findings:
        if isinstance(finding, Mapping):
            hint = str(finding.get("hint") or "")
            params = finding.get("params")
            parts = fix_parts(hint, params if isinstance(params, Mapping) else {})
            items.append(
                FindingItem(
                    severity=str(finding.get("severity") or "info"),
                    code=str(finding.get("code") or ""),
                    message=str(finding.get("message") or ""),
                    hint=hint,
                    where=where,
                    parts=parts if any(part.command for part in parts) else (),
                )
            )
    return items


def by_severity(items: Iterable[FindingItem]) -> list[FindingItem]:
    """The items errors first, then warnings, then the rest (a stable sort: same order within each)."""
    return sorted(items, key=lambda item: SEVERITY_ORDER.get(item.severity, 3))
