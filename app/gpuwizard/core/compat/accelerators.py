"""What the tables know of GPUs other than NVIDIA's: AMD (ROCm), Intel (XPU), Apple (MPS).

Read from ``resources/compat/accelerators.json`` (``gpuwizard.compat-accelerators/1``; its
README section says where each fact comes from). A bundle from before the file existed has
none of it: :meth:`Accelerators.empty`, and every non-NVIDIA GPU then gets the CPU build with
the reason that the data knows no build for it.

The names of GPUs map to their targets the way ``gpus.json``'s cards do: a case-insensitive
whole-word match of the name the OS reports, the longest match winning; a PCI device id, where
the report has one, wins over the name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from gpuwizard.core.events import value_from_json


@dataclass(frozen=True)
class AmdTarget:
    """AMD GPUs of one LLVM target (``gfx1100``), by their names and PCI device ids."""

    gfx_target: str
    architecture: str
    names: tuple[str, ...]
    pci_device_ids: tuple[str, ...] = ()
    integrated: bool = False
    note: str | None = None


@dataclass(frozen=True)
class RocmBuild:
    """One of PyTorch's ROCm wheel variants (``rocm6.4``) of a release, with the targets it carries."""

    torch: str
    variant: str
    rocm: str
    os: str
    gfx_targets: tuple[str, ...]
    source: tuple[str, ...] = ()
    note: str | None = None


@dataclass(frozen=True)
class AmdWindowsBuild:
    """AMD's own PyTorch wheels for Windows (not on the PyTorch index)."""

    torch: str
    rocm: str
    python: tuple[str, ...]
    gfx_targets: tuple[str, ...]
    where: str = ""
    kind: str = ""
    driver_min: str | None = None
    requirements: tuple[str, ...] = ()
    source: tuple[str, ...] = ()
    note: str | None = None


@dataclass(frozen=True)
class HsaOverride:
    """A documented ``HSA_OVERRIDE_GFX_VERSION`` for a target no build carries."""

    gfx_target: str
    override: str
    source: tuple[str, ...] = ()
    note: str | None = None


@dataclass(frozen=True)
class IntelFamily:
    """Intel GPUs of one family, and whether PyTorch's XPU build serves them."""

    family: str
    names: tuple[str, ...]
    pci_device_ids: tuple[str, ...] = ()
    integrated: bool = False
    xpu: bool = False
    note: str | None = None


@dataclass(frozen=True)
class XpuBuild:
    """PyTorch's XPU wheels of a release: where, for which families, on which driver."""

    torch: str
    variant: str
    os: tuple[str, ...]
    families: tuple[str, ...]
    driver_min: Mapping[str, str | None] = field(default_factory=dict)
    source: tuple[str, ...] = ()
    note: str | None = None


@dataclass(frozen=True)
class TorchMacos:
    """The lowest macOS of the PyPI macOS wheels from a PyTorch release on."""

    torch_from: str
    macos_min: str
    arch: str = "arm64"
    torch_to: str | None = None
    source: tuple[str, ...] = ()
    note: str | None = None


@dataclass(frozen=True)
class AppleFacts:
    """Apple silicon: the macOS that MPS needs and the macOS of PyTorch's wheels."""

    mps_macos_min: str = "12.3"
    arch: str = "arm64"
    torch_macos: tuple[TorchMacos, ...] = ()
    source: tuple[str, ...] = ()
    #: The macOS each range of releases needs for MPS (rising: 12.3, 13.0 from 2.5, 14.0 from 2.10).
    mps_macos: tuple[TorchMacos, ...] = ()
    #: The last release with wheels for Intel Macs (x86_64); None where the data says nothing.
    x86_64_last: str | None = None


@dataclass(frozen=True)
class StackFact:
    """TensorFlow (or another stack) on one of these platforms, as a stated fact."""

    platform: str
    state: str
    text: str
    package: str | None = None
    source: tuple[str, ...] = ()
    note: str | None = None


_Row = TypeVar("_Row")


def _rows(cls: type[_Row], rows: Iterable[object] | None) -> tuple[_Row, ...]:
    return tuple(value_from_json(cls, row) for row in rows or () if isinstance(row, Mapping))


def _words(text: str) -> str:
    """``" radeon rx 7900 xtx "``: lower-case words, spaced, for whole-word matching.

    Trademark marks go first: Windows names Intel's GPUs ``Intel(R) Arc(TM) A770 Graphics``.

    >>> _words("Intel(R) Arc(TM) A770 Graphics")
    ' intel arc a770 graphics '
    """
    plain = re.sub(r"\((?:r|tm|c)\)|[®™©]", " ", text.lower())
    return f" {re.sub(r'[^a-z0-9]+', ' ', plain).strip()} "


def gfx_order(target: str) -> tuple[int, str]:
    """Sort key of gfx targets by generation: ``gfx900`` before ``gfx1100``.

    >>> sorted(["gfx1100", "gfx90a", "gfx900"], key=gfx_order)
    ['gfx900', 'gfx90a', 'gfx1100']
    """
    digits = target.removeprefix("gfx")
    return (len(digits), digits)


def _numbers(version: str) -> tuple[int, ...]:
    """``(6, 4)`` of ``6.4``: a version's numbers, for ordering."""
    return tuple(int(part) for part in re.findall(r"[0-9]+", version))


def _device_id(pci_id: str | None) -> str | None:
    """``744c`` of ``1002:744c`` (or of ``744C``); None when there is none."""
    if not pci_id:
        return None
    return pci_id.rsplit(":", 1)[-1].strip().lower() or None


_Named = TypeVar("_Named", AmdTarget, IntelFamily)


def _best_match(rows: Sequence[_Named], name: str | None, pci_id: str | None) -> _Named | None:
    device = _device_id(pci_id)
    if device:
        for row in rows:
            if device in (d.lower() for d in row.pci_device_ids):
                return row
    if not name:
        return None
    words = _words(name)
    best: tuple[int, _Named] | None = None
    for row in rows:
        for candidate in row.names:
            if _words(candidate) in words and (best is None or len(candidate) > best[0]):
                best = (len(candidate), row)
    return best[1] if best else None


@dataclass(frozen=True)
class Accelerators:
    """Every table of ``accelerators.json``."""

    amd_targets: tuple[AmdTarget, ...] = ()
    rocm_builds: tuple[RocmBuild, ...] = ()
    amd_windows_builds: tuple[AmdWindowsBuild, ...] = ()
    rocm_requirements: Mapping[str, Any] = field(default_factory=dict)
    hsa_overrides: tuple[HsaOverride, ...] = ()
    intel_families: tuple[IntelFamily, ...] = ()
    xpu_builds: tuple[XpuBuild, ...] = ()
    apple: AppleFacts = field(default_factory=AppleFacts)
    tensorflow: tuple[StackFact, ...] = ()
    directml: Mapping[str, Any] = field(default_factory=dict)

    def amd_target(self, name: str | None, pci_id: str | None = None) -> AmdTarget | None:
        """The AMD target of a GPU by its PCI id, else its name."""
        return _best_match(self.amd_targets, name, pci_id)

    def intel_family(self, name: str | None, pci_id: str | None = None) -> IntelFamily | None:
        """The Intel family of a GPU by its PCI id, else its name."""
        return _best_match(self.intel_families, name, pci_id)

    def rocm_builds_of(self, torch_minor: str, os_name: str = "linux") -> tuple[RocmBuild, ...]:
        """PyTorch's ROCm builds of a release for ``os_name``, newest ROCm first."""
        found = [b for b in self.rocm_builds if b.torch == torch_minor and b.os == os_name]
        return tuple(sorted(found, key=lambda b: _numbers(b.rocm), reverse=True))

    def xpu_builds_of(self, torch_minor: str, os_name: str) -> tuple[XpuBuild, ...]:
        """PyTorch's XPU builds of a release for ``os_name``."""
        return tuple(b for b in self.xpu_builds if b.torch == torch_minor and os_name in b.os)

    def targets_ever_built(self) -> tuple[str, ...]:
        """Every gfx target some PyTorch ROCm build in the tables carries, sorted."""
        return tuple(sorted({t for b in self.rocm_builds for t in b.gfx_targets}, key=gfx_order))

    def hsa_override(self, gfx_target: str) -> HsaOverride | None:
        """The documented override for ``gfx_target``, if any."""
        return next((o for o in self.hsa_overrides if o.gfx_target == gfx_target), None)

    def stack_fact(self, platform: str) -> StackFact | None:
        """What the tables state about TensorFlow on ``platform`` (``rocm-linux``, ``xpu``, ``mps``...)."""
        return next((f for f in self.tensorflow if f.platform == platform), None)

    @property
    def is_empty(self) -> bool:
        """True for no knowledge at all (a bundle from before ``accelerators.json``)."""
        return self == Accelerators.empty()

    @classmethod
    def empty(cls) -> Accelerators:
        """No knowledge (a bundle from before ``accelerators.json``)."""
        return cls()


def accelerators_from_json(data: Mapping[str, Any] | None) -> Accelerators:
    """Read ``accelerators.json`` (already checked against its schema); None gives no knowledge."""
    if not data:
        return Accelerators.empty()
    apple = data.get("apple")
    return Accelerators(
        amd_targets=_rows(AmdTarget, data.get("amd_targets")),
        rocm_builds=_rows(RocmBuild, data.get("rocm_builds")),
        amd_windows_builds=_rows(AmdWindowsBuild, data.get("amd_windows_builds")),
        rocm_requirements=dict(data.get("rocm_requirements") or {}),
        hsa_overrides=_rows(HsaOverride, data.get("hsa_overrides")),
        intel_families=_rows(IntelFamily, data.get("intel_families")),
        xpu_builds=_rows(XpuBuild, data.get("xpu_builds")),
        apple=value_from_json(AppleFacts, apple) if isinstance(apple, Mapping) else AppleFacts(),
        tensorflow=_rows(StackFact, data.get("tensorflow")),
        directml=dict(data.get("directml") or {}),
    )
