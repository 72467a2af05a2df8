"""Detection: ask every source about this machine and assemble one :class:`SystemReport`.

Each source fails on its own. NVML failing is evidence (it tells "no driver" apart from "no
GPU"), not an error; a missing folder, an interpreter that does not answer or a registry key
that cannot be read leaves its part of the report empty. The sources are passed in
(:class:`DetectionSources`), so tests run the same code over fakes built from recorded
outputs and over temporary folder trees shaped like real installs.

GPUs of other vendors come from the OS's device list (sysfs on Linux, the display class keys
on Windows), joined on Linux with the AMD driver's compute topology (KFD), ``rocminfo`` and
``amd-smi`` (``core/machine/gpu_list.py``); an Apple silicon Mac's GPU is its chip
(``sysctl machdep.cpu.brand_string``). ROCm and Level Zero are reported as runtimes, with
whether this user can open their device files.

On Windows the report says what ``wsl.exe`` lists of WSL (``adapters/wsl.py``): the
distributions, their state and WSL's versions, and whether this build and driver give CUDA to
WSL 2. Detection never starts a distribution (that starts its VM): the facts from inside one are
read when asked for (:meth:`~gpuwizard.adapters.wsl.WslSource.distro_facts`).
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Final, Generic, TypeVar

from gpuwizard import __version__
from gpuwizard.adapters.cuda_files import LINUX_SYSTEM_LIBRARY_DIRS, CudaFiles, FoundToolkit
from gpuwizard.adapters.device_access import DeviceAccess, check_device
from gpuwizard.adapters.executables import find_nvidia_smi
from gpuwizard.adapters.host import HostReading, os_facts, read_host
from gpuwizard.adapters.interpreters import find_interpreters, own_python
from gpuwizard.adapters.kfd import read_amdgpu_module_version, read_kfd_nodes
from gpuwizard.adapters.level_zero import LevelZeroFiles, find_level_zero
from gpuwizard.adapters.macos import read_cpu_brand, read_macos_version
from gpuwizard.adapters.managers import find_managers
from gpuwizard.adapters.nvml import NvmlReading, NvmlSource, NvmlUnavailable, PynvmlSource
from gpuwizard.adapters.pci import SYSFS_PCI_DEVICES, scan_display_devices
from gpuwizard.adapters.rocm_tools import DEFAULT_ROCM_ROOTS, ROCM_TOOLS_DEADLINE_S, RocmReading, read_rocm
from gpuwizard.adapters.runner import Runner, SubprocessRunner
from gpuwizard.adapters.wsl import WslProbeFailed, WslSource, find_wsl_exe
from gpuwizard.core.findings.model import sort_findings
from gpuwizard.core.machine.cuda_on_path import toolkit_path_ranks
from gpuwizard.core.machine.display_devices import (
    WINDOWS_DISPLAY_CLASS_KEY,
    DisplayDevice,
    display_device_from_windows,
    same_pci_address,
)
from gpuwizard.core.machine.gpu_list import AmdFacts, apple_gpu, device_gpu, kfd_only_gpus
from gpuwizard.core.machine.rules import (
    NVML_STEP_FAILED,
    WSL_WINDOWS_CODES,
    DetectionEvidence,
    detection_findings,
    wsl_findings,
)
from gpuwizard.core.machine.system_report import (
    CudaToolkitFacts,
    CudnnFacts,
    DriverFacts,
    GpuFacts,
    ManagerFacts,
    OsFacts,
    PythonFacts,
    RuntimeFacts,
    SystemReport,
    WslFacts,
)
from gpuwizard.core.machine.version_sources import cuda_version_from_nvml
from gpuwizard.core.machine.wsl_listing import gpu_compute, windows_build
from gpuwizard.core.pathedit.pathlist import comparison_key, split_path_value

if TYPE_CHECKING:
    from gpuwizard.adapters.registry import RegistryReader

_T = TypeVar("_T")

LONG_PATHS_KEY: Final = r"HKLM\SYSTEM\CurrentControlSet\Control\FileSystem"
#: WSL 2 passes the Windows driver's Linux libraries through here (NVIDIA CUDA on WSL guide).
WSL_DRIVER_DIR: Final = Path("/usr/lib/wsl/lib")
#: Where a Linux NVIDIA driver puts NVML; inside WSL it should not be there (NVIDIA's WSL
#: guide: "do not install any Linux display driver in WSL").
LINUX_NVML_LIBRARIES: Final = (
    Path("/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1"),
    Path("/usr/lib64/libnvidia-ml.so.1"),
    Path("/usr/lib/aarch64-linux-gnu/libnvidia-ml.so.1"),
)
_MIB: Final = 1024 * 1024
#: NVML can hang on a GPU in a bad state, and a PATH entry on an unreachable network share can
#: stall a folder scan; past this, that part of the report is given up and said so.
DETECTION_STEP_TIMEOUT_S: Final = 30.0
SYSFS: Final = Path("/sys")
DEV: Final = Path("/dev")
#: ROCm's compute device: the HSA runtime opens it read-write (``/dev/kfd``, below ``dev_dir``).
KFD_DEVICE: Final = "kfd"


@dataclass
class DetectionSources:
    """Everything detection reads, so that tests can hand in fakes and folder trees.

    Attributes:
        nvml: The primary GPU source (NVML through nvidia-ml-py).
        fallback: Builds the nvidia-smi fallback for the OS family, or None when absent.
        runner: Runs nvcc, interpreters and the py launcher.
        host: Reads the OS facts.
        env: Environment variables (PATH, CUDA_PATH, ProgramFiles...).
        home: The user's home folder.
        registry: The Windows registry, or None on other OSes.
        pci_devices: Lists display devices on Linux.
        own_python: The interpreter running the wizard.
        cuda_files: Builds the CUDA/cuDNN scanner for an OS family.
        wsl_driver_dir: Where WSL 2 passes the Windows driver through.
        linux_nvml_libraries: Where a Linux driver's NVML would be (checked inside WSL).
        loader_dirs: Linux folders the dynamic loader searches without LD_LIBRARY_PATH.
        scripts_dir: The wizard's own environment's scripts folder (a bundled uv lives there).
        step_timeout_s: How long a background step may take before its part is given up.
        sysfs: The sysfs root (``/sys``) for the KFD topology and the amdgpu module's
            version; None reads neither.
        dev_dir: Where the device files are (``/dev``); None checks no GPU runtime's access.
        device_access: Opens a device file read-write and says whether it could.
        rocm_roots: Where ROCm may be installed besides ``$ROCM_PATH`` (``/opt/rocm``).
        rocm_deadline_s: How long rocminfo and amd-smi may take together.
        macos_version: The macOS version (``platform.mac_ver()``), None elsewhere.
        wsl: Asks ``wsl.exe`` about WSL (read on Windows only); None reads nothing.
    """

    nvml: NvmlSource
    fallback: Callable[[str], NvmlSource | None]
    runner: Runner
    host: Callable[[], HostReading]
    env: Mapping[str, str]
    home: Path
    registry: RegistryReader | None
    pci_devices: Callable[[], list[DisplayDevice]]
    own_python: Callable[[], PythonFacts]
    cuda_files: Callable[[str], CudaFiles]
    wsl_driver_dir: Path = WSL_DRIVER_DIR
    linux_nvml_libraries: Sequence[Path] = LINUX_NVML_LIBRARIES
    loader_dirs: Sequence[Path] = field(default_factory=lambda: list(LINUX_SYSTEM_LIBRARY_DIRS))
    scripts_dir: Path = field(default_factory=lambda: Path(sys.executable).parent)
    step_timeout_s: float = DETECTION_STEP_TIMEOUT_S
    sysfs: Path | None = None
    dev_dir: Path | None = None
    device_access: Callable[[Path], DeviceAccess] = check_device
    rocm_roots: Sequence[Path] = ()
    rocm_deadline_s: float = ROCM_TOOLS_DEADLINE_S
    macos_version: Callable[[], str | None] = lambda: None
    wsl: WslSource | None = None

    @classmethod
    def for_this_machine(cls) -> DetectionSources:
        """The real sources of the machine the wizard runs on."""
        runner = SubprocessRunner()
        env = dict(os.environ)

        def fallback(family: str) -> NvmlSource | None:
            smi = find_nvidia_smi(family, env)
            if smi is None:
                return None
            # Imported only when there is an nvidia-smi to ask: most runs never need it.
            from gpuwizard.adapters.nvidia_smi import NvidiaSmiSource  # noqa: PLC0415

            return NvidiaSmiSource(runner, smi)

        return cls(
            nvml=PynvmlSource(),
            fallback=fallback,
            runner=runner,
            host=read_host,
            env=env,
            home=Path.home(),
            registry=_windows_registry(),
            pci_devices=lambda: scan_display_devices(SYSFS_PCI_DEVICES),
            own_python=own_python,
            cuda_files=lambda family: CudaFiles(family, env, runner),
            loader_dirs=list(LINUX_SYSTEM_LIBRARY_DIRS) + _ld_so_conf_dirs(),
            sysfs=SYSFS,
            dev_dir=DEV,
            rocm_roots=list(DEFAULT_ROCM_ROOTS),
            macos_version=read_macos_version,
            wsl=_windows_wsl(runner, env),
        )


def detect_system(sources: DetectionSources | None = None) -> SystemReport:
    """Detect this machine (or the one ``sources`` describe) and return the report."""
    started = time.perf_counter()
    sources = sources or DetectionSources.for_this_machine()
    steps = _Steps()
    host = sources.host()
    os_info = os_facts(host)
    if os_info.family == "darwin":
        os_info = replace(os_info, macos_version=steps.run("macOS version", sources.macos_version, None))
    windows = os_info.family == "windows"
    path_dirs = split_path_value(sources.env.get("PATH", ""), windows=windows)

    # NVML, the interpreter probes and the disk scan wait on different things; together
    # they fit the start-up budget (docs/architecture.md, "Performance budgets") only when
    # they overlap.
    nvml_job = _Background(lambda: _read_gpus(sources, os_info.family))
    python_job = _Background(
        lambda: find_interpreters(os_info.family, path_dirs, sources.runner, sources.env, sources.home)
    )
    cuda_job = _Background(lambda: _scan_cuda(sources, os_info.family, path_dirs))
    devices: list[DisplayDevice] = steps.run(
        "display devices", lambda: _display_devices(sources, os_info), []
    )
    # rocminfo and amd-smi take seconds where ROCm is installed: beside the other waits.
    extras_job = _Background(lambda: _gpu_extras(sources, os_info, devices, path_dirs))
    # wsl.exe answers in a second or so, but the first call after boot starts WSL's service.
    build = windows_build(os_info.release) if windows else None
    wsl_job = _wsl_job(sources.wsl, build) if windows else None
    managers = steps.run(
        "environment managers",
        lambda: find_managers(os_info.family, sources.env, path_dirs, sources.home, sources.scripts_dir),
        ManagerFacts(),
    )
    long_paths = steps.run("long-path setting", lambda: _long_paths(sources.registry), None)
    deadline = time.monotonic() + sources.step_timeout_s
    reading, failure, detail = steps.wait("NVIDIA driver", nvml_job, deadline, (None, NVML_STEP_FAILED, None))
    toolkits, cudnn, cuda_path_root = steps.wait("CUDA and cuDNN", cuda_job, deadline, ((), (), None))
    interpreters = steps.wait("Python interpreters", python_job, deadline, [])
    extras = steps.wait("GPU runtimes", extras_job, deadline, _GpuExtras())
    wsl: WslFacts | None = steps.wait("WSL", wsl_job, deadline, None) if wsl_job else None

    driver = None
    if reading is not None and reading.driver_version:
        cuda_max = None
        if reading.cuda_driver_version:
            cuda_max = cuda_version_from_nvml(reading.cuda_driver_version)
        driver = DriverFacts(reading.driver_version, cuda_max, reading.source)

    own = sources.own_python()
    python: PythonFacts | None = own
    if host.frozen:
        # A frozen wizard's own interpreter is not one to build environments on.
        python = interpreters[0] if interpreters else None
    own_key = comparison_key(own.executable, windows=windows)
    others = tuple(p for p in interpreters if comparison_key(p.executable, windows=windows) != own_key)

    gpus = _gpus(reading, devices, extras, windows=windows)
    if wsl is not None:
        # CUDA in WSL 2 is the Windows driver's: decided once NVML has named it.
        has_nvidia = any(gpu.vendor == "nvidia" for gpu in gpus)
        wsl = replace(wsl, gpu_compute=gpu_compute(build, driver.version if driver else None, has_nvidia))
    report = SystemReport(
        os=os_info,
        python=python,
        driver=driver,
        gpus=gpus,
        cuda_toolkits=toolkits,
        cudnn=cudnn,
        managers=managers,
        interpreters=((own,) if not host.frozen else ()) + others,
        long_paths_enabled=long_paths if windows else None,
        wizard_version=__version__,
        gpu_runtimes=_runtimes(extras),
        wsl=wsl,
    )
    evidence = DetectionEvidence(
        nvml_failure=failure,
        nvml_detail=detail,
        kernel_driver=next(
            (d.kernel_driver for d in devices if d.vendor == "nvidia" and d.kernel_driver), None
        ),
        wsl_driver_present=_wsl_driver_present(sources, os_info),
        wsl_linux_driver=_wsl_linux_driver(sources, os_info),
        gpu_problems=tuple((g.index, g.problem) for g in (reading.gpus if reading else ()) if g.problem),
        cuda_path_root=cuda_path_root,
        failed_steps=tuple(steps.failed),
    )
    return replace(
        report,
        findings=tuple(detection_findings(report, evidence)),
        detection_seconds=round(time.perf_counter() - started, 4),
    )


class _Steps:
    """Runs detection steps so that one that raises leaves its part empty and is reported."""

    def __init__(self) -> None:
        self.failed: list[tuple[str, str]] = []

    def run(self, step: str, func: Callable[[], _T], default: _T) -> _T:
        try:
            return func()
        except Exception as error:  # noqa: BLE001 - one failed source must not sink the report
            self.failed.append((step, f"{type(error).__name__}: {error}"))
            return default

    def wait(self, step: str, job: _Background[_T], deadline: float, default: _T) -> _T:
        return self.run(step, lambda: job.result(max(0.0, deadline - time.monotonic())), default)


class _Background(Generic[_T]):
    """Runs one detection step on a daemon thread.

    A daemon thread, not a thread pool: a step that hangs (NVML on a GPU in a bad state) must
    neither block the report nor keep the process alive at exit.
    """

    def __init__(self, func: Callable[[], _T]) -> None:
        self._func = func
        self._value: _T | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="gpuwizard-detect", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._value = self._func()
        except BaseException as error:  # noqa: BLE001 - handed to the waiting thread
            self._error = error

    def result(self, timeout: float) -> _T:
        """The step's value, its exception re-raised, or TimeoutError past ``timeout`` seconds."""
        self._thread.join(timeout)
        if self._thread.is_alive():
            raise TimeoutError(f"no answer within {timeout:.0f} s")
        if self._error is not None:
            raise self._error
        return self._value  # type: ignore[return-value]  # set when the thread ended without error


# --- GPUs and driver ------------------------------------------------------------------------


def _read_gpus(sources: DetectionSources, family: str) -> tuple[NvmlReading | None, str | None, str | None]:
    """NVML first, nvidia-smi second; returns the reading and, if NVML failed, why."""
    try:
        return sources.nvml.read(), None, None
    except NvmlUnavailable as error:
        failure, detail = error.failure, error.detail
    fallback = sources.fallback(family)
    if fallback is not None:
        try:
            return fallback.read(), failure, detail
        except NvmlUnavailable as fallback_error:
            # nvidia-smi's own words are the better evidence when NVML's library was missing.
            if failure in ("library_not_found", "binding_missing"):
                failure, detail = fallback_error.failure, fallback_error.detail
    return None, failure, detail


def _display_devices(sources: DetectionSources, os_info: OsFacts) -> list[DisplayDevice]:
    if os_info.family == "windows":
        if sources.registry is None:
            return []
        found = []
        for sub in sources.registry.subkeys(WINDOWS_DISPLAY_CLASS_KEY):
            values = sources.registry.values(WINDOWS_DISPLAY_CLASS_KEY + "\\" + sub) or {}
            plain = {name: value.value for name, value in values.items()}
            device = display_device_from_windows(plain) if sub.isdigit() else None
            if device is not None:
                found.append(device)
        return found
    if os_info.family == "linux":
        return sources.pci_devices()
    return []


@dataclass(frozen=True)
class _GpuExtras:
    """What detection learnt of GPUs besides NVML and the device list (all empty when absent)."""

    amd: AmdFacts = field(default_factory=AmdFacts)
    rocm: RocmReading | None = None
    kfd_access: DeviceAccess | None = None
    level_zero: LevelZeroFiles | None = None
    render_access: DeviceAccess | None = None
    apple_brand: str | None = None


def _gpu_extras(
    sources: DetectionSources, os_info: OsFacts, devices: Sequence[DisplayDevice], path_dirs: Sequence[str]
) -> _GpuExtras:
    """Ask the AMD and Intel sources on Linux, the chip on macOS; only where such a GPU may be."""
    if os_info.family == "darwin":
        return _GpuExtras(apple_brand=read_cpu_brand(sources.runner))
    if os_info.family != "linux":
        return _GpuExtras()
    nodes = tuple(read_kfd_nodes(sources.sysfs)) if sources.sysfs else ()
    amd_here = any(node.is_gpu for node in nodes) or any(device.vendor == "amd" for device in devices)
    rocm = None
    if amd_here:
        rocm = read_rocm(sources.runner, sources.env, path_dirs, sources.rocm_roots, sources.rocm_deadline_s)
    amd = AmdFacts(
        kfd_nodes=nodes,
        module_version=read_amdgpu_module_version(sources.sysfs) if sources.sysfs and amd_here else None,
        rocminfo=rocm.rocminfo if rocm else None,
        amd_smi=rocm.amd_smi if rocm else (),
    )
    kfd_access = None
    if sources.dev_dir is not None and amd_here:
        kfd_access = sources.device_access(sources.dev_dir / KFD_DEVICE)
    level_zero = render_access = None
    if any(device.vendor == "intel" for device in devices):
        library_path = split_path_value(sources.env.get("LD_LIBRARY_PATH", ""), windows=False)
        level_zero = find_level_zero([Path(entry) for entry in library_path] + list(sources.loader_dirs))
        if sources.dev_dir is not None:
            render_access = _render_access(sources)
    return _GpuExtras(amd, rocm, kfd_access, level_zero, render_access)


def _render_access(sources: DetectionSources) -> DeviceAccess | None:
    """The first render node that opens, else the first one's failure; None when there is none."""
    assert sources.dev_dir is not None  # noqa: S101 - checked by the caller
    nodes = sorted((sources.dev_dir / "dri").glob("renderD*"))
    results = [sources.device_access(node) for node in nodes]
    return next((result for result in results if result.usable), results[0] if results else None)


def _runtimes(extras: _GpuExtras) -> tuple[RuntimeFacts, ...]:
    """ROCm and Level Zero as the report's runtimes: found on disk, or (ROCm) its device is there."""
    found: list[RuntimeFacts] = []
    rocm, kfd = extras.rocm, extras.kfd_access
    if (rocm is not None and rocm.found) or (kfd is not None and kfd.present):
        # Where the version came from; without one, what showed ROCm is there.
        source = (
            (rocm.version_source if rocm else None)
            or ("rocminfo" if rocm is not None and rocm.rocminfo is not None else None)
            or (str(rocm.root) if rocm is not None and rocm.root is not None else None)
            or (kfd.path if kfd else "")
        )
        found.append(
            RuntimeFacts(
                name="rocm",
                version=rocm.version if rocm else None,
                location=str(rocm.root) if rocm and rocm.root else None,
                source=source,
                usable=kfd.usable if kfd else None,
                detail=kfd.detail if kfd and not kfd.usable else None,
            )
        )
    zero, render = extras.level_zero, extras.render_access
    if zero is not None and zero.driver is not None:
        found.append(
            RuntimeFacts(
                name="level-zero",
                version=zero.driver_version,
                location=str(zero.driver.parent),
                source=zero.driver.name,
                usable=render.usable if render else None,
                detail=render.detail if render and not render.usable else None,
            )
        )
    return tuple(found)


def _gpus(
    reading: NvmlReading | None, devices: list[DisplayDevice], extras: _GpuExtras, *, windows: bool
) -> tuple[GpuFacts, ...]:
    gpus: list[GpuFacts] = []
    for gpu in reading.gpus if reading else ():
        capability = gpu.compute_capability
        gpus.append(
            GpuFacts(
                index=gpu.index,
                vendor="nvidia",
                name=gpu.name,
                compute_capability=f"{capability[0]}.{capability[1]}" if capability else None,
                memory_total_mib=gpu.memory_total_bytes // _MIB
                if gpu.memory_total_bytes is not None
                else None,
                pci_bus_id=gpu.pci_bus_id,
                status="lost" if gpu.problem else "ok",
                uuid=gpu.uuid,
            )
        )
    driver_answered = bool(gpus)
    next_index = len(gpus)
    for device in devices:
        if device.vendor == "nvidia":
            seen = next(
                (
                    place
                    for place, gpu in enumerate(gpus)
                    if device.pci_address
                    and gpu.pci_bus_id
                    and same_pci_address(device.pci_address, gpu.pci_bus_id)
                ),
                None,
            )
            if seen is not None:
                # The same GPU NVML reported: sysfs adds its PCI ids and the driver bound to it.
                gpus[seen] = replace(gpus[seen], pci_id=device.pci_id, kernel_driver=device.kernel_driver)
                continue
            if device.pci_address is None and driver_answered:
                continue  # Windows lists the same GPUs NVML already reported, without addresses.
            gpus.append(
                GpuFacts(
                    next_index,
                    device.vendor,
                    device.name,
                    pci_bus_id=device.pci_address,
                    status="no-driver",
                    pci_id=device.pci_id,
                    kernel_driver=device.kernel_driver,
                )
            )
        else:
            gpus.append(device_gpu(device, next_index, extras.amd, windows=windows))
        next_index += 1
    gpus += kfd_only_gpus(devices, extras.amd, next_index)
    apple = apple_gpu(extras.apple_brand, len(gpus))
    return tuple(gpus + ([apple] if apple else []))


def _wsl_driver_present(sources: DetectionSources, os_info: OsFacts) -> bool | None:
    if not (os_info.wsl and os_info.wsl_version == 2):
        return None
    return any(
        (sources.wsl_driver_dir / name).exists()
        for name in ("libnvidia-ml.so.1", "libcuda.so.1", "libcuda.so")
    )


def _wsl_linux_driver(sources: DetectionSources, os_info: OsFacts) -> str | None:
    if not os_info.wsl:
        return None
    return next((str(path) for path in sources.linux_nvml_libraries if path.exists()), None)


# --- CUDA and cuDNN -------------------------------------------------------------------------


def _scan_cuda(
    sources: DetectionSources, family: str, path_dirs: Sequence[str]
) -> tuple[tuple[CudaToolkitFacts, ...], tuple[CudnnFacts, ...], str | None]:
    windows = family == "windows"
    files = sources.cuda_files(family)
    found = files.toolkits(path_dirs)
    real_roots = {id(kit): os.path.realpath(kit.root) for kit in found}
    resolved_path = [os.path.realpath(entry) for entry in path_dirs]
    resolved_path = _with_nvcc_alias(files, found, real_roots, resolved_path, windows)
    ranks = toolkit_path_ranks(list(real_roots.values()), resolved_path, windows=windows)
    toolkits = tuple(
        CudaToolkitFacts(
            version=kit.version,
            root=real_roots[id(kit)],
            on_path=real_roots[id(kit)] in ranks,
            path_rank=ranks.get(real_roots[id(kit)]),
            version_source=kit.version_source,
            found_by=kit.found_by,
        )
        for kit in found
    )
    cuda_path_root = next((real_roots[id(kit)] for kit in found if "CUDA_PATH" in kit.found_by), None)

    library_path = (
        split_path_value(sources.env.get("LD_LIBRARY_PATH", ""), windows=False) if not windows else []
    )
    search_keys = (
        {comparison_key(os.path.realpath(d), windows=windows) for d in path_dirs}
        if windows
        else {
            comparison_key(os.path.realpath(d), windows=False)
            for d in [*library_path, *map(str, sources.loader_dirs)]
        }
    )
    cudnn = tuple(
        CudnnFacts(
            version=dnn.version,
            location=os.path.realpath(dnn.library_dir),
            on_path=comparison_key(os.path.realpath(dnn.library_dir), windows=windows) in search_keys,
            version_source=dnn.version_source,
            header=str(dnn.header) if dnn.header else None,
        )
        for dnn in files.cudnn([Path(real_roots[id(kit)]) for kit in found], path_dirs, library_path)
    )
    return toolkits, cudnn, cuda_path_root


def _with_nvcc_alias(
    files: CudaFiles,
    toolkits: list[FoundToolkit],
    real_roots: Mapping[int, str],
    resolved_path: list[str],
    windows: bool,
) -> list[str]:
    """Count a wrapper ``nvcc`` on PATH as the ``bin`` of the toolkit it runs.

    ``/usr/local/bin/nvcc`` may be a script that execs a toolkit's nvcc; asked its version, it
    names the toolkit. Only the first nvcc on PATH matters.
    """
    bins = {comparison_key(str(Path(root) / "bin"), windows=windows) for root in real_roots.values()}
    for position, entry in enumerate(resolved_path):
        nvcc = Path(entry) / files.nvcc_name
        if not nvcc.is_file():
            continue
        if comparison_key(entry, windows=windows) in bins:
            return resolved_path
        version = files.nvcc_version(nvcc)
        match = [kit for kit in toolkits if version and kit.version and _same_minor(kit.version, version)]
        if len(match) == 1:
            aliased = list(resolved_path)
            aliased[position] = str(Path(real_roots[id(match[0])]) / "bin")
            return aliased
        return resolved_path
    return resolved_path


def _same_minor(first: str, second: str) -> bool:
    return first.split(".")[:2] == second.split(".")[:2]


def _ld_so_conf_dirs() -> list[Path]:
    """Folders listed in /etc/ld.so.conf.d/*.conf, which the loader also searches."""
    dirs: list[Path] = []
    for conf in sorted(Path("/etc/ld.so.conf.d").glob("*.conf")):
        try:
            lines = conf.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        dirs += [Path(line.strip()) for line in lines if line.strip().startswith("/")]
    return dirs


# --- Windows settings -----------------------------------------------------------------------


def _windows_registry() -> RegistryReader | None:
    """The live registry on Windows; elsewhere none, and its adapter (with its locks) stays unloaded."""
    if os.name != "nt":
        return None
    from gpuwizard.adapters.registry import WinregReader  # noqa: PLC0415 - Windows only

    return WinregReader()


def _wsl_job(source: WslSource | None, build: int | None) -> _Background[WslFacts | None] | None:
    """Ask ``wsl.exe`` beside the other sources (its own deadline keeps it short)."""
    if source is None:
        return None
    job: _Background[WslFacts | None] = _Background(lambda: source.facts(windows_build=build))
    return job


def _windows_wsl(runner: SubprocessRunner, env: Mapping[str, str]) -> WslSource | None:
    """The ``wsl.exe`` of this Windows (a source that says so when there is none); None elsewhere."""
    if os.name != "nt":
        return None
    return WslSource(runner, find_wsl_exe(env))


def _long_paths(registry: RegistryReader | None) -> bool | None:
    """``LongPathsEnabled`` (Microsoft Learn, "Maximum Path Length Limitation"); unset means off."""
    if registry is None:
        return None
    from gpuwizard.adapters.registry import value_of  # noqa: PLC0415 - only with a registry

    value = value_of(registry, LONG_PATHS_KEY, "LongPathsEnabled")
    if value is None:
        return False if registry.values(LONG_PATHS_KEY) is not None else None
    return value.value == 1


class WslLookFailed(ValueError):
    """The facts inside a WSL distribution could not be read (one line: why; exit code 2)."""


def with_distro_facts(
    report: SystemReport, source: WslSource | None = None, *, distro: str | None = None
) -> SystemReport:
    """``report`` with the facts from inside a WSL distribution: the default one, or ``distro``.

    This starts the distribution's VM (``detect --wsl``): the driver's libraries in
    ``/usr/lib/wsl/lib``, a Linux driver that shadows the Windows one, its Python and PEP 668,
    the free space and the VM's memory (``probes/wsl_distro.py``).

    Raises:
        WslLookFailed: Not a Windows report with WSL, no such distribution, or the probe gave
            no answer.
    """
    wsl = report.wsl
    if report.os.family != "windows" or wsl is None:
        raise WslLookFailed("--wsl reads WSL from Windows: this report is not of a Windows machine with WSL")
    chosen = (
        next((d for d in wsl.distros if d.name.lower() == distro.lower()), None)
        if distro
        else wsl.default_distro
    )
    if chosen is None:
        listed = ", ".join(d.name for d in wsl.distros) or "none"
        raise WslLookFailed(f"no WSL distribution {distro or '(default)'} here (listed: {listed})")
    asked = source if source is not None else _windows_wsl(SubprocessRunner(), os.environ)
    if asked is None:
        raise WslLookFailed("wsl.exe is not there to ask")
    try:
        inside = asked.distro_facts(chosen.name, chosen)
    except (ValueError, WslProbeFailed) as error:
        raise WslLookFailed(f"{chosen.name}: {error}") from None
    distros = tuple(inside if d is chosen else d for d in wsl.distros)
    looked = replace(report, wsl=replace(wsl, distros=distros))
    # The findings of the wsl block again, now with what the distribution said of itself.
    kept = [finding for finding in report.findings if finding.code not in WSL_WINDOWS_CODES]
    return replace(looked, findings=tuple(sort_findings([*kept, *wsl_findings(looked)])))
