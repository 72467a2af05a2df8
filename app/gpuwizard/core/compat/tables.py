"""The compatibility tables as typed data, and the questions the recommender asks of them.

The data lives in ``resources/compat/*.json`` (one JSON Schema each, checked by the tests,
every row with a source); :func:`compat_from_json` turns the parsed files into frozen objects.
Nothing here reads files: the workflow loads them (bundled, or refreshed and cached).

Table names say which NVIDIA table they encode (CUDA Toolkit Release Notes, Tables 2 and 3):
``driver_floors`` is the minor-version-compatibility table (the lowest driver that runs an
application built with any CUDA of a major series), ``toolkit_drivers`` the driver each
toolkit release ships with.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar

from packaging.version import InvalidVersion, Version

from gpuwizard.core.compat.accelerators import Accelerators, accelerators_from_json
from gpuwizard.core.compat.plan import CudaWheels  # the plan carries it; defined there, free of packaging
from gpuwizard.core.events import json_field, value_from_json
from gpuwizard.core.events.codec import json_metadata

OSES: Final = ("linux", "windows", "darwin")


def version_key(text: str) -> Version:
    """A sortable version; ``"12.4"`` < ``"12.10"``.

    >>> sorted(["12.10", "12.4", "9.2"], key=version_key)
    ['9.2', '12.4', '12.10']
    """
    return Version(text)


def at_least(version: str, minimum: str) -> bool:
    """True when ``version`` >= ``minimum`` (driver and framework versions alike).

    >>> at_least("546.33", "528.33"), at_least("525.60.13", "525.60.13"), at_least("470.256.02", "525")
    (True, True, False)
    """
    return Version(version) >= Version(minimum)


def minor_of(version: str) -> str:
    """``"2.10.1"`` -> ``"2.10"``.

    >>> minor_of("2.10.1"), minor_of("12"), minor_of("3.11")
    ('2.10', '12', '3.11')
    """
    return ".".join(version.split(".")[:2])


def is_version(text: str) -> bool:
    """True for a version string ``packaging`` can compare."""
    try:
        Version(text)
    except InvalidVersion:
        return False
    return bool(re.fullmatch(r"[0-9]+(\.[0-9]+)*", text))


def sass_runs_on(built_for: str, gpu: str) -> bool:
    """Whether machine code built for ``built_for`` runs on a GPU of capability ``gpu``.

    SASS for X.Y runs on X.Z with Z >= Y, within the same major version (CUDA C++
    Programming Guide, "Binary Compatibility").

    >>> sass_runs_on("8.0", "8.6"), sass_runs_on("8.6", "8.0"), sass_runs_on("7.5", "8.0")
    (True, False, False)
    """
    built_major, built_minor = (int(part) for part in built_for.split("."))
    gpu_major, gpu_minor = (int(part) for part in gpu.split("."))
    return built_major == gpu_major and gpu_minor >= built_minor


def ptx_runs_on(ptx: str | None, gpu: str) -> bool:
    """Whether PTX for ``ptx`` can be JIT-compiled for a GPU of capability ``gpu`` (any newer one).

    >>> ptx_runs_on("8.0", "12.0"), ptx_runs_on("9.0", "8.6"), ptx_runs_on(None, "8.6")
    (True, False, False)
    """
    return ptx is not None and version_key(gpu) >= version_key(ptx)


@dataclass(frozen=True)
class PythonRange:
    """The Python minor versions a release supports, inclusive."""

    min: str
    max: str

    def contains(self, python: str) -> bool:
        """True when ``python`` (``3.11`` or ``3.11.7``) is in the range.

        >>> PythonRange("3.7", "3.10").contains("3.10.11"), PythonRange("3.7", "3.10").contains("3.12")
        (True, False)
        """
        return version_key(self.min) <= version_key(minor_of(python)) <= version_key(self.max)

    def minors(self) -> list[str]:
        """Every minor version in the range, newest first.

        >>> PythonRange("3.9", "3.11").minors()
        ['3.11', '3.10', '3.9']
        """
        major, low = (int(part) for part in self.min.split("."))
        high = int(self.max.split(".")[1])
        return [f"{major}.{minor}" for minor in range(high, low - 1, -1)]

    def __str__(self) -> str:
        return f"{self.min}–{self.max}"


@dataclass(frozen=True)
class Architectures:
    """The compute capabilities a build carries machine code for, and the one it carries PTX for."""

    sass: tuple[str, ...] = json_field(key="compute_capabilities", default=())
    ptx: str | None = None

    def runs_natively_on(self, gpu: str) -> bool:
        """The build has machine code (SASS) this GPU runs: what official matrices cover."""
        return any(sass_runs_on(built, gpu) for built in self.sass)

    def runs_through_ptx_on(self, gpu: str) -> bool:
        """Only the build's PTX can serve this GPU (JIT-compiled by the driver at first use)."""
        return not self.runs_natively_on(gpu) and ptx_runs_on(self.ptx, gpu)

    def describe(self) -> str:
        """``5.0, 6.0 ... 9.0 (+PTX 9.0)`` for messages."""
        text = ", ".join(self.sass) if self.sass else "none"
        return f"{text} (+PTX {self.ptx})" if self.ptx else text


@dataclass(frozen=True)
class LibraryRange:
    """A CUDA library a build's install leaves to a range, and what the range resolved to.

    ``tensorflow[and-cuda]`` 2.20 and newer require ``nvidia-cudnn-cu12>=9.3.0.75,<10``: what pip
    installs is the newest release in the range on the day, which decides the GPUs it supports
    (``library_architectures``). ``resolved`` is the data's resolution, of ``resolved_on``.
    """

    library: str
    package: str
    spec: str
    resolved: str
    resolved_on: str
    source: str


@dataclass(frozen=True)
class TensorflowGpuBuild:
    """The GPU build of one TensorFlow release on one OS."""

    cuda: str
    cudnn: str
    cuda_supply: str
    #: Read from the row itself (its ``compute_capabilities`` and ``ptx``).
    archs: Architectures = field(metadata=json_metadata(inline=True))
    conda_packages: tuple[str, ...] = ()
    dlls: tuple[str, ...] = ()
    cuda_wheels: CudaWheels | None = None
    #: The CUDA libraries its install leaves to a range (the ``and-cuda`` extra's).
    library_ranges: tuple[LibraryRange, ...] = ()


def _gpu_builds(raw: object) -> dict[str, TensorflowGpuBuild]:
    """The GPU build of each OS that has one (``null``: none)."""
    rows = raw if isinstance(raw, Mapping) else {}
    return {os_name: value_from_json(TensorflowGpuBuild, row) for os_name, row in rows.items() if row}


@dataclass(frozen=True)
class TensorflowRelease:
    """One TensorFlow minor release."""

    version: str
    latest: str
    python: PythonRange
    gpu: Mapping[str, TensorflowGpuBuild] = field(metadata=json_metadata(read=_gpu_builds))
    cpu: tuple[str, ...]
    source: tuple[str, ...]
    note: str | None = None


@dataclass(frozen=True)
class TorchVariant:
    """One wheel variant (``cu126``, ``cpu``) of a PyTorch release."""

    name: str
    cuda: str | None
    cudnn: str | None
    platforms: Mapping[str, Architectures]
    experimental: bool = False

    @property
    def is_cpu(self) -> bool:
        """The CPU-only build."""
        return self.cuda is None


@dataclass(frozen=True)
class TorchRelease:
    """One PyTorch minor release."""

    version: str
    latest: str
    python: PythonRange
    variants: tuple[TorchVariant, ...]
    pypi_default: Mapping[str, str]
    conda_pytorch_channel: bool
    source: tuple[str, ...]
    note: str | None = None


@dataclass(frozen=True)
class DriverFloor:
    """A row of NVIDIA's minor-version-compatibility table.

    Applications built with CUDA ``cuda_from``..``cuda_to`` run on drivers at least ``linux`` /
    ``windows``.
    """

    cuda_from: str
    cuda_to: str
    linux: str
    windows: str
    note: str | None = None

    def covers(self, cuda: str) -> bool:
        """True when ``cuda`` (``12.6``) is in this row's range."""
        return version_key(self.cuda_from) <= version_key(minor_of(cuda)) <= version_key(self.cuda_to)


@dataclass(frozen=True)
class ToolkitDriver:
    """The driver a CUDA toolkit release ships with (None where NVIDIA lists none)."""

    cuda: str
    linux: str | None
    windows: str | None


@dataclass(frozen=True)
class CudaArchitectures:
    """The compute capabilities CUDA ``cuda_from``..``cuda_to`` can compile for."""

    cuda_from: str
    cuda_to: str
    compute_capabilities: tuple[str, ...]


@dataclass(frozen=True)
class LibraryFloor:
    """A support-matrix row: a library's versions that need a GPU of some compute capability.

    ``library`` versions ``version_from``..``version_to`` (None: and later) run on GPUs of
    ``compute_capability_min`` and newer only.
    A build that bundles such a library is not GPU-supported on an older GPU even when the
    framework's own kernels carry code for it (issue 18; NVIDIA's cuDNN support matrices, the
    CUDA release notes for cuBLAS).
    """

    library: str
    version_from: str
    version_to: str | None
    compute_capability_min: str

    def excludes(self, library: str, version: str, compute_capability: str) -> bool:
        """Whether this row says ``library`` ``version`` does not support ``compute_capability``."""
        if library != self.library:
            return False
        release = version_key(".".join(version.split(".")[: len(self.version_from.split("."))]))
        if release < version_key(self.version_from):
            return False
        if self.version_to is not None and release > version_key(self.version_to):
            return False
        return version_key(compute_capability) < version_key(self.compute_capability_min)


@dataclass(frozen=True)
class GpuCard:
    """A GPU name fragment and its compute capability."""

    match: str
    compute_capability: str


@dataclass(frozen=True)
class CompatData:
    """Every table the recommender reads."""

    tensorflow: tuple[TensorflowRelease, ...]
    pytorch: tuple[TorchRelease, ...]
    torch_index_url: str
    driver_floors: tuple[DriverFloor, ...]
    toolkit_drivers: tuple[ToolkitDriver, ...]
    cuda_architectures: tuple[CudaArchitectures, ...]
    gpu_families: Mapping[str, tuple[str, ...]]
    gpu_cards: tuple[GpuCard, ...]
    policies: Mapping[str, Mapping[str, Any]]
    sources: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    #: Where the tables came from (``bundled``, or the URL of a refresh) and their date.
    origin: str = "bundled"
    #: Architecture floors of the libraries builds bundle (cuDNN, cuBLAS).
    library_floors: tuple[LibraryFloor, ...] = ()
    #: The date of the data (``sources.json``'s ``generated``).
    generated: str = ""
    #: AMD, Intel and Apple GPUs and their builds (``accelerators.json``; empty in older bundles).
    accelerators: Accelerators = field(default_factory=Accelerators.empty)

    # --- drivers ------------------------------------------------------------------------

    def min_driver(self, cuda: str, driver_os: str) -> str | None:
        """The lowest driver that runs an application built with ``cuda`` on ``driver_os``.

        From the minor-version-compatibility table where it covers ``cuda`` (11.0 and later),
        else the toolkit's own driver. None when neither table knows ``cuda``.
        """
        for row in self.driver_floors:
            if row.covers(cuda):
                return row.windows if driver_os == "windows" else row.linux
        for toolkit in self.toolkit_drivers:
            if minor_of(toolkit.cuda) == minor_of(cuda):
                return toolkit.windows if driver_os == "windows" else toolkit.linux
        return None

    def cuda_max_for_driver(self, driver: str, driver_os: str) -> str | None:
        """The highest CUDA that ``driver`` fully supports, derived from the tables.

        For reports that carry only a driver version. Runs on NVIDIA's toolkit-driver table (the driver each release ships with): a driver
        supports every CUDA whose own driver it is at least. Where that table has no rows (no
        Windows driver is bundled from CUDA 13.1), a driver at or above a minor-version
        compatibility floor supports that series' first release.
        """
        best: str | None = None
        for toolkit in self.toolkit_drivers:
            required = toolkit.windows if driver_os == "windows" else toolkit.linux
            if (
                required
                and at_least(driver, required)
                and (best is None or version_key(toolkit.cuda) > version_key(best))
            ):
                best = toolkit.cuda
        for floor in self.driver_floors:
            listed = next(
                (t for t in self.toolkit_drivers if minor_of(t.cuda) == minor_of(floor.cuda_from)), None
            )
            if listed is not None and (listed.windows if driver_os == "windows" else listed.linux):
                continue  # the toolkit table answers for this series: NVML's meaning, kept
            required = floor.windows if driver_os == "windows" else floor.linux
            if at_least(driver, required) and (
                best is None or version_key(floor.cuda_from) > version_key(best)
            ):
                best = floor.cuda_from
        return minor_of(best) if best else None

    def gpu_min_driver(self, compute_capability: str, driver_os: str) -> str | None:
        """The lowest driver that drives a GPU of ``compute_capability`` on ``driver_os``.

        A driver knows the GPUs of its time only: an H200 (9.0) needs a driver of a branch that
        supports Hopper, whatever CUDA a build uses (minor-version compatibility says which CUDA
        a driver runs, not which GPU). The GPU's minimum is the driver its first toolkit shipped
        with: the first CUDA of ``architectures`` that compiles for ``compute_capability`` itself
        (not through another's machine code), and that CUDA's row of ``toolkit_drivers``. For
        9.0 that is CUDA 11.8's 520.61.05 (NVIDIA first supported the H100 with R520).

        None when the capability is in the table's oldest row (supported before the oldest CUDA
        the table knows: no plan's driver is too old for it), not in the table, or where NVIDIA
        lists no driver for that toolkit on ``driver_os``.
        """
        rows = sorted(self.cuda_architectures, key=lambda row: version_key(row.cuda_from))
        first = next((row for row in rows if compute_capability in row.compute_capabilities), None)
        if first is None or first is rows[0]:
            return None
        toolkit = next(
            (t for t in self.toolkit_drivers if minor_of(t.cuda) == minor_of(first.cuda_from)), None
        )
        if toolkit is None:
            return None
        return toolkit.windows if driver_os == "windows" else toolkit.linux

    # --- GPUs ---------------------------------------------------------------------------

    def compute_capability_for_name(self, name: str) -> str | None:
        """The compute capability of a GPU from its name, by the longest whole-word match.

        For reports that carry only a name (an old driver whose NVML cannot tell it).
        """
        lowered = f" {re.sub(r'[^a-z0-9]+', ' ', name.lower()).strip()} "
        best: GpuCard | None = None
        for card in self.gpu_cards:
            needle = f" {re.sub(r'[^a-z0-9]+', ' ', card.match.lower()).strip()} "
            if needle in lowered and (best is None or len(card.match) > len(best.match)):
                best = card
        return best.compute_capability if best else None

    def cuda_can_target(self, cuda: str, compute_capability: str) -> bool:
        """Whether CUDA ``cuda`` can compile for ``compute_capability`` (SASS-compatible)."""
        for row in self.cuda_architectures:
            low, high = version_key(row.cuda_from), version_key(row.cuda_to)
            if low <= version_key(minor_of(cuda)) <= high:
                return any(sass_runs_on(built, compute_capability) for built in row.compute_capabilities)
        return False

    def libraries_exclude(
        self, cuda: str | None, cudnn: str | None, compute_capability: str
    ) -> LibraryFloor | None:
        """The first floor that rules out a build with ``cuda``/``cudnn`` on this GPU, or None.

        cuBLAS is versioned with its toolkit (cuBLAS 13.0 ships in CUDA 13.0), so a build's CUDA
        stands for the cuBLAS it bundles.
        """
        for floor in self.library_floors:
            version = cudnn if floor.library == "cudnn" else cuda
            if version and floor.excludes(floor.library, version, compute_capability):
                return floor
        return None

    # --- releases -----------------------------------------------------------------------

    def policy(self, policy_id: str) -> Mapping[str, Any]:
        """A named policy row (fixed ids, see resources/compat/README.md)."""
        return self.policies[policy_id]


def compat_from_json(files: Mapping[str, Mapping[str, Any]], origin: str = "bundled") -> CompatData:
    """Build :class:`CompatData` from the parsed files, already checked against their schemas.

    The keys are ``tensorflow``, ``pytorch``, ``cuda``, ``gpus``, ``policies`` and ``sources``;
    each row is read into its class by the class's fields (the files' names are theirs).
    """
    torch = files["pytorch"]
    cuda = files["cuda"]
    gpus = files["gpus"]
    return CompatData(
        tensorflow=_newest_first(TensorflowRelease, files["tensorflow"]["releases"]),
        pytorch=_newest_first(TorchRelease, torch["releases"]),
        torch_index_url=torch["index_url"],
        driver_floors=_rows(DriverFloor, cuda["minor_version_compatibility"]),
        toolkit_drivers=_rows(ToolkitDriver, cuda["toolkit_drivers"]),
        cuda_architectures=_rows(CudaArchitectures, cuda["architectures"]),
        gpu_families={r["name"]: tuple(r["compute_capabilities"]) for r in gpus["families"]},
        gpu_cards=_rows(GpuCard, gpus["cards"]),
        policies={r["id"]: r for r in files["policies"]["policies"]},
        sources=files.get("sources", {}).get("sources", {}),
        origin=origin,
        library_floors=_rows(LibraryFloor, cuda.get("library_architectures", ())),
        generated=str(files.get("sources", {}).get("generated", "")),
        accelerators=accelerators_from_json(files.get("accelerators")),
    )


_Row = TypeVar("_Row")
_Release = TypeVar("_Release", TensorflowRelease, TorchRelease)


def _rows(cls: type[_Row], rows: Iterable[object]) -> tuple[_Row, ...]:
    return tuple(value_from_json(cls, row) for row in rows)


def _newest_first(cls: type[_Release], rows: Iterable[object]) -> tuple[_Release, ...]:
    return tuple(sorted(_rows(cls, rows), key=lambda release: version_key(release.version), reverse=True))


def newest_first(versions: Sequence[str]) -> list[str]:
    """Versions sorted newest first.

    >>> newest_first(["2.9", "2.10", "2.1"])
    ['2.10', '2.9', '2.1']
    """
    return sorted(versions, key=version_key, reverse=True)
