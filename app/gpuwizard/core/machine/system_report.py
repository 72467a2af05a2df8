"""The system report (schema ``gpuwizard.system/1``): what ``detect`` found, as frozen data.

The JSON shape is a contract (docs/architecture.md, "The command-line and JSON contract"): the
names there are kept, fields are only ever added. Every fact is named by its source:
``driver.cuda_max`` is the highest CUDA the *driver* supports (NVML
``nvmlSystemGetCudaDriverVersion``), which is not a CUDA toolkit on disk (``cuda_toolkits``)
and not the CUDA a framework build carries.

GPU UUIDs are kept for the wizard's own use (matching GPUs across runs) and never written
into a report.

>>> report = SystemReport(os=OsFacts("linux", False, "6.1.0", "x86_64"))
>>> data = report_to_json(report)
>>> data["schema"], data["gpus"], data["driver"]
('gpuwizard.system/1', [], None)
>>> report_from_json(data) == report
True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, Final, TypeVar

from gpuwizard.core.events import json_field, value_from_json, value_to_json
from gpuwizard.core.events.codec import json_metadata
from gpuwizard.core.findings.model import Finding
from gpuwizard.core.findings.no_gpu import as_today

SYSTEM_SCHEMA: Final = "gpuwizard.system/1"
#: The GPU vendors with framework builds (CUDA, ROCm, XPU, MPS).
COMPUTE_VENDORS: Final = frozenset({"nvidia", "amd", "intel", "apple"})

_T = TypeVar("_T")


def _or(default: str) -> Callable[[object], str]:
    """A reader of a name an older report may leave out: ``default`` then."""
    return lambda raw: default if raw is None else str(raw)


def _part(cls: type[_T]) -> Callable[[object], _T | None]:
    """A reader of an optional part: None when the report has none (null, or an empty object)."""
    return lambda raw: value_from_json(cls, raw) if isinstance(raw, Mapping) and raw else None


@dataclass(frozen=True)
class OsFacts:
    """The operating system.

    Attributes:
        family: ``windows``, ``linux`` or ``darwin``.
        wsl: True inside Windows Subsystem for Linux (either version).
        release: The OS release (``10.0.22631`` on Windows, the kernel release elsewhere).
        arch: The machine architecture, normalised (``x86_64``, ``arm64``).
        wsl_version: 1 or 2 inside WSL, else None.
        container: True when the process runs inside a container (Docker, Podman).
        distribution: A readable OS name (``Debian GNU/Linux 12 (bookworm)``) when known.
        macos_version: On macOS, its version (``14.5``, ``platform.mac_ver()``); ``release``
            there is the Darwin kernel's.
    """

    family: str = field(metadata=json_metadata(read=_or("unknown")))
    wsl: bool
    release: str
    arch: str
    wsl_version: int | None = None
    container: bool = False
    distribution: str | None = None
    macos_version: str | None = None


@dataclass(frozen=True)
class PythonFacts:
    """One Python interpreter.

    Attributes:
        version: ``major.minor.micro``.
        executable: Its path.
        bits: 64 or 32 (pointer size), None when unknown.
        ms_store: True for the Microsoft Store build.
        source: Where it was found: ``self`` (the wizard's own), ``path``, ``py-launcher``.
    """

    version: str
    executable: str
    bits: int | None = 64
    ms_store: bool = False
    source: str = "self"


@dataclass(frozen=True)
class DriverFacts:
    """The NVIDIA driver.

    Attributes:
        version: The driver version (``546.33``, ``535.104.05``).
        cuda_max: The highest CUDA version the driver supports (``12.3``); None when the
            driver predates that query. This can differ from any CUDA toolkit installed.
        source: ``nvml``, ``nvidia-smi`` or ``windows-registry``.
    """

    version: str
    cuda_max: str | None
    source: str = field(metadata=json_metadata(read=_or("unknown")))


@dataclass(frozen=True)
class GpuFacts:
    """One GPU.

    Attributes:
        index: The driver's index (NVML order), or the enumeration order when no driver answers.
        vendor: ``nvidia``, ``amd``, ``intel`` or another lower-case name.
        name: The marketing name (``NVIDIA GeForce RTX 3060``), None when unknown.
        compute_capability: ``major.minor`` (``8.6``) for NVIDIA GPUs, else None.
        memory_total_mib: Total memory in MiB (1024 * 1024 bytes).
        pci_bus_id: The PCI address as the driver reports it (``00000000:01:00.0``).
        status: ``ok``, or why the GPU cannot be used (``lost``, ``no-driver``).
        uuid: The GPU UUID, for the wizard's own use; never written to a report.
        pci_id: ``vendor:device`` PCI ids in lower-case hex (``1002:744c``).
        gfx_target: An AMD GPU's LLVM target (``gfx1100``), the code a ROCm build must carry.
        gfx_target_source: Where it came from: ``kfd``, ``rocminfo``, ``amd-smi`` or ``tables``.
        driver_version: A non-NVIDIA GPU's driver as its vendor numbers it (AMD Adrenalin
            ``25.10.1``, Intel ``32.0.101.6256``, the amdgpu module's version).
        driver_version_source: Where that came from (``windows-registry``, ``sysfs``, ...).
        kernel_driver: The Linux driver bound to it (``amdgpu``, ``i915``, ``xe``, ``nvidia``).
        integrated: An integrated GPU (APU, iGPU, Apple silicon); None when unknown.
    """

    index: int
    vendor: str = field(metadata=json_metadata(read=_or("nvidia")))  # older reports listed NVIDIA GPUs only
    name: str | None
    compute_capability: str | None = None
    memory_total_mib: int | None = None
    pci_bus_id: str | None = None
    status: str = "ok"
    uuid: str | None = field(default=None, compare=False, repr=False, metadata=json_metadata(skip=True))
    pci_id: str | None = None
    gfx_target: str | None = None
    gfx_target_source: str | None = None
    driver_version: str | None = None
    driver_version_source: str | None = None
    kernel_driver: str | None = None
    integrated: bool | None = None

    @property
    def architecture(self) -> str | None:
        """What a framework build must carry code for: the compute capability, or the gfx target.

        >>> GpuFacts(0, "amd", None, gfx_target="gfx1100").architecture
        'gfx1100'
        """
        return self.compute_capability or self.gfx_target


@dataclass(frozen=True)
class RuntimeFacts:
    """A GPU runtime other than NVIDIA's driver: ROCm, Intel's Level Zero.

    Attributes:
        name: ``rocm``, ``level-zero``.
        version: Its version, when a source tells it.
        location: Where it is installed (``/opt/rocm``).
        source: Where the version came from (``/opt/rocm/.info/version``, ``rocminfo``).
        usable: Whether this user can reach the GPU through it (ROCm: ``/dev/kfd`` opens);
            None when not checked.
        detail: Why not, when not usable (``the user is not in the render group``).
    """

    name: str
    version: str | None
    location: str | None
    source: str
    usable: bool | None = None
    detail: str | None = None


@dataclass(frozen=True)
class CudaToolkitFacts:
    """A CUDA toolkit found on disk.

    Attributes:
        version: ``major.minor[.patch]`` of the toolkit, None when no source tells it.
        root: The toolkit folder (the one holding ``bin`` and ``include``).
        on_path: True when PATH holds one of its folders.
        path_rank: 0 for the toolkit PATH reaches first, 1 for the next; None when not on PATH.
        version_source: Where the version came from (``version.json``, ``nvcc``, ...).
        found_by: How the folder was found (``CUDA_PATH``, ``default folder``, ``PATH``...).
    """

    version: str | None
    root: str
    on_path: bool
    path_rank: int | None = None
    version_source: str | None = None
    found_by: tuple[str, ...] = ()


@dataclass(frozen=True)
class CudnnFacts:
    """A cuDNN installation found on disk.

    Attributes:
        version: ``major.minor.patch`` from the header, or as much as a file name tells.
        location: The folder that holds the library (the folder PATH would need).
        on_path: True when the library folder is on the loader's search path (PATH on
            Windows; LD_LIBRARY_PATH or a system library folder on Linux).
        version_source: ``cudnn_version.h``, ``cudnn.h``, ``library name``.
        header: The header the version was read from, if any.
    """

    version: str | None
    location: str
    on_path: bool
    version_source: str | None = None
    header: str | None = None


@dataclass(frozen=True)
class ManagerFacts:
    """Environment managers found: the path of each executable, or None."""

    uv: str | None = None
    conda: str | None = None
    mamba: str | None = None
    micromamba: str | None = None

    def found(self) -> list[tuple[str, str]]:
        """``(name, path)`` of each manager found, in a fixed order.

        >>> ManagerFacts(conda="/opt/conda/bin/conda").found()
        [('conda', '/opt/conda/bin/conda')]
        """
        named = (
            ("uv", self.uv),
            ("conda", self.conda),
            ("mamba", self.mamba),
            ("micromamba", self.micromamba),
        )
        return [(name, path) for name, path in named if path]


@dataclass(frozen=True)
class WslDistroFacts:
    """One Linux distribution registered with WSL, as Windows lists it (``wsl.exe -l -v``).

    The facts from inside the distribution are None until they are asked for (``detect --wsl``,
    or before an environment is made there): reading them starts the distribution's VM.

    Attributes:
        name: The distribution's name (``Ubuntu-24.04``), as ``wsl.exe -d`` takes it.
        version: The WSL version it runs under: 1 or 2 (None when the listing gave none).
        default: Whether it is the default distribution (``*`` in the listing).
        state: ``running``, ``stopped``, ``installing``, ``converting`` or ``uninstalling``
            (the listing's words, in whatever language Windows prints them, normalised).
        libcuda: Inside: whether ``/usr/lib/wsl/lib`` holds ``libcuda.so*`` (the Windows
            driver's CUDA library, which WSL 2 mounts there).
        nvidia_smi: Inside: whether ``/usr/lib/wsl/lib/nvidia-smi`` is there.
        linux_driver: Inside: the path of a Linux NVIDIA driver library installed in the
            distribution, which shadows the Windows driver's (None when there is none).
        python: Inside: the version of the distribution's ``python3`` (``3.12.3``).
        externally_managed: Inside: whether that Python is marked externally managed (PEP 668),
            so that ``pip install`` outside a virtual environment is refused.
        os_name: Inside: the distribution's ``PRETTY_NAME`` (``Ubuntu 24.04.1 LTS``).
        home_free_mib: Inside: free space in the home folder, MiB.
        memory_total_mib: Inside: the memory the WSL VM has, MiB (``.wslconfig`` limits it).
    """

    name: str
    version: int | None = None
    default: bool = False
    state: str | None = None
    libcuda: bool | None = None
    nvidia_smi: bool | None = None
    linux_driver: str | None = None
    python: str | None = None
    externally_managed: bool | None = None
    os_name: str | None = None
    home_free_mib: int | None = None
    memory_total_mib: int | None = None


@dataclass(frozen=True)
class WslFacts:
    """Windows Subsystem for Linux, seen from Windows (``wsl.exe``); None in a report made elsewhere.

    Attributes:
        installed: Whether WSL is installed and can run a distribution.
        gpu_compute: Whether this Windows build and NVIDIA driver give CUDA to WSL 2 (None when
            it cannot be told: no NVIDIA GPU, or the build unknown).
        distros: The registered distributions, in the listing's order.
        default_version: The WSL version new distributions get (``wsl --status``).
        wsl_version: The version of WSL itself when it is the Store package (``wsl --version``:
            ``2.3.26.0``); None for the WSL built into older Windows.
        kernel_version: The WSL 2 kernel's version (``wsl --version``).
        windows_build: The Windows build number the decision on ``gpu_compute`` used.
        needs_restart: Whether ``wsl.exe`` said that an installation waits for a restart.
        virtualization: False when ``wsl.exe`` said virtualization (or the Virtual Machine
            Platform) is off, so that WSL 2 cannot start; None when not known.
        detail: What ``wsl.exe`` said when it could not answer, first line only.
    """

    installed: bool
    gpu_compute: bool | None = None
    distros: tuple[WslDistroFacts, ...] = ()
    default_version: int | None = None
    wsl_version: str | None = None
    kernel_version: str | None = None
    windows_build: int | None = None
    needs_restart: bool = False
    virtualization: bool | None = None
    detail: str | None = None

    @property
    def default_distro(self) -> WslDistroFacts | None:
        """The default distribution, else the first one listed, else None."""
        return next((d for d in self.distros if d.default), self.distros[0] if self.distros else None)


def _gpus(raw: object) -> tuple[GpuFacts, ...]:
    """The GPUs of a report; one without an index (an older report) has its place in the list."""
    listed = raw if isinstance(raw, list) else []
    return tuple(
        value_from_json(GpuFacts, {"index": place, **gpu})
        for place, gpu in enumerate(listed)
        if isinstance(gpu, Mapping)
    )


@dataclass(frozen=True)
class SystemReport:
    """Everything ``detect`` found about one machine.

    ``python`` is the interpreter the wizard would build on (its own, or when the wizard is a
    frozen executable, the first one found); ``interpreters`` lists every one found.
    """

    os: OsFacts = field(metadata=json_metadata(read=partial(value_from_json, OsFacts)))  # none: all unknown
    python: PythonFacts | None = json_field(default=None, read=_part(PythonFacts))
    driver: DriverFacts | None = json_field(default=None, read=_part(DriverFacts))
    gpus: tuple[GpuFacts, ...] = json_field(default=(), read=_gpus)
    cuda_toolkits: tuple[CudaToolkitFacts, ...] = ()
    cudnn: tuple[CudnnFacts, ...] = ()
    managers: ManagerFacts = field(default_factory=ManagerFacts)
    findings: tuple[Finding, ...] = ()
    interpreters: tuple[PythonFacts, ...] = ()
    long_paths_enabled: bool | None = None
    wizard_version: str | None = None
    detection_seconds: float | None = field(default=None, compare=False)
    gpu_runtimes: tuple[RuntimeFacts, ...] = ()
    wsl: WslFacts | None = json_field(default=None, read=_part(WslFacts))

    @property
    def nvidia_gpus(self) -> tuple[GpuFacts, ...]:
        """The NVIDIA GPUs, in index order."""
        return tuple(gpu for gpu in self.gpus if gpu.vendor == "nvidia")

    @property
    def compute_gpus(self) -> tuple[GpuFacts, ...]:
        """The GPUs of vendors whose GPUs frameworks train on (NVIDIA, AMD, Intel, Apple), in index order.

        Not the virtual or server-management adapters (ASPEED, VMware, QEMU).
        """
        return tuple(gpu for gpu in self.gpus if gpu.vendor in COMPUTE_VENDORS)


# --- JSON ----------------------------------------------------------------------------------


def report_to_json(report: SystemReport) -> dict[str, Any]:
    """Return the report as ``gpuwizard.system/1`` JSON data (UUIDs left out): its fields, in order."""
    return {"schema": SYSTEM_SCHEMA, **value_to_json(report)}


def report_from_json(data: Mapping[str, Any]) -> SystemReport:
    """Build a report from JSON data already checked against the ``gpuwizard.system/1`` schema.

    Unknown fields are ignored; a missing (or malformed) field means "unknown" (docs/architecture.md,
    "The command-line and JSON contract"). A finding whose severity a rule changed since the
    file was written says today's (no NVIDIA GPU: :func:`gpuwizard.core.findings.no_gpu.as_today`).
    """
    report = value_from_json(SystemReport, data)
    findings = tuple(as_today(finding) for finding in report.findings)
    return report if findings == report.findings else replace(report, findings=findings)


#: How vendors are written in sentences.
_VENDOR_NAMES: Final = {"nvidia": "NVIDIA", "amd": "AMD", "intel": "Intel", "apple": "Apple"}


def display_name(gpu: GpuFacts) -> str:
    """A readable name even when the OS gave none.

    >>> display_name(GpuFacts(2, "nvidia", None)), display_name(GpuFacts(0, "intel", None, pci_bus_id="0000:00:02.0"))
    ('NVIDIA GPU 2', 'Intel GPU at PCI 0000:00:02.0')
    """
    if gpu.name:
        return gpu.name
    vendor = _VENDOR_NAMES.get(gpu.vendor, gpu.vendor)
    return f"{vendor} GPU at PCI {gpu.pci_bus_id}" if gpu.pci_bus_id else f"{vendor} GPU {gpu.index}"


def names_of(gpus: Sequence[GpuFacts]) -> list[str]:
    """Readable names of ``gpus`` for messages."""
    return [display_name(gpu) for gpu in gpus]


def gpu_list(gpus: Sequence[GpuFacts]) -> str:
    """GPUs for a sentence, identical ones counted: ``4 × NVIDIA A100, NVIDIA T4``.

    >>> gpu_list([GpuFacts(0, "nvidia", "NVIDIA A100"), GpuFacts(1, "nvidia", "NVIDIA A100")])
    '2 × NVIDIA A100'
    """
    counts: dict[str, int] = {}
    for name in names_of(gpus):
        counts[name] = counts.get(name, 0) + 1
    return ", ".join(name if count == 1 else f"{count} × {name}" for name, count in counts.items())
