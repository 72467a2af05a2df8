"""The health checks of ``verify`` and their report: what each check says, and its JSON.

``verify`` compares the machine as it is now with the last good state (core/health/snapshot.py):
the NVIDIA driver, the GPUs (machine_drift.py), each environment (interpreter, framework import,
build, constraints pin, GPUs the framework sees, a short live test: env_drift.py; the NVIDIA
wheels and the DLL start-up hook: wheel_drift.py) and the PATH folders the wizard added
(path_drift.py). Each comparison is a :class:`HealthCheck` that is
``ok``, ``changed`` (different, but nothing is broken: an upgraded driver), ``broken`` (with a
finding that says what to do) or ``skipped`` (nothing to compare with).

Everything here and in those modules is pure: the workflow gathers the facts
(workflow/health/verify.py) and these functions judge them, so every rule is tested on data.
This module holds what they all share: the check, the report of one run, and the
``gpuwizard.health/1`` JSON.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from gpuwizard.core.findings.model import Finding, finding_from_json, finding_to_json

HEALTH_SCHEMA: Final = "gpuwizard.health/1"

Status = Literal["ok", "changed", "broken", "skipped"]
STATUSES: Final = ("ok", "changed", "broken", "skipped")
KINDS: Final = (
    "driver", "gpus", "interpreter", "import", "build", "constraints", "devices", "cuda_wheels", "test", "path",
)  # fmt: skip


@dataclass(frozen=True)
class HealthCheck:
    r"""One comparison of the machine now with the last good state.

    Attributes:
        check_id: Stable identifier (``driver``, ``env:demo:build``, ``path:user:C:\CUDA\bin``).
        kind: One of :data:`KINDS`.
        subject: What was checked: the environment, the GPUs or the folder ("" for the driver).
        status: ``ok``, ``changed`` (different, nothing broken), ``broken`` or ``skipped``.
        before: The recorded value, as text; None when nothing was recorded.
        after: The value now, as text; None when it could not be found out.
        finding: What changed or broke and what to do; None when ok or skipped.
        note: Why a check was skipped, or a short remark.
    """

    check_id: str
    kind: str
    subject: str
    status: Status
    before: str | None = None
    after: str | None = None
    finding: Finding | None = None
    note: str | None = None


@dataclass(frozen=True)
class HealthReport:
    """Every check of one ``verify`` run, in the order they were made."""

    checks: tuple[HealthCheck, ...]
    snapshot_recorded: str | None = None

    @property
    def healthy(self) -> bool:
        """True when no check is broken (changed is fine: an upgrade that still works)."""
        return not any(check.status == "broken" for check in self.checks)

    @property
    def drifted(self) -> tuple[HealthCheck, ...]:
        """The checks whose value moved since the last good state (changed or broken)."""
        return tuple(
            check
            for check in self.checks
            if check.status in ("changed", "broken") and check.before != check.after
        )

    @property
    def broken(self) -> tuple[HealthCheck, ...]:
        """The broken checks."""
        return tuple(check for check in self.checks if check.status == "broken")


def check_to_json(check: HealthCheck) -> dict[str, Any]:
    """One check as JSON data (also the body of a ``check`` event)."""
    return {
        "check_id": check.check_id,
        "kind": check.kind,
        "subject": check.subject,
        "status": check.status,
        "before": check.before,
        "after": check.after,
        "finding": finding_to_json(check.finding) if check.finding is not None else None,
        "note": check.note,
    }


def health_to_json(report: HealthReport) -> dict[str, Any]:
    """The report as ``gpuwizard.health/1`` JSON data."""
    counts = dict.fromkeys(STATUSES, 0)
    for check in report.checks:
        counts[check.status] += 1
    return {
        "schema": HEALTH_SCHEMA,
        "healthy": report.healthy,
        "snapshot_recorded": report.snapshot_recorded,
        "counts": counts,
        "drifted": [check.check_id for check in report.drifted],
        "checks": [check_to_json(check) for check in report.checks],
    }


def health_from_json(data: Mapping[str, Any]) -> HealthReport:
    """The report again from :func:`health_to_json` data (or a verify ``result`` event); tolerant.

    Checks of unknown status count as skipped; a finding keeps its code, texts and parameters.
    """
    checks = []
    for item in data.get("checks") or ():
        if not isinstance(item, Mapping):
            continue
        status = item.get("status")
        finding = item.get("finding")
        checks.append(
            HealthCheck(
                check_id=str(item.get("check_id") or ""),
                kind=str(item.get("kind") or ""),
                subject=str(item.get("subject") or ""),
                status=status if status in STATUSES else "skipped",
                before=text_or_none(item.get("before")),
                after=text_or_none(item.get("after")),
                finding=finding_from_json(finding) if isinstance(finding, Mapping) else None,
                note=text_or_none(item.get("note")),
            )
        )
    return HealthReport(tuple(checks), text_or_none(data.get("snapshot_recorded")))


def text_or_none(value: object) -> str | None:
    """``value`` as text, or None when it is None.

    Args:
        value: A value from JSON data or a probe's answer.

    Returns:
        ``str(value)``, or None.
    """
    return None if value is None else str(value)
