"""The Windows step of the WSL 2 route the wizard ran, kept until the route goes on (issue 39).

``GPUWIZARD_HOME/pending/wsl-route.json``: the distribution, the step (``install_wsl``,
``install_distro``, ``convert``) and when it ran. Installing WSL often ends with "restart
Windows", and after the restart detection cannot tell a pending installation from none
(``wsl.exe`` answers ``WSL_E_WSL_OPTIONAL_COMPONENT_REQUIRED`` either way): this record is how the
wizard knows it asked, says so, and goes on where it stopped once the distribution is ready.
Written atomically; a damaged file counts as none (and is set aside, named).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final

from gpuwizard.core.events import value_from_json, value_to_json
from gpuwizard.workflow.state.damaged import DamagedFile, read_state_json, set_aside
from gpuwizard.workflow.state.files import write_json_atomically
from gpuwizard.workflow.state.home import wizard_home

PENDING_SCHEMA: Final = "gpuwizard.wsl-route/1"


@dataclass(frozen=True)
class WslStepRun:
    """The Windows step the wizard ran for the route.

    Attributes:
        distro: The distribution the route goes to.
        step: ``install_wsl``, ``install_distro`` or ``convert``.
        ran_at: When (ISO 8601, UTC).
        exit_code: What ``wsl.exe`` returned.
    """

    distro: str
    step: str
    ran_at: str
    exit_code: int


def pending_path() -> Path:
    """Where the record lives."""
    return wizard_home() / "pending" / "wsl-route.json"


def load_wsl_step() -> WslStepRun | None:
    """The step the wizard ran and the route has not gone past yet; None when there is none."""
    path = pending_path()
    try:
        data = read_state_json(path)
    except (FileNotFoundError, PermissionError):
        return None
    except DamagedFile as error:
        set_aside(path, str(error), counts_as="no WSL step pending")
        return None
    if (
        not isinstance(data, dict)
        or not isinstance(data.get("distro"), str)
        or not isinstance(data.get("step"), str)
    ):
        set_aside(path, "not a WSL step record", counts_as="no WSL step pending")
        return None
    return value_from_json(WslStepRun, data)


def save_wsl_step(run: WslStepRun) -> None:
    """Record ``run`` (replacing an earlier one)."""
    write_json_atomically(pending_path(), {"schema": PENDING_SCHEMA, **value_to_json(run)})


def drop_wsl_step() -> None:
    """Forget the step: the route went past it."""
    pending_path().unlink(missing_ok=True)
