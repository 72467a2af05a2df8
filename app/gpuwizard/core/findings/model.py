"""Findings: what the wizard noticed, each with a stable code, a message and a hint.

A finding is data. The CLI prints the English text; the GUI translates the same templates
through Qt (the catalog marks them for ``lupdate``) and fills in the same parameters.

>>> f = make_finding("PYTHON_32BIT", executable="C:/Python38-32/python.exe")
>>> f.code, f.severity
('PYTHON_32BIT', 'error')
>>> "64-bit" in f.hint
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from gpuwizard.core.events import json_field, value_from_json, value_to_json
from gpuwizard.core.findings.catalog import CATALOG
from gpuwizard.core.findings.template import FindingTemplate

Severity = Literal["error", "warning", "info"]

SEVERITY_ORDER: Final[dict[str, int]] = {"error": 0, "warning": 1, "info": 2}


def _code(value: object) -> str:
    return str(value or "UNKNOWN")


def _severity(value: object) -> Severity:
    return "error" if value == "error" else "warning" if value == "warning" else "info"


@dataclass(frozen=True, kw_only=True)
class Finding:
    """One thing the wizard noticed.

    Attributes:
        code: Stable identifier (docs/architecture.md, "The command-line and JSON contract"); tests and
            scripts match on it.
        severity: ``error`` blocks GPU use, ``warning`` may cause trouble, ``info`` explains.
        message: What is the case, in English.
        hint: What to do about it, in English.
        params: The values filled into the templates, so a UI can translate and refill them.
    """

    code: str = json_field(read=_code)
    severity: Severity = json_field(read=_severity)
    message: str
    hint: str
    params: Mapping[str, str] = field(default_factory=dict)


class UnknownFindingCode(KeyError):
    """Raised for a code that has no template in the catalog (a programming error)."""


def template_for(code: str, variant: str | None = None) -> FindingTemplate:
    """Return the catalog template of ``code`` (in its ``variant``, if given).

    Raises:
        UnknownFindingCode: The code or the variant is not in the catalog.
    """
    key = f"{code}:{variant}" if variant else code
    try:
        return CATALOG[key]
    except KeyError:
        raise UnknownFindingCode(key) from None


def make_finding(code: str, *, variant: str | None = None, **params: object) -> Finding:
    """Build a finding from the catalog, filling the templates with ``params``.

    Every placeholder of the templates must be given; extra parameters are kept as data,
    and the variant, when given, is kept as the parameter ``variant``.

    Raises:
        UnknownFindingCode: The code or the variant is not in the catalog.
        KeyError: A placeholder of the template was not given.
    """
    template = template_for(code, variant)
    text_params = {name: _as_text(value) for name, value in params.items()}
    if variant:
        text_params["variant"] = variant
    return Finding(
        code=code,
        severity=template.severity,
        message=template.message.format(**text_params),
        hint=template.hint.format(**text_params),
        params=text_params,
    )


def finding_to_json(finding: Finding) -> dict[str, object]:
    """A finding as JSON data (the shape of every report's ``findings``): its fields, in order.

    >>> list(finding_to_json(make_finding("CPU_ONLY_BUILD")))
    ['code', 'severity', 'message', 'hint', 'params']
    """
    written: dict[str, object] = value_to_json(finding)
    return written


def finding_from_json(data: Mapping[str, Any]) -> Finding:
    """A finding from its JSON form (as :func:`finding_to_json` writes it); tolerant of gaps.

    >>> finding_from_json({"severity": "fatal"})
    Finding(code='UNKNOWN', severity='info', message='', hint='', params={})
    """
    return value_from_json(Finding, data)


def sort_findings(findings: list[Finding]) -> list[Finding]:
    """Errors first, then warnings, then information; stable within a severity."""
    return sorted(findings, key=lambda f: SEVERITY_ORDER[f.severity])


def _as_text(value: object) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(str(item) for item in value)
    return str(value)
