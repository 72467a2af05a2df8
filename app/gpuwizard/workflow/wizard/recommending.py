"""The Choose page's work off the UI thread: the releases to offer, and the recommender's answer as a value."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Final

from gpuwizard.core.compat.plan import Recommendation, WishError
from gpuwizard.core.compat.tables import newest_first
from gpuwizard.core.envs.request import SetupRequest
from gpuwizard.core.machine.system_report import SystemReport
from gpuwizard.workflow.compat.data import load_compat
from gpuwizard.workflow.compat.releases import known_index
from gpuwizard.workflow.envs.prepare import SetupRefused

#: How old the last look at the indexes may be before the Choose page looks again.
REFRESH_AFTER_S: Final = 24 * 3600


def refresh_if_due(now: datetime | None = None) -> bool:
    """Refresh the data and the release lists when the last check is older than a day (a worker).

    True when a refresh ran (the page then recommends again). ``GPUWIZARD_NO_REFRESH=1`` turns it
    off (labs that must not reach out; the tests). Failures are quiet: the data in use stays.
    """
    if os.environ.get("GPUWIZARD_NO_REFRESH") == "1":
        return False
    index = known_index()
    now = now or datetime.now(timezone.utc)
    if index is not None:
        try:
            age = (now - datetime.fromisoformat(index.checked_at)).total_seconds()
        except (ValueError, TypeError):
            age = REFRESH_AFTER_S
        if 0 <= age < REFRESH_AFTER_S:
            return False
    from gpuwizard.workflow.compat.refresh import refresh_compat  # noqa: PLC0415 - requests only here

    refresh_compat()
    return True


def release_lists() -> dict[str, list[str]]:
    """The releases the compatibility data knows, per framework, newest first (run on a worker)."""
    compat = load_compat()
    return {
        "pytorch": newest_first([row.version for row in compat.pytorch]),
        "tensorflow": newest_first([row.version for row in compat.tensorflow]),
    }


@dataclass(frozen=True)
class RecommendOutcome:
    """What one run of the recommender gave: a recommendation or one line saying why not.

    Attributes:
        generation: Which request this answers (older answers are dropped).
        choice: The choice it was asked for.
        recommendation: The answer, or None on failure.
        error: Why there is no answer (a refusal's message as is).
        unexpected: The failure was not a refusal (a bug, a broken data file).
    """

    generation: int
    choice: SetupRequest
    recommendation: Recommendation | None = None
    error: str | None = None
    unexpected: bool = False


def run_recommender(
    recommend: Callable[[SystemReport, SetupRequest], Recommendation],
    report: SystemReport,
    choice: SetupRequest,
    generation: int,
) -> RecommendOutcome:
    """Run ``recommend`` and turn any failure into a value (called on the worker thread)."""
    try:
        recommendation = recommend(report, choice)
    except (WishError, SetupRefused) as error:
        return RecommendOutcome(generation, choice, error=one_line(str(error)))
    except Exception as error:  # noqa: BLE001 - every failure reaches the page as one line
        return RecommendOutcome(
            generation, choice, error=one_line(f"{type(error).__name__}: {error}"), unexpected=True
        )
    return RecommendOutcome(generation, choice, recommendation=recommendation)


def one_line(text: str) -> str:
    """The first non-empty line of ``text``, stripped."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[0] if lines else text.strip()
