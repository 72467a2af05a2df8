"""The target of an offline install and the wheels of a folder, as their names and metadata say.

Pure helpers for :mod:`.wheel_folder`: which wheel tags an environment accepts (its Python
minor version and platform tags; packaging.python.org, "Platform compatibility tags"), the
folder's wheels as :func:`packaging.utils.parse_wheel_filename` reads their names, the PEP 508
marker values of the target, and every dependency the folder lacks, followed through the
wheels' ``Requires-Dist`` (a resolver stops at the first one it misses).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from packaging.markers import InvalidMarker, UndefinedComparison, UndefinedEnvironmentName
from packaging.requirements import InvalidRequirement, Requirement
from packaging.tags import Tag, compatible_tags, cpython_tags
from packaging.utils import InvalidWheelFilename, NormalizedName, canonicalize_name, parse_wheel_filename
from packaging.version import InvalidVersion, Version


@dataclass(frozen=True)
class WheelTarget:
    """What the environment will be: its Python minor version and its platform tags.

    Attributes:
        python: ``3.11``.
        platforms: Platform tags the environment's interpreter accepts, the preferred first
            (``manylinux_2_36_x86_64``, ..., ``linux_x86_64``), as
            :func:`packaging.tags.platform_tags` gives them.
    """

    python: str
    platforms: tuple[str, ...]

    @property
    def version_tuple(self) -> tuple[int, int]:
        """``(3, 11)``."""
        major, minor = self.python.split(".")[:2]
        return int(major), int(minor)

    @property
    def interpreter(self) -> str:
        """The CPython tag, ``cp311``."""
        major, minor = self.version_tuple
        return f"cp{major}{minor}"

    @property
    def platform(self) -> str:
        """The platform tag that names the target in messages (a manylinux tag, not ``linux_x86_64``)."""
        named = [tag for tag in self.platforms if not tag.startswith("linux_")]
        return (named or list(self.platforms) or ["any"])[0]

    @property
    def label(self) -> str:
        """``cp311 / manylinux_2_36_x86_64`` for messages."""
        return f"{self.interpreter} / {self.platform}"

    def tags(self) -> list[Tag]:
        """Every wheel tag the target accepts, the preferred first (CPython's, then the generic ones)."""
        version = self.version_tuple
        return [
            *cpython_tags(python_version=version, platforms=self.platforms),
            *compatible_tags(python_version=version, interpreter=self.interpreter, platforms=self.platforms),
        ]


@dataclass(frozen=True)
class FolderWheel:
    """One wheel file of the folder, as its name describes it."""

    filename: str
    name: NormalizedName
    version: Version
    tags: frozenset[Tag]
    size: int


def folder_wheels(listing: Iterable[tuple[str, int]]) -> tuple[FolderWheel, ...]:
    """The wheels among ``(file name, size)`` pairs; names that are no valid wheel name are left out.

    >>> listing = [("torch-2.13.0+cpu-cp311-cp311-linux_x86_64.whl", 9), ("notes.txt", 1), ("bad-name.whl", 1)]
    >>> [(wheel.name, str(wheel.version)) for wheel in folder_wheels(listing)]
    [('torch', '2.13.0+cpu')]
    """
    wheels: list[FolderWheel] = []
    for filename, size in listing:
        if not filename.endswith(".whl"):
            continue
        try:
            name, version, _build, tags = parse_wheel_filename(filename)
        except (InvalidWheelFilename, InvalidVersion):
            continue
        wheels.append(FolderWheel(filename, name, version, frozenset(tags), size))
    return tuple(sorted(wheels, key=lambda wheel: wheel.filename))


def generic_platforms(os_family: str, arch: str) -> tuple[str, ...]:
    """Platform tags for a machine known only by its report (a preview of another machine).

    >>> generic_platforms("windows", "x86_64")
    ('win_amd64',)
    >>> generic_platforms("linux", "aarch64")[:2]
    ('manylinux_2_28_aarch64', 'manylinux_2_27_aarch64')
    """
    machine = {"amd64": "x86_64", "arm64": "aarch64"}.get(arch.lower(), arch.lower())
    if os_family == "windows":
        return ({"x86_64": "win_amd64", "aarch64": "win_arm64"}.get(machine, "win32"),)
    if os_family == "darwin":
        mac = "arm64" if machine == "aarch64" else "x86_64"
        return (*(f"macosx_{major}_0_{mac}" for major in range(14, 10, -1)), "macosx_11_0_universal2")
    # A glibc of 2.28 (RHEL 8, Debian 10, Ubuntu 18.10) and newer is the common floor today.
    levels = range(28, 16, -1)
    return (
        *(f"manylinux_2_{minor}_{machine}" for minor in levels),
        f"manylinux2014_{machine}",
        f"linux_{machine}",
    )


def marker_environment(target: WheelTarget) -> dict[str, str]:
    """PEP 508 marker values for the target (packaging.python.org, "Dependency specifiers").

    >>> env = marker_environment(WheelTarget("3.11", ("win_amd64",)))
    >>> env["sys_platform"], env["platform_machine"], env["python_version"]
    ('win32', 'AMD64', '3.11')
    """
    platform = target.platform
    if platform.startswith("win"):
        system, sys_platform, os_name = "Windows", "win32", "nt"
        machine = {"win_amd64": "AMD64", "win_arm64": "ARM64"}.get(platform, "x86")
    elif platform.startswith("macosx"):
        system, sys_platform, os_name = "Darwin", "darwin", "posix"
        machine = "arm64" if platform.endswith("arm64") else "x86_64"
    else:
        system, sys_platform, os_name = "Linux", "linux", "posix"
        machine = re.sub(r"^(?:many|musl)?linux(?:_\d+_\d+|\d+)?_", "", platform)
    major, minor = target.version_tuple
    return {
        "implementation_name": "cpython",
        "implementation_version": f"{major}.{minor}.0",
        "os_name": os_name,
        "platform_machine": machine,
        "platform_python_implementation": "CPython",
        "platform_release": "",
        "platform_system": system,
        "platform_version": "",
        "python_full_version": f"{major}.{minor}.0",
        "python_version": f"{major}.{minor}",
        "sys_platform": sys_platform,
        "extra": "",
    }


def _applies(requirement: Requirement, environment: Mapping[str, str], extras: Iterable[str]) -> bool:
    if requirement.marker is None:
        return True
    try:
        return any(requirement.marker.evaluate({**environment, "extra": extra}) for extra in ("", *extras))
    except (UndefinedComparison, UndefinedEnvironmentName, InvalidMarker):
        return True  # unknown: assume it is needed (the resolver has the last word)


def parse_requirement(text: str) -> Requirement | None:
    """``text`` as a PEP 508 requirement, or None when it is none (a path, a URL, an option)."""
    try:
        return Requirement(text)
    except InvalidRequirement:
        return None


def best_wheel(
    wheels: Sequence[FolderWheel], target: WheelTarget, name: str, version: Version
) -> FolderWheel | None:
    """The folder's wheel for ``name==version`` the target prefers, or None."""
    order = {tag: index for index, tag in enumerate(target.tags())}
    fitting = [
        wheel
        for wheel in wheels
        if wheel.name == canonicalize_name(name) and wheel.version == version and wheel.tags & order.keys()
    ]
    return min(fitting, key=lambda wheel: min(order[tag] for tag in wheel.tags if tag in order), default=None)


def missing_in_closure(
    requirements: Sequence[str],
    wheels: Sequence[FolderWheel],
    target: WheelTarget,
    requires_of: Callable[[FolderWheel], Sequence[str]],
) -> list[str]:
    """The names of every package the requirements need, transitively, that the folder has no wheel of.

    A resolver names only the first dependency it misses; this walks the folder's newest fitting
    wheel of each name and its ``Requires-Dist`` (read by ``requires_of``), so a person learns
    every missing name at once. Names the folder has in some form (another version or platform)
    are not listed here: :func:`judge` explains those.
    """
    environment = marker_environment(target)
    accepted = set(target.tags())
    names = {wheel.name for wheel in wheels}
    queue: list[tuple[Requirement, tuple[str, ...]]] = [
        (req, ()) for req in (parse_requirement(text) for text in requirements) if req is not None
    ]
    seen: set[str] = set()
    missing: list[str] = []
    while queue:
        requirement, extras = queue.pop(0)
        if not _applies(requirement, environment, extras):
            continue
        name = canonicalize_name(requirement.name)
        if name in seen:
            continue
        seen.add(name)
        if name not in names:
            missing.append(name)
            continue
        fitting = [
            wheel
            for wheel in wheels
            if wheel.name == name
            and wheel.tags & accepted
            and requirement.specifier.contains(wheel.version, prereleases=True)
        ]
        if not fitting:
            continue
        newest = max(fitting, key=lambda wheel: wheel.version)
        for text in requires_of(newest):
            dependency = parse_requirement(text)
            if dependency is not None:
                queue.append((dependency, tuple(sorted(requirement.extras))))
    return missing


# --- the verdict ------------------------------------------------------------------------------


def download_platforms(target: WheelTarget, own: Sequence[str] = ()) -> list[str]:
    """The ``--platform`` values for pip download: as few as fetch the target's wheels.

    pip takes exact tags, adding only the manylinux2010/manylinux1 aliases to manylinux2014 and
    the older releases (and ``universal2``) to a macOS tag (pip/_internal/utils/compatibility_tags.py,
    ``_get_custom_platforms``). So on Linux: ``own`` (the framework wheel's tags, when the folder
    has it), ``manylinux_2_28`` (PyTorch's wheels and most binary packages' floor today) and
    ``manylinux2014`` (the older floor, PEP 599), each only when the target accepts it; on macOS
    the newest release; on Windows its one tag.

    >>> linux = (*(f"manylinux_2_{minor}_x86_64" for minor in range(36, 16, -1)), "manylinux2014_x86_64")
    >>> download_platforms(WheelTarget("3.11", linux))
    ['manylinux_2_28_x86_64', 'manylinux2014_x86_64']
    >>> download_platforms(WheelTarget("3.11", linux), own=("manylinux_2_34_x86_64",))
    ['manylinux_2_34_x86_64', 'manylinux_2_28_x86_64', 'manylinux2014_x86_64']
    >>> download_platforms(WheelTarget("3.12", ("macosx_14_0_arm64", "macosx_14_0_universal2")))
    ['macosx_14_0_arm64']
    """
    accepted = set(target.platforms)
    chosen = [platform for platform in own if platform in accepted and platform.startswith("manylinux")]
    for platform in target.platforms:
        match = re.fullmatch(r"manylinux_2_(\d+)_(\w+)", platform)
        if match:
            arch = match.group(2)
            floors = {
                f"manylinux_2_28_{arch}": f"manylinux_2_28_{arch}",
                f"manylinux2014_{arch}": f"manylinux_2_17_{arch}",
            }
            chosen += [tag for tag, glibc in floors.items() if glibc in accepted or tag in accepted]
            break
        if not platform.startswith(("linux_", "manylinux", "musllinux")):
            chosen.append(platform)  # macOS's newest release, Windows' one tag
            break
    return list(dict.fromkeys(chosen)) or list(target.platforms[:1])
