"""The catalog of finding texts, keyed by stable code.

The codes are part of the contract (docs/architecture.md, "The command-line and JSON contract").

Every template is wrapped in ``QT_TRANSLATE_NOOP("findings", ...)`` so that Qt's ``lupdate``
extracts it; the GUI translates the template and fills the same ``{placeholders}``. The core
cannot import Qt, so the marker is a no-op of the same name (gpuwizard.core.texts).

A code may have variants (``"NO_NVIDIA_DRIVER:wsl"``): the same code and severity, with a
message and hint that fit the situation. Facts quoted in hints cite their source.

The templates live in parts by theme (the machine, plans, failures, drift, package indexes); this module merges
them into :data:`CATALOG`, and refuses a code that two parts define.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from gpuwizard.core.findings.catalog_architectures import ARCHITECTURE_TEMPLATES
from gpuwizard.core.findings.catalog_containers import CONTAINERS_TEMPLATES
from gpuwizard.core.findings.catalog_devices import DEVICES_TEMPLATES
from gpuwizard.core.findings.catalog_drift import DRIFT_TEMPLATES
from gpuwizard.core.findings.catalog_extensions import EXTENSIONS_TEMPLATES
from gpuwizard.core.findings.catalog_logs import FAILURE_TEMPLATES
from gpuwizard.core.findings.catalog_machine import MACHINE_TEMPLATES
from gpuwizard.core.findings.catalog_network import NETWORK_TEMPLATES
from gpuwizard.core.findings.catalog_plan import PLAN_TEMPLATES
from gpuwizard.core.findings.catalog_platform import PLATFORM_TEMPLATES
from gpuwizard.core.findings.catalog_python import PYTHON_TEMPLATES
from gpuwizard.core.findings.catalog_runtimes import RUNTIMES_TEMPLATES
from gpuwizard.core.findings.catalog_torch import TORCH_TEMPLATES
from gpuwizard.core.findings.template import FindingTemplate


class DuplicateFindingCode(ValueError):
    """Two parts of the catalog define the same code (or code variant)."""


def merge_parts(parts: Sequence[Mapping[str, FindingTemplate]]) -> dict[str, FindingTemplate]:
    """One catalog of the ``parts``, in their order.

    Raises:
        DuplicateFindingCode: A code is in more than one part.

    >>> template = FindingTemplate("info", "message", "hint")
    >>> sorted(merge_parts([{"A": template}, {"B": template}]))
    ['A', 'B']
    >>> merge_parts([{"A": template}, {"A": template}])
    Traceback (most recent call last):
    ...
    gpuwizard.core.findings.catalog.DuplicateFindingCode: finding code 'A' is defined in two catalog parts
    """
    merged: dict[str, FindingTemplate] = {}
    for part in parts:
        for code, template in part.items():
            if code in merged:
                raise DuplicateFindingCode(f"finding code {code!r} is defined in two catalog parts")
            merged[code] = template
    return merged


#: The parts of the catalog, by theme.
CATALOG_PARTS: Final[tuple[Mapping[str, FindingTemplate], ...]] = (
    MACHINE_TEMPLATES,
    PLAN_TEMPLATES,
    FAILURE_TEMPLATES,
    ARCHITECTURE_TEMPLATES,
    DRIFT_TEMPLATES,
    NETWORK_TEMPLATES,
    PLATFORM_TEMPLATES,
    TORCH_TEMPLATES,
    CONTAINERS_TEMPLATES,
    RUNTIMES_TEMPLATES,
    DEVICES_TEMPLATES,
    PYTHON_TEMPLATES,
    EXTENSIONS_TEMPLATES,
)

#: Every finding template, by code (and ``CODE:variant``).
CATALOG: Final[dict[str, FindingTemplate]] = merge_parts(CATALOG_PARTS)
