"""uv's wheels, PyPI's JSON answer about them and the Integrity API's provenance, made for the tests.

The wheel is laid out as uv's real ones are (``uv-VERSION.data/scripts/uv`` for the binary,
``uv-VERSION.dist-info/RECORD`` with urlsafe-base64 sha256s without padding: PEP 376, PEP 427),
holding a small script or any bytes the test gives. The JSON answer is the one recorded from
https://pypi.org/pypi/uv/json (``fixtures/pypi``, see SOURCES.md there) with the wanted files
pointed at the test's server; the provenance has the shape of https://docs.pypi.org/api/integrity/
(the publisher as ``pypi_attestations.GitHubPublisher`` writes it: ``kind``, ``repository``,
``workflow``, ``environment``), with an in-toto statement naming the file and its sha256.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import io
import json
import zipfile
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "pypi"
#: The release recorded (its JSON answer, its x86_64 RECORD).
VERSION = "0.13.9"
X86_64 = "uv-0.13.9-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
AARCH64 = "uv-0.13.9-py3-none-manylinux_2_17_aarch64.manylinux2014_aarch64.musllinux_1_1_aarch64.whl"
SCRIPT = b"#!/bin/sh\necho 'uv 0.13.9 (test build)'\n"
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)


def record_hash(data: bytes) -> str:
    """``sha256=<urlsafe base64, no padding>``, as RECORD lines carry it."""
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")


def uv_wheel(
    binary: bytes = SCRIPT,
    *,
    version: str = VERSION,
    record: str | None = None,
    listed: bytes | None = None,
    stored: bool = False,
) -> bytes:
    """A uv wheel holding ``binary`` as its ``uv``.

    Args:
        binary: The ``uv-VERSION.data/scripts/uv`` bytes.
        version: The wheel's version.
        record: RECORD's text as given (default: made from the files).
        listed: The bytes RECORD gives the binary's sha256 and size of (default: ``binary``): a
            RECORD that does not vouch for the binary.
        stored: Uncompressed (quick for a large binary).
    """
    data = f"uv-{version}.data/scripts"
    info = f"uv-{version}.dist-info"
    files = {
        "uv/__init__.py": b"",
        f"{data}/uv": binary,
        f"{info}/METADATA": f"Metadata-Version: 2.4\nName: uv\nVersion: {version}\n".encode(),
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: gpuwizard-tests\nRoot-Is-Purelib: false\n",
    }
    if record is None:
        rows = []
        for name, content in files.items():
            vouched = listed if listed is not None and name == f"{data}/uv" else content
            rows.append(f"{name},{record_hash(vouched)},{len(vouched)}")
        record = "\n".join([*rows, f"{info}/RECORD,,"]) + "\n"
    buffer = io.BytesIO()
    method = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
    with zipfile.ZipFile(buffer, "w", method) as archive:
        for name, content in [*files.items(), (f"{info}/RECORD", record.encode())]:
            archive.writestr(zipfile.ZipInfo(name, _ZIP_TIME), content)
    return buffer.getvalue()


def recorded_answer() -> dict[str, Any]:
    """PyPI's JSON answer about uv 0.13.9 as recorded (trimmed; ``fixtures/pypi/SOURCES.md``)."""
    return json.loads((FIXTURES / "uv-0.13.9_pypi-json_trimmed.json").read_text(encoding="utf-8"))


def pypi_answer(files: dict[str, tuple[str, bytes]], *, sha256: dict[str, str] | None = None) -> bytes:
    """The recorded answer with the wheels named in ``files`` at ``(url, bytes)`` (their digest and size).

    ``sha256`` gives some of them another published digest (a wrong one).
    """
    answer = copy.deepcopy(recorded_answer())
    for entry in answer["urls"]:
        if entry["filename"] in files:
            url, content = files[entry["filename"]]
            digest = (sha256 or {}).get(entry["filename"], hashlib.sha256(content).hexdigest())
            entry.update(url=url, size=len(content))
            entry["digests"].update(sha256=digest, md5=hashlib.md5(content).hexdigest())  # noqa: S324 - PyPI's field
            entry["md5_digest"] = entry["digests"]["md5"]
    return json.dumps(answer, indent=1).encode()


def provenance(
    filename: str,
    sha256: str,
    *,
    repository: str = "astral-sh/uv",
    kind: str = "GitHub",
    workflow: str = "release.yml",
    subject: str | None = None,
    bundles: int = 1,
) -> bytes:
    """The Integrity API's provenance for ``filename``, published by ``kind`` ``repository``.

    ``subject``: the file the statement names (default ``filename``); ``bundles``: how many bundles,
    the last by ``repository`` and the others by astral-sh/uv.
    """
    statement = {
        "_type": "https://in-toto.io/Statement/v1",
        "subject": [{"name": subject or filename, "digest": {"sha256": sha256}}],
        "predicateType": "https://docs.pypi.org/attestations/publish/v1",
        "predicate": None,
    }
    attestation = {
        "version": 1,
        "verification_material": {"certificate": "MIIC...", "transparency_entries": [{}]},
        "envelope": {
            "statement": base64.b64encode(json.dumps(statement).encode()).decode("ascii"),
            "signature": "MEUCIQD1JCA8...",
        },
    }

    def bundle(publisher_repository: str, publisher_kind: str) -> dict[str, Any]:
        publisher = {"kind": publisher_kind, "repository": publisher_repository, "workflow": workflow}
        return {"publisher": {**publisher, "environment": "release"}, "attestations": [attestation]}

    listed = [bundle("astral-sh/uv", "GitHub") for _ in range(bundles - 1)] + [bundle(repository, kind)]
    return json.dumps({"version": 1, "attestation_bundles": listed}).encode()
