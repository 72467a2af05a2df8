"""The environments this wizard made, kept in ``GPUWIZARD_HOME/environments.json``.

Written atomically (a temporary file renamed over the old one), so an interrupted write never
leaves a half file, and every change holds the file's lock (:mod:`.locks`) from reading to
writing, so two wizards never lose each other's entries; an unreadable file is kept aside as
``.bad`` rather than overwritten.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from gpuwizard.adapters.atomic_files import remove_stale_temporaries
from gpuwizard.adapters.file_locks import locked
from gpuwizard.core.events import value_from_json, value_to_json
from gpuwizard.workflow.state.damaged import DamagedFile, read_state_json, set_aside
from gpuwizard.workflow.state.files import write_json_atomically
from gpuwizard.workflow.state.home import wizard_home

REGISTRY_NAME: Final = "environments.json"
REGISTRY_SCHEMA: Final = "gpuwizard.environments/1"


@dataclass(frozen=True)
class EnvRecord:
    """One environment: the contract's fields, then the wizard's own.

    The contract: docs/architecture.md, "The command-line and JSON contract".
    """

    name: str
    path: str
    python: str
    manager: str
    framework: str
    framework_version: str
    framework_build: str = ""
    tool: str = ""
    python_version: str = ""
    created: str = ""
    constraints: str | None = None
    variables: Mapping[str, str] = field(default_factory=dict)
    jupyter_kernel: str | None = None
    log: str | None = None
    #: The environment's id, the same as in the marker in its folder (``workflow/envs/ownership.py``);
    #: empty for environments made before markers existed, which the wizard never deletes.
    id: str = ""
    #: The kind of GPU its plan named (``plan.device``: ``cuda``, ``rocm``, ``xpu``, ``mps``,
    #: ``cpu``); empty for environments made before it was recorded (the test then takes any).
    device: str = ""
    #: ``manager: wsl`` (issue 39): the WSL distribution it is in (``path`` and ``python`` are
    #: paths inside it), the wizard's folder there and that folder's marker id (removed with the
    #: last of the wizard's environments in the distribution); empty for others.
    distro: str = ""
    wsl_home: str = ""
    wsl_home_id: str = ""
    #: Where its packages came from, for the commands that reinstall into it or make it again
    #: (``verify``'s fixes): the folder of wheels given with ``--find-links`` (None: none), and
    #: whether it was made ``--offline``, from that folder only. Environments made before these
    #: were recorded read as made from the index.
    find_links: str | None = None
    offline: bool = False

    def to_json(self) -> dict[str, Any]:
        """As JSON: the contract's six fields first."""
        return value_to_json(self)


def registry_path() -> Path:
    """Where the list lives."""
    return wizard_home() / REGISTRY_NAME


def load_records() -> list[EnvRecord]:
    """Every recorded environment, in the order made.

    An unreadable or damaged file (not JSON, nested too deep, a key twice, an entry of the
    wrong shape) is moved aside as ``environments.json.bad``, with one line saying so
    (``damaged.py``), and counts as empty.
    """
    path = registry_path()
    try:
        data = read_state_json(path)
    except FileNotFoundError:
        return []
    except (OSError, DamagedFile) as error:
        set_aside(path, str(error), counts_as="no environments")
        return []
    problem = _records_problem(data)
    if problem is not None:
        set_aside(path, problem, counts_as="no environments")
        return []
    # Every entry was checked above: read by the fields, a missing one is empty (a manager: venv).
    return [value_from_json(EnvRecord, {"manager": "venv", **item}) for item in data.get("environments", [])]


_RECORD_TEXT: Final = (
    "name", "path", "python", "manager", "framework", "framework_version", "framework_build", "tool",
    "python_version", "created", "id", "device", "distro", "wsl_home", "wsl_home_id",
)  # fmt: skip
_RECORD_TEXT_OR_NULL: Final = ("constraints", "jupyter_kernel", "log", "find_links")
_RECORD_FLAGS: Final = ("offline",)


def _records_problem(data: object) -> str | None:
    """What makes ``data`` no list of environments (every entry checked before one is used), or None."""
    environments = data.get("environments", []) if isinstance(data, dict) else None
    if not isinstance(environments, list):
        return 'expected {"environments": [...]}'
    for number, item in enumerate(environments, 1):
        if not isinstance(item, dict) or not {"name", "path"} <= item.keys():
            return f"entry {number}: not an environment (it needs a name and a path)"
        wrong = [key for key in _RECORD_TEXT if key in item and not isinstance(item[key], str)]
        wrong += [key for key in _RECORD_TEXT_OR_NULL if not isinstance(item.get(key), (str, type(None)))]
        wrong += [key for key in _RECORD_FLAGS if key in item and not isinstance(item[key], bool)]
        variables = item.get("variables", {})
        if not isinstance(variables, dict) or not all(isinstance(v, str) for v in variables.values()):
            wrong.append("variables")
        if wrong:
            return f"entry {number}: {wrong[0]!r} has the wrong type"
    return None


def find_record(name: str) -> EnvRecord | None:
    """The environment called ``name``, if the wizard made one."""
    return next((record for record in load_records() if record.name == name), None)


def find_record_by_id(owner_id: str) -> EnvRecord | None:
    """The environment whose id is ``owner_id`` (never one without an id)."""
    if not owner_id:
        return None
    return next((record for record in load_records() if record.id == owner_id), None)


def save_record(record: EnvRecord) -> None:
    """Add ``record``, replacing one of the same name (under the file's lock: no update is lost)."""
    with locked(registry_path()):
        remove_stale_temporaries(registry_path())  # a killed writer's copy (it held this lock)
        records = [existing for existing in load_records() if existing.name != record.name]
        _write([*records, record])


def drop_record(name: str) -> None:
    """Forget the environment called ``name`` (under the file's lock)."""
    with locked(registry_path()):
        remove_stale_temporaries(registry_path())
        _write([record for record in load_records() if record.name != name])


def _write(records: list[EnvRecord]) -> None:
    write_json_atomically(
        registry_path(), {"schema": REGISTRY_SCHEMA, "environments": [record.to_json() for record in records]}
    )
