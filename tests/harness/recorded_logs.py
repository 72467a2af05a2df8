"""The real logs recorded for ``diagnose`` (tests/fixtures/recorded/diagnose), and what they give."""

from __future__ import annotations

from pathlib import Path
from typing import Final

from gpuwizard.core.findings.diagnosis import diagnose
from gpuwizard.core.findings.model import Finding

RECORDED: Final = Path(__file__).parents[1] / "fixtures" / "recorded"
DIAGNOSE: Final = RECORDED / "diagnose"


def recorded(name: str) -> str:
    """The text of the recorded log ``name``."""
    return (DIAGNOSE / name).read_text(encoding="utf-8")


def only(text: str) -> Finding:
    """The one finding ``text`` gives (the test fails when it gives another number)."""
    [finding] = diagnose(text)
    return finding


def codes(text: str) -> list[str]:
    """The codes of the findings ``text`` gives, in their order."""
    return [finding.code for finding in diagnose(text)]


def only_in(name: str, code: str | None = None) -> Finding:
    """The one finding the recorded log ``name`` gives, checked to be of ``code`` when given."""
    finding = only(recorded(name))
    assert code is None or finding.code == code, (name, finding.code)
    return finding
