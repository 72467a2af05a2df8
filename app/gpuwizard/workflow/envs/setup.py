"""The one way an environment is set up: request -> recommendation -> checked plan -> environment.

``gpuwizard env create``, the wizard's Choose and Install pages and ``gpuwizard apply`` all go
through here, so they recommend, check and make the same way:

1. :func:`recommend_for`: the recommendation for the request's wish on this machine;
2. :func:`plan_setup`: everything checked that can be checked (name, folder, tool,
   interpreter, free space), nothing changed; a refusal is bad input (exit code 2);
3. :func:`run_setup`: the environment made, with events, and cleaned up after a failure.

:func:`setup_environment` is steps 2 and 3 as the wizard's Install page runs them, where a
refusal is shown like any other failure.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from gpuwizard.adapters.runner import StreamingRunner, StreamingSubprocessRunner
from gpuwizard.core.compat.plan import Recommendation, WishError
from gpuwizard.core.compat.recommend import recommend
from gpuwizard.core.envs.request import SetupRequest
from gpuwizard.core.envs.result import EnvResult
from gpuwizard.core.machine.system_report import SystemReport
from gpuwizard.workflow.compat.data import load_compat
from gpuwizard.workflow.compat.releases import known_index
from gpuwizard.workflow.envs.create import EventSink, create_environment
from gpuwizard.workflow.envs.prepare import EnvTools, PreparedEnv, SetupRefused, prepare_environment
from gpuwizard.workflow.envs.recovery import recover_interrupted

__all__ = ["Setup", "SetupRefused", "plan_setup", "recommend_for", "run_setup", "setup_environment"]


@dataclass(frozen=True)
class Setup:
    """A request checked against this machine: what will be made, and with what."""

    report: SystemReport
    request: SetupRequest
    recommendation: Recommendation
    prepared: PreparedEnv
    tools: EnvTools


def recommend_for(report: SystemReport, request: SetupRequest) -> Recommendation:
    """The recommendation for ``request`` on the machine ``report`` describes.

    Raises:
        SetupRefused: The request names something that does not exist (a release, a Python).
    """
    try:
        return recommend(report, request.wish, load_compat(), known_index())
    except WishError as error:
        raise SetupRefused(str(error)) from None


def plan_setup(
    report: SystemReport,
    request: SetupRequest,
    *,
    recommendation: Recommendation | None = None,
    runner: StreamingRunner | None = None,
) -> Setup:
    """Check ``request`` on this machine for its recommendation (made here when not given).

    Raises:
        SetupRefused: The request cannot be carried out here; nothing was changed.
    """
    # A creation of this name that a killed wizard left is settled first, or the half-made
    # folder it left would be refused as "not an environment" (the only change made here).
    recover_interrupted(only=request.name)
    chosen = recommendation if recommendation is not None else recommend_for(report, request)
    tools = EnvTools(
        runner=runner if runner is not None else StreamingSubprocessRunner(),
        interpreters=report.interpreters,
        managers=report.managers,
    )
    prepared = prepare_environment(request, chosen.plan, tools)
    return Setup(report, request, chosen, prepared, tools)


def run_setup(setup: Setup, on_event: EventSink, cancel: threading.Event) -> EnvResult:
    """Make the environment ``setup`` planned; the result's ``result`` event is the last one sent.

    Raises:
        SetupRefused: Another gpuwizard is making the same name or folder; nothing was changed.
    """
    return create_environment(setup.prepared, setup.tools, on_event, cancel)


def setup_environment(
    report: SystemReport,
    recommendation: Recommendation,
    request: SetupRequest,
    on_event: EventSink,
    cancel: threading.Event,
) -> EnvResult:
    """The wizard's Install step: plan and make; a refusal comes back as a ``failed`` result with its reason."""
    try:
        setup = plan_setup(report, request, recommendation=recommendation)
        return run_setup(setup, on_event, cancel)
    except SetupRefused as error:
        result = EnvResult(status="failed", name=request.name, error=str(error))
        on_event(result.to_json())
        return result
