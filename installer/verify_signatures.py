r"""Check the Authenticode signatures of the Windows programs with osslsigncode (issue 37, point 10).

    python installer/verify_signatures.py [--ca-file PEM]... [--publisher NAME]
        [--require PATTERN]... [--no-crl-download] PATH...

Each PATH is a program or a folder, whose ``*.exe`` files at any depth are all checked. A program
passes when ``osslsigncode verify`` accepts its signature: the digest matches the file, the
certificate chains to a CA of ``--ca-file`` (the files are read together; without any, the bundle
osslsigncode was built with), and so does the timestamp's; with ``--publisher``, the signing
certificate's common name must also be NAME, so that a program still carrying another publisher's
signature (uv.exe as its wheel brings it) fails. Every ``--require`` pattern (``fnmatch``, on the
file name, case-insensitive) must match a checked program, so that a program missing from what was
extracted fails too rather than passing unseen.

The release workflow (.github/workflows/windows-installer.yml) runs it on Linux over the
installer, the programs 7-Zip extracts from it and the programs a silent install wrote (the
uninstaller among them), with Microsoft's root of Artifact Signing as a CA file
(installer/certs/). How to run it on a downloaded installer: docs/signing.md.

``--no-crl-download`` passes ``-ignore-crl`` (osslsigncode 2.9+): no revocation lists fetched, for a
machine offline. osslsigncode: https://github.com/mtrojnar/osslsigncode (``osslsigncode verify
--help``).

Exit codes: 0 every program passed and every pattern matched; 1 otherwise (a line per problem);
2 bad input or osslsigncode missing (one line on stderr).
"""

from __future__ import annotations

import argparse
import enum
import fnmatch
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

#: What osslsigncode prints (stderr) for a program with no signature at all (2.5 to 2.14).
_NO_SIGNATURE: Final = "No signature found"
#: The line before the signing (leaf) certificate, whose subject follows as ``Subject: /C=../CN=..``
#: (X509_NAME_oneline, osslsigncode.c print_cert, the same from 2.5 to 2.14).
_SIGNER_HEADER: Final = "Signer's certificate:"
_VERIFY_LIMIT_S: Final = 300  # a large program, and CRLs fetched over a slow network


class UsageError(Exception):
    """Bad input or a missing tool: one line, exit 2."""


class Outcome(enum.Enum):
    """What the check found for one program."""

    SIGNED = "signed"
    UNSIGNED = "UNSIGNED"
    INVALID = "INVALID"
    OTHER_PUBLISHER = "PUBLISHER"


@dataclass(frozen=True)
class Verdict:
    """One program's result, with the reason when it failed."""

    path: Path
    outcome: Outcome
    detail: str = ""


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(prog="verify_signatures.py", description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="a program or a folder")
    parser.add_argument(
        "--ca-file", action="append", type=Path, default=[], help="trusted CAs (PEM); repeatable"
    )
    parser.add_argument("--publisher", help="the common name the signing certificate must have")
    parser.add_argument(
        "--require", action="append", default=[], metavar="PATTERN", help="a file name that must be checked"
    )
    parser.add_argument("--no-crl-download", action="store_true", help="do not fetch revocation lists")
    return parser.parse_args(argv)


def programs(paths: Sequence[Path]) -> list[Path]:
    """The programs named by ``paths``: files as given, folders' ``*.exe`` at any depth, in order."""
    found: list[Path] = []
    for path in paths:
        if path.is_file():
            found.append(path)
        elif path.is_dir():
            found.extend(sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() == ".exe"))
        else:
            raise UsageError(f"{path}: no such file or folder")
    return found


def missing(required: Sequence[str], checked: Sequence[Path]) -> list[str]:
    """The patterns of ``required`` that match none of the ``checked`` file names."""
    names = [path.name.lower() for path in checked]
    return [pattern for pattern in required if not fnmatch.filter(names, pattern.lower())]


def signer_subject(output: str) -> str | None:
    """The signing certificate's subject in osslsigncode's report, or None when it has none."""
    lines = output.splitlines()
    for at, line in enumerate(lines):
        if line.strip() == _SIGNER_HEADER:
            for following in lines[at + 1 :]:
                label, _, value = following.strip().partition(":")
                if label == "Subject":
                    return value.strip()
            return None
    return None


def names_publisher(subject: str, publisher: str) -> bool:
    """Whether ``subject`` (``/C=US/O=../CN=NAME``) has the common name ``publisher``."""
    return re.search(rf"(?:^|/)CN={re.escape(publisher)}(?:/|$)", subject) is not None


def verify(
    program: Path, osslsigncode: str, *, ca_bundle: Path | None, publisher: str | None, no_crl: bool
) -> Verdict:
    """``osslsigncode verify`` on ``program``, read into a verdict."""
    argv = [osslsigncode, "verify"]
    if ca_bundle is not None:
        # The timestamp's chain too: an expired signing certificate (Artifact Signing's last three
        # days) verifies at the timestamp's time only when the timestamp itself verifies.
        argv += ["-CAfile", str(ca_bundle), "-TSA-CAfile", str(ca_bundle)]
    if no_crl:
        argv.append("-ignore-crl")
    argv += ["-in", str(program)]
    done = subprocess.run(
        argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, errors="replace",
        timeout=_VERIFY_LIMIT_S, check=False,
    )  # fmt: skip
    output = done.stdout + done.stderr
    if _NO_SIGNATURE in output:
        return Verdict(program, Outcome.UNSIGNED, "no Authenticode signature")
    subject = signer_subject(output) or "?"
    if done.returncode != 0:
        return Verdict(program, Outcome.INVALID, f"signed by {subject}; {_reason(output)}")
    if publisher is not None and not names_publisher(subject, publisher):
        return Verdict(program, Outcome.OTHER_PUBLISHER, f"signed by {subject}, not CN={publisher}")
    return Verdict(program, Outcome.SIGNED, f"signed by {subject}")


def _reason(output: str) -> str:
    """The part of osslsigncode's report that best says why a verification failed."""
    lines = output.splitlines()
    for line in lines:  # OpenSSL's error line, after its codes: "...:Verify error: <why>"
        if "Verify error:" in line:
            return "Verify error:" + line.split("Verify error:", 1)[1]
    for marker in ("MISMATCH", "Error:", "failed"):
        for line in lines:
            if marker in line:
                return line.strip()
    return "osslsigncode verify failed"


def ca_bundle(files: Sequence[Path], folder: Path) -> Path | None:
    """The CA files read together into one PEM in ``folder`` (osslsigncode takes one), or None."""
    if not files:
        return None
    bundle = folder / "ca-bundle.pem"
    with bundle.open("wb") as out:
        for file in files:
            if not file.is_file():
                raise UsageError(f"--ca-file {file}: no such file")
            out.write(file.read_bytes().strip() + b"\n")
    return bundle


def check(args: argparse.Namespace) -> tuple[list[str], bool]:
    """The report's lines, and whether every program passed and every pattern matched."""
    osslsigncode = shutil.which("osslsigncode")
    if osslsigncode is None:
        raise UsageError("osslsigncode is not installed: Debian/Ubuntu `apt-get install osslsigncode`")
    checked = programs(args.paths)
    if not checked:
        raise UsageError("no programs (*.exe) under " + ", ".join(str(p) for p in args.paths))
    with tempfile.TemporaryDirectory(prefix="verify-signatures-") as folder:
        bundle = ca_bundle(args.ca_file, Path(folder))
        verdicts = [
            verify(
                program, osslsigncode, ca_bundle=bundle, publisher=args.publisher, no_crl=args.no_crl_download
            )
            for program in checked
        ]
    lines = [f"{v.outcome.value:<9} {v.path}: {v.detail}" for v in verdicts]
    absent = missing(args.require, checked)
    lines += [f"{'MISSING':<9} no program named {pattern} was checked" for pattern in absent]
    failed = sum(v.outcome is not Outcome.SIGNED for v in verdicts) + len(absent)
    if failed:
        lines.append(f"verify_signatures: {failed} problem(s) among {len(checked)} program(s)")
    else:
        lines.append(f"verify_signatures: all {len(checked)} program(s) signed and verified")
    return lines, failed == 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the check; returns the exit code."""
    args = parse_args(argv)
    try:
        lines, passed = check(args)
    except UsageError as error:
        print(f"verify_signatures.py: error: {error}", file=sys.stderr)
        return 2
    print("\n".join(lines), flush=True)
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
