"""The published compatibility data: its format and every check before it is used.

At a URL such as :data:`DEFAULT_COMPAT_URL` three files are published side by side:

- ``bundle.json``: ``{"schema": "gpuwizard.compat-bundle/1", "generated": DATE, "files": {...}}``,
  the files of ``resources/compat/`` that the recommender reads (``files.COMPAT_FILES``); DATE is
  ISO 8601, ``YYYY-MM-DD`` or a timestamp with its offset, checked and compared as a date
  (``core/compat/data_date.py``: as text, ``2027-1-5`` would block ``2027-01-10``);
- ``bundle.json.sha256``: its sha256, as ``sha256sum`` writes it (``HEX  bundle.json``);
- ``bundle.json.sig``: base64 of the Ed25519 signature over the exact bytes of ``bundle.json``
  (``signing.py``).

One implementation of the format and of the checks, used by ``recommend --refresh``
(``refresh.py``), by :func:`load_cached` for the cached copy, and by the publisher's
``tools/compat_bundle.py``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from gpuwizard.core.compat.data_date import DataDateError, generated_at, is_newer
from gpuwizard.core.compat.index_allowlist import disallowed_in
from gpuwizard.core.json_input import JsonInputError, decode_utf8, parse_json
from gpuwizard.workflow.compat.files import COMPAT_FILES, validation_errors
from gpuwizard.workflow.compat.signing import trusted_keys, verifying_key
from gpuwizard.workflow.state.compat_cache import CachedBundle, read_cached

BUNDLE_SCHEMA: Final = "gpuwizard.compat-bundle/1"
#: Where ``recommend --refresh`` fetches the data when neither ``--compat-url`` nor
#: ``GPUWIZARD_COMPAT_URL`` says otherwise: the project's GitHub Pages site, which the workflow
#: ``.github/workflows/compat-data.yml`` builds, signs and deploys every week. ``v1`` is the
#: bundle's format (``gpuwizard.compat-bundle/1``): a new format gets a new folder, so wizards
#: already installed keep reading the one they understand.
DEFAULT_COMPAT_URL: Final = "https://gpuwizard.github.io/gpuwizard/compat/v1/bundle.json"
BUNDLE_NAME: Final = "bundle.json"
SHA256_SUFFIX: Final = ".sha256"
SIGNATURE_SUFFIX: Final = ".sig"


class BundleRefused(Exception):
    """A bundle that must not be used; the message completes "The compatibility data ... is refused: "."""


@dataclass(frozen=True)
class VerifiedBundle:
    """A bundle that passed every check: its bytes, signature, files and date."""

    raw: bytes
    signature: bytes
    sha256: str
    files: dict[str, Any]
    generated: str
    #: The file name of the trusted key that verified the signature.
    key: str

    def newer_than(self, generated: str) -> bool:
        """Whether this bundle's data is newer than the data of ``generated``, as dates."""
        return is_newer(self.generated, than=generated)


def make_bundle(files: Mapping[str, Any], generated: str) -> bytes:
    """The ``bundle.json`` to publish for ``files`` (parsed, by name) dated ``generated``."""
    return json.dumps(
        {"schema": BUNDLE_SCHEMA, "generated": generated, "files": files}, sort_keys=True
    ).encode()


def sha256_line(raw: bytes, name: str = BUNDLE_NAME) -> str:
    """``bundle.json.sha256``: the digest as ``sha256sum`` writes it, so ``sha256sum -c`` checks it."""
    return f"{hashlib.sha256(raw).hexdigest()}  {name}\n"


def verify_bundle(
    raw: bytes,
    published_sha256: bytes,
    signature: bytes,
    keys: Mapping[str, bytes] | None = None,
    *,
    schemas: bool = True,
) -> VerifiedBundle:
    """Check a bundle; returns it when it may be used.

    In this order: the published sha256, the signature against ``keys`` (default: the trusted
    keys), the bundle's shape and its date (an ISO 8601 date or timestamp: ``data_date.py``),
    every file against its schema (unless ``schemas`` is false: the cached copy was checked
    when it was fetched), and the index allow-list. Whether it is newer
    than the data in use is the caller's question.

    Raises:
        BundleRefused: It must not be used; the message says why.
    """
    published = published_sha256.decode("ascii", errors="replace").split()
    digest = hashlib.sha256(raw).hexdigest()
    if not published or published[0].lower() != digest:
        raise BundleRefused("it does not match its published sha256")
    key = verifying_key(raw, signature, trusted_keys() if keys is None else keys)
    if key is None:
        raise BundleRefused("its signature does not verify against the keys shipped with the wizard")
    try:
        # Strict: a key twice, NaN or nesting too deep is refused, never a RecursionError.
        bundle = parse_json(decode_utf8(raw, source=BUNDLE_NAME), source=BUNDLE_NAME)
    except JsonInputError as error:
        raise BundleRefused(str(error).removeprefix(f"{BUNDLE_NAME}: ")) from None
    if (
        not isinstance(bundle, dict)
        or bundle.get("schema") != BUNDLE_SCHEMA
        or not isinstance(bundle.get("files"), dict)
        or not isinstance(bundle.get("generated"), str)
    ):
        raise BundleRefused(f"it is not a {BUNDLE_SCHEMA} bundle")
    try:
        generated_at(bundle["generated"])
    except DataDateError as error:
        raise BundleRefused(str(error)) from None
    files: dict[str, Any] = bundle["files"]
    if schemas:
        errors = validation_errors(files)
        if errors:
            raise BundleRefused(f"it is invalid ({errors[0]})")
    _check_allow_list(files)
    return VerifiedBundle(raw, signature, digest, files, bundle["generated"], key)


def load_cached(bundled_date: str) -> tuple[VerifiedBundle, CachedBundle] | None:
    """The cached copy, checked again, when it is newer than the bundled data; else None.

    Its signature is verified against the trusted keys each time (not only its sha256, which
    anyone who can write the file can recompute), so a copy changed on disk, or signed by a key
    no longer trusted, is ignored.
    """
    cached = read_cached()
    if cached is None:
        return None
    try:
        verified = verify_bundle(cached.raw, cached.sha256.encode(), cached.signature, schemas=False)
    except BundleRefused:
        return None
    if not verified.newer_than(bundled_date) or not all(name in verified.files for name in COMPAT_FILES):
        return None
    return verified, cached


def _check_allow_list(files: Mapping[str, Any]) -> None:
    found = disallowed_in(files)
    if not found:
        return
    first = found[0]
    what = "a package index" if first.kind == "index" else "a conda channel"
    more = f", and {len(found) - 1} more" if len(found) > 1 else ""
    raise BundleRefused(f"it names {what} that is not allowed ({first.where}: {first.value}{more})")
