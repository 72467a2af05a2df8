"""The wizard's steps that have no home of their own: verify, the earlier setup, repairing one.

The pages call the long steps on workers (never on the UI thread) through the session, so tests
can swap any of them for a fake backend. Recommending and making the environment are
:mod:`gpuwizard.workflow.envs.setup` (as ``gpuwizard env create`` does it), the live test is
:mod:`gpuwizard.workflow.livetest.run` (as ``gpuwizard test`` does it).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from gpuwizard.adapters.registry import EnvironmentStore
from gpuwizard.core.envs.request import SetupRequest
from gpuwizard.core.events import EventSink
from gpuwizard.core.machine.system_report import SystemReport
from gpuwizard.workflow.state.env_registry import find_record, load_records

if TYPE_CHECKING:
    from gpuwizard.core.health.checks import HealthReport


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


def repair_choice(env_name: str) -> SetupRequest | None:
    """The request that makes environment ``env_name`` again as it was made (None: unknown name)."""
    record = find_record(env_name)
    if record is None:
        return None
    release = ".".join(record.framework_version.split(".")[:2]) or None
    return SetupRequest(
        framework=record.framework or "pytorch",
        version=release,
        manager=record.manager if record.manager in ("venv", "conda") else None,
        gpus=record.variables.get("CUDA_VISIBLE_DEVICES"),
        name=record.name,
        jupyter=record.jupyter_kernel is not None,
        replace=True,
    )


def environment_names() -> list[str]:
    """The names of the environments the wizard made (an environment of such a name is replaced)."""
    return [record.name for record in load_records()]
