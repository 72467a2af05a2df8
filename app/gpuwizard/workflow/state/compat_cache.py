"""The cache of refreshed compatibility data, under the wizard's home folder.

``cache/compat/bundle.json`` holds the data (the files, as one bundle) and ``meta.json`` where it
came from, its sha256 and when it was fetched. The bundle is used only while its sha256 still
matches and it is newer than the data bundled with the wizard.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from gpuwizard.workflow.state.home import wizard_home


def cache_dir() -> Path:
    """Where refreshed data is kept."""
    return wizard_home() / "cache" / "compat"


def cached_files(bundled_date: str, now: datetime | None = None) -> tuple[dict[str, Any], str] | None:
    """The cached files and a description of their origin, or None.

    None when there is no usable copy newer than the data bundled with the wizard (its
    ``generated`` date is ``bundled_date``); a tampered or half-written file is ignored.
    """
    folder = cache_dir()
    try:
        raw = (folder / "bundle.json").read_bytes()
        meta = json.loads((folder / "meta.json").read_text("utf-8"))
    except (OSError, ValueError):
        return None
    if hashlib.sha256(raw).hexdigest() != meta.get("sha256"):
        return None
    try:
        bundle = json.loads(raw)
    except ValueError:
        return None
    generated = str(bundle.get("generated", ""))
    if generated <= bundled_date:
        return None
    fetched = meta.get("fetched_at", "")
    return bundle[
        "files"
    ], f"refreshed data of {generated} from {meta.get('url')}, fetched {_age(fetched, now)} ago"


def store(raw: bytes, url: str, sha256: str) -> None:
    """Keep a verified bundle (atomically: the old copy stays until the new one is complete)."""
    folder = cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    meta = {
        "url": url,
        "sha256": sha256,
        "fetched_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    _write_atomic(folder / "bundle.json", raw)
    _write_atomic(folder / "meta.json", json.dumps(meta, indent=2).encode())


def _write_atomic(path: Path, data: bytes) -> None:
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        Path(temporary).replace(path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _age(fetched: str, now: datetime | None) -> str:
    try:
        then = datetime.fromisoformat(fetched)
    except ValueError:
        return "an unknown time"
    seconds = max(0, int(((now or datetime.now(timezone.utc)) - then).total_seconds()))
    if seconds < 3600:
        return f"{seconds // 60} min"
    if seconds < 86400:
        return f"{seconds // 3600} h"
    return f"{seconds // 86400} days"
