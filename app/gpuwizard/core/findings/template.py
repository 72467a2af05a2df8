"""A finding's template (its severity and English texts), and what the catalog parts share.

Apart from :mod:`gpuwizard.core.findings.catalog` so that the catalog parts (catalog_machine,
catalog_plan, catalog_logs, catalog_drift) can build their templates while catalog.py imports
them all to merge them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal


@dataclass(frozen=True)
class FindingTemplate:
    """The severity and English templates of one finding code (or code variant)."""

    severity: Literal["error", "warning", "info"]
    message: str
    hint: str


# The translation context of every template of the catalog parts; lupdate reads only literal
# contexts, so each QT_TRANSLATE_NOOP call spells it out.
CONTEXT: Final = "findings"

NVIDIA_DRIVER_DOWNLOAD: Final = "https://www.nvidia.com/Download/index.aspx"
