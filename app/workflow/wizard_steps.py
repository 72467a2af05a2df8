"""The wizard's long steps as plain functions: recommend, create the environment, run the test.

The pages call these on workers (never on the UI thread) through the session, so tests can
swap any of them for a fake backend; the functions here are the real ones, the same steps
``gpuwizard recommend``, ``env create`` and ``test`` run.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpuwizard.core.plan import Recommendation, parse_wish
from gpuwizard.core.recommend import recommend
from gpuwizard.core.system_report import SystemReport
from gpuwizard.workflow.compat_data import load_compat
from gpuwizard.workflow.environments import EnvRequest, EnvTools, create_environment, prepare_environment
from gpuwizard.workflow.live_test import LiveTestTarget, run_live_test

EventSink = Callable[[dict[str, Any]], None]


@dataclass(frozen=True)
class Choice:
    """What the person chose on the Choose page.

    Attributes:
        framework: ``pytorch`` or ``tensorflow``.
        version: A framework release (``2.10``), or None for the recommended one.
        manager: ``venv`` or ``conda``, or None for the plan's.
        gpus: ``CUDA_VISIBLE_DEVICES`` for the environment (``0,1``), or None for all.
        env_name: The environment's name.
        jupyter: Register a Jupyter kernel.
        find_links: A folder of wheels to install from (offline installs, tests).
        offline: Use only ``find_links``.
    """

    framework: str
    version: str | None = None
    manager: str | None = None
    gpus: str | None = None
    env_name: str = "gpu"
    jupyter: bool = False
    find_links: Path | None = None
    offline: bool = False


def recommend_for(report: SystemReport, choice: Choice) -> Recommendation:
    """The recommendation for ``choice`` on this machine (pure but for reading the compat data).

    Raises:
        WishError: The choice names something unknown (a version that does not exist).
    """
    wish = parse_wish(choice.framework, choice.version, None, choice.manager)
    return recommend(report, wish, load_compat())


def create_env(
    report: SystemReport,
    recommendation: Recommendation,
    choice: Choice,
    on_event: EventSink,
    cancel: threading.Event,
) -> dict[str, Any]:
    """Create the environment of the recommended plan; returns the ``result`` event.

    A request that cannot be carried out (a bad name, no space) comes back as a ``failed``
    result with the reason, like a failure part-way, so the page has one thing to show.
    """
    from gpuwizard.adapters.runner import StreamingSubprocessRunner  # noqa: PLC0415
    from gpuwizard.workflow.environments import EnvRequestError  # noqa: PLC0415

    tools = EnvTools(
        runner=StreamingSubprocessRunner(), interpreters=report.interpreters, managers=report.managers
    )
    request = EnvRequest(
        name=choice.env_name,
        plan=recommendation.plan,
        manager=choice.manager,
        find_links=choice.find_links,
        offline=choice.offline,
        jupyter=choice.jupyter,
        gpus=choice.gpus,
    )
    try:
        prepared = prepare_environment(request, tools)
    except EnvRequestError as error:
        result = {"event": "result", "status": "failed", "name": choice.env_name, "error": str(error)}
        on_event(result)
        return result
    return create_environment(prepared, tools, on_event, cancel)


def run_test(
    report: SystemReport, target: LiveTestTarget, on_event: EventSink, cancel: threading.Event
) -> dict[str, Any]:
    """Run the live training test in the environment; returns the ``result`` event."""
    from gpuwizard.adapters.nvml import UsageSampler  # noqa: PLC0415
    from gpuwizard.adapters.runner import StreamingSubprocessRunner  # noqa: PLC0415

    has_gpu = bool(report.nvidia_gpus) and report.driver is not None
    return run_live_test(
        target,
        runner=StreamingSubprocessRunner(),
        on_event=on_event,
        cancel=cancel,
        machine_has_nvidia_gpu=has_gpu,
        sampler=UsageSampler() if has_gpu else None,
    )
