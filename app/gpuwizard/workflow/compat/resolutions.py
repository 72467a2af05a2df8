"""What the installer resolves a plan's range pins to today, kept for the day (issue 36).

A plan whose build leaves CUDA libraries to a range (``tensorflow[and-cuda]==2.21.0`` requires
``nvidia-cudnn-cu12>=9.3.0.75,<10``) is judged by what an install gets: pip's dry resolution of
the plan's framework requirement (:func:`gpuwizard.adapters.resolution.dry_resolve`), asked
when the person allows the network for it (``recommend --refresh``) and kept in the home for the
day (``cache/compat/resolutions.json``). Without one, the compatibility data's recorded
resolution stands, with its date. Every failure is a note; the plan then stays on the data's.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Final

from gpuwizard.adapters.resolution import dry_resolve
from gpuwizard.adapters.runner import Runner, SubprocessRunner
from gpuwizard.core.compat.library_pins import ResolvedToday
from gpuwizard.core.compat.plan import Plan
from gpuwizard.core.compat.resolution import Resolution, ResolutionFailed
from gpuwizard.workflow.state.resolution_cache import load_resolution, resolution_key, store_resolution

#: Measured here (2026-11-29, warm pip cache): 26 s for tensorflow[and-cuda]==2.21.0, 44 packages.
RESOLVE_TIMEOUT_S: Final = 180.0
#: The builds that leave libraries to a range are Linux ones (natively, or inside WSL 2).
_PLATFORM: Final = "linux"


def plan_resolutions(
    plan: Plan, *, ask: bool, runner: Runner | None = None, today: str | None = None
) -> tuple[ResolvedToday | None, list[str]]:
    """What ``plan``'s ranges resolve to today (asked, or kept from earlier today), and notes.

    ``ask``: whether pip may be run (it reads the package index); else only today's kept answer.
    None when the plan leaves nothing to a range, or no answer of today is at hand.
    """
    if not plan.resolved or not plan.requirements:
        return None, []
    today = today or datetime.now(timezone.utc).date().isoformat()
    # The framework's own requirement: the plan's pins are what the answer decides.
    requirements = (plan.requirements[0],)
    key = resolution_key(requirements, plan.python, _PLATFORM, plan.index_url, ())
    found = load_resolution(key, today)
    notes: list[str] = []
    if found is None and ask:
        try:
            found = dry_resolve(
                requirements,
                python=plan.python,
                platform=_PLATFORM,
                index_url=plan.index_url,
                runner=runner or SubprocessRunner(),
                timeout_s=RESOLVE_TIMEOUT_S,
                today=today,
            )
        except ResolutionFailed as error:
            notes.append(f"Could not ask pip what {requirements[0]} installs today ({error}).")
            return None, notes
        store_resolution(key, found)
    if found is None:
        return None, notes
    return {plan.framework_version: _versions(plan, found)}, notes


def _versions(plan: Plan, found: Resolution) -> dict[str, tuple[str, str, str]]:
    return {
        library.package: (version, found.resolved_on, found.source)
        for library in plan.resolved
        if (version := found.version_of(library.package))
    }
