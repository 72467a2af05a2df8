"""The catalog of finding texts, keyed by stable code.

The codes are part of the contract (docs/architecture.md, "The command-line and JSON contract").

The templates are data: ``resources/findings/<part>.json``, one file per theme (the machine,
plans, failures, drift, package indexes, ...), each described by
``resources/schemas/findings.schema.json``, with the sources of the facts its hints quote beside
each template. The same files hold the signatures ``diagnose`` finds the findings of logs with
(``"signatures"``, read by :func:`gpuwizard.core.findings.signature.load_signatures`). This module reads the parts once, at import, and merges them into :data:`CATALOG`,
refusing a code that two parts define.

A code may have variants (``"NO_NVIDIA_DRIVER:wsl"``): the same code and severity, with a
message and hint that fit the situation.

The GUI translates each template in the Qt context ``findings`` and fills the same
``{placeholders}``; ``tools/translations.py update`` hands the catalog's texts to ``lupdate``.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Final, Literal

from gpuwizard.core.findings.template import FindingTemplate

#: The parts of the catalog (``resources/findings/<part>.json``), in the order they are merged.
PART_NAMES: Final = (
    "machine",
    "plan",
    "gpus",
    "logs",
    "packages",
    "architectures",
    "drift",
    "network",
    "platform",
    "torch",
    "containers",
    "runtimes",
    "devices",
    "python",
    "extensions",
    "hosts",
    "toolchains",
    "serving",
    "kernel",
    "accelerators",
    "vendors",
    "wsl",
)

_SEVERITIES: Final[dict[object, Literal["error", "warning", "info"]]] = {
    "error": "error",
    "warning": "warning",
    "info": "info",
}


class DuplicateFindingCode(ValueError):
    """Two parts of the catalog define the same code (or code variant)."""


class CatalogPartError(ValueError):
    """A part of the catalog is not shaped as resources/schemas/findings.schema.json says."""


def parse_part(name: str, document: object) -> dict[str, FindingTemplate]:
    """The templates of the part ``name``, read from its JSON ``document``, in their order.

    Raises:
        CatalogPartError: The document lacks ``templates``, or a template its severity or texts.

    >>> parse_part("demo", {"templates": {"A": {"severity": "info", "message": "m", "hint": "h"}}})
    {'A': FindingTemplate(severity='info', message='m', hint='h')}
    >>> parse_part("demo", {"templates": {"A": {"severity": "fatal", "message": "m", "hint": "h"}}})
    Traceback (most recent call last):
    ...
    gpuwizard.core.findings.catalog.CatalogPartError: findings/demo.json, 'A': no severity, message and hint
    """
    # A part may hold only signatures (resources/findings/packages.json): its texts are elsewhere.
    fields = document if isinstance(document, dict) else {}
    templates = fields.get("templates", {} if "signatures" in fields else None)
    if not isinstance(templates, dict):
        raise CatalogPartError(f"findings/{name}.json has no 'templates' object")
    part: dict[str, FindingTemplate] = {}
    for code, entry in templates.items():
        fields = entry if isinstance(entry, dict) else {}
        severity = _SEVERITIES.get(fields.get("severity"))
        message, hint = fields.get("message"), fields.get("hint")
        if severity is None or not isinstance(message, str) or not isinstance(hint, str):
            raise CatalogPartError(f"findings/{name}.json, {code!r}: no severity, message and hint")
        part[code] = FindingTemplate(severity, message, hint)
    return part


@functools.cache
def part_document(name: str) -> object:
    """``resources/findings/<name>.json`` as read, once: its templates and its signatures both come from it."""
    source = resources.files("gpuwizard.resources").joinpath(f"findings/{name}.json")
    return json.loads(source.read_text(encoding="utf-8"))


def load_part(name: str) -> dict[str, FindingTemplate]:
    """The templates of ``resources/findings/<name>.json``, shipped in ``gpuwizard.resources``."""
    return parse_part(name, part_document(name))


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


#: The parts of the catalog, by theme, in the order of :data:`PART_NAMES`.
CATALOG_PARTS: Final[tuple[Mapping[str, FindingTemplate], ...]] = tuple(
    load_part(name) for name in PART_NAMES
)

#: Every finding template, by code (and ``CODE:variant``).
CATALOG: Final[dict[str, FindingTemplate]] = merge_parts(CATALOG_PARTS)
