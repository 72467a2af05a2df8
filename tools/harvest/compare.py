"""The disagreements between the harvested facts and the data, each with the fix ``--write`` applies.

Only facts a wheel gives are compared, at the precision it gives them: TensorFlow's cuDNN ``'9'``
agrees with the data's ``'9.3'``; a wheel without ``nvidia-cudnn`` pins says nothing about cuDNN.
A release (or variant) the data lacks is a disagreement too; one the data has and the artifacts do
not is reported, never removed.

A CUDA library TensorFlow's ``[and-cuda]`` extra requires by a range is compared by what the range
resolves to today against what the data recorded (``library_ranges``); a resolution that drops a
compute capability of the build which the recorded one kept (cuda.json ``library_architectures``)
is also a failing note: plans pin below the drop from the recorded resolution, so it must not be
published unchecked.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final, TypeAlias

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from gpuwizard.core.compat.tables import LibraryFloor
from harvest.harvest import Harvest, LibraryRange, Note, TFGpu, TFRelease, TorchRelease, TorchVariant
from harvest.listings import OSES, WheelFile
from harvest.wheels import cc_key

#: A step into the data: a key, or ``(field, value)``: the list item whose ``field`` is ``value``.
Step: TypeAlias = str | tuple[str, str]


_WHEEL_KIND = {"linux": "Linux x86_64", "windows": "win_amd64", "darwin": "macOS"}
_LIBRARY_NAMES: Final = {"cudnn": "cuDNN", "cublas": "cuBLAS"}
#: What a failing note on a range resolution is, in ``--strict``'s count.
DROP_FAILURE: Final = "range resolution(s) drop a GPU the data's resolution kept"


@dataclass(frozen=True)
class Fix:
    """What ``--write`` does about a disagreement.

    ``path`` leads to the value to set (or, with ``insert``, to the list the value joins in
    order); ``cite`` to the object whose ``source`` list gets the keys of ``wheels``.
    """

    path: tuple[Step, ...]
    value: Any
    cite: tuple[Step, ...] | None = None
    insert: bool = False
    wheels: tuple[WheelFile, ...] = ()
    #: Wheels the value itself names by source key: defined in sources.json, cited nowhere else.
    defines: tuple[WheelFile, ...] = ()
    #: The ``changed:`` line's text after the field, where ``data -> value`` would not read well.
    change: str | None = None


@dataclass
class Disagreement:
    """One line of ``--check``."""

    framework: str
    minor: str
    field: str
    data: Any = None
    found: Any = None
    wheel: WheelFile | None = None
    word: str = "wheels"
    text: str | None = None
    fix: Fix | None = None

    def line(self) -> str:
        """The line printed for it."""
        where = f"{self.framework} {self.minor}" + (f" {self.field}" if self.field else "")
        if self.text is not None:
            return f"{where}: {self.text}"
        evidence = f" ({self.wheel.filename})" if self.wheel is not None else ""
        return f"{where}: data {show(self.data)}, {self.word} {show(self.found)}{evidence}"


def show(value: object) -> str:
    """A value as the lines print it."""
    if value is None:
        return "null"
    if isinstance(value, list):
        return "[" + ", ".join(str(item) for item in value) + "]"
    return str(value)


def same_version(data: object, found: str | None) -> bool:
    """Whether a data value agrees with a found one as far as both go (``'9'`` ~ ``'9.3'``)."""
    if data is None or found is None:
        return data is None and found is None
    left, right = str(data).split("."), found.split(".")
    length = min(len(left), len(right))
    return left[:length] == right[:length]


def at_precision(found: str, data: object) -> str:
    """The found version cut to the precision the data writes (``12.5.1`` for ``12.3`` -> ``12.5``)."""
    if isinstance(data, str) and data:
        return ".".join(found.split(".")[: max(len(data.split(".")), 1)])
    return found


def _newer(data: str, found: str) -> bool:
    try:
        return Version(data) != Version(found)
    except InvalidVersion:
        return data != found


@dataclass
class _Rows:
    framework: str
    rows: dict[str, dict[str, Any]]
    out: list[Disagreement] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    #: cuda.json's ``library_architectures`` rows.
    floors: tuple[LibraryFloor, ...] = ()
    #: The run's day (ISO), recorded as a new resolution's ``resolved_on``.
    today: str = ""
    #: One line per range resolved: what it resolves to today and what the data recorded.
    ranges: list[str] = field(default_factory=list)

    def add(self, minor: str, name: str, **kwargs: Any) -> None:  # noqa: ANN401 - Disagreement's own fields
        self.out.append(Disagreement(self.framework, minor, name, **kwargs))


def _row_path(minor: str) -> tuple[Step, ...]:
    return ("releases", ("version", minor))


def _common(rows: _Rows, release: TorchRelease | TFRelease, row: dict[str, Any]) -> None:
    """The fields both frameworks have: latest, python."""
    path = _row_path(release.minor)
    if _newer(str(row.get("latest")), release.latest.value):
        rows.add(
            release.minor, "latest", data=row.get("latest"), found=release.latest.value, word="PyPI",
            fix=Fix((*path, "latest"), release.latest.value, path, wheels=(release.latest.wheel,)),
        )  # fmt: skip
    python = row.get("python") or {}
    for end, fact in (("min", release.python_min), ("max", release.python_max)):
        if python.get(end) != fact.value:
            rows.add(
                release.minor, f"python.{end}", data=python.get(end), found=fact.value, wheel=fact.wheel,
                fix=Fix((*path, "python", end), fact.value, path, wheels=(fact.wheel,)),
            )  # fmt: skip


@dataclass
class Comparison:
    """What :func:`compare` found."""

    disagreements: list[Disagreement] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    #: One line per library range resolved (``tensorflow 2.21 linux: nvidia-cudnn-cu12 ... resolves to ...``).
    ranges: list[str] = field(default_factory=list)


def library_floors(cuda: dict[str, Any] | None) -> tuple[LibraryFloor, ...]:
    """cuda.json's ``library_architectures`` rows, as the recommender reads them."""
    rows = (cuda or {}).get("library_architectures") or []
    return tuple(
        LibraryFloor(
            row["library"], row["version_from"], row.get("version_to"), row["compute_capability_min"]
        )
        for row in rows
    )


def compare(harvest: Harvest, data: dict[str, Any], today: str) -> Comparison:
    """Every disagreement between the harvest and the data files.

    ``data``: the files by name (``pytorch``, ``tensorflow``; ``cuda`` for the library floors);
    ``today``: the run's day, ISO.
    """
    found: list[Disagreement] = []
    notes: list[Note] = []
    ranges: list[str] = []
    if harvest.pytorch is not None:
        rows = _Rows("pytorch", {row["version"]: row for row in data["pytorch"]["releases"]})
        for release in harvest.pytorch:
            _pytorch(rows, release)
        found += rows.out
    if harvest.tensorflow is not None:
        rows = _Rows(
            "tensorflow", {row["version"]: row for row in data["tensorflow"]["releases"]},
            floors=library_floors(data.get("cuda")), today=today,
        )  # fmt: skip
        for tf_release in harvest.tensorflow:
            _tensorflow(rows, tf_release)
        found += rows.out
        notes += rows.notes
        ranges += rows.ranges
    for framework, minors in harvest.not_on_pypi.items():
        if (framework == "pytorch" and harvest.pytorch is not None) or (
            framework == "tensorflow" and harvest.tensorflow is not None
        ):
            found += [
                Disagreement(framework, minor, "", text="in the data, but PyPI has no final release of it")
                for minor in minors
            ]
    return Comparison(found, notes, ranges)


# --- PyTorch ------------------------------------------------------------------------------------


def _pytorch(rows: _Rows, release: TorchRelease) -> None:
    row = rows.rows.get(release.minor)
    path = _row_path(release.minor)
    if row is None:
        new = new_torch_row(release)
        summary = ", ".join(f"{os} {fact.value}" for os, fact in release.pypi_default.items())
        rows.add(
            release.minor, "",
            text=f"missing from the data (PyPI has {release.latest.value}: Python {release.python_min.value}-"
            f"{release.python_max.value}, pypi_default {summary}; variants {', '.join(release.variants)})",
            fix=Fix(("releases",), new, insert=True, wheels=_torch_wheels(release)),
        )  # fmt: skip
        return
    _common(rows, release, row)
    defaults = row.get("pypi_default") or {}
    for os, fact in release.pypi_default.items():
        if defaults.get(os) != fact.value:
            rows.add(
                release.minor, f"pypi_default.{os}", data=defaults.get(os), found=fact.value, wheel=fact.wheel,
                fix=Fix((*path, "pypi_default", os), fact.value, path, wheels=(fact.wheel,)),
            )  # fmt: skip
    known = {variant["name"]: variant for variant in row.get("variants", [])}
    for name, variant in release.variants.items():
        if name not in known:
            evidence = next(iter(variant.platforms.values())).wheel if variant.platforms else None
            rows.add(
                release.minor, f"variants.{name}",
                text="missing from the data" + (f" ({evidence.filename})" if evidence else ""),
                fix=Fix((*path, "variants"), new_torch_variant(variant), insert=True, wheels=_variant_wheels(variant)),
            )  # fmt: skip
        else:
            _torch_variant(rows, release, variant, known[name])
    if release.index_read:
        for name, entry in known.items():
            if name not in release.variants:
                rows.add(release.minor, f"variants.{name}", text="in the data, not on the PyTorch index")
            else:
                for os in entry.get("platforms", {}):
                    if os not in release.variants[name].platforms:
                        rows.add(
                            release.minor, f"variants.{name}.platforms.{os}",
                            text=f"in the data, no {_WHEEL_KIND[os]} wheel on the PyTorch index",
                        )  # fmt: skip


def _torch_variant(rows: _Rows, release: TorchRelease, variant: TorchVariant, entry: dict[str, Any]) -> None:
    path: tuple[Step, ...] = (*_row_path(release.minor), "variants", ("name", variant.name))
    prefix = f"variants.{variant.name}"
    cuda = variant.cuda
    if cuda is not None and cuda.value is not None and not same_version(entry.get("cuda"), cuda.value):
        rows.add(
            release.minor, f"{prefix}.cuda", data=entry.get("cuda"), found=cuda.value, wheel=cuda.wheel,
            fix=Fix((*path, "cuda"), at_precision(cuda.value, entry.get("cuda")), path, wheels=(cuda.wheel,)),
        )  # fmt: skip
    cudnn = variant.cudnn
    if cudnn is not None and not same_version(entry.get("cudnn"), cudnn.value):
        rows.add(
            release.minor, f"{prefix}.cudnn", data=entry.get("cudnn"), found=cudnn.value, wheel=cudnn.wheel,
            fix=Fix((*path, "cudnn"), at_precision(cudnn.value, entry.get("cudnn")), path, wheels=(cudnn.wheel,)),
        )  # fmt: skip
    platforms = entry.get("platforms") or {}
    for os, platform in variant.platforms.items():
        where = f"{prefix}.platforms.{os}"
        if os not in platforms:
            value: dict[str, Any] = {}
            if platform.sass is not None:
                value = {"compute_capabilities": platform.sass, "ptx": platform.ptx}
            rows.add(
                release.minor, where, text=f"missing from the data ({platform.wheel.filename})",
                fix=Fix((*path, "platforms", os), value, path, wheels=(platform.wheel,)),
            )  # fmt: skip
            continue
        if platform.sass is None:
            continue
        data_ccs = platforms[os].get("compute_capabilities")
        if data_ccs is None or sorted(data_ccs, key=cc_key) != platform.sass:
            rows.add(
                release.minor, f"{where}.compute_capabilities", data=data_ccs, found=platform.sass,
                wheel=platform.wheel,
                fix=Fix((*path, "platforms", os, "compute_capabilities"), platform.sass, path, wheels=(platform.wheel,)),
            )  # fmt: skip
        if platforms[os].get("ptx") != platform.ptx:
            rows.add(
                release.minor, f"{where}.ptx", data=platforms[os].get("ptx"), found=platform.ptx, wheel=platform.wheel,
                fix=Fix((*path, "platforms", os, "ptx"), platform.ptx, path, wheels=(platform.wheel,)),
            )  # fmt: skip


def _variant_wheels(variant: TorchVariant) -> tuple[WheelFile, ...]:
    wheels = [fact.wheel for fact in (variant.cuda, variant.cudnn) if fact is not None]
    wheels += [platform.wheel for platform in variant.platforms.values()]
    return tuple(dict.fromkeys(wheels))


def _torch_wheels(release: TorchRelease) -> tuple[WheelFile, ...]:
    wheels = [release.latest.wheel, release.python_min.wheel, release.python_max.wheel]
    wheels += [fact.wheel for fact in release.pypi_default.values()]
    for variant in release.variants.values():
        wheels += _variant_wheels(variant)
    return tuple(dict.fromkeys(wheels))


def variant_order(name: str) -> tuple[int, int]:
    """CUDA variants by CUDA version, ``cpu`` last (the data's order)."""
    return (1, 0) if name == "cpu" else (0, int(name[2:]))


def new_torch_variant(variant: TorchVariant) -> dict[str, Any]:
    """A variant entry built from harvested facts only."""
    platforms: dict[str, Any] = {}
    for os in OSES:
        platform = variant.platforms.get(os)
        if platform is not None:
            platforms[os] = (
                {} if platform.sass is None else {"compute_capabilities": platform.sass, "ptx": platform.ptx}
            )
    entry: dict[str, Any] = {
        "name": variant.name,
        "cuda": variant.cuda.value if variant.cuda else None,
        "cudnn": variant.cudnn.value if variant.cudnn else None,
        "platforms": platforms,
        "source": [wheel.source_key for wheel in _variant_wheels(variant)],
    }
    if variant.name != "cpu":
        entry["experimental"] = False
    return entry


def new_torch_row(release: TorchRelease) -> dict[str, Any]:
    """A release row built from harvested facts; curated-only fields get safe defaults."""
    row_wheels = [release.latest.wheel, *(fact.wheel for fact in release.pypi_default.values())]
    return {
        "version": release.minor,
        "latest": release.latest.value,
        "python": {"min": release.python_min.value, "max": release.python_max.value},
        "variants": [
            new_torch_variant(release.variants[name]) for name in sorted(release.variants, key=variant_order)
        ],
        "pypi_default": {os: release.pypi_default[os].value for os in OSES if os in release.pypi_default},
        "conda_pytorch_channel": False,
        "source": [wheel.source_key for wheel in dict.fromkeys(row_wheels)],
    }


# --- TensorFlow ---------------------------------------------------------------------------------


def _tensorflow(rows: _Rows, release: TFRelease) -> None:
    row = rows.rows.get(release.minor)
    path = _row_path(release.minor)
    if row is None:
        rows.add(
            release.minor, "",
            text=f"missing from the data (PyPI has {release.latest.value}: Python {release.python_min.value}-"
            f"{release.python_max.value}, " + ", ".join(_tf_summary(release)) + ")",
            fix=_new_tf_fix(release, rows.today),
        )  # fmt: skip
        for gpu in release.gpu.values():
            _tf_ranges(rows, release.minor, gpu, None)
        return
    _common(rows, release, row)
    cpu = row.get("cpu") or []
    if sorted(cpu) != sorted(release.cpu.value):
        rows.add(
            release.minor, "cpu", data=cpu, found=release.cpu.value, wheel=release.cpu.wheel, word="wheels for",
            fix=Fix((*path, "cpu"), release.cpu.value, path, wheels=(release.cpu.wheel,)),
        )  # fmt: skip
    gpus = row.get("gpu") or {}
    for os, gpu in release.gpu.items():
        _tf_gpu(rows, release.minor, os, gpu, gpus.get(os))


def _tf_summary(release: TFRelease) -> list[str]:
    parts = []
    for os, gpu in release.gpu.items():
        if gpu.cuda_build:
            parts.append(f"{os} CUDA {gpu.cuda} cuDNN {gpu.cudnn}")
        elif gpu.cuda_build is False:
            parts.append(f"{os} CPU only")
    return parts or ["no build_info"]


def _tf_gpu_entry(gpu: TFGpu, today: str) -> dict[str, Any] | None:
    """A ``gpu.<os>`` entry from build_info, when it gives every required field."""
    if not (gpu.cuda_build and gpu.cuda and gpu.cudnn and gpu.sass is not None):
        return None
    entry: dict[str, Any] = {
        "cuda": gpu.cuda,
        "cudnn": gpu.cudnn,
        "cuda_supply": "and-cuda" if gpu.and_cuda else "system",
        "compute_capabilities": gpu.sass,
        "ptx": gpu.ptx,
    }
    ranges = [_range_entry(found, today) for found in gpu.ranges or () if found.resolved is not None]
    if ranges:
        entry["library_ranges"] = ranges
    return entry


def _range_wheels(gpu: TFGpu | None) -> tuple[WheelFile, ...]:
    if gpu is None:
        return ()
    return tuple(found.resolved.wheel for found in gpu.ranges or () if found.resolved is not None)


def _new_tf_fix(release: TFRelease, today: str) -> Fix:
    wheels = tuple(dict.fromkeys([release.latest.wheel, *(gpu.wheel for gpu in release.gpu.values())]))
    row = {
        "version": release.minor,
        "latest": release.latest.value,
        "python": {"min": release.python_min.value, "max": release.python_max.value},
        "gpu": {
            "linux": _tf_gpu_entry(release.gpu["linux"], today) if "linux" in release.gpu else None,
            "windows": _tf_gpu_entry(release.gpu["windows"], today) if "windows" in release.gpu else None,
            "darwin": None,
        },
        "cpu": release.cpu.value,
        "source": [wheel.source_key for wheel in wheels],
    }
    defines = tuple(wheel for gpu in release.gpu.values() for wheel in _range_wheels(gpu))
    return Fix(("releases",), row, insert=True, wheels=wheels, defines=defines)


def _tf_gpu(rows: _Rows, minor: str, os: str, gpu: TFGpu, entry: dict[str, Any] | None) -> None:
    path: tuple[Step, ...] = (*_row_path(minor), "gpu", os)
    cite = _row_path(minor)
    prefix = f"gpu.{os}"
    wheels = (gpu.wheel,)
    if gpu.cuda_build is None:
        return
    if not gpu.cuda_build:
        if entry:
            rows.notes.append(
                Note(f"{gpu.wheel.filename} is not a CUDA build; the data's tensorflow {minor} {os} GPU build "
                     "is not checked (it may be another package, as tensorflow-gpu for 2.0)")
            )  # fmt: skip
        return
    if entry is None:
        new = _tf_gpu_entry(gpu, rows.today)
        rows.add(
            minor, prefix, data=None, found=f"a CUDA {gpu.cuda} build", wheel=gpu.wheel,
            fix=Fix(path, new, cite, wheels=wheels, defines=_range_wheels(gpu)) if new else None,
        )  # fmt: skip
        _tf_ranges(rows, minor, gpu, None)
        return
    for name in ("cuda", "cudnn"):
        value = getattr(gpu, name)
        if value is not None and not same_version(entry.get(name), value):
            rows.add(
                minor, f"{prefix}.{name}", data=entry.get(name), found=value, wheel=gpu.wheel,
                fix=Fix((*path, name), at_precision(value, entry.get(name)), cite, wheels=wheels),
            )  # fmt: skip
    if gpu.sass is not None:
        _tf_archs(rows, minor, gpu, entry)
    if gpu.and_cuda is not None and (entry.get("cuda_supply") == "and-cuda") != gpu.and_cuda:
        rows.add(
            minor, f"{prefix}.cuda_supply", data=entry.get("cuda_supply"),
            found="and-cuda" if gpu.and_cuda else "no [and-cuda] extra", wheel=gpu.wheel,
            fix=Fix((*path, "cuda_supply"), "and-cuda" if gpu.and_cuda else "system", cite, wheels=wheels),
        )  # fmt: skip
    _tf_ranges(rows, minor, gpu, entry)


def _tf_archs(rows: _Rows, minor: str, gpu: TFGpu, entry: dict[str, Any]) -> None:
    """Architectures: build_info lists SASS (``sm_``) and PTX (``compute_``).

    Whether the PTX architecture also has SASS it does not say, so the data may list it or not.
    """
    cite = _row_path(minor)
    prefix = f"gpu.{gpu.os}"
    path: tuple[Step, ...] = (*cite, "gpu", gpu.os)
    sass = set(gpu.sass or [])
    data_ccs = entry.get("compute_capabilities") or []
    extra = {gpu.ptx} if gpu.ptx else set()
    if set(data_ccs) != sass and set(data_ccs) != sass | extra:
        rows.add(
            minor, f"{prefix}.compute_capabilities", data=data_ccs, found=gpu.sass, wheel=gpu.wheel,
            fix=Fix((*path, "compute_capabilities"), gpu.sass, cite, wheels=(gpu.wheel,)),
        )  # fmt: skip
    if entry.get("ptx") != gpu.ptx:
        rows.add(
            minor, f"{prefix}.ptx", data=entry.get("ptx"), found=gpu.ptx, wheel=gpu.wheel,
            fix=Fix((*path, "ptx"), gpu.ptx, cite, wheels=(gpu.wheel,)),
        )  # fmt: skip


# --- library ranges -----------------------------------------------------------------------------


def _range_entry(found: LibraryRange, today: str) -> dict[str, Any]:
    """A ``library_ranges`` entry: the range and today's resolution, citing the wheel resolved to."""
    assert found.resolved is not None  # noqa: S101 - only resolved ranges are written
    return {
        "library": found.library,
        "package": found.package,
        "spec": found.spec,
        "resolved": found.resolved.value,
        "resolved_on": today,
        "source": found.resolved.wheel.source_key,
    }


def _same_spec(data: object, found: str) -> bool:
    """Whether two specifiers are the same set (``>=9.3,<10`` is ``<10,>=9.3``)."""
    try:
        return SpecifierSet(str(data)) == SpecifierSet(found)
    except InvalidSpecifier:
        return data == found


def _drops(
    floors: tuple[LibraryFloor, ...], library: str, version: str | None, capabilities: list[str]
) -> dict[str, LibraryFloor]:
    """The build's compute capabilities ``library`` ``version`` does not support, with the floor that says so."""
    found: dict[str, LibraryFloor] = {}
    if not version:
        return found
    for capability in capabilities:
        floor = next((row for row in floors if row.excludes(library, version, capability)), None)
        if floor is not None:
            found[capability] = floor
    return found


def _floor_text(floors: list[LibraryFloor]) -> str:
    """``cuDNN 9.11 and newer need 7.5`` for the floors named."""
    parts = []
    for floor in dict.fromkeys(floors):
        name = _LIBRARY_NAMES.get(floor.library, floor.library)
        versions = (
            f"{floor.version_from} and newer"
            if floor.version_to is None
            else f"{floor.version_from} to {floor.version_to}"
        )
        parts.append(f"{name} {versions} need {floor.compute_capability_min}")
    return "; ".join(parts)


def _build_capabilities(gpu: TFGpu, entry: dict[str, Any] | None) -> list[str]:
    """The compute capabilities the release's build lists: the data's, else the wheel's (SASS and PTX)."""
    if entry is not None:
        listed = [*(entry.get("compute_capabilities") or []), entry.get("ptx")]
    else:
        listed = [*(gpu.sass or []), gpu.ptx]
    return sorted({cc for cc in listed if cc}, key=cc_key)


def _tf_ranges(rows: _Rows, minor: str, gpu: TFGpu, entry: dict[str, Any] | None) -> None:
    """Each library range of the ``and-cuda`` extra against the data's ``library_ranges``.

    ``entry``: the data's build (None: the data has none; the fix that adds it writes the ranges).
    """
    if gpu.ranges is None:
        return
    recorded = {item.get("package"): item for item in (entry or {}).get("library_ranges") or []}
    capabilities = _build_capabilities(gpu, entry)
    path: tuple[Step, ...] = (*_row_path(minor), "gpu", gpu.os, "library_ranges")
    for found in gpu.ranges:
        data = recorded.pop(found.package, None)
        where = f"gpu.{gpu.os}.library_ranges.{found.package}"
        if found.resolved is None:  # the harvester's failing note says why
            if data is not None and not _same_spec(data.get("spec"), found.spec):
                rows.add(
                    minor, where, text=f"data {data.get('spec')}, the [and-cuda] extra requires {found.spec} "
                    f"({gpu.wheel.filename})",
                )  # fmt: skip
            continue
        version = found.resolved.value
        data_version = data.get("resolved") if data is not None else None
        today_drops = _drops(rows.floors, found.library, version, capabilities)
        old_drops = _drops(rows.floors, found.library, data_version, capabilities)
        new_drops = {cc: floor for cc, floor in today_drops.items() if cc not in old_drops}
        rows.ranges.append(_range_line(rows, minor, gpu.os, found, data, today_drops, new_drops))
        dropped = ""
        if new_drops:
            before = (
                f"the data recorded {data_version}, which did not"
                if data is not None
                else "the data records no resolution of it"
            )
            dropped = (
                f"drops compute capability {', '.join(new_drops)} ({_floor_text(list(new_drops.values()))}); "
                f"{before}: check that plans pin below the drop (library_architectures) before publishing"
            )
            rows.notes.append(Note(
                f"{rows.framework} {minor} {gpu.os}: {found.package} {found.spec} resolves to {version} today, "
                f"which {dropped}", failure=True, what=DROP_FAILURE,
            ))  # fmt: skip
        if entry is None:
            continue  # the fix that adds the build writes its ranges
        evidence = f"({found.resolved.wheel.filename})"
        if data is None:
            text = (
                f"missing from the data: the [and-cuda] extra requires {found.spec}, which resolves to "
                f"{version} today {evidence}"
            )
            fix = Fix(
                path, _range_entry(found, rows.today), insert=True, defines=(found.resolved.wheel,),
                change=f"added {found.spec} resolved to {version} on {rows.today}",
            )  # fmt: skip
        elif not _same_spec(data.get("spec"), found.spec):
            text = (
                f"data {data.get('spec')} (resolved to {data_version} on {data.get('resolved_on')}), the [and-cuda] "
                f"extra requires {found.spec} ({gpu.wheel.filename}), which resolves to {version} today {evidence}"
            )
            fix = _replace(rows, path, found, data)
        elif data_version != version:
            text = (
                f"{found.spec} resolves to {version} today {evidence}, the data recorded {data_version} "
                f"on {data.get('resolved_on')}"
            )
            fix = _replace(rows, path, found, data)
        else:
            continue
        rows.add(minor, where, text=text + (f"; {version} {dropped}" if dropped else ""), fix=fix)
    for package in recorded:
        rows.add(
            minor, f"gpu.{gpu.os}.library_ranges.{package}",
            text=f"in the data, but the [and-cuda] extra of {gpu.wheel.filename} requires it by no range",
        )  # fmt: skip


def _range_line(  # noqa: PLR0917 - the parts of one line
    rows: _Rows,
    minor: str,
    os: str,
    found: LibraryRange,
    data: dict[str, Any] | None,
    today_drops: dict[str, LibraryFloor],
    new_drops: dict[str, LibraryFloor],
) -> str:
    """``tensorflow 2.21 linux: nvidia-cudnn-cu12 <10.0,>=9.3.0.75 resolves to 9.28.0.42 today (data: ...)``."""
    assert found.resolved is not None  # noqa: S101 - only resolved ranges have a line
    said = f"data: {data.get('resolved')} on {data.get('resolved_on')}" if data is not None else "data: none"
    line = (
        f"{rows.framework} {minor} {os}: {found.package} {found.spec} resolves to {found.resolved.value} "
        f"today ({said})"
    )
    if today_drops:
        line += (
            f"; it drops compute capability {', '.join(today_drops)} "
            f"({_floor_text(list(today_drops.values()))})"
        )
        if not new_drops:
            line += ", as the data's resolution does"
        elif data is not None:
            line += ", which the data's resolution does not"
    return line


def _replace(rows: _Rows, path: tuple[Step, ...], found: LibraryRange, data: dict[str, Any]) -> Fix:
    assert found.resolved is not None  # noqa: S101 - only resolved ranges are written
    return Fix(
        (*path, ("package", found.package)), _range_entry(found, rows.today), defines=(found.resolved.wheel,),
        change=f"{data.get('spec')} resolved to {data.get('resolved')} on {data.get('resolved_on')} -> "
        f"{found.spec} resolved to {found.resolved.value} on {rows.today}",
    )  # fmt: skip
