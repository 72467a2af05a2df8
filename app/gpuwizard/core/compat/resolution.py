"""What an install of a plan's requirements would really bring today: distribution -> version (pure).

A plan names the framework (``tensorflow[and-cuda]==2.21.0``); the CUDA libraries come as its
dependencies with wide ranges (``nvidia-cudnn-cu12>=9.3.0.75,<10``), and the installer picks the
newest release in range on the day. Whether a GPU is served depends on that pick (cuDNN 9.28's
kernels no longer cover Pascal), so the wizard asks the installer in a dry run
(``adapters/resolution.py``) and keeps the answer for the day (``workflow/state/resolution_cache.py``).

- :class:`Resolution`: the answer, with what was asked, for which platform and Python, and when;
- :func:`read_pip_report`: the name -> version map from pip's installation report;
- :func:`resolution_to_json` / :func:`resolution_from_json`: the cache's JSON, at the edge.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final

from packaging.utils import canonicalize_name

#: Where a resolution came from: a live dry run, the per-day cache, or the compatibility data.
SOURCES: Final = ("pip", "cache", "data")
#: The platforms a dry run can target (``adapters/resolution.py`` maps each to wheel tags).
PLATFORMS: Final = ("linux", "windows", "darwin")

# pip's installation report, format version 1 (pip.pypa.io/en/stable/reference/installation-report/):
# "a change in the major version is backward incompatible", so another major is refused.
_REPORT_MAJOR: Final = "1"


class ResolutionFailed(Exception):
    """The installer could not say what it would install; the message is one line."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(message.split()))


@dataclass(frozen=True)
class Resolution:
    """What installing ``requirements`` on ``platform`` with Python ``python`` would bring.

    Attributes:
        requirements: What was asked, as given (``("tensorflow[and-cuda]==2.21.0",)``).
        platform: ``linux``, ``windows`` or ``darwin``.
        python: The target's Python, major.minor (``3.12``).
        versions: Every distribution the install would bring, by its PEP 503 name
            (``nvidia-cudnn-cu12``) -> version (``9.28.0.42``); read-only.
        resolved_on: The day it was resolved, ISO (``2026-05-09``, UTC).
        source: ``pip`` (a live dry run), ``cache`` (read back) or ``data`` (recorded in the
            compatibility data).
    """

    requirements: tuple[str, ...]
    platform: str
    python: str
    versions: Mapping[str, str] = field(hash=False)  # a mapping is not hashable; the rest is enough
    resolved_on: str
    source: str

    def __post_init__(self) -> None:
        # Frozen means frozen: a caller's dict changed later must not change this answer, and
        # names are looked up canonical ("Markdown" and "markdown" are one distribution).
        canonical = {str(canonicalize_name(name)): version for name, version in self.versions.items()}
        object.__setattr__(self, "versions", MappingProxyType(canonical))
        object.__setattr__(self, "requirements", tuple(self.requirements))

    def version_of(self, name: str) -> str | None:
        """The version of distribution ``name`` (any spelling) the install would bring, or None."""
        return self.versions.get(str(canonicalize_name(name)))


def read_pip_report(report: Mapping[str, object]) -> dict[str, str]:
    """Distribution (PEP 503 name) -> version, from pip's ``--report`` JSON.

    Each ``install[]`` entry's ``metadata.name`` and ``metadata.version`` count; an entry missing
    either (or with a non-string one) is passed over, as later report versions may add entries
    of other kinds. A report of another shape is refused.

    >>> read_pip_report({"version": "1", "install": [{"metadata": {"name": "Markdown", "version": "3.7"}}]})
    {'markdown': '3.7'}

    Raises:
        ResolutionFailed: Not a report: not an object, no ``install`` list, an entry or its
            ``metadata`` not an object, or a format version other than 1.x.
    """
    if not isinstance(report, Mapping):
        raise ResolutionFailed(f"pip's report is not a JSON object but {_kind(report)}")
    version = report.get("version")
    if version is not None and str(version).split(".", 1)[0] != _REPORT_MAJOR:
        raise ResolutionFailed(f"pip's report is of format version {version}, not 1 (too new a pip?)")
    install = report.get("install")
    if not isinstance(install, list):
        raise ResolutionFailed(f'pip\'s report has no "install" list (found {_kind(install)})')
    versions: dict[str, str] = {}
    for position, entry in enumerate(install):
        if not isinstance(entry, Mapping):
            raise ResolutionFailed(f"pip's report: install[{position}] is {_kind(entry)}, not an object")
        metadata = entry.get("metadata")
        if metadata is None:
            continue
        if not isinstance(metadata, Mapping):
            raise ResolutionFailed(
                f"pip's report: install[{position}].metadata is {_kind(metadata)}, not an object"
            )
        name, release = metadata.get("name"), metadata.get("version")
        if isinstance(name, str) and name.strip() and isinstance(release, str) and release.strip():
            versions[str(canonicalize_name(name.strip()))] = release.strip()
    return versions


def resolution_to_json(resolution: Resolution) -> dict[str, Any]:
    """``resolution`` as the cache keeps it (names sorted, so equal answers are equal files)."""
    return {
        "requirements": list(resolution.requirements),
        "platform": resolution.platform,
        "python": resolution.python,
        "versions": dict(sorted(resolution.versions.items())),
        "resolved_on": resolution.resolved_on,
        "source": resolution.source,
    }


def resolution_from_json(data: object, *, source: str | None = None) -> Resolution:
    """The :class:`Resolution` in ``data`` (as :func:`resolution_to_json` wrote it).

    ``source`` replaces the recorded one: the cache reads its answers back as ``cache``.

    Raises:
        ResolutionFailed: ``data`` is not of that shape.
    """
    if not isinstance(data, Mapping):
        raise ResolutionFailed(f"a resolution is a JSON object, not {_kind(data)}")
    requirements = data.get("requirements")
    versions = data.get("versions")
    texts = {key: data.get(key) for key in ("platform", "python", "resolved_on")}
    if not isinstance(requirements, list) or not all(isinstance(item, str) for item in requirements):
        raise ResolutionFailed('a resolution\'s "requirements" is a list of strings')
    if not isinstance(versions, Mapping) or not all(
        isinstance(name, str) and isinstance(version, str) for name, version in versions.items()
    ):
        raise ResolutionFailed('a resolution\'s "versions" maps names to version strings')
    for key, value in texts.items():
        if not isinstance(value, str):
            raise ResolutionFailed(f'a resolution\'s "{key}" is a string, not {_kind(value)}')
    recorded = data.get("source", "pip")
    return Resolution(
        requirements=tuple(requirements),
        platform=str(texts["platform"]),
        python=str(texts["python"]),
        versions=dict(versions),
        resolved_on=str(texts["resolved_on"]),
        source=source if source is not None else str(recorded),
    )


def _kind(value: object) -> str:
    """A JSON value's kind, for a message (``a list``, ``null``...)."""
    if value is None:
        return "null"
    kinds = (
        (bool, "a boolean"),
        (int | float, "a number"),
        (str, "a string"),
        (list, "a list"),
        (Mapping, "an object"),
    )
    return next((said for kind, said in kinds if isinstance(value, kind)), type(value).__name__)
