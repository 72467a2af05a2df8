"""The cache of refreshed compatibility data, under the wizard's home folder.

``cache/compat/bundle.json`` holds the data (the files, as one bundle) exactly as it was
published, ``bundle.json.sig`` its signature, and ``meta.json`` where it came from, its sha256
and when it was fetched. This module only keeps and reads the files: whoever uses the copy
checks it again first (its signature against the trusted keys, in ``workflow/compat/bundle.py``),
so a copy changed on disk after it was fetched is never used.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Final

from gpuwizard.adapters.atomic_files import write_bytes_atomically
from gpuwizard.adapters.input_files import STATE_FILE_LIMIT, InputFileError, read_input
from gpuwizard.workflow.state.damaged import DamagedFile, read_state_json, set_aside
from gpuwizard.workflow.state.home import wizard_home

BUNDLE_FILE: Final = "bundle.json"
SIGNATURE_FILE: Final = "bundle.json.sig"
META_FILE: Final = "meta.json"


@dataclass(frozen=True)
class CachedBundle:
    """The cached copy as it is on disk, not yet checked."""

    raw: bytes
    signature: bytes
    url: str
    sha256: str
    fetched_at: str


def cache_dir() -> Path:
    """Where refreshed data is kept."""
    return wizard_home() / "cache" / "compat"


def read_cached() -> CachedBundle | None:
    """The cached copy, or None when there is none, it is incomplete, or its sha256 does not match.

    A damaged ``meta.json`` (not JSON, nested too deep, not an object) is moved aside with one
    line saying so (``damaged.py``); a copy whose sha256 does not match is what a crash between
    the writes leaves, and is only ignored.
    """
    folder = cache_dir()
    try:
        raw = read_input(folder / BUNDLE_FILE, limit=STATE_FILE_LIMIT, what="a file")
        signature = read_input(folder / SIGNATURE_FILE, limit=STATE_FILE_LIMIT, what="a file")
    except InputFileError:
        return None
    meta_path = folder / META_FILE
    try:
        meta = read_state_json(meta_path)
    except OSError:  # none (a copy not complete yet), or unreadable
        return None
    except DamagedFile as error:
        set_aside(meta_path, str(error), counts_as="no refreshed data")
        return None
    if not isinstance(meta, dict) or not all(
        isinstance(meta.get(key, ""), str) for key in ("url", "fetched_at")
    ):
        set_aside(meta_path, "not an object of text fields", counts_as="no refreshed data")
        return None
    if hashlib.sha256(raw).hexdigest() != meta.get("sha256"):
        return None
    return CachedBundle(
        raw, signature, str(meta.get("url", "")), str(meta["sha256"]), str(meta.get("fetched_at", ""))
    )


def store(raw: bytes, signature: bytes, url: str, sha256: str) -> None:
    """Keep a verified bundle and its signature.

    Atomically, file by file; ``meta.json`` goes last and names the bundle's sha256, so a crash
    between the writes leaves a copy that does not match and is not used.
    """
    folder = cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    meta = {
        "url": url,
        "sha256": sha256,
        "fetched_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    write_bytes_atomically(folder / BUNDLE_FILE, raw)
    write_bytes_atomically(folder / SIGNATURE_FILE, signature)
    write_bytes_atomically(folder / META_FILE, json.dumps(meta, indent=2).encode())


def age(fetched_at: str, now: datetime | None = None) -> str:
    """How long ago ``fetched_at`` (ISO 8601) was, in words: ``5 min``, ``3 h``, ``2 days``."""
    try:
        then = datetime.fromisoformat(fetched_at)
    except ValueError:
        return "an unknown time"
    seconds = max(0, int(((now or datetime.now(timezone.utc)) - then).total_seconds()))
    if seconds < 3600:
        return f"{seconds // 60} min"
    if seconds < 86400:
        return f"{seconds // 3600} h"
    return f"{seconds // 86400} days"
