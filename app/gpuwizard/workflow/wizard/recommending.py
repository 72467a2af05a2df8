"""The Choose page's work off the UI thread: the releases to offer, and the recommender's answer as a value."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gpuwizard.core.compat.plan import Recommendation, WishError
from gpuwizard.core.compat.tables import newest_first
from gpuwizard.core.envs.request import SetupRequest
from gpuwizard.core.machine.system_report import SystemReport
from gpuwizard.workflow.compat.data import load_compat
from gpuwizard.workflow.envs.prepare import SetupRefused


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
