"""Loading the compatibility tables: bundled in the package, or a refreshed copy from the cache.

The bundled files are checked against their schemas by the tests, so loading them needs no
validation (and stays fast: under 0.5 s offline, docs/architecture.md, "Performance budgets");
data that arrives from outside (``--refresh``) is verified and validated before it is cached
(``bundle.py``), and the cached copy's signature is verified again each time it is loaded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any, Final, Literal

from gpuwizard.core.compat.tables import CompatData, compat_from_json
from gpuwizard.core.json_input import parse_json

#: The data files, by the key compat_from_json expects.
COMPAT_FILES: Final = ("tensorflow", "pytorch", "cuda", "gpus", "policies", "sources")


def bundled_files() -> dict[str, dict[str, Any]]:
    """The compatibility files shipped in the package, parsed."""
    folder = resources.files("gpuwizard.resources").joinpath("compat")
    return {
        name: parse_json(folder.joinpath(f"{name}.json").read_text("utf-8"), source=f"{name}.json")
        for name in COMPAT_FILES
    }


def bundled_date() -> str:
    """The ``generated`` date of the data shipped with the wizard."""
    return str(bundled_files()["sources"].get("generated", "0000-00-00"))


def load_bundled() -> CompatData:
    """The shipped tables."""
    return compat_from_json(bundled_files(), origin="bundled")


@dataclass(frozen=True)
class DataInUse:
    """Which compatibility data the wizard uses now."""

    origin: Literal["bundled", "fetched"]
    #: The data's ``generated`` date.
    generated: str
    #: Where fetched data came from (None for the bundled data).
    url: str | None = None
    #: When it was fetched (ISO 8601; None for the bundled data).
    fetched_at: str | None = None

    def describe(self) -> str:
        """``the bundled data of DATE`` or ``the data of DATE fetched from URL``."""
        if self.origin == "bundled":
            return f"the bundled data of {self.generated}"
        return f"the data of {self.generated} fetched from {self.url}"


def data_in_use() -> DataInUse:
    """The data :func:`load_compat` uses: a verified cached copy newer than the bundled one, or that."""
    cached = _cached()
    return cached[1] if cached is not None else DataInUse("bundled", bundled_date())


def load_compat() -> CompatData:
    """The newest tables available.

    A refreshed copy in the cache when it is newer than the bundled one and verifies (its
    signature against the trusted keys, its indexes against the allow-list), else the bundled
    tables. ``CompatData.origin`` says which.
    """
    cached = _cached()
    return cached[0] if cached is not None else load_bundled()


def _cached() -> tuple[CompatData, DataInUse] | None:
    from gpuwizard.workflow.compat.bundle import load_cached  # noqa: PLC0415 - bundle imports this module
    from gpuwizard.workflow.state.compat_cache import age  # noqa: PLC0415

    cached = load_cached(bundled_date())
    if cached is None:
        return None
    verified, copy = cached
    origin = f"refreshed data of {verified.generated} from {copy.url}, fetched {age(copy.fetched_at)} ago"
    try:
        tables = compat_from_json(verified.files, origin=origin)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None  # a copy this version cannot read (its format changed since): the bundled data
    return tables, DataInUse("fetched", verified.generated, copy.url, copy.fetched_at)


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
