"""NVML through nvidia-ml-py: the only module that imports ``pynvml``.

NVML is loaded when :meth:`PynvmlSource.read` is called, never at import (gpustat's
``nvml.py`` calls ``nvmlInit()`` at import, wookayin/gpustat@7a3b9644: the anti-pattern).
Each field and each GPU fails on its own: an unsupported call leaves that one field empty with
the reason, and a lost GPU becomes an entry marked lost while the others report normally
(gpustat #125). Values are read into frozen data; no NVML handle leaves this module.

Command line equivalent: ``nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,memory.total,
compute_cap,driver_version --format=csv``.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Final, Protocol, TypeVar

_T = TypeVar("_T")

#: NVML initialisation errors, by pynvml exception class, mapped to the names the rest of
#: the wizard uses (gpuwizard.core.machine.rules).
_INIT_FAILURES: Final = {
    "NVMLError_LibraryNotFound": "library_not_found",
    "NVMLError_DriverNotLoaded": "driver_not_loaded",
    "NVMLError_LibRmVersionMismatch": "driver_library_mismatch",
    "NVMLError_NoPermission": "no_permission",
    # NVML_ERROR_OPERATING_SYSTEM: "GPU access blocked by the operating system" (cgroups, or
    # a Linux driver installed inside WSL: microsoft/WSL#9166).
    "NVMLError_OperatingSystem": "blocked_by_os",
}


class NvmlUnavailable(Exception):
    """NVML could not be initialised.

    Attributes:
        failure: ``library_not_found`` (usually no NVIDIA driver is installed),
            ``driver_not_loaded`` (the kernel module is not running),
            ``driver_library_mismatch`` (the driver was updated without a restart),
            ``no_permission``, ``blocked_by_os`` (cgroups, or a Linux driver inside WSL),
            ``binding_missing`` (nvidia-ml-py is not installed), or
            ``unknown``.
        detail: NVML's own message.
    """

    def __init__(self, failure: str, detail: str) -> None:
        super().__init__(f"{failure}: {detail}")
        self.failure = failure
        self.detail = detail


@dataclass(frozen=True)
class NvmlGpuReading:
    """What NVML said about one GPU. A field is None when NVML could not tell it.

    Attributes:
        index: NVML's device index.
        problem: Why the GPU could not be read at all (``GpuIsLost``), else None.
        unavailable: ``field -> NVML error name`` for each field NVML did not supply.
    """

    index: int
    name: str | None = None
    uuid: str | None = None
    pci_bus_id: str | None = None
    compute_capability: tuple[int, int] | None = None
    memory_total_bytes: int | None = None
    problem: str | None = None
    unavailable: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class NvmlReading:
    """One consistent read of the driver and its GPUs.

    Attributes:
        driver_version: ``nvmlSystemGetDriverVersion`` (``546.33``).
        cuda_driver_version: ``nvmlSystemGetCudaDriverVersion``: the highest CUDA version
            the driver supports, as NVML's integer (12030 for 12.3). It can differ from any
            CUDA toolkit or runtime installed.
        nvml_version: ``nvmlSystemGetNVMLVersion``.
        source: ``nvml`` here; a fallback source names itself.
    """

    driver_version: str | None
    cuda_driver_version: int | None
    nvml_version: str | None
    gpus: tuple[NvmlGpuReading, ...]
    unavailable: tuple[tuple[str, str], ...] = ()
    source: str = "nvml"


class NvmlSource(Protocol):
    """Something that reads the driver and GPUs (NVML, or a fallback with the same shape)."""

    def read(self) -> NvmlReading:
        """Read the driver and every GPU once.

        Raises:
            NvmlUnavailable: The library cannot be used at all; see its ``failure``.
        """
        ...


#: The library pynvml loads on Linux (nvidia-ml-py: ``CDLL("libnvidia-ml.so.1")``).
_LINUX_NVML_LIBRARY: Final = "libnvidia-ml.so.1"


def _import_pynvml() -> ModuleType:
    """Import nvidia-ml-py, after checking that NVML's library can be loaded at all.

    Where the driver is absent, the same load pynvml would attempt fails at once; checking it
    first spares importing pynvml (and ctypes.util), a third of ``detect``'s start-up time.

    Raises:
        NvmlUnavailable: ``library_not_found`` when the NVML library cannot be loaded.
        ImportError: nvidia-ml-py is not installed.
    """
    if sys.platform == "darwin":
        raise NvmlUnavailable("library_not_found", "NVML does not exist on macOS")
    if sys.platform.startswith("linux"):
        import ctypes  # noqa: PLC0415 - only to try the load

        try:
            ctypes.CDLL(_LINUX_NVML_LIBRARY)
        except OSError as error:
            raise NvmlUnavailable("library_not_found", str(error)) from None
    # A plain import in a function: lazy (never at import of this module), and visible to
    # the import rules (pyproject.toml, import-linter) that keep pynvml in this module.
    import pynvml  # noqa: PLC0415

    return pynvml


class PynvmlSource:
    """Reads NVML through nvidia-ml-py, initialising it only for the length of one read.

    Args:
        load_module: Returns the ``pynvml`` module; tests pass a fake built from recorded
            outputs. Defaults to importing nvidia-ml-py.
    """

    # NVML init/shutdown are reference counted per process; one lock keeps two readers
    # (the wizard's detection and a test's sampler) from interleaving them.
    _lock: Final = threading.Lock()

    def __init__(self, load_module: Callable[[], ModuleType] = _import_pynvml) -> None:
        self._load_module = load_module

    def read(self) -> NvmlReading:
        """Read the driver and every GPU (see :class:`NvmlSource`)."""
        try:
            nvml = self._load_module()
        except ImportError as error:
            raise NvmlUnavailable("binding_missing", str(error)) from error
        with self._lock:
            try:
                nvml.nvmlInit()
            except nvml.NVMLError as error:
                name = type(error).__name__
                raise NvmlUnavailable(_INIT_FAILURES.get(name, "unknown"), str(error)) from error
            try:
                return _read_all(nvml)
            finally:
                # A failed shutdown undoes nothing: the read already has its values.
                with contextlib.suppress(nvml.NVMLError):
                    nvml.nvmlShutdown()


class _Query:
    """Calls NVML functions, turning each failure into ``None`` plus a recorded reason."""

    def __init__(self, nvml: ModuleType) -> None:
        self.nvml = nvml
        self.unavailable: list[tuple[str, str]] = []

    def __call__(self, field: str, func: Callable[[], _T]) -> _T | None:
        try:
            return func()
        except self.nvml.NVMLError as error:
            self.unavailable.append((field, _error_name(error)))
        except UnicodeDecodeError:
            # Some drivers return names that are not UTF-8 (nvitop maps this to Unknown).
            self.unavailable.append((field, "Unknown"))
        except AttributeError:
            # The binding is older than the function: same meaning as FunctionNotFound.
            self.unavailable.append((field, "FunctionNotFound"))
        return None


def _read_all(nvml: ModuleType) -> NvmlReading:
    query = _Query(nvml)
    driver = query("driver_version", lambda: _text(nvml.nvmlSystemGetDriverVersion()))
    cuda = query("cuda_driver_version", lambda: int(nvml.nvmlSystemGetCudaDriverVersion()))
    nvml_version = query("nvml_version", lambda: _text(nvml.nvmlSystemGetNVMLVersion()))
    count = query("device_count", lambda: int(nvml.nvmlDeviceGetCount())) or 0
    gpus = tuple(_read_gpu(nvml, index) for index in range(count))
    return NvmlReading(
        driver_version=driver,
        cuda_driver_version=cuda,
        nvml_version=nvml_version,
        gpus=gpus,
        unavailable=tuple(query.unavailable),
    )


def _read_gpu(nvml: ModuleType, index: int) -> NvmlGpuReading:
    try:
        handle = nvml.nvmlDeviceGetHandleByIndex(index)
    except nvml.NVMLError as error:
        # GpuIsLost, Unknown, NoPermission...: this GPU is out, the others still report.
        return NvmlGpuReading(index=index, problem=_error_name(error))
    query = _Query(nvml)
    name = query("name", lambda: _text(nvml.nvmlDeviceGetName(handle)))
    uuid = query("uuid", lambda: _text(nvml.nvmlDeviceGetUUID(handle)))
    bus_id = query("pci_bus_id", lambda: _text(nvml.nvmlDeviceGetPciInfo(handle).busId))
    capability = query("compute_capability", lambda: _pair(nvml.nvmlDeviceGetCudaComputeCapability(handle)))
    memory = query("memory_total_bytes", lambda: int(nvml.nvmlDeviceGetMemoryInfo(handle).total))
    return NvmlGpuReading(
        index=index,
        name=name,
        uuid=uuid,
        pci_bus_id=bus_id,
        compute_capability=capability,
        memory_total_bytes=memory,
        unavailable=tuple(query.unavailable),
    )


def _error_name(error: BaseException) -> str:
    """``NVMLError_GpuIsLost`` -> ``GpuIsLost``; pynvml makes one subclass per NVML code."""
    name = type(error).__name__
    return name.removeprefix("NVMLError_") if name != "NVMLError" else f"NVMLError({error})"


def _text(value: str | bytes) -> str:
    """Older nvidia-ml-py releases return bytes, newer ones str."""
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def _pair(value: tuple[int, int]) -> tuple[int, int]:
    major, minor = value
    return int(major), int(minor)


class UsageSampler:
    """Samples each GPU's utilisation and memory in use while a test runs, in a thread.

    NVML stays initialised for the whole run (one init, one shutdown), and each sample is
    ``nvmlDeviceGetUtilizationRates`` (percent of time a kernel ran, over the driver's last
    sample period) and ``nvmlDeviceGetMemoryInfo.used``
    (docs.nvidia.com/deploy/nvml-api/group__nvmlDeviceQueries.html). Where NVML cannot be
    used the sampler does nothing: samples are a bonus, never a reason for a test to fail.
    """

    def __init__(
        self, load_module: Callable[[], ModuleType] = _import_pynvml, interval_s: float = 1.0
    ) -> None:
        self._load_module = load_module
        self._interval_s = interval_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self, on_sample: Callable[[dict[str, int | None]], None]) -> bool:
        """Begin sampling; returns False (and samples nothing) when NVML cannot be used."""
        try:
            nvml = self._load_module()
            # nvmlInit is reference counted (NVML API, nvmlInit_v2), so a detection that
            # inits and shuts down meanwhile leaves this session initialised.
            nvml.nvmlInit()
        except (ImportError, NvmlUnavailable):
            return False
        except Exception:  # noqa: BLE001 - pynvml raises its own NVMLError subclasses
            return False
        self._stop.clear()
        self._thread = threading.Thread(
            target=self._loop, args=(nvml, on_sample), daemon=True, name="nvml-usage"
        )
        self._thread.start()
        return True

    def stop(self) -> None:
        """Stop sampling and shut NVML down; waits for the thread."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
            self._thread = None

    def _loop(self, nvml: ModuleType, on_sample: Callable[[dict[str, int | None]], None]) -> None:
        try:
            count = nvml.nvmlDeviceGetCount()
            handles = [nvml.nvmlDeviceGetHandleByIndex(index) for index in range(count)]
            while not self._stop.is_set():
                for index, handle in enumerate(handles):
                    on_sample(_usage(nvml, index, handle))
                self._stop.wait(self._interval_s)
        except nvml.NVMLError:
            pass
        finally:
            with contextlib.suppress(nvml.NVMLError):
                nvml.nvmlShutdown()


def _usage(nvml: ModuleType, index: int, handle: object) -> dict[str, int | None]:
    utilisation = memory = None
    with contextlib.suppress(nvml.NVMLError):
        utilisation = int(nvml.nvmlDeviceGetUtilizationRates(handle).gpu)
    with contextlib.suppress(nvml.NVMLError, AttributeError):
        memory = int(nvml.nvmlDeviceGetMemoryInfo(handle).used) // (1024 * 1024)
    return {"index": index, "utilisation_percent": utilisation, "memory_used_mib": memory}
