r"""Where this process loaded its CUDA libraries from; the NVIDIA wheels installed; the DLL hook.

Imported by ``env_report.py`` and ``train_test.py`` beside it, inside the environment under test:
stdlib only, Python 3.7 syntax, never imports gpuwizard. Nothing here raises: a fact that cannot
be had is reported as missing (with why), never as a crash of the probe.

- :func:`loaded_cuda_libraries`: the CUDA-family libraries mapped into this process, each with
  the file it was loaded from. Linux reads ``/proc/self/maps`` (every file mapping of the
  process: proc(5), "/proc/pid/maps"); Windows asks for the process's module list
  (``K32EnumProcessModules`` in kernel32 since Windows 7, Microsoft Learn "EnumProcessModules
  function (psapi.h)", then ``GetModuleFileNameW`` for each module). Elsewhere: none.
- :func:`installed_cuda_wheels`: the distributions named ``nvidia-*`` (NVIDIA's CUDA, cuDNN,
  NCCL... wheels on PyPI), with their versions, read from their metadata without importing
  anything (``importlib.metadata`` on 3.8+, the ``*.dist-info`` folders on 3.7).
- :func:`dll_hook_state`: what gpuwizard's start-up hook (``_gpuwizard_cuda_dlls``, written into
  a Windows venv with NVIDIA's wheels: ``cuda_dll_hook.py`` beside this file) did in this
  process; None when the environment has no hook.
"""

import os
import re
import sys
from pathlib import Path

try:  # imported as gpuwizard.probes.cuda_libraries (tests, env_report.py's own import)
    from . import package_versions
except ImportError:  # run by path (with -I the script's folder is not on sys.path): the file beside
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import package_versions  # type: ignore[import-not-found,no-redef]

#: The CUDA-family libraries, matched on a loaded file's name (``libcudart.so.12``,
#: ``cudart64_110.dll``, ``cudnn_ops_infer64_8.dll``, ``libcudnn_graph.so.9``...). These are
#: the ones a framework's GPU path loads by name and that go missing, or come from the wrong
#: folder, when a setup breaks: the CUDA runtime and math libraries (cudart, cuBLAS and
#: cuBLASLt, cuFFT, cuRAND, cuSOLVER, cuSPARSE), cuDNN with all its sub-libraries, NVRTC and
#: nvJitLink (run-time compilation), CUPTI (profiling), the driver's own ``nvcuda.dll`` /
#: ``libcuda.so``, ``zlibwapi.dll`` (cuDNN 8.3+ on Windows needs it: NVIDIA cuDNN 8.9
#: installation guide, "Installing Zlib") and TensorRT's nvinfer. The name must go on with a
#: digit, ``.``, ``_``, ``-`` or end there, so ``libcudadebugger.so`` is not ``libcuda``.
#: One list, kept here, for both operating systems.
CUDA_LIBRARY = re.compile(
    r"^(?:lib)?(cudart|cublasLt|cublas|cufftw|cufft|curand|cusolverMg|cusolver|cusparseLt|cusparse"
    r"|cudnn|nvrtc|nvJitLink|cupti|nvcuda|cuda|zlibwapi|nvinfer)(?=[0-9._-]|$)",
    re.IGNORECASE,
)

#: The module gpuwizard's start-up hook runs as (``adapters/envs/env_files.py`` names it too).
HOOK_MODULE = "_gpuwizard_cuda_dlls"

#: Distributions named ``nvidia-*`` that carry no CUDA library: the NVML binding
#: (``nvidia-ml-py``, pure Python, pypi.org/project/nvidia-ml-py) and its old fork, and
#: ``nvidia-pyindex`` (it only configures pip's index, pypi.org/project/nvidia-pyindex).
NOT_CUDA_WHEELS = ("nvidia-ml-py", "nvidia-ml-py3", "nvidia-pyindex")

# /proc/PID/maps marks a mapped file removed from disk since with this suffix (proc(5)).
_DELETED = " (deleted)"


def is_cuda_library(name: str) -> bool:
    """Whether a file name is one of the CUDA-family libraries (:data:`CUDA_LIBRARY`).

    >>> [is_cuda_library(n) for n in ("cudart64_110.dll", "libcuda.so.1", "libcudadebugger.so.1")]
    [True, True, False]
    """
    return CUDA_LIBRARY.match(name) is not None


def paths_from_maps(lines: "list") -> "list":
    """The files mapped in a ``/proc/PID/maps`` text, each once, in the order they appear.

    A line is ``address perms offset dev inode pathname``; the path may hold spaces, and a file
    removed since it was mapped ends in `` (deleted)`` (proc(5)). Anonymous mappings, ``[heap]``
    and the like have no path starting with ``/``.

    >>> paths_from_maps(["7f..-7f.. r-xp 00000000 fe:00 343866   /opt/my libs/libcudart.so.13",
    ...                  "7f..-7f.. rw-p 00000000 00:00 0", "7f..-7f.. r--p 00000000 00:00 0  [vvar]"])
    ['/opt/my libs/libcudart.so.13']
    """
    seen = set()  # type: set
    paths = []
    for line in lines:
        fields = line.rstrip("\r\n").split(None, 5)
        if len(fields) < 6 or not fields[5].startswith("/"):
            continue
        path = fields[5]
        if path.endswith(_DELETED):
            path = path[: -len(_DELETED)]
        if path not in seen:
            seen.add(path)
            paths.append(path)
    return paths


def cuda_libraries_in(paths: "list", windows: bool = False) -> "list":
    r"""The CUDA-family libraries among loaded files: ``[{"name", "path"}]``, sorted by name.

    ``windows``: the paths are Windows paths (their file name follows the last ``\`` or ``/``).
    """
    found = {}  # type: dict
    for path in paths:
        name = re.split(r"[\\/]", path)[-1] if windows else Path(path).name
        if is_cuda_library(name):
            key = path.lower() if windows else path  # Windows file names ignore case
            found.setdefault(key, {"name": name, "path": path})
    return sorted(found.values(), key=lambda item: (item["name"].lower(), item["path"]))


def loaded_cuda_libraries() -> "list":
    """The CUDA-family libraries this process has loaded, with their files (see the module docstring).

    Raises:
        OSError: The process's module list or maps could not be read.
    """
    if os.name == "nt":
        return cuda_libraries_in(_windows_module_paths(), windows=True)
    maps = Path("/proc/self/maps")
    if not maps.is_file():
        return []  # macOS and others: no /proc, and no CUDA
    with maps.open(encoding="utf-8", errors="surrogateescape") as lines:
        return cuda_libraries_in(paths_from_maps(list(lines)))


def _windows_module_paths() -> "list":
    """The file of every module (EXE and DLLs) loaded in this process, by the Windows module list."""
    import ctypes  # noqa: PLC0415 - Windows only
    from ctypes import wintypes  # noqa: PLC0415

    # A private kernel32 object: the argtypes set here stay off ctypes.windll's shared one.
    kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)  # type: ignore[attr-defined]
    current = kernel32.GetCurrentProcess
    current.argtypes = []
    current.restype = wintypes.HANDLE
    enum = kernel32.K32EnumProcessModules
    enum.argtypes = [
        wintypes.HANDLE,
        ctypes.POINTER(wintypes.HMODULE),
        wintypes.DWORD,
        ctypes.POINTER(wintypes.DWORD),
    ]
    enum.restype = wintypes.BOOL
    file_name = kernel32.GetModuleFileNameW
    file_name.argtypes = [wintypes.HMODULE, wintypes.LPWSTR, wintypes.DWORD]
    file_name.restype = wintypes.DWORD
    process = current()
    handle_size = ctypes.sizeof(wintypes.HMODULE)
    count = 512
    while True:
        modules = (wintypes.HMODULE * count)()
        needed = wintypes.DWORD(0)
        if not enum(process, modules, ctypes.sizeof(modules), ctypes.byref(needed)):
            raise ctypes.WinError(ctypes.get_last_error())  # type: ignore[attr-defined]
        if needed.value <= ctypes.sizeof(modules):
            break
        count = needed.value // handle_size + 64  # more modules than room: again, with room for new ones
    buffer = ctypes.create_unicode_buffer(32768)  # the longest path Windows has (\\?\ paths)
    paths = []
    for module in modules[: needed.value // handle_size]:
        if module and file_name(module, buffer, len(buffer)):
            paths.append(buffer.value)
    return paths


def dll_hook_state() -> "dict | None":
    r"""What the DLL start-up hook did in this process; None when it did not run (no hook).

    ``active``: it put at least one ``nvidia\*\bin`` folder on the DLL search path and had no
    problem; ``folders``: those folders; ``problem``: why it added nothing, when it failed.
    """
    module = sys.modules.get(HOOK_MODULE)
    if module is None:
        return None
    folders = [str(folder) for folder in (getattr(module, "FOLDERS", None) or [])]
    problem = getattr(module, "PROBLEM", None)
    return {
        "active": bool(folders) and problem is None,
        "folders": folders,
        "problem": None if problem is None else str(problem),
    }


def normalised_name(name: str) -> str:
    """A distribution name as PEP 503 compares them: ``NVIDIA_cudnn.cu11`` -> ``nvidia-cudnn-cu11``."""
    return re.sub(r"[-_.]+", "-", name).lower()


def installed_cuda_wheels() -> "list":
    """The ``nvidia-*`` distributions installed (names normalised), ``[{"name", "version"}]``, sorted.

    The first of a name on ``sys.path`` wins, as for imports; :data:`NOT_CUDA_WHEELS` are left out.
    """
    found = {}  # type: dict
    # package_versions.py beside this file reads them (importlib.metadata, or the dist-info
    # folders on Python 3.7).
    for item in package_versions.installed():
        key = normalised_name(item["name"])
        if key.startswith("nvidia-") and key not in NOT_CUDA_WHEELS:
            found.setdefault(key, {"name": key, "version": item["version"]})
    return [found[key] for key in sorted(found)]


def environment_facts() -> "dict":
    """``cuda_wheels`` and ``dll_hook``: known before the framework is imported (or fails to)."""
    facts = {"cuda_wheels": None, "dll_hook": None}  # type: dict
    try:
        facts["cuda_wheels"] = installed_cuda_wheels()
    except Exception as error:  # noqa: BLE001 - a damaged metadata folder must not stop the probe
        facts["cuda_wheels_error"] = "%s: %s" % (type(error).__name__, error)
    try:
        facts["dll_hook"] = dll_hook_state()
    except Exception as error:  # noqa: BLE001
        facts["dll_hook_error"] = "%s: %s" % (type(error).__name__, error)
    return facts


def loaded_facts() -> "dict":
    """``cuda_libraries``: what is loaded now (after the framework's GPU work, to see it all)."""
    try:
        return {"cuda_libraries": loaded_cuda_libraries()}
    except Exception as error:  # noqa: BLE001
        return {"cuda_libraries": [], "cuda_libraries_error": "%s: %s" % (type(error).__name__, error)}


def library_facts() -> "dict":
    """Everything at once: ``cuda_libraries``, ``cuda_wheels``, ``dll_hook`` (the live test's event)."""
    facts = loaded_facts()
    facts.update(environment_facts())
    return facts
