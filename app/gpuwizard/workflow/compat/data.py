"""Loading the compatibility tables: bundled in the package, or a refreshed copy from the cache.

The bundled files are checked against their schemas by the tests, so loading them needs no
validation (and stays fast: under 0.5 s offline, docs/architecture.md, "Performance budgets");
data that arrives from outside (``--refresh``) is verified and validated before it is cached
(``bundle.py``), and the cached copy's signature is verified again each time it is loaded.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from typing import Any, Literal

from gpuwizard.core.compat.tables import CompatData, compat_from_json
from gpuwizard.core.json_input import parse_json
from gpuwizard.workflow.compat.bundle import load_cached
from gpuwizard.workflow.compat.files import COMPAT_FILES
from gpuwizard.workflow.state.compat_cache import age


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
