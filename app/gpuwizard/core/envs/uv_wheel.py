"""uv's Linux binary out of its wheel on PyPI: which wheel, who published it, and the binary it holds (pure).

The environment inside a WSL 2 distro is made by uv (issue 39), which the Windows side brings:
PyPI publishes uv as wheels (``uv-0.13.9-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl``)
and the JSON API (https://docs.pypi.org/api/json/, ``GET /pypi/uv/<version>/json``) lists each
file of a release in ``urls`` with its ``url``, ``size``, ``yanked`` and ``digests.sha256``.
:func:`choose_wheel` picks the file for a Linux architecture; the wheel, a zip, holds the binary
as ``uv-VERSION.data/scripts/uv`` (maturin puts a package's programs there; an installer copies
them to ``bin/``) and lists it in ``uv-VERSION.dist-info/RECORD`` with the urlsafe-base64 sha256
of its bytes, without padding (PEP 376, PEP 427; the binary distribution format,
packaging.python.org). :func:`uv_from_wheel` finds the binary through RECORD and checks both
links: the wheel's bytes against PyPI's digest, the binary's against RECORD's. The step inside
the distro checks the binary's sha256 once more before it puts it in place
(``core/envs/wsl_steps.py``).

Who published it (the project's rule: nothing downloaded is trusted without HTTPS and a check of
who published it):

- PyPI's Integrity API (https://docs.pypi.org/api/integrity/, PEP 740) answers
  ``GET /integrity/uv/<version>/<file>/provenance`` with the attestations PyPI verified at upload
  and the Trusted Publisher that made them. When it has one, :func:`provenance_publisher` accepts
  it only when every bundle's publisher is ``kind`` GitHub with ``repository`` ``astral-sh/uv``
  (compared without case, as GitHub does) and every attestation's statement names this file and
  its sha256; anything else is refused. The attestations' Sigstore signatures are not verified
  here: that is PyPI's word, read over HTTPS, which PyPI checked when the files were uploaded.
- When PyPI answers that there is none (404), the wheel is accepted on the rest, and the result
  says so (``publisher_checked`` false, ``workflow/envs/wsl_uv.py``). That is uv's normal case,
  not an anomaly to refuse: uv's PyPI uploads carry no attestations. astral-sh/uv#16910 turned
  them on (2025-12-01) and #16944 turned them off the next day ("This broke the release");
  ``.github/workflows/publish-pypi.yml`` at astral-sh/uv@26a9dd4b (2026-08-21) publishes with
  ``uv publish`` and no attestation step, and ``ci.yml`` there notes that "PyPI does not support
  attestations in reusable workflows", which that publish workflow is. ``uv publish`` uploads
  attestations only when something else made them (astral-sh/uv#15618; uv's docs, "Uploading
  attestations with your package"); #9122 asks for more PEP 740 support and is open. Refusing on a
  404 would refuse every uv release; accepting a provenance from anyone else would make the
  check worthless.
- The rest holds either way: the JSON comes from PyPI itself (https://pypi.org, over HTTPS, its
  ``info.name`` ``uv``, the file of the version asked), the wheel's URL is https and its bytes
  have PyPI's published sha256, yanked files are never taken, and RECORD vouches for the binary.
"""

from __future__ import annotations

import base64
import binascii
import csv
import hashlib
import io
import re
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import quote, urljoin, urlsplit

from gpuwizard.core.json_input import JsonInputError, decode_utf8, parse_json

#: The project on PyPI, and the repository its Trusted Publisher must be (compared without case).
PROJECT: Final = "uv"
PUBLISHER_KIND: Final = "GitHub"
PUBLISHER_REPOSITORY: Final = "astral-sh/uv"
#: What the architecture is called (``uname -m`` in the distro, ``PROCESSOR_ARCHITECTURE`` on
#: Windows) to the name in uv's wheel tags.
LINUX_ARCHITECTURES: Final[Mapping[str, str]] = {
    "x86_64": "x86_64",
    "amd64": "x86_64",
    "aarch64": "aarch64",
    "arm64": "aarch64",
}
#: The largest wheel accepted: uv 0.13.9's largest Linux wheel (ppc64le) is 20,059,600 bytes.
MAX_WHEEL_BYTES: Final = 64 << 20
#: The largest binary taken out of it: 0.13.9's x86_64 ``uv`` is 38,409,000 bytes; a zip entry
#: that claims more is refused before it is unpacked.
MAX_BINARY_BYTES: Final = 256 << 20
#: The glibc versions the legacy manylinux tags stand for (PEP 600).
_LEGACY_MANYLINUX: Final = {"manylinux1": (2, 5), "manylinux2010": (2, 12), "manylinux2014": (2, 17)}
_SHA256: Final = re.compile(r"^[0-9a-f]{64}$")
#: A version as it may appear in a URL path and a file name: PEP 440's characters, no slash.
_VERSION: Final = re.compile(r"^[0-9][0-9A-Za-z.+!_-]{0,63}$")
_RECORD: Final = re.compile(r"^uv-(?P<version>[^/]+)\.dist-info/RECORD$")


class UvWheelRefused(ValueError):
    """The wheel is not the published one, or does not hold a uv binary it vouches for (one line)."""


@dataclass(frozen=True)
class UvBinary:
    """uv's Linux binary as sent into the distro.

    Attributes:
        data: Its bytes.
        sha256: Their sha256, hexadecimal: what the step inside the distro checks.
        version: The wheel's version (``0.13.9``), empty when not from a wheel.
    """

    data: bytes = field(repr=False)
    sha256: str
    version: str = ""

    @classmethod
    def of(cls, data: bytes, version: str = "") -> UvBinary:
        """A binary with the sha256 of its bytes (one already proven, or a local uv)."""
        return cls(data, hashlib.sha256(data).hexdigest(), version)


@dataclass(frozen=True)
class UvWheel:
    """The file of a uv release on PyPI chosen for one Linux architecture.

    Attributes:
        version: The release (``0.13.9``).
        arch: ``x86_64`` or ``aarch64``.
        filename: The wheel's file name.
        url: Where it is (https).
        sha256: PyPI's digest of the file, hexadecimal.
        size: Its size in bytes, as PyPI gives it.
    """

    version: str
    arch: str
    filename: str
    url: str
    sha256: str
    size: int


def linux_arch(name: str) -> str:
    """``x86_64`` or ``aarch64`` for what a machine calls its architecture (``AMD64``, ``arm64``...).

    Raises:
        UvWheelRefused: uv publishes no wheel this module takes for it.
    """
    found = LINUX_ARCHITECTURES.get(name.strip().lower())
    if found is None:
        known = ", ".join(sorted(set(LINUX_ARCHITECTURES.values())))
        raise UvWheelRefused(f"no uv for the architecture {name!r} (only {known})")
    return found


def checked_version(version: str) -> str:
    """``version`` when it can name a release in a URL and a file name (``0.13.9``, ``0.5.0rc1``).

    Raises:
        UvWheelRefused: It cannot (empty, a slash, a space...).
    """
    if not _VERSION.match(version):
        raise UvWheelRefused(f"{version!r} is not a version of uv")
    return version


def release_url(pypi: str, version: str | None) -> str:
    """PyPI's JSON answer for uv ``version`` (None: the latest release), under PyPI's root ``pypi``."""
    root = pypi.rstrip("/")
    if version is None:
        return f"{root}/pypi/{PROJECT}/json"
    return f"{root}/pypi/{PROJECT}/{quote(checked_version(version), safe='')}/json"


def provenance_url(pypi: str, wheel: UvWheel) -> str:
    """The Integrity API's address of ``wheel``'s provenance, under PyPI's root ``pypi``."""
    parts = (PROJECT, wheel.version, wheel.filename)
    return f"{pypi.rstrip('/')}/integrity/" + "/".join(quote(part, safe="") for part in parts) + "/provenance"


def choose_wheel(answer: bytes, *, source: str, arch: str, version: str | None = None) -> UvWheel:
    """The wheel of uv for Linux ``arch`` in PyPI's JSON ``answer`` (asked at ``source``).

    A ``py3-none`` wheel tagged manylinux for the architecture, the one that asks the oldest glibc
    (it runs on the most distros: uv's ``manylinux_2_17`` wheels before its ``manylinux_2_28``
    ones); a musllinux-only wheel only when there is no manylinux one. Yanked files are never
    taken. A relative ``url`` is read against ``source``, as a browser would.

    Raises:
        UvWheelRefused: Not PyPI's answer about uv (or not about ``version``), no such wheel, the
            only ones yanked, a URL that is not https, a digest or size that is not one.
    """
    wanted = linux_arch(arch)
    try:
        data = parse_json(decode_utf8(answer, source=source), source=source)
    except JsonInputError as error:
        raise UvWheelRefused(str(error)) from None
    info = data.get("info") if isinstance(data, dict) else None
    files = data.get("urls") if isinstance(data, dict) else None
    if not isinstance(info, dict) or not isinstance(files, list):
        raise UvWheelRefused(f"{source}: not an answer of PyPI's JSON API (no info and urls)")
    name = info.get("name")
    if not isinstance(name, str) or _canonical(name) != PROJECT:
        raise UvWheelRefused(f"{source}: an answer about {name!r}, not about uv")
    release = info.get("version")
    if not isinstance(release, str) or (version is not None and release != version):
        raise UvWheelRefused(f"{source}: an answer about uv {release!r}, not {version}")
    checked_version(release)
    candidates: list[tuple[tuple[int, int, int], dict[str, Any]]] = []
    yanked: list[str] = []
    for entry in files:
        rank = _rank(entry, release, wanted) if isinstance(entry, dict) else None
        if rank is None:
            continue
        if entry.get("yanked", False) is not False:
            reason = entry.get("yanked_reason")
            yanked.append(f"{entry.get('filename')} ({reason})" if reason else str(entry.get("filename")))
            continue
        candidates.append((rank, entry))
    if not candidates:
        if yanked:
            raise UvWheelRefused(f"uv {release}'s wheels for Linux {wanted} are yanked: {', '.join(yanked)}")
        raise UvWheelRefused(f"uv {release} has no wheel for Linux {wanted} on PyPI")
    entry = min(candidates, key=lambda candidate: candidate[0])[1]
    return _wheel(entry, source=source, version=release, arch=wanted)


def _canonical(name: str) -> str:
    """PEP 503's normalised name."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _rank(entry: Mapping[str, Any], version: str, arch: str) -> tuple[int, int, int] | None:
    """How good a choice ``entry`` is for ``arch`` (lower is better), or None when it is none.

    ``(0, glibc major, minor)`` for a manylinux wheel, ``(1, musl major, minor)`` for a
    musllinux-only one.
    """
    filename = entry.get("filename")
    if entry.get("packagetype") != "bdist_wheel" or not isinstance(filename, str):
        return None
    if not filename.startswith(f"{PROJECT}-{version}-") or not filename.endswith(".whl"):
        return None
    parts = filename.removesuffix(".whl").split("-")
    # name-version-python-abi-platform (no build tag: uv's wheels have none).
    if len(parts) != 5 or "py3" not in parts[2].split(".") or parts[3] != "none":
        return None
    glibc: list[tuple[int, int]] = []
    musl: list[tuple[int, int]] = []
    for tag in parts[4].split("."):
        if tag in (f"{legacy}_{arch}" for legacy in _LEGACY_MANYLINUX):
            glibc.append(_LEGACY_MANYLINUX[tag.removesuffix(f"_{arch}")])
        elif found := re.fullmatch(rf"(manylinux|musllinux)_(\d+)_(\d+)_{arch}", tag):
            (glibc if found[1] == "manylinux" else musl).append((int(found[2]), int(found[3])))
    if glibc:
        return (0, *min(glibc))
    if musl:
        return (1, *min(musl))
    return None


def _wheel(entry: Mapping[str, Any], *, source: str, version: str, arch: str) -> UvWheel:
    filename = str(entry["filename"])
    address = entry.get("url")
    if not isinstance(address, str) or not address:
        raise UvWheelRefused(f"{source}: no URL for {filename}")
    url = urljoin(source, address)
    parts = urlsplit(url)
    if parts.scheme.lower() != "https" or not parts.hostname:
        raise UvWheelRefused(
            f"{source}: {filename} is at {url}, not an https:// URL (it could be changed on its way)"
        )
    digests = entry.get("digests")
    sha256 = digests.get("sha256") if isinstance(digests, dict) else None
    if not isinstance(sha256, str) or not _SHA256.match(sha256.lower()):
        raise UvWheelRefused(f"{source}: no sha256 for {filename}")
    size = entry.get("size")
    if not isinstance(size, int) or isinstance(size, bool) or not 0 < size <= MAX_WHEEL_BYTES:
        raise UvWheelRefused(f"{source}: {filename} has no size, or one past {MAX_WHEEL_BYTES} bytes")
    return UvWheel(version=version, arch=arch, filename=filename, url=url, sha256=sha256.lower(), size=size)


def provenance_publisher(answer: bytes, wheel: UvWheel, *, source: str) -> str:
    """Who published ``wheel``, from the Integrity API's ``answer``: ``GitHub astral-sh/uv (release.yml)``.

    Every attestation bundle's publisher must be GitHub's ``astral-sh/uv``, and every attestation's
    statement (base64 JSON, an in-toto statement) must name ``wheel`` with its sha256.

    Raises:
        UvWheelRefused: Another publisher, a statement about another file, or no readable provenance.
    """
    try:
        data = parse_json(decode_utf8(answer, source=source), source=source)
    except JsonInputError as error:
        raise UvWheelRefused(str(error)) from None
    bundles = data.get("attestation_bundles") if isinstance(data, dict) else None
    if not isinstance(bundles, list) or not bundles:
        raise UvWheelRefused(f"{source}: a provenance without attestation bundles")
    names: list[str] = []
    for bundle in bundles:
        publisher = bundle.get("publisher") if isinstance(bundle, dict) else None
        if not isinstance(publisher, dict):
            raise UvWheelRefused(f"{source}: an attestation bundle without its publisher")
        kind, repository = publisher.get("kind"), publisher.get("repository")
        if (
            not isinstance(kind, str)
            or not isinstance(repository, str)
            or kind.lower() != PUBLISHER_KIND.lower()
            or repository.lower() != PUBLISHER_REPOSITORY.lower()
        ):
            raise UvWheelRefused(
                f"{wheel.filename} was published by {kind} {repository}, not by {PUBLISHER_KIND} "
                f"{PUBLISHER_REPOSITORY} (PyPI's provenance, {source})"
            )
        attestations = bundle.get("attestations")
        if not isinstance(attestations, list) or not attestations:
            raise UvWheelRefused(f"{source}: an attestation bundle without attestations")
        for attestation in attestations:
            _check_statement(attestation, wheel, source=source)
        workflow = publisher.get("workflow")
        named = f"{PUBLISHER_KIND} {repository}" + (
            f" ({workflow})" if isinstance(workflow, str) and workflow else ""
        )
        if named not in names:
            names.append(named)
    return ", ".join(names)


def _check_statement(attestation: object, wheel: UvWheel, *, source: str) -> None:
    """The attestation's statement names ``wheel`` and its sha256 (PEP 740: an in-toto statement)."""
    envelope = attestation.get("envelope") if isinstance(attestation, dict) else None
    statement = envelope.get("statement") if isinstance(envelope, dict) else None
    subjects = None
    if isinstance(statement, str):
        try:
            text = base64.b64decode(statement, validate=True).decode("utf-8")
            parsed = parse_json(text, source=source)
        except (binascii.Error, UnicodeDecodeError, JsonInputError):
            parsed = None
        subjects = parsed.get("subject") if isinstance(parsed, dict) else None
    if not isinstance(subjects, list):
        raise UvWheelRefused(f"{source}: an attestation whose statement cannot be read")
    for subject in subjects:
        digest = subject.get("digest") if isinstance(subject, dict) else None
        if (
            isinstance(digest, dict)
            and subject.get("name") == wheel.filename
            and str(digest.get("sha256", "")).lower() == wheel.sha256
        ):
            return
    raise UvWheelRefused(
        f"{source}: an attestation about another file than {wheel.filename} ({wheel.sha256})"
    )


def uv_from_wheel(wheel: bytes, published_sha256: str, *, version: str | None = None) -> UvBinary:
    """The uv binary in ``wheel``, once the wheel is the published one and its RECORD vouches for it.

    The binary is the file RECORD lists as ``uv-VERSION.data/scripts/uv``; ``version``, when
    given, must be the wheel's.

    Raises:
        UvWheelRefused: The wheel's sha256 is not ``published_sha256``, it is no zip, it has no
            RECORD or not one, RECORD lists no such binary (or it more than once), the binary is
            missing, too large, or not the bytes RECORD gives.
    """
    wanted = published_sha256.strip().lower()
    if not _SHA256.match(wanted):
        raise UvWheelRefused(f"{published_sha256!r} is not a sha256 (64 hexadecimal digits)")
    found = hashlib.sha256(wheel).hexdigest()
    if found != wanted:
        raise UvWheelRefused(f"the uv wheel has sha256 {found}, not the published {wanted}")
    try:
        archive = zipfile.ZipFile(io.BytesIO(wheel))
    except zipfile.BadZipFile as error:
        raise UvWheelRefused(f"the uv wheel is not a zip file: {error}") from None
    with archive:
        names = archive.namelist()
        records = [name for name in names if _RECORD.match(name)]
        if len(records) != 1:
            raise UvWheelRefused(f"the uv wheel has {len(records)} uv-*.dist-info/RECORD files, not one")
        record_name = records[0]
        wheel_version = _RECORD.match(record_name).group("version")  # type: ignore[union-attr]  # matched above
        if version is not None and wheel_version != version:
            raise UvWheelRefused(f"the wheel is uv {wheel_version}, not {version}")
        try:
            record = archive.read(record_name).decode("utf-8")
        except (UnicodeDecodeError, zipfile.BadZipFile, ValueError) as error:
            raise UvWheelRefused(f"{record_name} cannot be read: {error}") from None
        script, listed, size = _record_binary(record, record_name, wheel_version)
        if names.count(script) != 1:
            raise UvWheelRefused(f"the uv wheel holds {names.count(script)} files {script}, not one")
        declared = archive.getinfo(script).file_size
        if declared > MAX_BINARY_BYTES or (size is not None and declared != size):
            raise UvWheelRefused(f"{script} is {declared} bytes, not the {size} {record_name} gives")
        try:
            data = archive.read(script)
        except (zipfile.BadZipFile, ValueError, OSError) as error:  # a CRC error, a damaged entry
            raise UvWheelRefused(f"{script} cannot be read: {error}") from None
    binary = UvBinary.of(data, wheel_version)
    if binary.sha256 != listed:
        raise UvWheelRefused(f"{script} does not match the sha256 {record_name} gives it")
    return binary


def _record_binary(record: str, record_name: str, version: str) -> tuple[str, str, int | None]:
    """The binary RECORD lists: its path, sha256 (hexadecimal) and size (None when not given).

    A RECORD row is ``path,sha256=<urlsafe base64, no padding>,size`` (PEP 376, PEP 427).

    Raises:
        UvWheelRefused: No ``uv-VERSION.data/scripts/uv`` row, more than one, or one without a
            sha256 or with one that is not.
    """
    script = f"uv-{version}.data/scripts/uv"
    rows = [row for row in csv.reader(io.StringIO(record)) if row and row[0] == script]
    if len(rows) != 1:
        raise UvWheelRefused(f"{record_name} lists {len(rows)} {script}, not one")
    row = rows[0]
    hashed = row[1] if len(row) >= 2 else ""
    if not hashed.startswith("sha256="):
        raise UvWheelRefused(f"{record_name} gives no sha256 for {script}")
    encoded = hashed.removeprefix("sha256=")
    try:
        digest = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4))
    except (binascii.Error, ValueError):
        digest = b""
    if len(digest) != 32:
        raise UvWheelRefused(f"{record_name} gives {script} a sha256 that is not one")
    size = int(row[2]) if len(row) >= 3 and row[2].isdigit() else None
    return script, digest.hex(), size
