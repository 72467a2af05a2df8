"""Ed25519 signatures of the compatibility data: keys, signing, verifying.

A published bundle comes with ``bundle.json.sig``: base64 of the 64-byte Ed25519 signature
(RFC 8032) over the exact bytes of ``bundle.json``. The public keys the wizard trusts ship in
``resources/compat/keys/*.pub`` (each the raw 32-byte key, base64, on one line): more than one,
so that a key can be rotated (``resources/compat/keys/README.md``). Private keys never ship: the
publishing workflow reads one from the repository secret ``COMPAT_SIGNING_KEY`` (the raw 32-byte
seed, base64).

The signatures come from PyCA's ``cryptography`` (https://cryptography.io/en/latest/hazmat/
primitives/asymmetric/ed25519/), imported only when a bundle is signed or verified: its
Windows wheels from 43.0 call ProcessPrng, which Wine 8.0 lacks (installer/requirements-wine.txt),
so the frozen wizard must not import it when it starts.
"""

from __future__ import annotations

import base64
import binascii
import os
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:  # types only: cryptography itself is imported late (see above)
    from importlib.abc import Traversable

    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

#: TEST ONLY: a folder of ``*.pub`` files trusted *instead of* the shipped keys, so that the
#: tests can sign with a key of their own. Never set it anywhere else.
TEST_ONLY_KEYS_ENV: Final = "GPUWIZARD_TEST_ONLY_COMPAT_KEYS"
PUBLIC_KEY_BYTES: Final = 32
PRIVATE_KEY_BYTES: Final = 32
SIGNATURE_BYTES: Final = 64


class KeyFileError(ValueError):
    """A key file is not one base64 line of a raw 32-byte Ed25519 key; the message says which."""


def decode_base64(text: str | bytes, length: int, what: str) -> bytes:
    """The bytes of one base64 value of exactly ``length`` bytes.

    Raises:
        KeyFileError: Not base64, or not ``length`` bytes.
    """
    data = text.encode("ascii", errors="replace") if isinstance(text, str) else text
    try:
        raw = base64.b64decode(data.strip(), validate=True)
    except (binascii.Error, ValueError):
        raise KeyFileError(f"{what} is not base64") from None
    if len(raw) != length:
        raise KeyFileError(f"{what} is {len(raw)} bytes, not {length}")
    return raw


def new_key_pair() -> tuple[str, str]:
    """A fresh key pair: (private seed, public key), each base64 of its raw 32 bytes."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey  # noqa: PLC0415

    private = Ed25519PrivateKey.generate()
    return _b64(_private_raw(private)), _b64(_public_raw(private))


def public_key_of(private_b64: str) -> str:
    """The public key (base64) of a private seed (base64)."""
    return _b64(_public_raw(_private_key(private_b64)))


def sign(data: bytes, private_b64: str) -> str:
    """The signature of ``data`` (base64 of its 64 bytes) with a private seed (base64).

    Raises:
        KeyFileError: The key is not a raw 32-byte seed in base64.
    """
    return _b64(_private_key(private_b64).sign(data))


def verifying_key(data: bytes, signature: str | bytes, keys: Mapping[str, bytes]) -> str | None:
    """The name of the key in ``keys`` whose signature ``signature`` (base64) is over ``data``.

    None when the signature is malformed or no key verifies it.
    """
    try:
        raw_signature = decode_base64(signature, SIGNATURE_BYTES, "the signature")
    except KeyFileError:
        return None
    from cryptography.exceptions import InvalidSignature  # noqa: PLC0415 - see the module's docstring
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey  # noqa: PLC0415

    for name, raw_key in sorted(keys.items()):
        try:
            Ed25519PublicKey.from_public_bytes(raw_key).verify(raw_signature, data)
        except (InvalidSignature, ValueError):
            continue
        return name
    return None


def trusted_keys() -> dict[str, bytes]:
    """The public keys a bundle may be signed with, by file name.

    The keys shipped in ``resources/compat/keys/``, or (tests only) those of the folder named by
    ``GPUWIZARD_TEST_ONLY_COMPAT_KEYS``. A key file that cannot be read is left out.
    """
    folder: Traversable = resources.files("gpuwizard.resources").joinpath("compat/keys")
    test_only = os.environ.get(TEST_ONLY_KEYS_ENV)
    if test_only:
        folder = Path(test_only)
    return read_keys(folder)


def read_keys(folder: Traversable) -> dict[str, bytes]:
    """The ``*.pub`` keys of ``folder``, by file name; unreadable or malformed ones left out."""
    keys: dict[str, bytes] = {}
    try:
        entries = sorted(folder.iterdir(), key=lambda entry: entry.name)
    except OSError:
        return keys
    for entry in entries:
        if not entry.name.endswith(".pub"):
            continue
        try:
            keys[entry.name] = decode_base64(entry.read_bytes(), PUBLIC_KEY_BYTES, entry.name)
        except (OSError, KeyFileError):
            continue
    return keys


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


def _private_key(private_b64: str) -> Ed25519PrivateKey:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey  # noqa: PLC0415

    return Ed25519PrivateKey.from_private_bytes(
        decode_base64(private_b64, PRIVATE_KEY_BYTES, "the private key")
    )


def _private_raw(key: Ed25519PrivateKey) -> bytes:
    from cryptography.hazmat.primitives import serialization  # noqa: PLC0415

    return key.private_bytes(
        serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
    )


def _public_raw(key: Ed25519PrivateKey) -> bytes:
    from cryptography.hazmat.primitives import serialization  # noqa: PLC0415

    return key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
