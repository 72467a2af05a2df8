"""Publish the compatibility data as a signed bundle: ``python tools/compat_bundle.py COMMAND``.

- ``keygen --private FILE --public FILE``: a new Ed25519 key pair; the private seed (base64, mode
  600) stays with whoever signs (the repository secret ``COMPAT_SIGNING_KEY``), the public key
  goes into ``resources/compat/keys/`` (see the README there on rotating keys).
- ``build --data resources/compat --out DIR``: ``DIR/bundle.json`` and ``DIR/bundle.json.sha256``,
  dated with ``sources.json``'s ``generated``; exit 1 when the data would be refused.
- ``sign --key FILE DIR``: ``DIR/bundle.json.sig``; ``--key -`` reads the private key from the
  environment variable ``COMPAT_SIGNING_KEY`` (as the workflow does), never from an argument.
- ``verify DIR [--keys DIR]``: every check the wizard makes before it uses a bundle (sha256,
  signature against the shipped keys or those of ``--keys``, schemas, index allow-list); exit 1
  when any fails.

The format and the checks are the wizard's own (``gpuwizard.workflow.compat.bundle`` and
``signing``): there is one implementation of each. Needs the package installed
(``pip install -e .``). ``.github/workflows/compat-data.yml`` runs build, sign and verify.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Final

from gpuwizard.core.compat.data_date import DataDateError, generated_at
from gpuwizard.core.compat.index_allowlist import disallowed_in
from gpuwizard.workflow.compat.bundle import (
    BUNDLE_NAME,
    SHA256_SUFFIX,
    SIGNATURE_SUFFIX,
    BundleRefused,
    make_bundle,
    sha256_line,
    verify_bundle,
)
from gpuwizard.workflow.compat.files import COMPAT_FILES, validation_errors
from gpuwizard.workflow.compat.signing import (
    KeyFileError,
    new_key_pair,
    public_key_of,
    read_keys,
    sign,
    trusted_keys,
)

SIGNING_KEY_ENV: Final = "COMPAT_SIGNING_KEY"
EXIT_OK: Final = 0
EXIT_FAILED: Final = 1


def keygen(private: Path, public: Path) -> int:
    """Write a new key pair; never overwrites a private key."""
    if private.exists():
        print(f"{private} exists: not overwritten (a lost private key cannot be recovered)", file=sys.stderr)
        return EXIT_FAILED
    private_b64, public_b64 = new_key_pair()
    private.parent.mkdir(parents=True, exist_ok=True)
    # Created with mode 600 from the start: the key is never readable by others, not even briefly.
    handle = os.open(private, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(handle, "w", encoding="ascii") as file:
        file.write(private_b64 + "\n")
    public.parent.mkdir(parents=True, exist_ok=True)
    public.write_text(public_b64 + "\n", encoding="ascii")
    print(f"private key: {private} (keep it secret)\npublic key:  {public}")
    return EXIT_OK


def build(data: Path, out: Path) -> int:
    """Write ``bundle.json`` and its ``.sha256`` from the data files in ``data``."""
    files = {name: json.loads((data / f"{name}.json").read_text(encoding="utf-8")) for name in COMPAT_FILES}
    problems = validation_errors(files) + [
        f"{found.where}: {found.kind} {found.value} is not allowed" for found in disallowed_in(files)
    ]
    try:
        # The schema checks the form; the calendar (2027-02-30) is checked as the wizard will.
        generated_at(str(files["sources"].get("generated", "")))
    except DataDateError as error:
        problems.append(f"sources.json: {error}")
    if problems:
        print("\n".join(f"not built: {problem}" for problem in problems), file=sys.stderr)
        return EXIT_FAILED
    generated = str(files["sources"]["generated"])
    raw = make_bundle(files, generated)
    out.mkdir(parents=True, exist_ok=True)
    (out / BUNDLE_NAME).write_bytes(raw)
    (out / (BUNDLE_NAME + SHA256_SUFFIX)).write_text(sha256_line(raw), encoding="ascii")
    print(f"built {out / BUNDLE_NAME}: data of {generated}, {len(raw)} bytes")
    return EXIT_OK


def sign_folder(key: str, folder: Path) -> int:
    """Write ``bundle.json.sig`` for the bundle in ``folder``; ``key`` is a file or ``-`` (the environment)."""
    if key == "-":
        private_b64 = os.environ.get(SIGNING_KEY_ENV, "")
        if not private_b64.strip():
            print(f"{SIGNING_KEY_ENV} is not set: nothing signed", file=sys.stderr)
            return EXIT_FAILED
    else:
        private_b64 = Path(key).read_text(encoding="ascii")
    try:
        signature = sign((folder / BUNDLE_NAME).read_bytes(), private_b64.strip())
        public = public_key_of(private_b64.strip())
    except KeyFileError as error:
        print(f"not signed: {error}", file=sys.stderr)
        return EXIT_FAILED
    (folder / (BUNDLE_NAME + SIGNATURE_SUFFIX)).write_text(signature + "\n", encoding="ascii")
    print(f"signed {folder / BUNDLE_NAME} with the key whose public half is {public}")
    return EXIT_OK


def verify(folder: Path, keys: Path | None) -> int:
    """Check the bundle in ``folder`` as the wizard would; 1 when anything fails."""
    trusted = read_keys(keys) if keys is not None else trusted_keys()
    if not trusted:
        print(f"no *.pub key in {keys}: nothing can verify", file=sys.stderr)
        return EXIT_FAILED
    try:
        verified = verify_bundle(
            (folder / BUNDLE_NAME).read_bytes(),
            (folder / (BUNDLE_NAME + SHA256_SUFFIX)).read_bytes(),
            (folder / (BUNDLE_NAME + SIGNATURE_SUFFIX)).read_bytes(),
            trusted,
        )
    except OSError as error:
        print(f"refused: {error.filename}: {error.strerror}", file=sys.stderr)
        return EXIT_FAILED
    except BundleRefused as refusal:
        print(f"refused: {refusal}", file=sys.stderr)
        return EXIT_FAILED
    print(f"verified {folder / BUNDLE_NAME}: data of {verified.generated}, signed with {verified.key}")
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    """Run one command."""
    parser = argparse.ArgumentParser(prog="compat_bundle.py", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    keys = commands.add_parser("keygen", help="a new Ed25519 key pair")
    keys.add_argument("--private", type=Path, required=True, metavar="FILE")
    keys.add_argument("--public", type=Path, required=True, metavar="FILE")
    built = commands.add_parser("build", help="bundle.json and bundle.json.sha256")
    built.add_argument("--data", type=Path, required=True, metavar="DIR", help="resources/compat")
    built.add_argument("--out", type=Path, required=True, metavar="DIR")
    signed = commands.add_parser("sign", help="bundle.json.sig")
    signed.add_argument(
        "--key", required=True, metavar="FILE", help=f"the private key, or - for ${SIGNING_KEY_ENV}"
    )
    signed.add_argument("folder", type=Path, metavar="DIR")
    checked = commands.add_parser("verify", help="every check the wizard makes; exit 1 when one fails")
    checked.add_argument("folder", type=Path, metavar="DIR")
    checked.add_argument(
        "--keys", type=Path, metavar="DIR", help="trust these *.pub keys (default: the shipped ones)"
    )
    args = parser.parse_args(argv)
    if args.command == "keygen":
        return keygen(args.private, args.public)
    if args.command == "build":
        return build(args.data, args.out)
    if args.command == "sign":
        return sign_folder(args.key, args.folder)
    return verify(args.folder, args.keys)


if __name__ == "__main__":
    sys.exit(main())
