"""Signed compatibility bundles as the publisher makes them, with a key pair made for the test.

The signatures are real (Ed25519, through the wizard's own ``signing`` module); the wizard is
told to trust the test's key, not the shipped one, with ``GPUWIZARD_TEST_ONLY_COMPAT_KEYS``, and
the test CA of the https server on 127.0.0.1 (``serve(tls=True)``) with ``REQUESTS_CA_BUNDLE``
(``trusting``): the wizard fetches nothing but https.
``BAD_BUNDLES`` are the bundles the wizard must refuse, each with what its note says.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpuwizard.workflow.compat.bundle import make_bundle, sha256_line
from gpuwizard.workflow.compat.data import bundled_files
from gpuwizard.workflow.compat.signing import new_key_pair, sign
from harness.http_server import Site, trust_test_ca

NEWER = "2099-01-01"
#: The release only the newer data knows: a plan with it shows the fetched data is in use.
NEW_VERSION = "9.1.0"
KEYS_ENV = "GPUWIZARD_TEST_ONLY_COMPAT_KEYS"


@dataclass(frozen=True)
class Signer:
    """A key pair; its public half is the only ``*.pub`` in ``keys``."""

    private: str
    public: str
    keys: Path

    def sign(self, raw: bytes) -> str:
        return sign(raw, self.private)


def make_signer(keys: Path) -> Signer:
    """A new key pair whose public key is written to ``keys/test.pub``."""
    private, public = new_key_pair()
    keys.mkdir(parents=True, exist_ok=True)
    (keys / "test.pub").write_text(public + "\n")
    return Signer(private, public, keys)


def trusting(signer: Signer) -> dict[str, str]:
    """The environment that makes the wizard trust ``signer`` and the https server on 127.0.0.1."""
    return {KEYS_ENV: str(signer.keys), **trust_test_ca()}


def newer_files() -> dict[str, Any]:
    """The bundled files plus PyTorch 9.1: a copy of the newest release with a CUDA 12 build.

    CUDA 12 so that the tests' machines (a driver 546, CUDA 12.3 at most) are offered 9.1: a plan
    with it shows that the fetched data is the data in use.
    """
    files = copy.deepcopy(bundled_files())
    release = copy.deepcopy(
        next(
            row
            for row in files["pytorch"]["releases"]
            if any(variant["name"].startswith("cu12") for variant in row["variants"])
        )
    )
    release["version"], release["latest"] = "9.1", NEW_VERSION
    files["pytorch"]["releases"].insert(0, release)
    return files


@dataclass(frozen=True)
class Published:
    """What a site serves at ``/compat/bundle.json`` and beside it (None: not served)."""

    raw: bytes
    sha256: str | None
    signature: str | None


def signed(signer: Signer, files: dict[str, Any] | None = None, generated: str = NEWER) -> Published:
    """A bundle as the publisher's tool makes it: bundle.json, its sha256 line, its signature."""
    raw = make_bundle(newer_files() if files is None else files, generated)
    return Published(raw, sha256_line(raw), signer.sign(raw))


def publish(site: Site, published: Published) -> str:
    """Serve ``published`` on ``site`` (https: ``serve(tls=True)``); returns the bundle's URL."""
    site.put("/compat/bundle.json", published.raw)
    if published.sha256 is not None:
        site.put("/compat/bundle.json.sha256", published.sha256)
    if published.signature is not None:
        site.put("/compat/bundle.json.sig", published.signature)
    return f"{site.url}/compat/bundle.json"


def tampered(signer: Signer) -> Published:
    """One byte of a signed bundle changed after signing, and its sha256 made to match again."""
    good = signed(signer)
    raw = good.raw.replace(f'"latest": "{NEW_VERSION}"'.encode(), b'"latest": "9.2.0"', 1)
    assert len(raw) == len(good.raw) and sum(a != b for a, b in zip(raw, good.raw, strict=True)) == 1
    return Published(raw, f"{hashlib.sha256(raw).hexdigest()}  bundle.json\n", good.signature)


def signed_by_another_key(signer: Signer, tmp: Path) -> Published:
    other = make_signer(tmp / "other-keys")
    good = signed(signer)
    return Published(good.raw, good.sha256, other.sign(good.raw))


def unsigned(signer: Signer) -> Published:
    good = signed(signer)
    return Published(good.raw, good.sha256, None)


def wrong_sha256(signer: Signer) -> Published:
    good = signed(signer)
    return Published(good.raw, "0" * 64 + "  bundle.json\n", good.signature)


def evil_index(signer: Signer) -> Published:
    files = newer_files()
    files["pytorch"]["index_url"] = "https://evil.example/whl/{variant}"
    return signed(signer, files)


def foreign_conda_channel(signer: Signer) -> Published:
    files = newer_files()
    build = next(
        build
        for release in files["tensorflow"]["releases"]
        for build in (release["gpu"] or {}).values()
        if build and build.get("conda_packages")
    )
    build["conda_packages"][0] = "evil-channel::" + build["conda_packages"][0]
    return signed(signer, files)


#: Each bad bundle and what the refusal note says after "The compatibility data from URL is refused: ".
BAD_BUNDLES: dict[str, tuple[Callable[[Signer, Path], Published], str]] = {
    "tampered": (
        lambda s, _: tampered(s),
        "its signature does not verify against the keys shipped with the wizard",
    ),
    "signed by another key": (
        signed_by_another_key,
        "its signature does not verify against the keys shipped with the wizard",
    ),
    "unsigned": (lambda s, _: unsigned(s), "it has no signature ("),
    "wrong sha256": (lambda s, _: wrong_sha256(s), "it does not match its published sha256"),
    "evil index": (
        lambda s, _: evil_index(s),
        "it names a package index that is not allowed (pytorch.json: index_url: https://evil.example/whl/{variant})",
    ),
    "foreign conda channel": (
        lambda s, _: foreign_conda_channel(s),
        "it names a conda channel that is not allowed (tensorflow.json: releases/",
    ),
}
