"""The machine as the recommender sees it: the facts of a system report that decide a plan.

Apart from the recommender so that the candidate builders (torch_plans, tensorflow_plans), the
reasons and the findings share one reading of the report: which OS and driver, which GPUs with
which compute capability, which Pythons and toolkits.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from gpuwizard.core.compat.tables import CompatData, minor_of, version_key
from gpuwizard.core.machine.conda_engines import conda_engine, found_conda_tool
from gpuwizard.core.machine.system_report import (
    CudaToolkitFacts,
    CudnnFacts,
    SystemReport,
    WslFacts,
    display_name,
)


@dataclass(frozen=True)
class GpuView:
    """An NVIDIA GPU as the recommender sees it (capability from the report or the name tables)."""

    index: int
    name: str
    capability: str | None


@dataclass(frozen=True)
class AcceleratorView:
    """An AMD, Intel or Apple GPU as the recommender sees it.

    Attributes:
        index: The GPU's index in the report.
        name: A readable name.
        vendor: ``amd``, ``intel`` or ``apple``.
        target: AMD: the gfx target (``gfx1100``); Intel: the family (``Arc A-series (Alchemist)``);
            Apple: the chip's name. None when neither the OS nor the tables tell it.
        target_source: Where the target came from: the report's source (``kfd``, ``rocminfo``)
            or ``tables`` (the name or PCI id looked up in accelerators.json).
        integrated: An integrated GPU (APU, iGPU, Apple silicon); None when unknown.
        driver_version: The vendor's driver as the vendor numbers it, when known.
        xpu: Intel: PyTorch's XPU builds serve the family.
    """

    index: int
    name: str
    vendor: str
    target: str | None
    target_source: str | None
    integrated: bool | None
    driver_version: str | None
    xpu: bool = False


@dataclass(frozen=True)
class RuntimeView:
    """A GPU runtime found on the machine (ROCm, Level Zero), and whether this user can use it."""

    name: str
    version: str | None
    usable: bool | None
    detail: str | None


@dataclass(frozen=True)
class MachineView:
    """What the recommender needs of a report.

    ``has_conda``: conda, mamba or micromamba is installed (the TensorFlow routes prefer conda
    then); ``conda_engine``: what would make a conda environment here, that tool or ``rattler``
    (py-rattler, inside the wizard: conda environments are possible on every machine).
    ``wsl_host``: on Windows, what ``wsl.exe`` told detection (None: not asked, an older report).
    """

    family: str
    platform: str  # the build platform: linux (also for WSL 2), windows, darwin
    driver_os: str  # whose driver serves the GPU: windows for WSL 2 too
    wsl: bool
    driver: str | None
    cuda_max: str | None
    cuda_max_source: str | None
    gpus: tuple[GpuView, ...]
    other_gpus: tuple[str, ...]
    pythons: tuple[str, ...]
    toolkits: tuple[CudaToolkitFacts, ...]
    cudnn: tuple[CudnnFacts, ...]
    has_conda: bool
    conda_engine: str = "rattler"
    #: The AMD, Intel and Apple GPUs (the NVIDIA ones are ``gpus``).
    accelerators: tuple[AcceleratorView, ...] = ()
    runtimes: tuple[RuntimeView, ...] = ()
    arch: str = "x86_64"
    macos_version: str | None = None
    wsl_host: WslFacts | None = None

    def accelerators_of(self, vendor: str) -> tuple[AcceleratorView, ...]:
        """The GPUs of ``vendor`` (``amd``, ``intel``, ``apple``), in index order."""
        return tuple(gpu for gpu in self.accelerators if gpu.vendor == vendor)

    def runtime(self, name: str) -> RuntimeView | None:
        """The runtime called ``name`` (``rocm``), if found."""
        return next((r for r in self.runtimes if r.name == name), None)


def machine_view(report: SystemReport, compat: CompatData) -> MachineView:
    """The facts of ``report`` the recommender uses, completed from the tables."""
    family = report.os.family if report.os.family in ("linux", "windows", "darwin") else "linux"
    driver_os = "windows" if family == "windows" or report.os.wsl else "linux"
    driver = report.driver.version if report.driver else None
    cuda_max = report.driver.cuda_max if report.driver else None
    cuda_max_source = "nvml" if cuda_max else None
    if driver and not cuda_max:
        # A report may carry only the driver version (typed, or from another tool).
        cuda_max = compat.cuda_max_for_driver(driver, driver_os)
        cuda_max_source = "driver tables" if cuda_max else None
    gpus = []
    # A fleet's report lists thousands of GPUs of a few models: each name is looked up in the
    # name tables once (a lookup scans every card of the tables).
    by_name: dict[str, str | None] = {}
    for gpu in report.gpus:
        if gpu.vendor != "nvidia" or gpu.status == "lost":
            continue
        capability = gpu.compute_capability
        if not capability and gpu.name:
            if gpu.name not in by_name:
                by_name[gpu.name] = compat.compute_capability_for_name(gpu.name)
            capability = by_name[gpu.name]
        gpus.append(GpuView(gpu.index, display_name(gpu), capability or None))
    pythons: list[str] = []
    candidates = [report.python] if report.python else []
    candidates += list(report.interpreters)
    for python in candidates:
        if python is None or python.ms_store or python.bits == 32:
            continue  # never build on these (MS_STORE_PYTHON, PYTHON_32BIT)
        minor = minor_of(python.version)
        if minor not in pythons:
            pythons.append(minor)
    managers = report.managers
    accelerators = _accelerators(report, compat)
    return MachineView(
        family=family,
        platform="linux" if report.os.wsl else family,
        driver_os=driver_os,
        wsl=report.os.wsl,
        driver=driver,
        cuda_max=cuda_max,
        cuda_max_source=cuda_max_source,
        gpus=tuple(gpus),
        other_gpus=tuple(display_name(g) for g in report.gpus if g.vendor != "nvidia"),
        accelerators=accelerators,
        runtimes=tuple(RuntimeView(r.name, r.version, r.usable, r.detail) for r in report.gpu_runtimes),
        arch=report.os.arch,
        macos_version=report.os.macos_version,
        wsl_host=report.wsl if family == "windows" else None,
        pythons=tuple(pythons),
        toolkits=report.cuda_toolkits,
        cudnn=report.cudnn,
        has_conda=found_conda_tool(managers) is not None,
        conda_engine=conda_engine(managers),
    )


def _accelerators(report: SystemReport, compat: CompatData) -> tuple[AcceleratorView, ...]:
    """The AMD, Intel and Apple GPUs of the report, their targets completed from the tables."""
    tables = compat.accelerators
    found: list[AcceleratorView] = []
    for gpu in report.gpus:
        if gpu.vendor not in ("amd", "intel", "apple") or gpu.status == "lost":
            continue
        target, source, integrated, xpu = None, None, gpu.integrated, False
        if gpu.vendor == "amd":
            target, source = gpu.gfx_target, gpu.gfx_target_source
            row = tables.amd_target(gpu.name, gpu.pci_id)
            if target is None and row is not None:
                target, source = row.gfx_target, "tables"
            if integrated is None and row is not None:
                integrated = row.integrated
        elif gpu.vendor == "intel":
            family = tables.intel_family(gpu.name, gpu.pci_id)
            if family is not None:
                target, source, xpu = family.family, "tables", family.xpu
                integrated = family.integrated if integrated is None else integrated
        else:
            target, source, integrated = gpu.name, "report", True
        found.append(
            AcceleratorView(
                index=gpu.index,
                name=display_name(gpu),
                vendor=gpu.vendor,
                target=target,
                target_source=source,
                integrated=integrated,
                driver_version=gpu.driver_version,
                xpu=xpu,
            )
        )
    return tuple(found)


def gpus_where(machine: MachineView, test: Callable[[str], bool], *, unknown: bool) -> tuple[int, ...]:
    """The indices of the machine's GPUs whose compute capability passes ``test``, in order.

    ``test`` is asked once per distinct compute capability, not once per GPU: a fleet's report
    (a DGX SuperPOD export) lists thousands of GPUs of a few kinds, and every build of the
    tables is checked against each of them, so the work stays linear in the number of GPUs.

    Args:
        machine: The machine.
        test: Whether a GPU of this compute capability counts (pure: same answer each time).
        unknown: Whether a GPU whose compute capability is unknown counts.
    """
    verdicts: dict[str, bool] = {}
    chosen: list[int] = []
    for gpu in machine.gpus:
        capability = gpu.capability
        if capability is None:
            counts = unknown
        else:
            verdict = verdicts.get(capability)
            if verdict is None:
                verdict = verdicts[capability] = test(capability)
            counts = verdict
        if counts:
            chosen.append(gpu.index)
    return tuple(chosen)


def toolkits_in_path_order(toolkits: Sequence[CudaToolkitFacts]) -> list[CudaToolkitFacts]:
    """The CUDA toolkits, the one PATH reaches first first, then the others by version."""
    return sorted(
        toolkits, key=lambda k: (k.path_rank is None, k.path_rank or 0, version_key(k.version or "0"))
    )
