"""The installer's answers of the day (``cache/compat/resolutions.json``): what an install would bring.

A dry run of pip takes tens of seconds (``adapters/resolution.py``); its answer holds for the
day (new releases of the CUDA libraries come out weeks apart), so each is kept under a key of
what was asked (:func:`resolution_key`) and read back only on the day it was made. One file,
at most :data:`MAX_ENTRIES` answers, the oldest dropped first. Atomic (a whole new file replaces
the old one); a damaged file is moved aside (``damaged.py``) and counts as empty.

No login is kept: the key is made of the URLs with their secrets masked, and an answer holds
no URL.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from gpuwizard.adapters.atomic_files import write_text_atomically
from gpuwizard.core.compat.resolution import (
    Resolution,
    ResolutionFailed,
    resolution_from_json,
    resolution_to_json,
)
from gpuwizard.core.secret_formats import mask_url
from gpuwizard.workflow.state.damaged import DamagedFile, read_state_json, set_aside
from gpuwizard.workflow.state.home import wizard_home

_SCHEMA: Final = "gpuwizard.resolution/1"
#: How many answers the file keeps (a wizard asks for a handful of plans a day).
MAX_ENTRIES: Final = 64


def cache_path() -> Path:
    """Where the answers are kept."""
    return wizard_home() / "cache" / "compat" / "resolutions.json"


def resolution_key(
    requirements: Sequence[str],
    python: str,
    platform: str,
    index_url: str | None,
    extra_index_urls: Sequence[str],
    *,
    find_links: Sequence[str] = (),
    no_index: bool = False,
    glibc: str | None = None,
) -> str:
    """The key of a question: a sha256 (hex) of a canonical JSON of everything that decides the answer.

    The URLs count with their logins masked, so that no secret reaches the file (nor a hash
    one could test guesses against); two logins to one index share answers. Requirements count
    in their order, as given (pip resolves the same whatever the order, but a plan names them
    in one order).
    """
    asked = {
        "requirements": list(requirements),
        "python": python,
        "platform": platform,
        "glibc": glibc,
        "index_url": None if index_url is None else mask_url(index_url),
        "extra_index_urls": [mask_url(url) for url in extra_index_urls],
        "find_links": [mask_url(url) for url in find_links],
        "no_index": no_index,
    }
    canonical = json.dumps(asked, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def load_resolution(key: str, today: str) -> Resolution | None:
    """The answer kept under ``key`` if it was made ``today`` (source ``cache``), else None."""
    entry = _load_entries().get(key)
    if entry is None:
        return None
    try:
        resolution = resolution_from_json(entry, source="cache")
    except ResolutionFailed:
        return None  # one bad entry: not worth setting the others aside; the next store replaces it
    return resolution if resolution.resolved_on == today else None


def store_resolution(key: str, resolution: Resolution) -> None:
    """Keep ``resolution`` under ``key`` (replacing the file atomically; the oldest beyond :data:`MAX_ENTRIES` go)."""
    entries = _load_entries()
    entries.pop(key, None)  # re-inserted last: the newest
    entries[key] = resolution_to_json(resolution)
    # Oldest first by the day they were made, then by when they were stored (dict order).
    ordered = sorted(entries.items(), key=lambda item: str(item[1].get("resolved_on", "")))
    kept = dict(ordered[-MAX_ENTRIES:])
    path = cache_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomically(path, json.dumps({"schema": _SCHEMA, "entries": kept}, indent=1))


def _load_entries() -> dict[str, dict[str, Any]]:
    """The kept entries, key -> JSON object, in the order stored; {} when none or damaged."""
    path = cache_path()
    try:
        data = read_state_json(path)
    except OSError:  # none yet, or unreadable
        return {}
    except DamagedFile as error:
        set_aside(path, str(error), counts_as="empty")
        return {}
    if isinstance(data, dict) and data.get("schema") != _SCHEMA:
        return {}  # another version's answers: left as they are until the next store
    entries = data.get("entries") if isinstance(data, dict) else None
    if not isinstance(entries, dict) or not all(isinstance(entry, dict) for entry in entries.values()):
        set_aside(path, 'expected {"entries": {"<key>": {"versions": {...}, ...}}}', counts_as="empty")
        return {}
    return {str(key): entry for key, entry in entries.items()}
