"""The support report shows each command of a fix as a block of its own (issue 41, point 5).

A hint that names commands (``gpuwizard verify``'s drift findings: reinstall, recreate) ran them
together in one sentence. In the HTML report each is a ``<pre class="command">`` of its own, on
one line that never breaks inside a word, selected whole by one click (the page has no scripts).
"""

from __future__ import annotations

from html.parser import HTMLParser
from importlib import resources
from typing import Any

from gpuwizard.core.findings.fix_parts import fix_commands, fix_parts
from gpuwizard.core.findings.model import finding_to_json, make_finding
from gpuwizard.core.support.html import TEMPLATE_NAMES, render_html
from gpuwizard.core.support.view import support_view

REINSTALL = (
    "/e/demo/bin/python -m pip install torch==2.13.0+cpu --index-url https://download.pytorch.org/whl/cpu"
)
RECREATE = "gpuwizard env create demo --framework pytorch --version 2.13.0 --replace"


class Commands(HTMLParser):
    """The text of every ``<pre class="command">`` in a page, and the CSS of its ``<style>``."""

    def __init__(self) -> None:
        super().__init__()
        self.commands: list[str] = []
        self.css = ""
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "pre" and ("class", "command") in attrs:
            self._in = "pre"
            self.commands.append("")
        elif tag == "style":
            self._in = "style"

    def handle_endtag(self, tag: str) -> None:
        if tag in ("pre", "style"):
            self._in = None

    def handle_data(self, data: str) -> None:
        if self._in == "pre":
            self.commands[-1] += data
        elif self._in == "style":
            self.css += data


def document(findings: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "schema": "gpuwizard.support/1",
        "generated": "2026-05-02T08:15:30+00:00",
        "wizard_version": "0.9.0",
        "redaction": {"rules": ["Home folders read ~."], "counts": {}},
        "sources": {"system": "file", "registry": None, "probed": True},
        "system": {"os": {"family": "linux"}, "findings": []},
        "variables": {},
        "path": {
            "registry": None,
            "scopes": [],
            "findings": findings,
            "journal": [],
            "process": {"entries": []},
        },
        "environments": [],
        "last_good": None,
        "tests": [],
    }


def templates() -> dict[str, str]:
    folder = resources.files("gpuwizard.resources").joinpath("report")
    return {name: folder.joinpath(name).read_text(encoding="utf-8") for name in TEMPLATE_NAMES}


def test_a_hint_is_cut_at_its_commands_and_keeps_its_sentences():
    finding = make_finding(
        "DRIFT_FRAMEWORK_MISSING", env="demo", framework="torch", reinstall=REINSTALL, recreate=RECREATE
    )
    assert [(part.text, part.command) for part in fix_parts(finding.hint, finding.params)] == [
        ("Reinstall the recorded build:", False),
        (REINSTALL, True),
        ("Or recreate the environment:", False),
        (RECREATE, True),
    ]
    # A command in quotes loses them; a hint without commands is one part.
    assert fix_commands("Run 'gpuwizard verify' now.", {"command": "gpuwizard verify"}) == [
        "gpuwizard verify"
    ]
    assert [
        part.text for part in fix_parts("Run 'gpuwizard verify' now.", {"command": "gpuwizard verify"})
    ] == [
        "Run",
        "gpuwizard verify",
        "now.",
    ]
    assert len(fix_parts(finding.message, {})) == 1


def test_each_command_of_a_fix_is_a_block_of_its_own_in_the_html_report():
    finding = make_finding(
        "DRIFT_FRAMEWORK_MISSING", env="demo", framework="torch", reinstall=REINSTALL, recreate=RECREATE
    )
    without = make_finding("PATH_ENTRY_MISSING", scope="user", entries="C:\\gone")
    page = render_html(
        support_view(document([finding_to_json(finding), finding_to_json(without)])), templates()
    )
    parsed = Commands()
    parsed.feed(page)
    assert parsed.commands == [REINSTALL, RECREATE]
    assert "Reinstall the recorded build:" in page and "Or recreate the environment:" in page
    # One line, never broken inside a word (it scrolls sideways), selected whole by a click.
    rule = parsed.css[parsed.css.index(".finding pre.command {") :].split("}", 1)[0]
    assert "white-space: pre;" in rule and "overflow-x: auto" in rule and "user-select: all" in rule
    # A hint without commands stays one sentence.
    assert "<strong>What to do:</strong> They do no harm" in page


def test_each_command_of_a_fix_is_a_code_block_of_its_own_in_the_markdown_report():
    from markdown_it import MarkdownIt

    from gpuwizard.core.support.markdown import render_markdown

    finding = make_finding(
        "DRIFT_FRAMEWORK_MISSING", env="demo", framework="torch", reinstall=REINSTALL, recreate=RECREATE
    )
    without = make_finding("PATH_ENTRY_MISSING", scope="user", entries="C:\\gone")
    text = render_markdown(support_view(document([finding_to_json(finding), finding_to_json(without)])))
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    # Each command is a code block of its own, inside the finding's list item, exactly as typed
    # (the report's other code blocks, its raw parts, stand outside any list).
    in_items = [token.content for token in tokens if token.type == "fence" and token.level > 0]
    assert in_items == [REINSTALL + "\n", RECREATE + "\n"]
    assert "What to do: Reinstall the recorded build:" in text and "Or recreate the environment:" in text
    # A hint without commands stays one line.
    assert "What to do: They do no harm" in text
    # A catalog sentence's `quoted` command is code, not literal backticks.
    probe = make_finding("TEST_PROBE_FAILED", error="exit 1")
    text = render_markdown(support_view(document([finding_to_json(probe)])))
    codes = [
        child.content
        for token in MarkdownIt("commonmark").parse(text)
        for child in token.children or ()
        if child.type == "code_inline"
    ]
    assert "gpuwizard diagnose" in codes
