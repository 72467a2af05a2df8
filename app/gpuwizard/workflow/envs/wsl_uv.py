"""uv's Linux binary for a WSL 2 distro, fetched from PyPI on the Windows side, checked, and kept.

The environment inside the distro is made by uv in the wizard's own folder there (issue 39); the
Windows side supplies the binary (``core/envs/wsl_steps.py`` sends the bytes with their sha256).
:func:`fetch_wsl_uv` gets it from PyPI through the HTTP adapter (https only, a deadline for every
request, a size limit for every answer):

1. PyPI's JSON answer for the release (``/pypi/uv/<version>/json``; ``/pypi/uv/json`` for the
   latest): the wheel for the architecture, its URL and sha256 (``core/envs/uv_wheel.py``);
2. PyPI's Integrity API for that file: who published it (``publisher_checked``), or a 404 when
   PyPI has no provenance for it, which is uv's case (the rule and its sources:
   ``core/envs/uv_wheel.py``);
3. the wheel itself, checked against PyPI's sha256, and the binary out of it, checked against
   the wheel's RECORD.

Which release: the uv the wizard itself runs, so that the commands it was tested with are the
ones the distro's uv takes. That is the version of the ``uv`` package it depends on when Python
can say (``importlib.metadata``; the wheel's binary is what ``adapters/managers.py`` finds in the
scripts folder), else what the ``uv`` beside the program answers to ``--version`` (the frozen
Windows build ships ``uv.exe`` there, ``installer/gpuwizard.spec``, without the package's
metadata), else PyPI's latest release.

The verified binary is kept under the wizard's home, ``cache/uv/uv-VERSION-ARCH`` beside
``uv-VERSION-ARCH.json`` (its sha256, the wheel it came from, who published it), both written
atomically. It is used again, without asking PyPI, only while its bytes still have that sha256;
a binary that does not (damaged, changed) is fetched again, and a line on the ``gpuwizard.state``
logger says so.
"""

from __future__ import annotations

import importlib.metadata
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Final

from gpuwizard.adapters.atomic_files import write_bytes_atomically
from gpuwizard.adapters.http import HttpClient, HttpError, RequestsClient, configured_deadline
from gpuwizard.adapters.runner import Runner, RunnerError, SubprocessRunner
from gpuwizard.core.envs.uv_wheel import (
    MAX_BINARY_BYTES,
    UvBinary,
    UvWheel,
    UvWheelRefused,
    checked_version,
    choose_wheel,
    linux_arch,
    provenance_publisher,
    provenance_url,
    release_url,
    uv_from_wheel,
)
from gpuwizard.workflow.state.damaged import DamagedFile, read_state_json
from gpuwizard.workflow.state.files import write_json_atomically
from gpuwizard.workflow.state.home import STATE_LOG, state_unwritable, wizard_home

#: PyPI's root: the JSON API is under ``/pypi``, the Integrity API under ``/integrity``.
DEFAULT_PYPI: Final = "https://pypi.org"
#: Asks for PyPI's latest release whatever uv the wizard runs.
LATEST: Final = "latest"
#: The most PyPI's JSON answer may bring: https://pypi.org/pypi/uv/json was 4,841,830 bytes on
#: 2026-11-29 (333 releases; the answer for one release is far smaller).
JSON_MAX_BYTES: Final = 16 << 20
#: A provenance is a few attestations of a few KiB each.
PROVENANCE_MAX_BYTES: Final = 1 << 20
#: The deadline of the wheel's download when no client is given: 17.6 MB (0.13.9's x86_64
#: wheel) at 60 KB/s. ``GPUWIZARD_HTTP_DEADLINE_S`` replaces it, as it does every deadline.
WHEEL_DEADLINE_S: Final = 300.0
#: ``uv --version`` answers at once; this only stops one that hangs.
VERSION_TIMEOUT_S: Final = 20.0
_SCHEMA: Final = "gpuwizard.uv-binary/1"
_VERSION_LINE: Final = re.compile(r"^uv (\S+)")


class UvFetchError(Exception):
    """uv's binary could not be had (one line).

    Attributes:
        refused: True when something was refused as untrusted (a digest, a publisher, RECORD,
            plain http); False when it could not be fetched (offline, a deadline, an HTTP error).
    """

    def __init__(self, message: str, *, refused: bool) -> None:
        super().__init__(message)
        self.refused = refused


@dataclass(frozen=True)
class WslUv:
    """uv's verified Linux binary, and where it came from.

    Attributes:
        binary: The bytes with their sha256 and version (what ``core/envs/wsl_steps.py`` sends).
        arch: ``x86_64`` or ``aarch64``.
        wheel: The wheel's file name on PyPI.
        source_url: The wheel's URL.
        wheel_sha256: PyPI's sha256 of the wheel, which it matched.
        publisher_checked: True when PyPI's provenance named uv's repository as the publisher;
            False when PyPI had no provenance for the file (then only HTTPS, PyPI's digest and
            the wheel's RECORD vouch for it).
        publisher: Who PyPI says published it (``GitHub astral-sh/uv (release.yml)``), or None.
        path: The kept copy under the wizard's home, or None when it could not be written.
        from_cache: True when the kept copy was used and PyPI not asked.
    """

    binary: UvBinary
    arch: str
    wheel: str
    source_url: str
    wheel_sha256: str
    publisher_checked: bool
    publisher: str | None
    path: Path | None
    from_cache: bool = False

    @property
    def version(self) -> str:
        """The version of uv (``0.13.9``)."""
        return self.binary.version

    @property
    def sha256(self) -> str:
        """The binary's sha256, hexadecimal."""
        return self.binary.sha256


def uv_cache_dir() -> Path:
    """Where verified uv binaries are kept: ``cache/uv`` in the wizard's home."""
    return wizard_home() / "cache" / "uv"


def wizard_uv_version(
    *, folder: Path | None = None, runner: Runner | None = None, windows: bool | None = None
) -> str | None:
    """The version of the uv the wizard itself runs, or None when it cannot say.

    The ``uv`` package's version when its metadata is installed (the wizard's own environment),
    else :func:`bundled_uv_version` of the program's folder (``folder``, by default that of
    ``sys.executable``: the frozen build's).
    """
    try:
        return checked_version(importlib.metadata.version("uv"))
    except (importlib.metadata.PackageNotFoundError, UvWheelRefused):
        pass
    return bundled_uv_version(folder or Path(sys.executable).parent, runner=runner, windows=windows)


def bundled_uv_version(
    folder: Path, *, runner: Runner | None = None, windows: bool | None = None
) -> str | None:
    """What the ``uv`` (``uv.exe`` on Windows) in ``folder`` says its version is, or None."""
    windows = sys.platform == "win32" if windows is None else windows
    program = folder / ("uv.exe" if windows else "uv")
    if not program.is_file():
        return None
    try:
        done = (runner or SubprocessRunner()).run([str(program), "--version"], timeout=VERSION_TIMEOUT_S)
    except RunnerError:
        return None
    found = _VERSION_LINE.match(done.stdout.strip()) if done.ok else None
    if found is None:
        return None
    try:
        return checked_version(found[1])
    except UvWheelRefused:
        return None


def fetch_wsl_uv(
    arch: str,
    *,
    version: str | None = None,
    client: HttpClient | None = None,
    pypi: str = DEFAULT_PYPI,
    cache_dir: Path | None = None,
    own_version: Callable[[], str | None] = wizard_uv_version,
) -> WslUv:
    """The Linux binary of uv for ``arch`` (``x86_64``, ``aarch64``; ``AMD64``, ``arm64`` too), verified.

    Args:
        arch: The distro's architecture (``uname -m``).
        version: The release; None: the one the wizard runs (``own_version``), else the latest;
            :data:`LATEST`: PyPI's latest.
        client: Fetches everything (tests pass one trusting their CA, with short deadlines);
            None: a :class:`RequestsClient` with the default deadlines, and one of
            :data:`WHEEL_DEADLINE_S` for the wheel.
        pypi: PyPI's root (``https://pypi.org``): JSON API and Integrity API under it.
        cache_dir: Where binaries are kept (default :func:`uv_cache_dir`).
        own_version: Says the version of the uv the wizard runs.

    Raises:
        UvFetchError: Refused (``refused``: a digest, publisher or RECORD that does not match,
            plain http, a yanked or missing wheel) or not fetched (offline, a deadline, HTTP).
            Nothing is kept then.
    """
    folder = cache_dir or uv_cache_dir()
    try:
        wanted_arch = linux_arch(arch)
        wanted = own_version() if version is None else version
        wanted = None if wanted in (None, LATEST) else checked_version(wanted)
    except UvWheelRefused as error:
        raise UvFetchError(str(error), refused=True) from None
    if wanted is not None:
        kept = _kept(folder, wanted, wanted_arch)
        if kept is not None:
            return kept
    metadata_client = client or RequestsClient()
    address = release_url(pypi, wanted)
    answer = _get(metadata_client, address, JSON_MAX_BYTES, "ask PyPI about uv")
    try:
        wheel = choose_wheel(answer, source=address, arch=wanted_arch, version=wanted)
    except UvWheelRefused as error:
        raise UvFetchError(str(error), refused=True) from None
    if wanted is None:
        kept = _kept(folder, wheel.version, wanted_arch, wheel_sha256=wheel.sha256)
        if kept is not None:
            return kept
    publisher = _publisher(metadata_client, pypi, wheel)
    wheel_client = client or RequestsClient(deadline=configured_deadline() or WHEEL_DEADLINE_S)
    data = _get(wheel_client, wheel.url, wheel.size, f"download {wheel.filename}")
    try:
        binary = uv_from_wheel(data, wheel.sha256, version=wheel.version)
    except UvWheelRefused as error:
        raise UvFetchError(f"{wheel.url}: {error}", refused=True) from None
    found = WslUv(
        binary=binary,
        arch=wanted_arch,
        wheel=wheel.filename,
        source_url=wheel.url,
        wheel_sha256=wheel.sha256,
        publisher_checked=publisher is not None,
        publisher=publisher,
        path=None,
    )
    return _keep(folder, found)


def _get(client: HttpClient, url: str, max_bytes: int, what: str) -> bytes:
    try:
        return client.get(url, max_bytes=max_bytes)
    except HttpError as error:
        raise UvFetchError(f"could not {what}: {error}", refused=False) from None


def _publisher(client: HttpClient, pypi: str, wheel: UvWheel) -> str | None:
    """Who PyPI says published ``wheel``; None when PyPI has no provenance for it (404)."""
    address = provenance_url(pypi, wheel)
    try:
        answer = client.get(address, max_bytes=PROVENANCE_MAX_BYTES)
    except HttpError as error:
        if error.status == 404:
            return None
        # Not "none": PyPI could not be asked, and an answer that might name another publisher
        # is no answer to go on without.
        raise UvFetchError(
            f"could not ask PyPI who published {wheel.filename}: {error}", refused=False
        ) from None
    try:
        return provenance_publisher(answer, wheel, source=address)
    except UvWheelRefused as error:
        raise UvFetchError(str(error), refused=True) from None


def _names(folder: Path, version: str, arch: str) -> tuple[Path, Path]:
    stem = f"uv-{version}-{arch}"
    return folder / stem, folder / f"{stem}.json"


def _kept(folder: Path, version: str, arch: str, *, wheel_sha256: str | None = None) -> WslUv | None:
    """The kept binary of ``version`` for ``arch`` while its bytes still have its sha256, else None.

    ``wheel_sha256``: it must also come from that wheel (PyPI's digest of its latest release).
    """
    binary_path, record_path = _names(folder, version, arch)
    try:
        record = read_state_json(record_path)
    except (OSError, DamagedFile):
        return None  # none kept, or a record that cannot be read: fetched again, rewritten
    if not isinstance(record, dict) or record.get("schema") != _SCHEMA:
        return None
    fields = _record_fields(record, version, arch)
    if fields is None or (wheel_sha256 is not None and fields["wheel_sha256"] != wheel_sha256):
        return None
    try:
        if binary_path.stat().st_size > MAX_BINARY_BYTES:
            raise OSError(f"{binary_path} is larger than any uv")
        data = binary_path.read_bytes()
    except OSError:
        return None
    binary = UvBinary.of(data, version)
    if binary.sha256 != fields["sha256"]:
        STATE_LOG.warning(
            "the kept uv %s (%s) no longer has its sha256 %s; it is fetched again",
            version, binary_path, fields["sha256"],
        )  # fmt: skip
        return None
    return WslUv(
        binary=binary,
        arch=arch,
        wheel=fields["wheel"],
        source_url=fields["source_url"],
        wheel_sha256=fields["wheel_sha256"],
        publisher_checked=fields["publisher"] is not None,
        publisher=fields["publisher"],
        path=binary_path,
        from_cache=True,
    )


def _record_fields(record: dict[str, Any], version: str, arch: str) -> dict[str, Any] | None:
    """The kept record's fields when it is about ``version`` and ``arch`` and of the right shape."""
    strings = ("version", "arch", "sha256", "wheel", "source_url", "wheel_sha256")
    if not all(isinstance(record.get(name), str) for name in strings):
        return None
    if (record["version"], record["arch"]) != (version, arch):
        return None
    publisher = record.get("publisher")
    if publisher is not None and not isinstance(publisher, str):
        return None
    return {**{name: record[name] for name in strings}, "publisher": publisher}


def _keep(folder: Path, found: WslUv) -> WslUv:
    """Keep ``found`` under ``folder`` (the binary, then its record); the same, with its path.

    A home that cannot be written is no reason to refuse a binary already verified: it is
    returned without a path, and a line says why.
    """
    binary_path, record_path = _names(folder, found.version, found.arch)
    record = {
        "schema": _SCHEMA,
        "version": found.version,
        "arch": found.arch,
        "sha256": found.sha256,
        "wheel": found.wheel,
        "source_url": found.source_url,
        "wheel_sha256": found.wheel_sha256,
        "publisher_checked": found.publisher_checked,
        "publisher": found.publisher,
        "fetched_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    try:
        folder.mkdir(parents=True, exist_ok=True)
        # The binary first: a record is never left naming bytes that were not written.
        write_bytes_atomically(binary_path, found.binary.data)
        write_json_atomically(record_path, record)
    except OSError as error:
        STATE_LOG.warning("uv %s was not kept: %s", found.version, state_unwritable(error) or error)
        return found
    return replace(found, path=binary_path)
