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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from gpuwizard.core.findings.model import Finding, finding_to_json

SYSTEM_SCHEMA: Final = "gpuwizard.system/1"


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
    """

    family: str
    wsl: bool
    release: str
    arch: str
    wsl_version: int | None = None
    container: bool = False
    distribution: str | None = None


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
    source: str


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
    """

    index: int
    vendor: str
    name: str | None
    compute_capability: str | None = None
    memory_total_mib: int | None = None
    pci_bus_id: str | None = None
    status: str = "ok"
    uuid: str | None = field(default=None, compare=False, repr=False)


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
class SystemReport:
    """Everything ``detect`` found about one machine.

    ``python`` is the interpreter the wizard would build on (its own, or when the wizard is a
    frozen executable, the first one found); ``interpreters`` lists every one found.
    """

    os: OsFacts
    python: PythonFacts | None = None
    driver: DriverFacts | None = None
    gpus: tuple[GpuFacts, ...] = ()
    cuda_toolkits: tuple[CudaToolkitFacts, ...] = ()
    cudnn: tuple[CudnnFacts, ...] = ()
    managers: ManagerFacts = field(default_factory=ManagerFacts)
    findings: tuple[Finding, ...] = ()
    interpreters: tuple[PythonFacts, ...] = ()
    long_paths_enabled: bool | None = None
    wizard_version: str | None = None
    detection_seconds: float | None = field(default=None, compare=False)

    @property
    def nvidia_gpus(self) -> tuple[GpuFacts, ...]:
        """The NVIDIA GPUs, in index order."""
        return tuple(gpu for gpu in self.gpus if gpu.vendor == "nvidia")


# --- JSON ----------------------------------------------------------------------------------


def report_to_json(report: SystemReport) -> dict[str, Any]:
    """Return the report as ``gpuwizard.system/1`` JSON data (UUIDs left out)."""
    return {
        "schema": SYSTEM_SCHEMA,
        "os": {
            "family": report.os.family,
            "wsl": report.os.wsl,
            "release": report.os.release,
            "arch": report.os.arch,
            "wsl_version": report.os.wsl_version,
            "container": report.os.container,
            "distribution": report.os.distribution,
        },
        "python": _python_to_json(report.python) if report.python else None,
        "driver": (
            {
                "version": report.driver.version,
                "cuda_max": report.driver.cuda_max,
                "source": report.driver.source,
            }
            if report.driver
            else None
        ),
        "gpus": [
            {
                "index": gpu.index,
                "vendor": gpu.vendor,
                "name": gpu.name,
                "compute_capability": gpu.compute_capability,
                "memory_total_mib": gpu.memory_total_mib,
                "pci_bus_id": gpu.pci_bus_id,
                "status": gpu.status,
            }
            for gpu in report.gpus
        ],
        "cuda_toolkits": [
            {
                "version": kit.version,
                "root": kit.root,
                "on_path": kit.on_path,
                "path_rank": kit.path_rank,
                "version_source": kit.version_source,
                "found_by": list(kit.found_by),
            }
            for kit in report.cuda_toolkits
        ],
        "cudnn": [
            {
                "version": dnn.version,
                "location": dnn.location,
                "on_path": dnn.on_path,
                "version_source": dnn.version_source,
                "header": dnn.header,
            }
            for dnn in report.cudnn
        ],
        "managers": {
            "uv": report.managers.uv,
            "conda": report.managers.conda,
            "mamba": report.managers.mamba,
            "micromamba": report.managers.micromamba,
        },
        "findings": [finding_to_json(f) for f in report.findings],
        "interpreters": [_python_to_json(p) for p in report.interpreters],
        "long_paths_enabled": report.long_paths_enabled,
        "wizard_version": report.wizard_version,
        "detection_seconds": report.detection_seconds,
    }


def report_from_json(data: Mapping[str, Any]) -> SystemReport:
    """Build a report from JSON data already checked against the ``gpuwizard.system/1`` schema.

    Unknown fields are ignored; a missing optional field means "unknown" (docs/architecture.md,
    "The command-line and JSON contract").
    """
    os_data = data.get("os") or {}
    driver = data.get("driver")
    managers = data.get("managers") or {}
    return SystemReport(
        os=OsFacts(
            family=os_data.get("family", "unknown"),
            wsl=bool(os_data.get("wsl", False)),
            release=os_data.get("release", ""),
            arch=os_data.get("arch", ""),
            wsl_version=os_data.get("wsl_version"),
            container=bool(os_data.get("container", False)),
            distribution=os_data.get("distribution"),
        ),
        python=_python_from_json(data["python"]) if data.get("python") else None,
        driver=(
            DriverFacts(
                version=driver["version"],
                cuda_max=driver.get("cuda_max"),
                source=driver.get("source", "unknown"),
            )
            if driver
            else None
        ),
        gpus=tuple(
            GpuFacts(
                index=gpu.get("index", position),
                vendor=gpu.get("vendor", "nvidia"),
                name=gpu.get("name"),
                compute_capability=gpu.get("compute_capability"),
                memory_total_mib=gpu.get("memory_total_mib"),
                pci_bus_id=gpu.get("pci_bus_id"),
                status=gpu.get("status", "ok"),
            )
            for position, gpu in enumerate(data.get("gpus") or [])
        ),
        cuda_toolkits=tuple(
            CudaToolkitFacts(
                version=kit.get("version"),
                root=kit["root"],
                on_path=bool(kit.get("on_path", False)),
                path_rank=kit.get("path_rank"),
                version_source=kit.get("version_source"),
                found_by=tuple(kit.get("found_by") or ()),
            )
            for kit in data.get("cuda_toolkits") or []
        ),
        cudnn=tuple(
            CudnnFacts(
                version=dnn.get("version"),
                location=dnn["location"],
                on_path=bool(dnn.get("on_path", False)),
                version_source=dnn.get("version_source"),
                header=dnn.get("header"),
            )
            for dnn in data.get("cudnn") or []
        ),
        managers=ManagerFacts(
            uv=managers.get("uv"),
            conda=managers.get("conda"),
            mamba=managers.get("mamba"),
            micromamba=managers.get("micromamba"),
        ),
        findings=tuple(
            Finding(
                code=f["code"],
                severity=f.get("severity", "info"),
                message=f.get("message", ""),
                hint=f.get("hint", ""),
                params=dict(f.get("params") or {}),
            )
            for f in data.get("findings") or []
        ),
        interpreters=tuple(_python_from_json(p) for p in data.get("interpreters") or []),
        long_paths_enabled=data.get("long_paths_enabled"),
        wizard_version=data.get("wizard_version"),
        detection_seconds=data.get("detection_seconds"),
    )


def _python_to_json(python: PythonFacts) -> dict[str, Any]:
    return {
        "version": python.version,
        "executable": python.executable,
        "bits": python.bits,
        "ms_store": python.ms_store,
        "source": python.source,
    }


def _python_from_json(data: Mapping[str, Any]) -> PythonFacts:
    return PythonFacts(
        version=data["version"],
        executable=data.get("executable", ""),
        bits=data.get("bits"),
        ms_store=bool(data.get("ms_store", False)),
        source=data.get("source", "self"),
    )


#: How vendors are written in sentences.
_VENDOR_NAMES: Final = {"nvidia": "NVIDIA", "amd": "AMD", "intel": "Intel"}


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
