"""The typed events of ``verify``, and the words for its phases and checks.

``gpuwizard verify --json``, the wizard's Verify page and a recorded verification see the same
stream (docs/architecture.md, "The command-line and JSON contract"): ``phase`` (a step begins:
:data:`VerifyPhaseName`), ``check`` (a check decided, sent as soon as it is, so a UI can show a
line per check as it arrives), the short live test's own events wrapped with ``source``
``test`` and ``env`` (:class:`~gpuwizard.core.events.Wrapped`), and last the ``result``: the
``gpuwizard.health/1`` report with the run's ``status``. Their JSON is derived from the fields
(:mod:`gpuwizard.core.events`), in the order they are declared here.

:data:`PHASE_WORDS` says each phase, and :data:`CHECK_WORDS` what each kind of check looks at,
in a few English words marked for translation (contexts :data:`PHASE_CONTEXT` and
:data:`CHECK_CONTEXT`); ``{subject}`` is the environment, the registry or the folder.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import ClassVar, Final, Literal

from gpuwizard.core.events import Event, EventKinds, json_field
from gpuwizard.core.health.checks import (
    HEALTH_SCHEMA,
    STATUSES,
    CheckKind,
    HealthCheck,
    HealthReport,
)
from gpuwizard.core.livetest.events import LIVE_TEST_EVENTS
from gpuwizard.core.texts import QT_TRANSLATE_NOOP, TranslatableText

__all__ = [
    "CHECK_CONTEXT",
    "CHECK_WORDS",
    "NOTHING_TO_VERIFY",
    "PHASE_CONTEXT",
    "PHASE_WORDS",
    "VERIFY_EVENTS",
    "VerifyCheck",
    "VerifyPhase",
    "VerifyPhaseName",
    "VerifyResult",
    "VerifyStatus",
    "check_title",
    "phase_line",
]

#: The steps of a verification: the machine, then per environment its checks and its short
#: live test, then the PATH folders the wizard added.
VerifyPhaseName = Literal["detect", "environment", "test", "path"]

#: How a verification ended: every check ran, the person stopped it, or the wizard had set
#: nothing up here to verify.
VerifyStatus = Literal["complete", "cancelled", "nothing_to_verify"]
NOTHING_TO_VERIFY: Final = "nothing_to_verify"

#: The translation context of :data:`PHASE_WORDS`.
PHASE_CONTEXT: Final = "verify_phases"
#: The translation context of :data:`CHECK_WORDS`.
CHECK_CONTEXT: Final = "verify_checks"

#: Each phase as a line under way; ``{subject}`` is the environment.
PHASE_WORDS: Final[Mapping[VerifyPhaseName, str]] = MappingProxyType(
    {
        "detect": QT_TRANSLATE_NOOP("verify_phases", "Looking at this machine…"),
        "environment": QT_TRANSLATE_NOOP("verify_phases", "Checking the environment {subject}…"),
        "test": QT_TRANSLATE_NOOP("verify_phases", "Training a small network in {subject}…"),
        "path": QT_TRANSLATE_NOOP("verify_phases", "Checking PATH…"),
    }
)

#: What each kind of check looks at, as a title; ``{subject}`` is the environment or the folder.
CHECK_WORDS: Final[Mapping[CheckKind, str]] = MappingProxyType(
    {
        "driver": QT_TRANSLATE_NOOP("verify_checks", "NVIDIA driver"),
        "gpus": QT_TRANSLATE_NOOP("verify_checks", "GPUs"),
        "interpreter": QT_TRANSLATE_NOOP("verify_checks", "{subject}: Python runs"),
        "import": QT_TRANSLATE_NOOP("verify_checks", "{subject}: the framework imports"),
        "build": QT_TRANSLATE_NOOP("verify_checks", "{subject}: framework build"),
        "constraints": QT_TRANSLATE_NOOP("verify_checks", "{subject}: the build is pinned"),
        "devices": QT_TRANSLATE_NOOP("verify_checks", "{subject}: GPUs the framework sees"),
        "cuda_wheels": QT_TRANSLATE_NOOP("verify_checks", "{subject}: NVIDIA CUDA wheels"),
        "test": QT_TRANSLATE_NOOP("verify_checks", "{subject}: short training test"),
        "path": QT_TRANSLATE_NOOP("verify_checks", "PATH: {subject}"),
    }
)


def phase_line(phase: str, subject: str) -> TranslatableText:
    """The phase under way, in words ("Checking the environment demo…"); a newer one by its name.

    >>> str(phase_line("environment", "demo")), str(phase_line("newer", "x"))
    ('Checking the environment demo…', 'newer')
    """
    words = PHASE_WORDS.get(phase)  # type: ignore[call-overload]  # any name may come from a recording
    if words is None:
        return TranslatableText(PHASE_CONTEXT, "{phase}", phase=phase)
    return TranslatableText(PHASE_CONTEXT, words, subject=subject)


def check_title(kind: str, subject: str) -> TranslatableText:
    """What a check looked at, as a title ("demo: framework build"); a newer kind by its name.

    >>> str(check_title("build", "demo")), str(check_title("driver", "")), str(check_title("newer", "x"))
    ('demo: framework build', 'NVIDIA driver', 'newer')
    """
    words = CHECK_WORDS.get(kind)  # type: ignore[call-overload]  # any kind may come from a recording
    if words is None:
        return TranslatableText(CHECK_CONTEXT, "{kind}", kind=kind)
    return TranslatableText(CHECK_CONTEXT, words, subject=subject)


@dataclass(frozen=True, kw_only=True)
class VerifyPhase(Event):
    """A step begins: its name (:data:`VerifyPhaseName`, or a newer one read back), what it is about, and a line."""

    KIND: ClassVar[str] = "phase"

    phase: str
    subject: str = ""
    message: str = ""


@dataclass(frozen=True, kw_only=True)
class VerifyCheck(Event):
    """A check decided: the :class:`~gpuwizard.core.health.checks.HealthCheck`, sent as it is decided.

    Its fields are written in the event itself, where a ``check`` event has always had them.
    """

    KIND: ClassVar[str] = "check"

    check: HealthCheck = json_field(inline=True)

    @classmethod
    def of(cls, check: HealthCheck) -> VerifyCheck:
        """The event that says ``check``."""
        return cls(check=check)


@dataclass(frozen=True, kw_only=True)
class VerifyResult(Event):
    """The last event of a verification: the ``gpuwizard.health/1`` report and how the run ended.

    Attributes:
        schema: ``gpuwizard.health/1``.
        healthy: No check is broken, and every check ran (false when cancelled, and when there
            was nothing to verify: nothing was found working).
        snapshot_recorded: When the last good state compared with was recorded (None: none yet).
        counts: How many checks ended in each status.
        drifted: The checks whose value moved since the last good state.
        checks: Every check, in the order made.
        status: :data:`VerifyStatus`.
        saved: The last good state this run wrote (None: none was).
        message: What a run with nothing to verify says; written only then.
        save_error: Why a healthy run's new last good state could not be saved; written only then.
        prometheus_file: The metrics file this run wrote (``verify --prometheus FILE``, its full
            path); written only then.
        prometheus_error: Why that file could not be written (one line); written only then.
    """

    KIND: ClassVar[str] = "result"

    schema: str = HEALTH_SCHEMA
    healthy: bool = False
    snapshot_recorded: str | None = None
    counts: Mapping[str, int] = field(default_factory=dict)
    drifted: tuple[str, ...] = ()
    checks: tuple[HealthCheck, ...] = ()
    status: str = "complete"  # a VerifyStatus, or a newer one read back
    saved: str | None = None
    message: str | None = json_field(default=None, omit_none=True)
    save_error: str | None = json_field(default=None, omit_none=True)
    prometheus_file: str | None = json_field(default=None, omit_none=True)
    prometheus_error: str | None = json_field(default=None, omit_none=True)

    @classmethod
    def of(
        cls,
        report: HealthReport,
        status: VerifyStatus,
        *,
        saved: str | None = None,
        message: str | None = None,
        save_error: str | None = None,
    ) -> VerifyResult:
        """The result of a run that ended as ``status`` with ``report``.

        Only a complete run can be healthy: a cancelled one did not check everything, and where
        there was nothing to verify nothing was found working.
        """
        counts: dict[str, int] = dict.fromkeys(STATUSES, 0)
        for check in report.checks:
            counts[check.status] += 1
        return cls(
            healthy=report.healthy and status == "complete",
            snapshot_recorded=report.snapshot_recorded,
            counts=counts,
            drifted=tuple(check.check_id for check in report.drifted),
            checks=report.checks,
            status=status,
            saved=saved,
            message=message,
            save_error=save_error,
        )

    @property
    def report(self) -> HealthReport:
        """The checks as a report (what ``verify_setup`` returns)."""
        return HealthReport(self.checks, self.snapshot_recorded)


#: The kinds of a verification's stream (``verify --json``, a recorded run); the short live
#: test's events are carried under ``source`` ``test``.
VERIFY_EVENTS: Final = EventKinds(
    "verify", [VerifyPhase, VerifyCheck, VerifyResult], nested={"test": LIVE_TEST_EVENTS}
)
