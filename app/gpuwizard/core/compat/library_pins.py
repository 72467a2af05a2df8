"""What a build's range pins resolve to, and the pins that keep a served GPU supported (pure).

``tensorflow[and-cuda]`` 2.20 and 2.21 require ``nvidia-cudnn-cu12>=9.3.0.75,<10``; pip installs
the newest release in that range on the day (cuDNN 9.28.0.42 on 2026-11-29), and cuDNN 9.11 and
newer carry no kernels for compute capability below 7.5 (``cuda.json`` ``library_architectures``).
A plan that serves a Pascal or Volta GPU with such a build therefore pins the library below the
release that dropped the GPU (``nvidia-cudnn-cu12<9.11``), in its requirements and in the
environment's constraints, and says why (issue 36; immich-app/immich#22982, fixed by pinning 9.10
in immich-app/immich#23110).

What the range resolves to is the installer's answer of the day where one was asked (``source``
``pip`` or ``cache``), else the data's recorded resolution with its date (``data``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from gpuwizard.core.compat.plan import ResolvedLibrary
from gpuwizard.core.compat.tables import CompatData, LibraryFloor, LibraryRange, version_key

#: Per release (``2.21.0``), what an installer resolved its ranges to: package -> (version, day,
#: source), from :mod:`gpuwizard.workflow.compat.resolutions`.
ResolvedToday = Mapping[str, Mapping[str, tuple[str, str, str]]]


def resolved_ranges(
    ranges: Sequence[LibraryRange], resolved: Mapping[str, tuple[str, str, str]] | None = None
) -> tuple[ResolvedLibrary, ...]:
    """Each range with what it resolves to: the installer's answer where given, else the data's.

    ``resolved``: package -> (version, day, source) from a dry resolution of the plan.
    """
    found: list[ResolvedLibrary] = []
    for entry in ranges:
        version, day, source = (resolved or {}).get(
            entry.package, (entry.resolved, entry.resolved_on, "data")
        )
        found.append(ResolvedLibrary(entry.library, entry.package, entry.spec, version, day, source))
    return tuple(found)


def pin_for_gpus(
    libraries: Sequence[ResolvedLibrary], capabilities: Iterable[str], compat: CompatData
) -> tuple[ResolvedLibrary, ...]:
    """The libraries, each pinned below the release that dropped one of ``capabilities``, where it did.

    A pin is added only where the range allows a release below the drop that supports every
    capability (else the library stays as resolved: the GPU is not served by it).
    """
    wanted = sorted(set(capabilities), key=version_key)
    pinned: list[ResolvedLibrary] = []
    for library in libraries:
        drops = [(cap, floor) for cap in wanted if (floor := _floor(compat, library, library.version, cap))]
        if not drops:
            pinned.append(library)
            continue
        below = min((floor.version_from for _, floor in drops), key=version_key)
        if _range_reaches_below(library.spec, below) and not any(
            _floor(compat, library, _lowest(library.spec) or below, cap) for cap in wanted
        ):
            pinned.append(replace(library, pin=f"<{below}", drops=tuple(cap for cap, _ in drops)))
        else:
            pinned.append(library)
    return tuple(pinned)


def _floor(
    compat: CompatData, library: ResolvedLibrary, version: str, capability: str
) -> LibraryFloor | None:
    return next((f for f in compat.library_floors if f.excludes(library.library, version, capability)), None)


def _lowest(spec: str) -> str | None:
    """The lowest release a range allows (its ``>=`` or ``==`` bound), or None."""
    try:
        bounds = [s.version for s in SpecifierSet(spec) if s.operator in (">=", "==", "~=")]
    except InvalidSpecifier:
        return None
    return min(bounds, key=version_key) if bounds else None


def _range_reaches_below(spec: str, release: str) -> bool:
    """Whether ``spec`` allows some version older than ``release`` (its lowest bound is)."""
    lowest = _lowest(spec)
    if lowest is None:
        return False
    try:
        return Version(lowest) < Version(release)
    except InvalidVersion:
        return False
