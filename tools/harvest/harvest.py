"""The facts per minor release, gathered from the wheels PyPI and the PyTorch index list.

For each minor release in scope (those the data has, and newer ones on PyPI, never older than
the data's oldest): the newest final patch, the Python range of its wheels, and what its wheels
say about CUDA. Only facts a wheel really gives are kept, at the precision it gives them; a wheel
that says nothing leaves the fact unknown (None), never "absent".
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final, Generic, TypeVar

from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

from harvest import listings
from harvest.listings import OSES, WheelFile
from harvest.net import Fetcher, FetchError
from harvest.wheels import (
    TF_BUILD_INFO,
    TORCH_CUDA_LIBRARIES,
    Metadata,
    Scan,
    WheelReader,
    WheelRecord,
    build_info,
    cc,
    cc_key,
    gencode_archs,
    metadata,
    version_fields,
)

T = TypeVar("T")
_MIB: Final = 1 << 20
#: The CUDA libraries cuda.json's ``library_architectures`` knows, by the wheels that ship them: a
#: range on one of these decides which GPUs an install supports on the day it is resolved.
RANGE_LIBRARIES: Final = {"cudnn": r"nvidia-cudnn-cu\d+", "cublas": r"nvidia-cublas-cu\d+"}
#: Marker environments of the wheels read (x86_64; macOS wheels are arm64 today).
_ENVIRONMENT: Final = {
    "linux": {
        "platform_system": "Linux",
        "sys_platform": "linux",
        "platform_machine": "x86_64",
        "os_name": "posix",
    },
    "windows": {
        "platform_system": "Windows",
        "sys_platform": "win32",
        "platform_machine": "AMD64",
        "os_name": "nt",
    },
    "darwin": {
        "platform_system": "Darwin",
        "sys_platform": "darwin",
        "platform_machine": "arm64",
        "os_name": "posix",
    },
}


@dataclass(frozen=True)
class Fact(Generic[T]):
    """A value and the wheel that says it."""

    value: T
    wheel: WheelFile


@dataclass
class Note:
    """Something the harvester could not do or check; ``failure``: it fails a ``--strict`` run."""

    text: str
    failure: bool = False
    #: What a failure is, in ``--strict``'s count of them.
    what: str = "source(s) not read"


@dataclass
class TorchPlatform:
    """What a variant's wheel for one OS carries: SASS architectures and PTX (None: unknown)."""

    wheel: WheelFile
    sass: list[str] | None = None
    ptx: str | None = None


@dataclass
class TorchVariant:
    """One variant (``cu130``, ``cpu``) of a release, from PyPI's default wheels and the index."""

    name: str
    cuda: Fact[str | None] | None = None
    cudnn: Fact[str] | None = None
    platforms: dict[str, TorchPlatform] = field(default_factory=dict)


@dataclass
class TorchRelease:
    """A torch minor release as its wheels describe it."""

    minor: str
    latest: Fact[str]
    python_min: Fact[str]
    python_max: Fact[str]
    pypi_default: dict[str, Fact[str]] = field(default_factory=dict)
    variants: dict[str, TorchVariant] = field(default_factory=dict)
    #: The index was read for this release: its variant list is complete.
    index_read: bool = False
    row_wheel: WheelFile | None = None


@dataclass
class LibraryRange:
    """A CUDA library the ``and-cuda`` extra requires by a range, and what the range resolves to today.

    ``resolved``: the newest final release on PyPI that the range allows and that has a manylinux
    x86_64 wheel (what pip installs on Linux), with that wheel; None when none was found.
    """

    library: str
    package: str
    spec: str
    resolved: Fact[str] | None = None


@dataclass
class TFGpu:
    """What a TensorFlow wheel for one OS says about its GPU build (None: it does not say)."""

    wheel: WheelFile
    os: str
    cuda_build: bool | None = None
    cuda: str | None = None
    cudnn: str | None = None
    sass: list[str] | None = None
    ptx: str | None = None
    and_cuda: bool | None = None
    #: The ``RANGE_LIBRARIES`` its ``and-cuda`` extra requires by a range (None: METADATA not read).
    ranges: list[LibraryRange] | None = None


@dataclass
class TFRelease:
    """A TensorFlow minor release as its wheels describe it."""

    minor: str
    latest: Fact[str]
    python_min: Fact[str]
    python_max: Fact[str]
    cpu: Fact[list[str]]
    gpu: dict[str, TFGpu] = field(default_factory=dict)
    row_wheel: WheelFile | None = None


@dataclass
class Harvest:
    """Everything gathered in one run."""

    pytorch: list[TorchRelease] | None = None
    tensorflow: list[TFRelease] | None = None
    #: Minor releases the data has and PyPI has no final release of.
    not_on_pypi: dict[str, list[str]] = field(default_factory=dict)
    notes: list[Note] = field(default_factory=list)
    records: dict[str, WheelRecord] = field(default_factory=dict)


@dataclass
class Harvester:
    """Reads what is needed and builds the Harvest."""

    fetcher: Fetcher
    reader: WheelReader
    pypi: str
    torch_index: str
    verbose: bool = False
    result: Harvest = field(default_factory=Harvest)
    #: PyPI's final releases of the packages ranges were resolved in, read once a run.
    _listed: dict[str, dict[Version, list[WheelFile]]] = field(default_factory=dict)

    def note(self, text: str, *, failure: bool = False) -> None:
        """Record a note (printed to stderr by the command line)."""
        self.result.notes.append(Note(text, failure))

    def log(self, text: str) -> None:
        """Progress, with ``-v``."""
        if self.verbose:
            print(text, file=sys.stderr, flush=True)

    def _read(
        self, wheel: WheelFile, members: tuple[str, ...], libraries: tuple[str, ...] = ()
    ) -> WheelRecord:
        record = self.reader.read(wheel, members, libraries)
        self.result.records[wheel.filename] = record
        if record.problem:
            self.note(f"{wheel.filename}: could not be read ({record.problem})", failure=True)
        else:
            how = "from the cache" if record.from_cache else "read"
            searched = f"; {record.scan.compressed_read / _MIB:.1f} MiB searched" if record.scan else ""
            self.log(f"{how}: {wheel.filename}: {record.seen()}{searched}")
        return record

    def _scope(
        self, files: list[WheelFile], data_minors: list[str], framework: str
    ) -> list[tuple[str, Version]]:
        newest = listings.latest_per_minor(files)
        oldest = min((_key(minor) for minor in data_minors), default=(0,))
        missing = [minor for minor in data_minors if minor not in newest]
        if missing:
            self.result.not_on_pypi[framework] = missing
        chosen = [(minor, version) for minor, version in newest.items() if _key(minor) >= oldest]
        return sorted(chosen, key=lambda item: _key(item[0]), reverse=True)

    # --- PyTorch --------------------------------------------------------------------------------

    def pytorch(self, data_minors: list[str]) -> list[TorchRelease]:
        """Every torch minor release in scope."""
        files, skipped = listings.pypi_files(self.fetcher, self.pypi, "torch")
        for text in skipped:
            self.note(text)
        index: list[WheelFile] | None = None
        try:
            index = listings.index_files(self.fetcher, self.torch_index)
        except FetchError as error:
            self.note(
                f"the PyTorch index is unreachable ({error}): only PyPI's default variants were checked",
                failure=True,
            )
        by_version = listings.releases(files)
        index_releases = listings.releases(index) if index is not None else {}
        found = []
        for minor, version in self._scope(files, data_minors, "pytorch"):
            release = self._torch_release(minor, version, by_version[version])
            if release is None:
                continue
            if index is not None:
                self._torch_index_variants(release, version, index_releases)
            found.append(release)
        return found

    def _torch_release(self, minor: str, version: Version, wheels: list[WheelFile]) -> TorchRelease | None:
        linux = listings.pick(wheels, "linux")
        if linux is None:
            self.note(f"torch {version}: no Linux x86_64 wheel on PyPI", failure=True)
            return None
        low, high = _python_range(wheels, linux)
        release = TorchRelease(minor, Fact(str(version), linux), low, high, row_wheel=linux)
        for os in OSES:
            wheel = linux if os == "linux" else listings.pick(wheels, os)
            if wheel is None:
                continue
            facts = self._torch_wheel(wheel, os)
            if facts is None:
                continue
            release.pypi_default[os] = Fact(facts.name, wheel)
            if os == "linux":
                self._check_python(release, facts.metadata)
            _merge_variant(release, facts, os, self)
        return release

    def _torch_index_variants(
        self, release: TorchRelease, version: Version, index: dict[Version, list[WheelFile]]
    ) -> None:
        wheels = index.get(version)
        if not wheels:
            same_minor = [v for v in index if listings.minor_of(v) == release.minor]
            if not same_minor:
                self.note(f"torch {release.minor}: not on the PyTorch index")
                return
            nearest = max(same_minor)
            self.note(f"torch {version}: not on the PyTorch index; its variants are taken from {nearest}")
            wheels = index[nearest]
        release.index_read = True
        groups: dict[tuple[str, str], list[WheelFile]] = {}
        for wheel in wheels:
            variant = listings.variant_of(wheel)
            if variant and wheel.os:
                groups.setdefault((variant, wheel.os), []).append(wheel)
        for (variant, os), group in sorted(groups.items()):
            chosen = listings.pick(group, os)
            if chosen is None:
                continue
            if variant == "cpu":
                entry = release.variants.setdefault("cpu", TorchVariant("cpu"))
                entry.cuda = entry.cuda or Fact(None, chosen)
                entry.platforms.setdefault(os, TorchPlatform(chosen))
                continue
            if os == "darwin":
                continue
            facts = self._torch_wheel(chosen, os)
            if facts is not None:
                if facts.name != variant:
                    self.note(f"{chosen.filename}: lies in {variant} but says it is {facts.name}")
                _merge_variant(release, facts, os, self, prefer=True)

    def _torch_wheel(self, wheel: WheelFile, os: str) -> TorchWheelFacts | None:
        record = self._read(wheel, ("torch/version.py",), TORCH_CUDA_LIBRARIES.get(os, ()))
        if record.problem:
            return None
        text = record.texts.get("torch/version.py")
        if text is None:
            self.note(f"{wheel.filename}: no torch/version.py")
            return None
        fields = version_fields(text)
        cuda, full = fields.get("cuda"), fields.get("__version__")
        local = Version(full).local if full else None
        if local and listings.VARIANT.fullmatch(local):
            name = local
        elif cuda:
            name = "cu" + cuda.replace(".", "")
        elif local:
            self.note(f"{wheel.filename}: variant {local} is out of the data's scope")
            return None
        else:
            name = "cpu"
        meta = metadata(record.texts["METADATA"]) if "METADATA" in record.texts else None
        facts = TorchWheelFacts(wheel, name, cuda, meta)
        if meta is not None and cuda:
            facts.cudnn = _pin(meta, r"nvidia-cudnn-cu\d+", os, wheel)
            runtime = _pin(meta, r"nvidia-cuda-runtime-cu\d+|cuda-toolkit", os, wheel)
            if runtime and not _same(runtime, cuda):
                self.note(
                    f"{wheel.filename}: version.py says CUDA {cuda}, METADATA pins the runtime {runtime}"
                )
            if facts.cudnn is None and os == "linux":
                self.note(f"{wheel.filename}: pins no nvidia-cudnn wheel: cuDNN not checked")
        if cuda and record.scan is not None:
            self._archs(facts, record.scan, os)
        return facts

    def _archs(self, facts: TorchWheelFacts, scan: Scan, os: str) -> None:
        """The architectures of the NVCC flags (the lowest PTX one where there are several)."""
        if scan.flags:
            facts.sass, ptx = gencode_archs(scan.flags)
            facts.ptx = ptx[0] if ptx else None
        elif scan.member is None:
            looked = ", ".join(TORCH_CUDA_LIBRARIES[os])
            self.note(f"{facts.wheel.filename}: no CUDA library found (looked for {looked})")
        else:
            where = "searched to the end" if scan.complete else "stopped at the --scan-limit cap"
            self.note(
                f"{facts.wheel.filename}: no -gencode flags in the first {scan.compressed_read / _MIB:.0f} MiB "
                f"of {scan.member} ({where}): architectures not checked",
                failure=not scan.complete,
            )

    def _check_python(self, release: TorchRelease | TFRelease, meta: Metadata | None) -> None:
        """Cross-check the wheels' Python range with Requires-Python and the classifiers (notes only)."""
        if meta is None:
            return
        low, high = release.python_min.value, release.python_max.value
        tagged = {f"3.{minor}" for minor in range(int(low.split(".")[1]), int(high.split(".")[1]) + 1)}
        name = release.latest.wheel.filename
        if meta.requires_python:
            try:
                spec = SpecifierSet(meta.requires_python)
            except InvalidSpecifier:
                spec = None
            below = f"3.{int(low.split('.')[1]) - 1}"
            if spec is not None and (not spec.contains(low + ".0") or spec.contains(below + ".0")):
                self.note(f"{name}: Requires-Python {meta.requires_python} but wheels from {low}")
        classified = set(meta.classifier_pythons)
        if classified and classified != tagged:
            self.note(
                f"{name}: classifiers name Python {', '.join(sorted(classified, key=cc_key))}, "
                f"wheels are for {low}-{high}"
            )

    # --- TensorFlow -----------------------------------------------------------------------------

    def tensorflow(self, data_minors: list[str]) -> list[TFRelease]:
        """Every TensorFlow minor release in scope."""
        files, skipped = listings.pypi_files(self.fetcher, self.pypi, "tensorflow")
        for text in skipped:
            self.note(text)
        by_version = listings.releases(files)
        found = []
        for minor, version in self._scope(files, data_minors, "tensorflow"):
            wheels = by_version[version]
            linux = listings.pick(wheels, "linux")
            if linux is None:
                self.note(f"tensorflow {version}: no Linux x86_64 wheel on PyPI", failure=True)
                continue
            low, high = _python_range(wheels, linux)
            oses = [os for os in OSES if any(wheel.os == os for wheel in wheels)]
            release = TFRelease(
                minor, Fact(str(version), linux), low, high, Fact(oses, linux), row_wheel=linux
            )
            for os in ("linux", "windows"):
                wheel = linux if os == "linux" else listings.pick(wheels, os)
                if wheel is not None:
                    gpu, meta = self._tf_wheel(wheel, os)
                    if gpu is not None:
                        release.gpu[os] = gpu
                    if os == "linux":
                        self._check_python(release, meta)
            found.append(release)
        return found

    def _tf_wheel(self, wheel: WheelFile, os: str) -> tuple[TFGpu | None, Metadata | None]:
        record = self._read(wheel, TF_BUILD_INFO)
        if record.problem:
            return None, None
        meta = metadata(record.texts["METADATA"]) if "METADATA" in record.texts else None
        gpu = TFGpu(wheel, os)
        text = next((record.texts[name] for name in TF_BUILD_INFO if name in record.texts), None)
        info: dict[str, Any] = build_info(text) if text else {}
        if not info:
            self.note(f"{wheel.filename}: no build_info.py: its CUDA build is not checked")
        if isinstance(info.get("is_cuda_build"), bool):
            gpu.cuda_build = info["is_cuda_build"]
        if gpu.cuda_build:
            gpu.cuda = _tf_version(info.get("cuda_version"))
            gpu.cudnn = _tf_version(info.get("cudnn_version"))
            archs = info.get("cuda_compute_capabilities")
            if isinstance(archs, list) and archs:
                gpu.sass = sorted({cc(a[3:]) for a in archs if re.fullmatch(r"sm_\d+", a)}, key=cc_key)
                ptx = sorted({cc(a[8:]) for a in archs if re.fullmatch(r"compute_\d+", a)}, key=cc_key)
                gpu.ptx = ptx[0] if ptx else None
        if meta is not None and os == "linux":
            gpu.and_cuda = "and-cuda" in meta.extras
            pinned = _pin(meta, r"nvidia-cudnn-cu\d+", os, wheel, extra="and-cuda")
            if pinned and gpu.cudnn and not _same(pinned, gpu.cudnn):
                self.note(f"{wheel.filename}: build_info says cuDNN {gpu.cudnn}, [and-cuda] pins {pinned}")
            elif pinned and gpu.cuda_build:
                gpu.cudnn = pinned
            runtime = _pin(meta, r"nvidia-cuda-runtime-cu\d+", os, wheel, extra="and-cuda")
            if runtime and gpu.cuda and not _same(runtime, gpu.cuda, parts=2):
                self.note(
                    f"{wheel.filename}: build_info says CUDA {gpu.cuda}, [and-cuda] pins the runtime {runtime}"
                )
            gpu.ranges = _ranges(meta, os, wheel) if gpu.and_cuda else []
            for found in gpu.ranges:
                self._resolve(found, wheel)
        return gpu, meta

    def _resolve(self, found: LibraryRange, wheel: WheelFile) -> None:
        """What pip installs for the range on Linux x86_64 today: the newest final release that has a wheel.

        Yanked files and pre-releases are left out, as pip leaves them out of a range.
        """
        what = f"{found.package} {found.spec} ([and-cuda] of {wheel.filename})"
        try:
            if found.package not in self._listed:
                files, skipped = listings.pypi_files(self.fetcher, self.pypi, found.package)
                for text in skipped:
                    self.note(text)
                self._listed[found.package] = listings.releases(files)
        except FetchError as error:
            self.note(f"{what}: PyPI could not be read ({error}): the range is not checked", failure=True)
            return
        releases = self._listed[found.package]
        spec = SpecifierSet(found.spec)
        for version in sorted(releases, reverse=True):
            if not spec.contains(version):
                continue
            wheels = sorted((w for w in releases[version] if _manylinux_x86_64(w)), key=lambda w: w.filename)
            if wheels:
                found.resolved = Fact(str(version), wheels[0])
                self.log(f"resolved: {what} -> {version} ({wheels[0].filename})")
                return
        self.note(
            f"{what}: no final release on PyPI satisfies it with a manylinux x86_64 wheel: the range is not checked",
            failure=True,
        )


@dataclass
class TorchWheelFacts:
    """What one torch wheel says."""

    wheel: WheelFile
    name: str
    cuda: str | None
    metadata: Metadata | None
    cudnn: str | None = None
    sass: list[str] | None = None
    ptx: str | None = None


def _merge_variant(
    release: TorchRelease, facts: TorchWheelFacts, os: str, harvester: Harvester, *, prefer: bool = False
) -> None:
    """Add one wheel's facts to its variant; ``prefer``: the index wheel wins over PyPI's."""
    variant = release.variants.setdefault(facts.name, TorchVariant(facts.name))
    # The index's wheel replaces PyPI's; among one origin's wheels the first (Linux) stays.
    if variant.cuda is None or (prefer and variant.cuda.wheel.origin != facts.wheel.origin):
        variant.cuda = Fact(facts.cuda, facts.wheel)
    if facts.cudnn is not None:
        if variant.cudnn is not None and variant.cudnn.value != facts.cudnn:
            harvester.note(
                f"{facts.wheel.filename} pins cuDNN {facts.cudnn}, {variant.cudnn.wheel.filename} {variant.cudnn.value}"
            )
        if variant.cudnn is None or (prefer and variant.cudnn.wheel.origin != facts.wheel.origin):
            variant.cudnn = Fact(facts.cudnn, facts.wheel)
    platform = TorchPlatform(facts.wheel, facts.sass, facts.ptx)
    old = variant.platforms.get(os)
    differ = old is not None and old.sass is not None and (old.sass, old.ptx) != (platform.sass, platform.ptx)
    if old is not None and differ and platform.sass is not None:
        harvester.note(
            f"{facts.wheel.filename} and {old.wheel.filename} carry different architectures "
            f"({platform.sass} PTX {platform.ptx} vs {old.sass} PTX {old.ptx})"
        )
    if old is None or (prefer and platform.sass is not None) or old.sass is None:
        variant.platforms[os] = platform


def _python_range(wheels: Iterable[WheelFile], prefer: WheelFile) -> tuple[Fact[str], Fact[str]]:
    """The lowest and highest CPython 3 of a release's wheels, each with a wheel that has it."""
    found: dict[tuple[int, int], WheelFile] = {}
    for wheel in sorted(wheels, key=lambda w: (w.os != prefer.os, w.filename)):
        for python in wheel.pythons:
            found.setdefault(python, wheel)
    low, high = min(found), max(found)
    return Fact(f"{low[0]}.{low[1]}", found[low]), Fact(f"{high[0]}.{high[1]}", found[high])


def _requirements(meta: Metadata, name: str, os: str, wheel: WheelFile, extra: str = "") -> list[Requirement]:
    """The requirements on ``name`` (a pattern) that apply to ``os`` (and, given one, only ``extra``'s)."""
    python = max(wheel.pythons) if wheel.pythons else (3, 12)
    environment = {
        **_ENVIRONMENT[os],
        "python_version": f"{python[0]}.{python[1]}",
        "python_full_version": f"{python[0]}.{python[1]}.0",
        "implementation_name": "cpython",
        "platform_python_implementation": "CPython",
        "extra": extra,
    }
    found = []
    for requirement in meta.requirements:
        if not re.fullmatch(name, requirement.name):
            continue
        if requirement.marker is not None and not _applies(requirement.marker, environment):
            continue
        if extra and (requirement.marker is None or "extra" not in str(requirement.marker)):
            continue
        found.append(requirement)
    return found


def _exact(requirement: Requirement) -> str | None:
    """The version an ``==`` requirement pins (``nvidia-cudnn-cu12==9.3.0.75``), or None."""
    exact = [spec.version for spec in requirement.specifier if spec.operator == "=="]
    if len(exact) == 1 and re.fullmatch(r"[0-9]+(\.[0-9]+)*", exact[0]):
        return exact[0]
    return None


def _pin(meta: Metadata, name: str, os: str, wheel: WheelFile, extra: str = "") -> str | None:
    """The ``==`` version a requirement on ``name`` (a pattern) pins for ``os``, or None."""
    for requirement in _requirements(meta, name, os, wheel, extra):
        exact = _exact(requirement)
        if exact:
            return exact
    return None


def _ranges(meta: Metadata, os: str, wheel: WheelFile) -> list[LibraryRange]:
    """The ``RANGE_LIBRARIES`` the ``and-cuda`` extra requires by a range rather than by ``==``.

    An unversioned requirement is a range too (any release); its spec is written ``>=0``.
    """
    found = []
    for library, pattern in RANGE_LIBRARIES.items():
        for requirement in _requirements(meta, pattern, os, wheel, extra="and-cuda"):
            if _exact(requirement) is None:
                spec = str(requirement.specifier) or ">=0"
                found.append(LibraryRange(library, canonicalize_name(requirement.name), spec))
    return found


def _manylinux_x86_64(wheel: WheelFile) -> bool:
    """A wheel pip installs on a (glibc) Linux x86_64 CPython 3."""
    return any(
        tag.platform.startswith("manylinux")
        and tag.platform.endswith("_x86_64")
        and tag.interpreter.startswith(("py3", "cp3"))
        for tag in wheel.tags
    )


def _applies(marker: Marker, environment: dict[str, str]) -> bool:
    try:
        return marker.evaluate(environment)
    except Exception:  # noqa: BLE001 - an unknown marker variable: the requirement does not apply here
        return False


def _tf_version(value: object) -> str | None:
    """``'12.5.1'`` as is; Windows builds' ``'64_112'`` -> ``'11.2'``, ``'64_8'`` -> ``'8'``."""
    if not isinstance(value, str) or not value:
        return None
    windows = re.fullmatch(r"64_(\d+)", value)
    if windows:
        digits = windows.group(1)
        if len(digits) == 1:
            return digits
        return f"{digits[:-1]}.{digits[-1]}"
    return value if re.fullmatch(r"[0-9]+(\.[0-9]+)*", value) else None


def _same(a: str, b: str, parts: int | None = None) -> bool:
    """Whether two versions agree as far as both say (``'9'`` and ``'9.3.0.75'`` do)."""
    left, right = a.split("."), b.split(".")
    length = min(len(left), len(right), parts or 99)
    return left[:length] == right[:length]


def _key(minor: str) -> tuple[int, ...]:
    return tuple(int(part) for part in minor.split("."))
