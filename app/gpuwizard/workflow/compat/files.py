"""The compatibility data's files: their names, and the checks a set of them must pass.

Shared by what loads the data (``data.py``: the bundled files, and the cached copy through
``bundle.py``) and what checks a published bundle (``bundle.py``), so that ``bundle.py`` needs
nothing of ``data.py``: the imports go one way, data -> bundle -> files.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any, Final

from gpuwizard.core.json_input import parse_json

#: The data files, by the key compat_from_json expects.
COMPAT_FILES: Final = ("tensorflow", "pytorch", "cuda", "gpus", "policies", "accelerators", "sources")


def schema_for(name: str) -> dict[str, Any]:
    """The JSON Schema of one compatibility file."""
    text = (
        resources.files("gpuwizard.resources")
        .joinpath(f"schemas/compat-{name}.schema.json")
        .read_text("utf-8")
    )
    schema: dict[str, Any] = parse_json(text, source=f"compat-{name}.schema.json")
    return schema


def validation_errors(files: Mapping[str, Any], names: Sequence[str] = COMPAT_FILES) -> list[str]:
    """Every problem with a set of compatibility files; empty when they can be used.

    Schema errors, missing files, and source keys that ``sources.json`` does not define.

    ``names`` limits the schema check to some files (the source keys are always checked).
    """
    import jsonschema  # noqa: PLC0415 - tests and refreshes only

    errors: list[str] = []
    for name in names:
        data = files.get(name)
        if data is None:
            errors.append(f"{name}.json: missing")
            continue
        validator = jsonschema.Draft202012Validator(schema_for(name))
        for error in validator.iter_errors(data):
            where = "/".join(str(part) for part in error.absolute_path) or "(top level)"
            errors.append(f"{name}.json: at {where}: {error.message.splitlines()[0]}")
    known = set((files.get("sources") or {}).get("sources", {}))
    for name in COMPAT_FILES[:-1]:
        for key in sorted(_source_keys(files.get(name))):
            if key not in known:
                errors.append(f"{name}.json: source {key!r} is not defined in sources.json")
    return errors


def _source_keys(data: object) -> set[str]:
    """Every key named in a ``source`` list anywhere in ``data``."""
    found: set[str] = set()
    if isinstance(data, dict):
        for key, value in data.items():
            if key == "source" and isinstance(value, list):
                found.update(str(item) for item in value)
            else:
                found |= _source_keys(value)
    elif isinstance(data, list):
        for item in data:
            found |= _source_keys(item)
    return found
