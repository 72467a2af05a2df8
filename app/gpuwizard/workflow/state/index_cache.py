"""The package index's last answer (``cache/compat/index.json``): which releases PyPI publishes.

Written by :mod:`gpuwizard.workflow.compat.releases` after asking PyPI, read by every later
recommendation. Atomic (a whole new file replaces the old one); a damaged file is ignored.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Final

from gpuwizard.adapters.atomic_files import write_text_atomically
from gpuwizard.core.compat.index_view import IndexReleases, final_versions
from gpuwizard.workflow.state.damaged import DamagedFile, read_state_json, set_aside
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
    write_text_atomically(path, json.dumps(data, indent=1))


def load_index() -> IndexReleases | None:
    """The kept answer, or None (none yet, unreadable, or another version's).

    A damaged file (not JSON, nested too deep, a key twice, of the wrong shape) is moved aside as
    ``index.json.bad`` with one line saying so (``damaged.py``).
    """
    path = index_path()
    try:
        data = read_state_json(path)
    except OSError:  # none yet, or unreadable
        return None
    except DamagedFile as error:
        set_aside(path, str(error), counts_as="never asked")
        return None
    if isinstance(data, dict) and data.get("schema") != _SCHEMA:
        return None  # another version's answer: left as it is
    listed = data.get("versions") if isinstance(data, dict) else None
    if not isinstance(listed, dict) or not all(
        isinstance(versions, list) and all(isinstance(v, str) for v in versions)
        for versions in listed.values()
    ):
        set_aside(path, 'expected {"versions": {"torch": ["2.13.0", ...]}}', counts_as="never asked")
        return None
    versions = {str(framework): final_versions(releases) for framework, releases in listed.items()}
    return IndexReleases(versions, str(data.get("checked_at", "")), str(data.get("source", "")))
