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
from typing import TYPE_CHECKING, Any

from gpuwizard.adapters.registry import EnvironmentStore
from gpuwizard.core.compat.plan import Recommendation, parse_wish
from gpuwizard.core.compat.recommend import recommend
from gpuwizard.core.machine.system_report import SystemReport
from gpuwizard.workflow.compat.data import load_compat
from gpuwizard.workflow.envs.create import EnvRequest, EnvTools, create_environment, prepare_environment
from gpuwizard.workflow.state.env_registry import find_record, load_records

if TYPE_CHECKING:
    from gpuwizard.core.health.checks import HealthReport

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
        replace: Replace an environment of the same name (put back if the new one fails).
    """

    framework: str
    version: str | None = None
    manager: str | None = None
    gpus: str | None = None
    env_name: str = "gpu"
    jupyter: bool = False
    find_links: Path | None = None
    offline: bool = False
    replace: bool = False


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
    from gpuwizard.workflow.envs.create import EnvRequestError  # noqa: PLC0415

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
        replace=choice.replace,
    )
    try:
        prepared = prepare_environment(request, tools)
    except EnvRequestError as error:
        result = {"event": "result", "status": "failed", "name": choice.env_name, "error": str(error)}
        on_event(result)
        return result
    return create_environment(prepared, tools, on_event, cancel)


def verify(
    detect: Callable[[], SystemReport],
    path_store: EnvironmentStore | None,
    on_event: EventSink,
    cancel: threading.Event,
) -> HealthReport:
    """Check the setup against the last good state, with a short test (``gpuwizard verify``)."""
    from gpuwizard.adapters.runner import StreamingSubprocessRunner  # noqa: PLC0415
    from gpuwizard.workflow.health.verify import verify_setup  # noqa: PLC0415

    return verify_setup(
        detect=detect,
        runner=StreamingSubprocessRunner(),
        on_event=on_event,
        cancel=cancel,
        path_store=path_store,
    )


def previous_setup_exists() -> bool:
    """True once the wizard has made an environment or recorded a good state (then it opens on Verify)."""
    from gpuwizard.workflow.health.good_state import load_last_good  # noqa: PLC0415

    return bool(load_records()) or load_last_good() is not None


def repair_choice(env_name: str) -> Choice | None:
    """The choice that makes environment ``env_name`` again as it was made (None: unknown name)."""
    record = find_record(env_name)
    if record is None:
        return None
    release = ".".join(record.framework_version.split(".")[:2]) or None
    return Choice(
        framework=record.framework or "pytorch",
        version=release,
        manager=record.manager if record.manager in ("venv", "conda") else None,
        gpus=record.variables.get("CUDA_VISIBLE_DEVICES"),
        env_name=record.name,
        jupyter=record.jupyter_kernel is not None,
        replace=True,
    )


def environment_names() -> list[str]:
    """The names of the environments the wizard made (an environment of such a name is replaced)."""
    return [record.name for record in load_records()]
