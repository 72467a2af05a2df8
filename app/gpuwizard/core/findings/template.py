"""A finding's template: its severity and English texts.

Apart from :mod:`gpuwizard.core.findings.catalog`, which loads the templates, so that a module can
name the type without loading the catalog.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class FindingTemplate:
    """The severity and English templates of one finding code (or code variant)."""

    severity: Literal["error", "warning", "info"]
    message: str
    hint: str
