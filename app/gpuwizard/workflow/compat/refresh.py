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
import re
from collections.abc import Mapping
from typing import Any, Final

from gpuwizard.adapters.http import HttpClient, HttpError, RequestsClient
from gpuwizard.core.compat.tables import CompatData, version_key
from gpuwizard.workflow.compat.data import bundled_date, load_compat, validation_errors
from gpuwizard.workflow.state.compat_cache import store

BUNDLE_SCHEMA: Final = "gpuwizard.compat-bundle/1"
DEFAULT_PYPI: Final = "https://pypi.org/pypi"
DEFAULT_TORCH_INDEX: Final = "https://download.pytorch.org/whl"
_TORCH_WHEEL: Final = re.compile(r"torch-(\d+\.\d+\.\d+)\+(cu\d+|cpu)-")
_PACKAGES: Final = (("pytorch", "torch"), ("tensorflow", "tensorflow"))


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


def newer_releases(client: HttpClient, compat: CompatData) -> list[str]:
    """Notes on releases the package indexes have and the data does not know yet."""
    notes = []
    pypi = os.environ.get("GPUWIZARD_PYPI_URL", DEFAULT_PYPI).rstrip("/")
    for framework, package in _PACKAGES:
        known = compat.pytorch[0].latest if framework == "pytorch" else compat.tensorflow[0].latest
        try:
            info = json.loads(client.get(f"{pypi}/{package}/json"))
            latest = str(info["info"]["version"])
        except (HttpError, ValueError, KeyError, TypeError) as error:
            notes.append(f"Could not ask PyPI about {package} ({error}).")
            continue
        if version_key(latest) <= version_key(known):
            notes.append(f"PyPI's newest {package} is {latest}: the data knows it.")
            continue
        note = (
            f"PyPI has {package} {latest}, newer than the {known} the data knows: its build matrix is not in "
            f"the tables yet, so it is not recommended."
        )
        if framework == "pytorch":
            variants = _torch_index_variants(client, latest)
            if variants:
                note += f" The PyTorch index offers it as {', '.join(variants)}."
        notes.append(note)
    return notes


def _torch_index_variants(client: HttpClient, version: str) -> list[str]:
    index = os.environ.get("GPUWIZARD_TORCH_INDEX_URL", DEFAULT_TORCH_INDEX).rstrip("/")
    try:
        page = client.get(f"{index}/torch/").decode("utf-8", errors="replace")
    except HttpError:
        return []
    found = {variant for wheel_version, variant in _TORCH_WHEEL.findall(page) if wheel_version == version}
    return sorted(found, key=lambda v: (v != "cpu", v))
