"""The package index's last answer (``cache/compat/index.json``): which releases PyPI publishes.

Written by :mod:`gpuwizard.workflow.compat.releases` after asking PyPI, read by every later
recommendation. Atomic (a whole new file replaces the old one); a damaged file is ignored.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Final

from gpuwizard.core.compat.index_view import IndexReleases, final_versions
from gpuwizard.workflow.state.home import wizard_home

_SCHEMA: Final = "gpuwizard.index-releases/1"


def index_path() -> Path:
    """Where the answer is kept."""
    return wizard_home() / "cache" / "compat" / "index.json"


def store_index(index: IndexReleases) -> None:
    """Keep ``index`` (replacing the previous answer atomically)."""
    path = index_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {
        "schema": _SCHEMA,
        "checked_at": index.checked_at,
        "source": index.source,
        "versions": {framework: list(versions) for framework, versions in index.versions.items()},
    }
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-index-")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            json.dump(data, file, indent=1)
        Path(temporary).replace(path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def load_index() -> IndexReleases | None:
    """The kept answer, or None (none yet, or unreadable)."""
    try:
        data = json.loads(index_path().read_text("utf-8"))
        if data.get("schema") != _SCHEMA:
            return None
        versions = {
            str(framework): final_versions([str(v) for v in listed])
            for framework, listed in dict(data["versions"]).items()
        }
        return IndexReleases(versions, str(data.get("checked_at", "")), str(data.get("source", "")))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
