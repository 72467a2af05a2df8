"""The disagreements between the harvested facts and the data, each with the fix ``--write`` applies.

Only facts a wheel gives are compared, at the precision it gives them: TensorFlow's cuDNN ``'9'``
agrees with the data's ``'9.3'``; a wheel without ``nvidia-cudnn`` pins says nothing about cuDNN.
A release (or variant) the data lacks is a disagreement too; one the data has and the artifacts do
not is reported, never removed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeAlias

from packaging.version import InvalidVersion, Version

from harvest.harvest import Harvest, Note, TFGpu, TFRelease, TorchRelease, TorchVariant
from harvest.listings import OSES, WheelFile
from harvest.wheels import cc_key

#: A step into the data: a key, or ``(field, value)``: the list item whose ``field`` is ``value``.
Step: TypeAlias = str | tuple[str, str]


_WHEEL_KIND = {"linux": "Linux x86_64", "windows": "win_amd64", "darwin": "macOS"}


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


def compare(harvest: Harvest, data: dict[str, Any]) -> tuple[list[Disagreement], list[Note]]:
    """Every disagreement between the harvest and the data files (by name: ``pytorch``, ``tensorflow``)."""
    found: list[Disagreement] = []
    notes: list[Note] = []
    if harvest.pytorch is not None:
        rows = _Rows("pytorch", {row["version"]: row for row in data["pytorch"]["releases"]})
        for release in harvest.pytorch:
            _pytorch(rows, release)
        found += rows.out
    if harvest.tensorflow is not None:
        rows = _Rows("tensorflow", {row["version"]: row for row in data["tensorflow"]["releases"]})
        for tf_release in harvest.tensorflow:
            _tensorflow(rows, tf_release)
        found += rows.out
        notes += rows.notes
    for framework, minors in harvest.not_on_pypi.items():
        if (framework == "pytorch" and harvest.pytorch is not None) or (
            framework == "tensorflow" and harvest.tensorflow is not None
        ):
            found += [
                Disagreement(framework, minor, "", text="in the data, but PyPI has no final release of it")
                for minor in minors
            ]
    return found, notes


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
            fix=_new_tf_fix(release),
        )  # fmt: skip
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


def _tf_gpu_entry(gpu: TFGpu) -> dict[str, Any] | None:
    """A ``gpu.<os>`` entry from build_info, when it gives every required field."""
    if not (gpu.cuda_build and gpu.cuda and gpu.cudnn and gpu.sass is not None):
        return None
    return {
        "cuda": gpu.cuda,
        "cudnn": gpu.cudnn,
        "cuda_supply": "and-cuda" if gpu.and_cuda else "system",
        "compute_capabilities": gpu.sass,
        "ptx": gpu.ptx,
    }


def _new_tf_fix(release: TFRelease) -> Fix:
    wheels = tuple(dict.fromkeys([release.latest.wheel, *(gpu.wheel for gpu in release.gpu.values())]))
    row = {
        "version": release.minor,
        "latest": release.latest.value,
        "python": {"min": release.python_min.value, "max": release.python_max.value},
        "gpu": {
            "linux": _tf_gpu_entry(release.gpu["linux"]) if "linux" in release.gpu else None,
            "windows": _tf_gpu_entry(release.gpu["windows"]) if "windows" in release.gpu else None,
            "darwin": None,
        },
        "cpu": release.cpu.value,
        "source": [wheel.source_key for wheel in wheels],
    }
    return Fix(("releases",), row, insert=True, wheels=wheels)


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
        new = _tf_gpu_entry(gpu)
        rows.add(
            minor, prefix, data=None, found=f"a CUDA {gpu.cuda} build", wheel=gpu.wheel,
            fix=Fix(path, new, cite, wheels=wheels) if new else None,
        )  # fmt: skip
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
