"""The environments this wizard made, kept in ``GPUWIZARD_HOME/environments.json``.

Written atomically (a temporary file renamed over the old one), so an interrupted write never
leaves a half file, and every change holds the file's lock (:mod:`.locks`) from reading to
writing, so two wizards never lose each other's entries; an unreadable file is kept aside as
``.bad`` rather than overwritten.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final

from gpuwizard.workflow.state.files import write_json_atomically
from gpuwizard.workflow.state.home import wizard_home
from gpuwizard.workflow.state.locks import locked

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

    def to_json(self) -> dict[str, Any]:
        """As JSON: the contract's six fields first."""
        data = asdict(self)
        data["variables"] = dict(self.variables)
        return data


def registry_path() -> Path:
    """Where the list lives."""
    return wizard_home() / REGISTRY_NAME


def load_records() -> list[EnvRecord]:
    """Every recorded environment, in the order made."""
    path = registry_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, ValueError):
        path.replace(path.with_suffix(".json.bad"))
        return []
    known = set(EnvRecord.__dataclass_fields__)
    records = []
    for item in data.get("environments", []) if isinstance(data, dict) else []:
        if isinstance(item, dict) and {"name", "path"} <= item.keys():
            values = {key: value for key, value in item.items() if key in known}
            values.setdefault("python", "")
            values.setdefault("manager", "venv")
            values.setdefault("framework", "")
            values.setdefault("framework_version", "")
            records.append(EnvRecord(**values))
    return records


def find_record(name: str) -> EnvRecord | None:
    """The environment called ``name``, if the wizard made one."""
    return next((record for record in load_records() if record.name == name), None)


def save_record(record: EnvRecord) -> None:
    """Add ``record``, replacing one of the same name (under the file's lock: no update is lost)."""
    with locked(registry_path()):
        records = [existing for existing in load_records() if existing.name != record.name]
        _write([*records, record])


def drop_record(name: str) -> None:
    """Forget the environment called ``name`` (under the file's lock)."""
    with locked(registry_path()):
        _write([record for record in load_records() if record.name != name])


def _write(records: list[EnvRecord]) -> None:
    write_json_atomically(
        registry_path(), {"schema": REGISTRY_SCHEMA, "environments": [record.to_json() for record in records]}
    )
