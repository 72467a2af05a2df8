"""``recommend --refresh``: newer compatibility data from a URL, and newer releases from the indexes.

The data comes from ``--compat-url``, else ``GPUWIZARD_COMPAT_URL``, else
:data:`~gpuwizard.workflow.compat.bundle.DEFAULT_COMPAT_URL`, as a signed bundle (``bundle.py``
describes the three published files). It is used only over https (redirects included; an
answer larger than :data:`BUNDLE_MAX_BYTES` is refused), when its sha256 matches, its
signature verifies against a key shipped with the wizard, every file passes its schema, every
index and channel it names is on the allow-list (``core/compat/index_allowlist.py``), and it is
newer than the data in use. Why so strict: pytorch.json's ``index_url`` goes into every later
``pip install``, so data that anyone on the way could change would choose where users install
from. The package indexes (the PyPI JSON API, the PyTorch wheel index) are asked whether
releases newer than the data exist (``releases.py``). Every failure is a note, one line, and the
data in use stays in use: refreshing never stops a recommendation, offline or not.
"""

from __future__ import annotations

import os
from typing import Final

from gpuwizard.adapters.http import HttpClient, HttpError, RequestsClient, url_refusal
from gpuwizard.workflow.compat.bundle import (
    DEFAULT_COMPAT_URL,
    SHA256_SUFFIX,
    SIGNATURE_SUFFIX,
    BundleRefused,
    verify_bundle,
)
from gpuwizard.workflow.compat.data import data_in_use, load_compat
from gpuwizard.workflow.compat.releases import newer_releases
from gpuwizard.workflow.state.compat_cache import read_cached, store

COMPAT_URL_ENV: Final = "GPUWIZARD_COMPAT_URL"
#: The most ``bundle.json`` may bring: the bundle built from today's resources/compat is 114,832
#: bytes (``make_bundle(bundled_files(), ...)``, 2026-11-25); 1 MiB leaves it room to grow about 9
#: times before a larger limit is needed, and refuses anything larger.
BUNDLE_MAX_BYTES: Final = 1 << 20
#: The most ``bundle.json.sha256`` (78 bytes: the hex digest, two spaces, the name) and
#: ``bundle.json.sig`` (89 bytes: base64 of 64 bytes, a newline) may bring.
COMPANION_MAX_BYTES: Final = 1 << 10


def compat_url(url: str | None = None) -> str:
    """Where the data is fetched: ``url``, else ``$GPUWIZARD_COMPAT_URL``, else the project's."""
    return url or os.environ.get(COMPAT_URL_ENV) or DEFAULT_COMPAT_URL


def refresh_compat(url: str | None = None, client: HttpClient | None = None) -> list[str]:
    """Refresh what can be refreshed; returns notes saying what happened, one line each."""
    client = client or RequestsClient()
    notes = [_refresh_data(client, compat_url(url))]
    notes += newer_releases(client, load_compat())
    return notes


def _refresh_data(client: HttpClient, url: str) -> str:
    in_use = data_in_use()
    fallback = f"using {in_use.describe()}"
    try:
        _check_url(url)
        raw = client.get(url, max_bytes=BUNDLE_MAX_BYTES)
    except BundleRefused as refusal:
        return f"The compatibility data from {url} is refused: {refusal}; {fallback}."
    except HttpError as error:
        return f"Could not refresh the compatibility data ({error}); {fallback}."
    try:
        verified = verify_bundle(
            raw,
            _companion(client, url + SHA256_SUFFIX, "it has no published sha256"),
            _companion(client, url + SIGNATURE_SUFFIX, "it has no signature"),
        )
        if not verified.newer_than(in_use.generated):  # as dates (core/compat/data_date.py)
            if in_use.origin == "fetched" and verified.sha256 == _cached_sha256():
                return f"The compatibility data is up to date: {in_use.describe()}."
            raise BundleRefused(f"its data ({verified.generated}) is not newer than {in_use.describe()}")
    except BundleRefused as refusal:
        return f"The compatibility data from {url} is refused: {refusal}; {fallback}."
    store(verified.raw, verified.signature, url, verified.sha256)
    return f"Compatibility data refreshed: data of {verified.generated} from {url}."


def _check_url(url: str) -> None:
    """Refuse, before anything is fetched, any URL but https (from ``--compat-url`` or the environment).

    The client refuses it as well (``adapters/http.py``, with redirects); checked here first so
    that the note says the data is refused, not that it could not be had.

    Raises:
        BundleRefused: The URL is not one data is fetched from.
    """
    if url_refusal(url) is not None:
        raise BundleRefused(
            "its URL is not https:// (data fetched any other way can be changed on its way to this machine)"
        )


def _companion(client: HttpClient, url: str, missing: str) -> bytes:
    """A file published beside the bundle (its sha256, its signature).

    Raises:
        BundleRefused: It cannot be had: the bundle is not used without it.
    """
    try:
        return client.get(url, max_bytes=COMPANION_MAX_BYTES)
    except HttpError as error:
        raise BundleRefused(f"{missing} ({error})") from None


def _cached_sha256() -> str | None:
    cached = read_cached()
    return cached.sha256 if cached is not None else None
