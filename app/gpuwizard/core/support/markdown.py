r"""The support report as GitHub-flavoured Markdown, to paste into an issue (pure).

The same :class:`~gpuwizard.core.support.blocks.SupportView` as the HTML, laid out with GFM
tables (github.github.com/gfm, "Tables (extension)": a ``|`` inside a cell, even inside a code
span, is written ``\|``), and ``<details>`` for raw parts, which GitHub renders folded
(docs.github.com, "Organizing information with collapsed sections"). Every value from the
machine is escaped: Markdown's punctuation in text, backticks by a longer fence, and ``<``,
``>`` and ``&`` as HTML entities, so a path such as ``C:\Users\<user>`` reads as written.

>>> text_cell("a|b *c* <d>")
'a\\|b \\*c\\* &lt;d&gt;'
>>> code_span("x`y|z")
'`` x`y\\|z ``'
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from typing import Final

from gpuwizard.core.support.blocks import (
    Block,
    Cell,
    Fact,
    Facts,
    FindingItem,
    Findings,
    Mark,
    Paragraph,
    Raw,
    Section,
    SupportView,
    Table,
)

# Characters that start Markdown syntax inside a line: emphasis, code, links, tables and GFM's
# strikethrough (CommonMark "Backslash escapes": any ASCII punctuation may be escaped). `<`, `>`
# and `&` become entities instead, as raw HTML would. What only matters at the start of a line
# (list markers, headings) is escaped by :func:`line_start`.
_MARKDOWN_PUNCTUATION: Final = re.compile(r"([\\`*_\[\]|~])")
_LINE_START: Final = re.compile(r"^(\d+)([.)])|^([-+=#])")
_SEVERITY_WORDS: Final = {"error": "ERROR", "warning": "WARNING", "info": "NOTE"}
_LEVEL_SIGNS: Final = {"ok": "✅ ", "warning": "⚠️ ", "error": "❌ "}


def text_cell(text: str) -> str:
    """Plain text, escaped for a Markdown line or table cell (newlines become spaces)."""
    return _escaped(" ".join(text.split()))


def _escaped(text: str) -> str:
    return _MARKDOWN_PUNCTUATION.sub(r"\\\1", html.escape(text, quote=False))


def prose(text: str) -> str:
    r"""A finding's sentence: text escaped, its `quoted` commands as code spans (as the catalog writes them).

    >>> prose("Run `nvidia-smi` now, *then* wait.")
    'Run `nvidia-smi` now, \\*then\\* wait.'
    """
    pieces = re.split(r"`([^`]+)`", " ".join(text.split()))
    return "".join(code_span(piece) if odd else _escaped(piece) for odd, piece in _odd(pieces))


def _odd(pieces: Sequence[str]) -> list[tuple[bool, str]]:
    return [(index % 2 == 1, piece) for index, piece in enumerate(pieces) if piece]


def line_start(text: str) -> str:
    r"""Escaped text that begins a line: a leading ``1.``, ``-``, ``+``, ``=`` or ``#`` stays text.

    >>> line_start("1. first"), line_start("- item")
    ('1\\. first', '\\- item')
    """
    escaped = text_cell(text)
    return _LINE_START.sub(
        lambda m: f"{m.group(1)}\\{m.group(2)}" if m.group(1) else f"\\{m.group(3)}", escaped
    )


def code_span(text: str) -> str:
    """``text`` as a code span: fenced by more backticks than it holds, ``|`` escaped for tables."""
    one_line = " ".join(text.split())
    longest = max((len(run) for run in re.findall(r"`+", one_line)), default=0)
    fence = "`" * (longest + 1)
    padded = f" {one_line} " if longest or one_line.startswith("`") or one_line.endswith("`") else one_line
    return f"{fence}{padded.replace('|', chr(92) + '|')}{fence}"


def _value(text: str, code: bool, marks: Sequence[Mark]) -> str:
    shown = code_span(text) if code and text else text_cell(text)
    badges = " ".join(f"*{text_cell(mark.text)}*" for mark in marks)
    return " ".join(part for part in (shown, badges) if part)


def _fact(fact: Fact) -> str:
    sign = _LEVEL_SIGNS.get(fact.level, "")
    return f"- **{text_cell(fact.label)}:** {sign}{_value(fact.value, fact.code, fact.marks)}"


def _table(block: Table) -> list[str]:
    lines = [f"**{text_cell(block.caption)}**", ""]
    if not block.rows:
        return [*lines, f"_{text_cell(block.empty)}_", ""]
    lines.append("| " + " | ".join(text_cell(column) for column in block.columns) + " |")
    lines.append("|" + "|".join("---" for _ in block.columns) + "|")
    for row in block.rows:
        lines.append("| " + " | ".join(_cell(cell) for cell in row) + " |")
    return [*lines, ""]


def _cell(cell: Cell) -> str:
    sign = _LEVEL_SIGNS.get(cell.level, "")
    return sign + _value(cell.text, cell.code, cell.marks)


def _findings(items: Sequence[FindingItem], empty: str) -> list[str]:
    if not items:
        return [f"_{text_cell(empty)}_", ""]
    lines = []
    for item in items:
        head = f"- **{_SEVERITY_WORDS.get(item.severity, item.severity.upper())}** {code_span(item.code)}"
        lines.append(f"{head} ({text_cell(item.where)}): {prose(item.message)}")
        if item.parts:
            lines += _fix_lines(item)
        elif item.hint:
            lines.append(f"  What to do: {prose(item.hint)}")
    return [*lines, ""]


def _fix_lines(item: FindingItem) -> list[str]:
    """A fix that names commands: its sentences, and each command a fenced block of its own.

    Indented by two spaces, the list item's content column, so that GitHub keeps the blocks in
    the item (CommonMark "List items"); a block keeps the command on one line with a copy button.
    """
    lines: list[str] = []
    lead = "What to do: "
    for part in item.parts:
        if part.command:
            fence = _block_fence(part.text)
            lines += ["", f"  {fence}", f"  {part.text}", f"  {fence}", ""]
        else:
            lines.append(f"  {lead}{prose(part.text)}")
            lead = ""
    if lead:
        lines.insert(0, "  What to do:")
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _block_fence(text: str) -> str:
    """A code block's fence: three backticks, or more than the longest run in ``text``."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def _raw(block: Raw) -> list[str]:
    fence = _block_fence(block.text)
    return [
        "<details>",
        f"<summary>{html.escape(block.summary)}</summary>",
        "",
        fence,
        block.text,
        fence,
        "",
        "</details>",
        "",
    ]


def _block(block: Block) -> list[str]:
    if isinstance(block, Section):
        return _section(block)
    if isinstance(block, Paragraph):
        sign = _LEVEL_SIGNS.get(block.level, "")
        return [sign + (text_cell(block.text) if sign else line_start(block.text)), ""]
    if isinstance(block, Facts):
        return [*(_fact(fact) for fact in block.facts), ""]
    if isinstance(block, Table):
        return _table(block)
    if isinstance(block, Findings):
        return _findings(block.items, block.empty)
    return _raw(block)


def _section(section: Section) -> list[str]:
    lines = ["#" * section.level + " " + text_cell(section.title), ""]
    for block in section.blocks:
        lines += _block(block)
    return lines


def _count(number: int, word: str) -> str:
    return f"{number} {word}" + ("" if number == 1 else "s")


def render_markdown(view: SupportView) -> str:
    """The report as GitHub-flavoured Markdown."""
    summary = view.summary
    counts = summary.counts
    lines = [
        f"# {text_cell(view.title)}",
        "",
        f"Made {text_cell(view.generated)} by gpuwizard {text_cell(view.wizard_version)} (`gpuwizard report`).",
        "",
        "## At a glance",
        "",
        f"**{_LEVEL_SIGNS.get(summary.level, '')}{text_cell(summary.headline)}** {text_cell(summary.detail)}",
        "",
        " · ".join(
            _count(counts.get(key, 0), word)
            for key, word in (("error", "error"), ("warning", "warning"), ("info", "note"))
        ),
        "",
        *(_fact(fact) for fact in summary.facts),
        "",
        f"> **Redacted for sharing.** {text_cell(view.redaction[0])}",
        *(f"> - {text_cell(rule)}" for rule in view.redaction[1:]),
        "",
        "## Findings",
        "",
        *_findings(view.findings, "Nothing was found that needs attention."),
    ]
    for section in view.sections:
        lines += _section(section)
    return "\n".join(lines).rstrip("\n") + "\n"
