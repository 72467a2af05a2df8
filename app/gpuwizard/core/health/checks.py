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
This module holds what they all share: the check and the report of one run; verify's events,
the ``gpuwizard.health/1`` report among them, are core/health/events.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Literal

from gpuwizard.core.events import json_field
from gpuwizard.core.findings.model import Finding, finding_from_json

HEALTH_SCHEMA: Final = "gpuwizard.health/1"

Status = Literal["ok", "changed", "broken", "skipped"]
STATUSES: Final[tuple[Status, ...]] = ("ok", "changed", "broken", "skipped")
#: What a check compares (core/health/events.py says each in words).
CheckKind = Literal[
    "driver", "gpus", "interpreter", "import", "build", "constraints", "devices", "cuda_wheels", "test", "path",
]  # fmt: skip
KINDS: Final[tuple[CheckKind, ...]] = (
    "driver", "gpus", "interpreter", "import", "build", "constraints", "devices", "cuda_wheels", "test", "path",
)  # fmt: skip


def status_from_json(value: object) -> Status:
    """A check's status read back; an unknown one (a newer wizard's) counts as skipped."""
    return next((status for status in STATUSES if status == value), "skipped")


def finding_or_none(value: object) -> Finding | None:
    """A check's finding read back (tolerant of gaps); None unless it is an object."""
    return finding_from_json(value) if isinstance(value, Mapping) else None


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
    kind: str  # a CheckKind, or a newer one read back
    subject: str
    status: Status = json_field(read=status_from_json)
    before: str | None = None
    after: str | None = None
    finding: Finding | None = json_field(default=None, read=finding_or_none)
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
    def checked_something(self) -> bool:
        """True when at least one check compared something (not every one skipped).

        A run whose every check was skipped found nothing working: it is never recorded as the
        last good state, and is not said to work (issue 37, point 7).
        """
        return any(check.status != "skipped" for check in self.checks)

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


def text_or_none(value: object) -> str | None:
    """``value`` as text, or None when it is None.

    Args:
        value: A value from JSON data or a probe's answer.

    Returns:
        ``str(value)``, or None.
    """
    return None if value is None else str(value)
