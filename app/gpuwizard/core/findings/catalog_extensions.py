"""Finding texts of what :mod:`gpuwizard.core.findings.diagnosis_extensions` recognises.

One part of :data:`gpuwizard.core.findings.catalog.CATALOG`, which merges the parts. The real
logs behind each text are listed in tests/fixtures/recorded/diagnose/SOURCES.md.
"""

from __future__ import annotations

from typing import Final

from gpuwizard.core.findings.template import FindingTemplate

#: The templates, by code (and ``CODE:variant``).
EXTENSIONS_TEMPLATES: Final[dict[str, FindingTemplate]] = {}
