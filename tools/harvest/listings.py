"""The wheels that PyPI's JSON API and the PyTorch wheel index list, and which of them to read.

PyPI: ``{pypi}/{package}/json`` names every release with its files, sha256 digests and ``yanked``
flags; the file URLs may be relative to the JSON document (a mirror's), so they are resolved
against it. The PyTorch index: ``{index}/torch/`` is a PEP 503 page of links, the sha256 in each
link's fragment and, where ``data-dist-info-metadata`` says so, the METADATA beside the wheel
(PEP 658: ``<wheel url>.metadata``).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Final
from urllib.parse import unquote, urldefrag, urljoin, urlsplit

from packaging.tags import Tag
from packaging.utils import InvalidWheelFilename, parse_wheel_filename
from packaging.version import InvalidVersion, Version

from harvest.net import Fetcher, FetchError, url_problem

PYPI_ORIGIN: Final = "PyPI"
INDEX_ORIGIN: Final = "PyTorch index"
#: The variants the data models (ROCm, XPU and the like are out of its scope).
VARIANT: Final = re.compile(r"cpu|cu\d{2,3}")
OSES: Final = ("linux", "windows", "darwin")
#: The Python a wheel is preferably read for (any wheel of a build says the same).
PREFERRED_PYTHON: Final = (3, 12)


@dataclass(frozen=True)
class WheelFile:
    """One wheel on an index."""

    filename: str
    url: str
    sha256: str | None
    origin: str
    version: Version
    build: tuple[int, str] | tuple[()]
    tags: frozenset[Tag]
    metadata_url: str | None = None

    @property
    def os(self) -> str | None:
        """``linux`` (x86_64), ``windows`` (x86_64), ``darwin`` (any), or None (other platforms)."""
        platforms = {tag.platform for tag in self.tags}
        if any(p == "win_amd64" for p in platforms):
            return "windows"
        if any(p.startswith(("manylinux", "linux", "musllinux")) and p.endswith("x86_64") for p in platforms):
            return "linux" if not any(p.startswith("musllinux") for p in platforms) else None
        if any(p.startswith("macosx") for p in platforms):
            return "darwin"
        return None

    @property
    def pythons(self) -> list[tuple[int, int]]:
        """The CPython 3 versions the wheel is for; free-threaded builds (``cp314t``) excluded."""
        found = set()
        for tag in self.tags:
            version = re.fullmatch(r"cp3(\d+)", tag.interpreter)
            if version and not tag.abi.endswith("t"):
                found.add((3, int(version.group(1))))
        return sorted(found)

    @property
    def local(self) -> str | None:
        """The local version (``cu130`` of ``2.15.0+cu130``), or None."""
        return self.version.local

    @property
    def source_key(self) -> str:
        """The key of this wheel in sources.json: ``WHEEL-torch-2.15.0-cp312-manylinux_2_28_x86_64``."""
        parts = self.filename.removesuffix(".whl").split("-")
        name, version, rest = parts[0], parts[1], parts[2:]
        build = [rest.pop(0)] if len(rest) == 4 else []
        return "-".join(["WHEEL", name, version, *build, rest[0], rest[2]])

    @property
    def title(self) -> str:
        """The title of its source entry: the file name and where it was listed."""
        return f"{self.filename} ({self.origin})"


def _wheel(
    filename: str, url: str, sha256: str | None, origin: str, metadata_url: str | None
) -> WheelFile | None:
    try:
        _, version, build, tags = parse_wheel_filename(filename)
    except (InvalidWheelFilename, InvalidVersion):
        return None
    return WheelFile(filename, url, sha256, origin, version, build, frozenset(tags), metadata_url)


def pypi_files(fetcher: Fetcher, pypi: str, package: str) -> tuple[list[WheelFile], list[str]]:
    """Every wheel of ``package`` on PyPI that is not yanked, and notes on what was left out."""
    address = f"{pypi.rstrip('/')}/{package}/json"
    try:
        document = json.loads(fetcher.get(address))
        releases = document["releases"]
    except (ValueError, KeyError, TypeError) as error:
        raise FetchError(f"{address}: not a PyPI JSON document ({error})") from None
    files, notes = [], []
    for entries in releases.values():
        for entry in entries:
            if entry.get("packagetype") != "bdist_wheel" or entry.get("yanked"):
                continue
            url = urljoin(address, entry["url"])
            problem = url_problem(url)
            if problem:
                notes.append(f"{entry['filename']}: {problem}")
                continue
            digest = (entry.get("digests") or {}).get("sha256")
            wheel = _wheel(entry["filename"], url, digest, PYPI_ORIGIN, None)
            if wheel is not None:
                files.append(wheel)
    return files, notes


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[dict[str, str | None], str]] = []
        self._open: dict[str, str | None] | None = None
        self._text = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self._open, self._text = dict(attrs), ""

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self._text += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self._open is not None:
            self.links.append((self._open, self._text.strip()))
            self._open = None


def index_files(fetcher: Fetcher, index: str, package: str = "torch") -> list[WheelFile]:
    """Every wheel of ``package`` on a PEP 503 index page (the PyTorch index)."""
    address = f"{index.rstrip('/')}/{package}/"
    parser = _Links()
    parser.feed(fetcher.get(address).decode("utf-8", errors="replace"))
    files = []
    for attrs, text in parser.links:
        href = attrs.get("href")
        if not href:
            continue
        url, fragment = urldefrag(urljoin(address, href))
        filename = text if text.endswith(".whl") else unquote(urlsplit(url).path.rsplit("/", 1)[-1])
        if not filename.endswith(".whl") or url_problem(url):
            continue
        digest = fragment.removeprefix("sha256=") if fragment.startswith("sha256=") else None
        metadata = attrs.get("data-dist-info-metadata") or attrs.get("data-core-metadata")
        wheel = _wheel(
            filename,
            url,
            digest,
            INDEX_ORIGIN,
            f"{url}.metadata" if metadata and metadata != "false" else None,
        )
        if wheel is not None:
            files.append(wheel)
    return files


def minor_of(version: Version) -> str:
    """``2.14`` of ``2.14.1``."""
    return f"{version.major}.{version.minor}"


def releases(files: Iterable[WheelFile]) -> dict[Version, list[WheelFile]]:
    """The final releases (no pre-releases or development releases) by public version."""
    found: dict[Version, list[WheelFile]] = defaultdict(list)
    for wheel in files:
        if not (wheel.version.is_prerelease or wheel.version.is_devrelease):
            found[Version(wheel.version.public)].append(wheel)
    return dict(found)


def latest_per_minor(files: Iterable[WheelFile]) -> dict[str, Version]:
    """The newest final release of each minor version."""
    newest: dict[str, Version] = {}
    for version in releases(files):
        minor = minor_of(version)
        if minor not in newest or version > newest[minor]:
            newest[minor] = version
    return newest


def pick(files: Iterable[WheelFile], os: str) -> WheelFile | None:
    """The wheel to read for an OS: CPython 3.12 where there is one, else the newest Python; newest build."""
    candidates = [wheel for wheel in files if wheel.os == os and wheel.pythons]
    if not candidates:
        return None

    def rank(wheel: WheelFile) -> tuple[bool, tuple[int, int], tuple[int, str] | tuple[()]]:
        newest = max(wheel.pythons)
        return (PREFERRED_PYTHON in wheel.pythons, newest, wheel.build)

    return max(candidates, key=rank)


def variant_of(wheel: WheelFile) -> str | None:
    """The variant an index wheel belongs to: its local version, else the folder it lies in."""
    if wheel.local:
        return wheel.local if VARIANT.fullmatch(wheel.local) else None
    folder = urlsplit(wheel.url).path.rstrip("/").split("/")[-2:-1]
    if folder and VARIANT.fullmatch(folder[0]):
        return folder[0]
    return "cpu" if wheel.os == "darwin" else None
