"""What the package indexes publish beside what the tables know: newer patches and newer minors.

A patch release keeps its minor's build matrix (PyTorch's RELEASE.md, "Patch Releases": patches
carry fixes for regressions, crashes and security only, built by the same release pipeline and
CUDA matrix; TensorFlow's patch releases likewise keep their minor's tested build
configurations), so a patch the index has and the tables do not is planned with its minor's row.
A newer minor is only named: its build matrix is not verified until the data learns it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TypeVar

from packaging.version import InvalidVersion, Version

from gpuwizard.core.compat.tables import (
    CompatData,
    TensorflowRelease,
    TorchRelease,
    minor_of,
    version_key,
)


@dataclass(frozen=True)
class IndexReleases:
    """The final releases a package index lists, per framework, and when it was asked.

    Attributes:
        versions: ``pytorch``/``tensorflow`` -> every final release version PyPI lists.
        checked_at: When the index was asked (ISO 8601), for messages.
        source: The index asked (its URL).
    """

    versions: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    checked_at: str = ""
    source: str = ""

    def knows(self, framework: str) -> bool:
        """Whether the index was asked about ``framework``."""
        return bool(self.versions.get(framework))

    def has(self, framework: str, version: str) -> bool:
        """Whether ``version`` (exact, or any patch of a minor) is published."""
        published = self.versions.get(framework, ())
        return version in published or any(minor_of(v) == version for v in published)

    def newest_patch(self, framework: str, minor: str) -> str | None:
        """The newest published patch of ``minor``."""
        patches = [v for v in self.versions.get(framework, ()) if minor_of(v) == minor]
        return max(patches, key=version_key) if patches else None


def beyond_tables(framework: str, version: str | None, compat: CompatData) -> bool:
    """Whether ``version`` names a minor newer than the tables' newest release of ``framework``."""
    rows: Sequence[TorchRelease | TensorflowRelease] = (
        compat.pytorch if framework == "pytorch" else compat.tensorflow
    )
    return (
        version is not None and bool(rows) and version_key(minor_of(version)) > version_key(rows[0].version)
    )


def final_versions(versions: Sequence[str]) -> tuple[str, ...]:
    """The final (not pre-, post- or dev-) releases among ``versions``, newest first.

    >>> final_versions(["2.15.0", "2.16.0rc1", "2.14.1", "nonsense", "2.9.1"])
    ('2.15.0', '2.14.1', '2.9.1')
    """
    finals = []
    for text in versions:
        try:
            parsed = Version(text)
        except InvalidVersion:
            continue
        if not (parsed.is_prerelease or parsed.is_postrelease or parsed.is_devrelease or parsed.local):
            finals.append(text)
    return tuple(sorted(finals, key=version_key, reverse=True))


@dataclass(frozen=True)
class IndexNews:
    """What the index adds to the tables.

    Attributes:
        patches: ``(framework, minor, tables' latest, index's newest patch)`` for each minor
            whose newer patch is now planned.
        unverified: ``(framework, version)``: the newest release of each minor newer than the
            tables know, newest first.
    """

    patches: tuple[tuple[str, str, str, str], ...] = ()
    unverified: tuple[tuple[str, str], ...] = ()


def with_index(compat: CompatData, index: IndexReleases | None) -> tuple[CompatData, IndexNews]:
    """The tables with each minor's ``latest`` raised to the newest patch the index has."""
    if index is None:
        return compat, IndexNews()
    pytorch, torch_patches = _raise_patches("pytorch", compat.pytorch, index)
    tensorflow, tf_patches = _raise_patches("tensorflow", compat.tensorflow, index)
    unverified = _newer_minors("pytorch", compat.pytorch, index) + _newer_minors(
        "tensorflow", compat.tensorflow, index
    )
    adjusted = replace(compat, pytorch=pytorch, tensorflow=tensorflow)
    return adjusted, IndexNews(tuple(torch_patches + tf_patches), tuple(unverified))


_Row = TypeVar("_Row", TorchRelease, TensorflowRelease)


def _raise_patches(
    framework: str, rows: tuple[_Row, ...], index: IndexReleases
) -> tuple[tuple[_Row, ...], list[tuple[str, str, str, str]]]:
    patches: list[tuple[str, str, str, str]] = []
    raised: list[_Row] = []
    for row in rows:
        newest = index.newest_patch(framework, row.version)
        if newest and version_key(newest) > version_key(row.latest):
            patches.append((framework, row.version, row.latest, newest))
            raised.append(replace(row, latest=newest))
        else:
            raised.append(row)
    return tuple(raised), patches


def _newer_minors(
    framework: str, rows: Sequence[TorchRelease | TensorflowRelease], index: IndexReleases
) -> list[tuple[str, str]]:
    """The newest release of each minor newer than the tables' newest, newest first."""
    if not rows:
        return []
    known = version_key(rows[0].version)
    newest: dict[str, str] = {}
    for version in index.versions.get(framework, ()):
        minor = minor_of(version)
        if version_key(minor) > known and (
            minor not in newest or version_key(version) > version_key(newest[minor])
        ):
            newest[minor] = version
    return [(framework, v) for v in sorted(newest.values(), key=version_key, reverse=True)]
