"""``recommend --refresh``: newer compatibility data from a URL, and newer releases from the indexes.

The data comes as one bundle (``{"schema": "gpuwizard.compat-bundle/1", "generated": DATE,
"files": {...}}``) with its sha256 published beside it (``URL.sha256``); it is used only when the
digest matches, every file passes its schema and every source key resolves. The package
indexes (the PyPI JSON API, the PyTorch wheel index) are asked whether releases newer than the
data exist. Every failure is a note, and the bundled (or cached) data stays in use.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from typing import Any, Final

from gpuwizard.adapters.http import HttpClient, HttpError, RequestsClient
from gpuwizard.workflow.compat.data import bundled_date, load_compat, validation_errors
from gpuwizard.workflow.compat.releases import newer_releases
from gpuwizard.workflow.state.compat_cache import store

BUNDLE_SCHEMA: Final = "gpuwizard.compat-bundle/1"


def make_bundle(files: Mapping[str, Any], generated: str) -> bytes:
    """The bundle to publish for ``files`` (and whose sha256 to publish beside it)."""
    return json.dumps(
        {"schema": BUNDLE_SCHEMA, "generated": generated, "files": files}, sort_keys=True
    ).encode()


def refresh_compat(url: str | None = None, client: HttpClient | None = None) -> list[str]:
    """Refresh what can be refreshed; returns notes saying what happened."""
    client = client or RequestsClient()
    url = url or os.environ.get("GPUWIZARD_COMPAT_URL")
    notes = [
        _refresh_data(client, url)
        if url
        else "No compatibility data URL is set (--compat-url or GPUWIZARD_COMPAT_URL): only the package indexes were asked."
    ]
    notes += newer_releases(client, load_compat())
    return notes


class _Refused(Exception):
    """Why fetched data is not used (the message completes "The compatibility data ...")."""


def _refresh_data(client: HttpClient, url: str) -> str:
    fallback = f"using the bundled data of {bundled_date()}"
    try:
        raw, generated, digest = _verified_bundle(client, url)
    except HttpError as error:
        return f"Could not refresh the compatibility data ({error}); {fallback}."
    except _Refused as refusal:
        return f"The compatibility data from {url} {refusal}; {fallback}."
    store(raw, url, digest)
    return f"Compatibility data refreshed: data of {generated} from {url}."


def _verified_bundle(client: HttpClient, url: str) -> tuple[bytes, str, str]:
    """Fetch and check a bundle: its digest, its shape, every file's schema, its date.

    Raises:
        HttpError: It could not be fetched.
        _Refused: It was fetched and must not be used.
    """
    raw = client.get(url)
    published = client.get(url + ".sha256").decode("ascii", errors="replace").split()
    digest = hashlib.sha256(raw).hexdigest()
    if not published or published[0].lower() != digest:
        raise _Refused("does not match its published sha256")
    try:
        bundle = json.loads(raw)
    except ValueError:
        raise _Refused("is not JSON") from None
    if (
        not isinstance(bundle, dict)
        or bundle.get("schema") != BUNDLE_SCHEMA
        or not isinstance(bundle.get("files"), dict)
    ):
        raise _Refused(f"is not a {BUNDLE_SCHEMA} bundle")
    errors = validation_errors(bundle["files"])
    if errors:
        raise _Refused(f"is invalid ({errors[0]})")
    generated = str(bundle.get("generated", ""))
    if generated <= bundled_date():
        raise _Refused(f"({generated or 'undated'}) is not newer than the bundled data")
    return raw, generated, digest
