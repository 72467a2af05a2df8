"""The one way an environment is set up: request -> recommendation -> checked plan -> environment.

``gpuwizard env create``, the wizard's Choose and Install pages and ``gpuwizard apply`` all go
through here, so they recommend, check and make the same way:

1. :func:`recommend_for`: the recommendation for the request's wish on this machine;
2. :func:`plan_setup`: everything checked that can be checked (name, folder, tool,
   interpreter, free space, an offline folder of wheels against the plan, and whether the
   package indexes the install will use answer), nothing changed; a refusal is bad input (exit
   code 2), an unreachable index :class:`SourcesUnreachable` with its explanation;
3. :func:`run_setup`: the environment made, with events, and cleaned up after a failure.

:func:`setup_environment` is steps 2 and 3 as the wizard's Install page runs them, where a
refusal is shown like any other failure.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace

from gpuwizard.adapters.runner import StreamingRunner, StreamingSubprocessRunner
from gpuwizard.adapters.wizard_program import wizard_command
from gpuwizard.core.compat.plan import Plan, Recommendation, WishError
from gpuwizard.core.compat.pypi_route import NoPypiBuild, pypi_build
from gpuwizard.core.compat.recommend import recommend
from gpuwizard.core.envs.gpu_selection import absent_gpus
from gpuwizard.core.envs.index_reach import EnvSources, SourcesCheck
from gpuwizard.core.envs.request import SetupRequest
from gpuwizard.core.envs.result import EnvResult
from gpuwizard.core.events import EventSink
from gpuwizard.core.machine.system_report import SystemReport
from gpuwizard.workflow.compat.data import load_compat
from gpuwizard.workflow.compat.releases import known_index
from gpuwizard.workflow.compat.resolutions import plan_resolutions
from gpuwizard.workflow.envs.create import create_environment
from gpuwizard.workflow.envs.index_check import ask_sources
from gpuwizard.workflow.envs.prepare import EnvTools, PreparedEnv, SetupRefused, prepare_environment
from gpuwizard.workflow.envs.recovery import recover_interrupted
from gpuwizard.workflow.envs.wheel_folder import FolderRefused, ReleasePlan, refuse_unusable_folder

__all__ = [
    "FolderRefused",
    "Setup",
    "SetupRefused",
    "SourcesUnreachable",
    "from_pypi",
    "plan_setup",
    "recommend_for",
    "run_setup",
    "setup_environment",
]


class SourcesUnreachable(SetupRefused):
    """A package index or the Python download the install needs does not answer; nothing was changed (exit 2).

    Its text is the one line naming the index (or the download) and the failure; :attr:`check`
    holds the rest: every index with its answer, and the findings with the ways forward.
    """

    def __init__(self, check: SourcesCheck) -> None:
        super().__init__(check.error_line())
        self.check = check


@dataclass(frozen=True)
class Setup:
    """A request checked against this machine: what will be made, and with what.

    ``sources_check`` is what the package indexes answered (None: not asked, offline or with
    ``check=False``).
    """

    report: SystemReport
    request: SetupRequest
    recommendation: Recommendation
    prepared: PreparedEnv
    tools: EnvTools
    sources_check: SourcesCheck | None = None


def recommend_for(report: SystemReport, request: SetupRequest) -> Recommendation:
    """The recommendation for ``request`` on the machine ``report`` describes.

    Raises:
        SetupRefused: The request names something that does not exist (a release, a Python, a
            GPU: `gpus = [7]` on a one-GPU machine is refused, not planned).
    """
    absent = absent_gpus(request.gpus, report.gpus) if request.gpus is not None else None
    if absent is not None:
        raise SetupRefused(absent)
    try:
        compat, index = load_compat(), known_index()
        rec = recommend(report, request.wish, compat, index)
        # Today's answer of pip for the plan's range pins, where one was asked (recommend
        # --refresh): the environment gets the pins that answer calls for.
        resolutions, _ = plan_resolutions(rec.plan, ask=False)
        return recommend(report, request.wish, compat, index, resolutions) if resolutions else rec
    except WishError as error:
        raise SetupRefused(str(error)) from None


def from_pypi(report: SystemReport, rec: Recommendation) -> Recommendation:
    """``rec`` with its plan's release from PyPI instead of PyTorch's index (``env create --from-pypi``).

    Raises:
        SetupRefused: PyPI's build is not a correct one for this machine (the one line says why).
    """
    try:
        build = pypi_build(rec, report, load_compat())
    except NoPypiBuild as error:
        raise SetupRefused(str(error)) from None
    others = tuple(plan for plan in rec.alternatives if plan != build.plan)
    return replace(rec, plan=build.plan, alternatives=others, driver_update_required=False)


def plan_setup(
    report: SystemReport,
    request: SetupRequest,
    *,
    recommendation: Recommendation | None = None,
    runner: StreamingRunner | None = None,
    tools: EnvTools | None = None,
    check: bool = True,
) -> Setup:
    """Check ``request`` on this machine for its recommendation (made here when not given).

    With ``check`` (and not offline), every package index the install will contact is asked
    whether it answers, before anything is made or downloaded (``tools.index_probe``), and so
    are the places of the Python build uv downloads when none of the plan's is installed here
    (``tools.download_probe``; issue 37, point 6).

    Raises:
        SourcesUnreachable: An index the packages need, or the place of the Python uv
            downloads, does not answer; nothing was changed.
        SetupRefused: The request cannot be carried out here; nothing was changed.
    """
    # A creation of this name that a killed wizard left is settled first, or the half-made
    # folder it left would be refused as "not an environment" (the only change made here).
    recover_interrupted(only=request.name)
    chosen = recommendation if recommendation is not None else recommend_for(report, request)
    if chosen.plan.target == "wsl2":
        # Made inside the distribution, not here (wsl_setup): never a Windows venv of Linux wheels.
        command = wizard_command().run(
            "env", "create", request.name, "--framework", chosen.plan.framework, "--wsl"
        )
        raise SetupRefused(f"this plan runs inside WSL 2: `{command}` makes it there")
    if tools is None:
        tools = EnvTools(
            runner=runner if runner is not None else StreamingSubprocessRunner(),
            interpreters=report.interpreters,
            managers=report.managers,
        )
    prepared = prepare_environment(request, chosen.plan, tools)
    # An offline folder that lacks the build or a dependency is refused before anything is made
    # (offering the release it holds, when the table knows it).
    refuse_unusable_folder(prepared, tools, release_planner(report, request))
    # Online, every index the install will contact is asked first: one that does not answer
    # is explained now, before anything is made or downloaded (issue 20).
    answered = check_sources(report, chosen, prepared, tools) if check else None
    if answered is not None and not answered.ok:
        raise SourcesUnreachable(answered)
    return Setup(report, request, chosen, prepared, tools, answered)


def release_planner(report: SystemReport, request: SetupRequest) -> ReleasePlan:
    """The plan the request would get on this machine for another release (None: no such release).

    What a refused folder of wheels is offered from: ``env create`` here, the Choose page's check.
    """

    def plan(version: str) -> Plan | None:
        try:
            return recommend_for(report, replace(request, version=version)).plan
        except SetupRefused:
            return None

    return plan


def check_sources(
    report: SystemReport, rec: Recommendation, prepared: PreparedEnv, tools: EnvTools
) -> SourcesCheck | None:
    """Ask the indexes ``prepared`` will use, and the Python download if any (None offline: nothing to ask)."""
    sources = prepared.sources
    if sources is None or sources.offline:
        return None
    return ask_sources(
        report,
        rec,
        sources,
        name=prepared.request.name,
        probe=tools.index_probe,
        settings=tools.index_settings(),
        python=prepared.python_download,
        download_probe=tools.download_probe,
    )


def run_setup(setup: Setup, on_event: EventSink, cancel: threading.Event) -> EnvResult:
    """Make the environment ``setup`` planned; the result is the last event sent.

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
    """The wizard's Install step: plan and make; a refusal comes back as a ``failed`` result with its reason.

    An index that does not answer is said first by a ``sources`` event (:class:`EnvSources`:
    each index, what failed, the findings with the ways forward), which the Install page shows
    as cards.
    """
    try:
        if recommendation.plan.target == "wsl2":
            return _setup_in_wsl(report, recommendation, request, on_event, cancel)
        setup = plan_setup(report, request, recommendation=recommendation)
        return run_setup(setup, on_event, cancel)
    except SetupRefused as error:
        if isinstance(error, SourcesUnreachable):
            on_event(EnvSources.of(error.check))
        result = EnvResult(status="failed", name=request.name, error=str(error))
        on_event(result)
        return result


def _setup_in_wsl(
    report: SystemReport,
    recommendation: Recommendation,
    request: SetupRequest,
    on_event: EventSink,
    cancel: threading.Event,
) -> EnvResult:
    """The Install step of a ``wsl2`` plan: made inside its distribution (issue 39).

    Raises:
        SetupRefused: The distribution is not ready (WSL to install, a WSL 1 distribution...):
            the one line says what it takes.
    """
    from gpuwizard.adapters.wsl import distro_transport  # noqa: PLC0415 - the WSL route only
    from gpuwizard.workflow.envs.wsl_setup import plan_wsl_setup, run_wsl_setup  # noqa: PLC0415
    from gpuwizard.workflow.envs.wsl_uv import fetch_wsl_uv  # noqa: PLC0415

    setup = plan_wsl_setup(report, request, recommendation)
    return run_wsl_setup(
        setup, on_event, cancel, transport=distro_transport, uv=lambda arch: fetch_wsl_uv(arch).binary
    )
