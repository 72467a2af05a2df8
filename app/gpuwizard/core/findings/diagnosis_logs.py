"""The first signatures: the frameworks' loaders, GPU architectures, the driver, memory, Windows' paths.

Part of :mod:`gpuwizard.core.findings.diagnosis`, the part every other builds on: TensorFlow's
and PyTorch's words for a library that did not load, a GPU its build has no kernels for, a
driver older than the build, out of memory, a CPU-only build, pip's and uv's "no matching
distribution", Windows' path limit and the Store's Python. The signatures are data
(``resources/findings/logs.json``, ``"signatures"``); here is the code they name to read values
out of a match, and how the variant of each finding is chosen from the whole log.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Final

from gpuwizard.core.findings.log_facts import capability_of_sm, gpu_name_before, per_log, read_log_facts
from gpuwizard.core.findings.signature import (
    DRIVER_LIBRARY,
    OPTIONAL_LIBRARY,
    WINDOWS_LOG,
    DiagnosisPart,
    Refiner,
    Values,
    search_log,
)

#: Windows' classic path limit (MAX_PATH, 260 including the final NUL): longer paths fail.
_MAX_PATH: Final = 260

#: Libraries of the CUDA stack (a missing libGL.so.1 is not a GPU problem).
_GPU_LIBRARY: Final = re.compile(
    r"cud|cublas|cufft|curand|cusolver|cusparse|nvrtc|nvjitlink|nccl|cupti|nvtoolsext", re.IGNORECASE
)


def _library(match: re.Match[str]) -> Values | None:
    library = match.group("library").strip("*`'\" ")
    if OPTIONAL_LIBRARY.search(library) or library.lower() == "zlibwapi.dll":
        return None
    return {"libraries": library}


def _gpu_library(match: re.Match[str]) -> Values | None:
    values = _library(match)
    if values is None or not _GPU_LIBRARY.search(str(values["libraries"])):
        return None
    return values


#: The package of a traceback's frame: the folder under site-packages (or dist-packages).
_FRAME_PACKAGE: Final = re.compile(r"-packages[\\/](?P<package>[A-Za-z_][\w]{0,60})[\\/]")
#: Frameworks whose wheels load CUDA from their own dependencies: a library they miss is a broken
#: or mismatched install of those (the ``cuda`` text), not a module built for another CUDA.
_FRAMEWORK_PACKAGES: Final = frozenset(
    {"torch", "tensorflow", "jax", "jaxlib", "jax_plugins", "paddle", "cupy"}
)
#: How far back a failed import's traceback is read for the package that was being imported.
_TRACEBACK_CHARS: Final = 6000


def _loaded_by_import(match: re.Match[str]) -> Values | None:
    """A GPU library that an ``import`` could not open, with the package being imported.

    Python raises the loader's words as they are ("ImportError: libcudart.so.10.1: cannot open
    shared object file"): a compiled module linked to that library, and the traceback's last
    package frame (mmcv, detectron2, the framework itself) is the one whose build wants it.
    """
    values = _gpu_library(match)
    if values is None:
        return None
    text = match.string
    if text.endswith(("ImportError: ", "OSError: "), max(0, match.start() - 13), match.start()):
        values["raised"] = "import"
        frames = list(_FRAME_PACKAGE.finditer(text, max(0, match.start() - _TRACEBACK_CHARS), match.start()))
        if packages := [frame.group("package") for frame in frames if frame.group("package") != "importlib"]:
            values["package"] = packages[-1]
    return values


#: The NVIDIA library each symbol prefix belongs to: its name, its Python module in NVIDIA's
#: wheels (the files are in the module's lib folder on Linux, bin on Windows) and its wheel.
_SYMBOL_LIBRARIES: Final = (("cudnn", "cuDNN", "nvidia.cudnn", "nvidia-cudnn"),)
#: CUDA 13's wheels named in the log: nvidia-cudnn-cu13, a cu130 index or build ("/cu130", "+cu130").
_CUDA13_WHEELS: Final = re.compile(r"-cu13\b|/cu13\d\b|\+cu13\d\b")


@per_log
def _cuda13_wheels(text: str) -> bool:
    """Whether the log names CUDA 13's wheels (asked once per log, not at every match)."""
    return search_log(_CUDA13_WHEELS, text) is not None


def _symbol_library(match: re.Match[str]) -> Values | None:
    """The library that should have given a symbol ("Invalid handle. Cannot load symbol cudnnCreate")."""
    symbol = match.group("symbol")
    for prefix, library, module, wheel in _SYMBOL_LIBRARIES:
        if symbol.startswith(prefix):
            suffix = "-cu13" if _cuda13_wheels(match.string) else "-cu12"
            return {"symbol": symbol, "library": library, "module": module, "wheel": wheel + suffix}
    return None


def _components(libraries: Sequence[str]) -> list[str]:
    """The CUDA and cuDNN releases that ship ``libraries``, where the file name tells."""
    components: list[str] = []
    for library in libraries:
        component = _component(library)
        if component and component not in components:
            components.append(component)
    return components


def _component(library: str) -> str | None:
    name = library.lower()
    if match := re.fullmatch(r"(?:lib)?cudnn\w*?(?:64_(\d+)\.dll|\.so\.(\d+)(?:\.\d+)*)", name):
        return f"cuDNN {match.group(1) or match.group(2)}"
    # cudart64_110.dll serves every CUDA 11.x, cudart64_101.dll only 10.1; cudart64_12.dll is 12.
    # (cuSPARSE's number follows CUDA's major; cuFFT's, cuRAND's and cuSOLVER's do not.)
    if match := re.fullmatch(r"(?:cudart|cublas|cublaslt|cusparse)64_(\d\d)(\d?)\.dll", name):
        major, minor = match.groups()
        return (
            f"CUDA {major}" if not minor or (minor == "0" and int(major) >= 11) else f"CUDA {major}.{minor}"
        )
    if match := re.fullmatch(
        r"lib(?:cudart|cublas|cublaslt|cusparse)\.so\.(\d+)(?:\.(\d+))?(?:\.\d+)*", name
    ):
        major, minor = match.groups()
        return f"CUDA {major}" if not minor or int(major) >= 11 else f"CUDA {major}.{minor}"
    return None


_SUPPORTED_ARCHS: Final = re.compile(r"supports CUDA capabilities ((?:(?:sm|compute)_\d+a?\s*)+)")
_MINIMUM_CAPABILITY: Final = re.compile(
    r"minimum cuda capability (?:that we support|supported by this library) is (\d+\.\d+)"
)


def _arch_not_compiled(match: re.Match[str]) -> Values:
    text = match.string
    gpu = gpu_name_before(text, match.start())
    values: Values = {"capability": match.group("capability"), "gpu": gpu or "This GPU"}
    if supported := _SUPPORTED_ARCHS.search(text, match.end(), match.end() + 400):
        values["supported"] = " ".join(supported.group(1).split())
    return values


def _arch_too_old(match: re.Match[str]) -> Values:
    values: Values = {"gpu": match.group("gpu").strip(), "capability": match.group("capability")}
    if minimum := _MINIMUM_CAPABILITY.search(match.string, match.end(), match.end() + 400):
        values["minimum"] = minimum.group(1)
    return values


def _driver_found(match: re.Match[str]) -> Values:
    # PyTorch prints the driver's CUDA version as an integer: 11040 is CUDA 11.4.
    found = int(match.group("found"))
    return {"driver_cuda": f"{found // 1000}.{found % 1000 // 10}", "found": str(found)}


def _oom_tensor(match: re.Match[str]) -> Values | None:
    rest = match.group("rest") or ""
    if "device:CPU" in rest or "allocator cpu" in rest:
        return None  # host memory, not the GPU's
    return {"shape": match.group("shape")} if match.group("shape") else {}


def _long_path(match: re.Match[str]) -> Values | None:
    # pip prints repr(path): every backslash doubled.
    path = match.group("path").replace("\\\\", "\\")
    return {"length": str(len(path))} if len(path) >= _MAX_PATH else None


def _nvml_mismatch(match: re.Match[str]) -> Values:
    version = re.compile(r"NVML library version: (\S+)").search(match.string, match.end(), match.end() + 300)
    return {"nvml_version": version.group(1)} if version else {}


def _cudnn_mismatch(match: re.Match[str]) -> Values:
    compiled = match.group("compiled")
    return {"loaded": match.group("loaded"), "compiled": compiled, "major": compiled.split(".")[0]}


def _torch_dll(match: re.Match[str]) -> Values:
    path = re.sub(r"\\+", lambda _: "\\", match.group("path")).strip('"\\ ')
    return {"library": match.group("library"), "path": path}


def _store_python(match: re.Match[str]) -> Values:
    return {"python": match.group("python")}


#: The GPU generations whose builds differ (resources/findings/logs.json, NO_KERNEL_IMAGE, cites them): below
#: Maxwell (5.0) Kepler, below Turing (7.5) the CUDA 12.6 builds only, from Blackwell (10.0) the
#: CUDA 12.8 and newer ones only.
_MAXWELL: Final = (5, 0)
_TURING: Final = (7, 5)
_BLACKWELL: Final = (10, 0)


def _by_generation(
    code: str, variant: str | None, named: str | None, text: str
) -> tuple[str | None, dict[str, object]]:
    """The variant of an architecture finding for the GPU generation the log names, if it does."""
    sm = re.fullmatch(r"sm_(\d{2,3})a?", named) if named else None  # sm_90a is 9.0
    capability = capability_of_sm(sm.group(1)) if sm else read_log_facts(text).gpu_capability
    if capability is None:
        return variant, {}
    major, _, minor = capability.partition(".")
    number = (int(major), int(minor or 0))
    generation = (
        "kepler"
        if number < _MAXWELL
        else "pre_turing"
        if number < _TURING
        else "blackwell"
        if number >= _BLACKWELL
        else "current_gpu"
    )
    if code == "GPU_ARCH_UNSUPPORTED":
        return (f"log_{generation}" if generation != "kepler" else variant), {}
    # A capability the log's own line gave (sm_86) stays as it was read.
    return generation, ({} if named else {"capability": capability})


def _fbgemm_of_2_4_0(values: Mapping[str, Sequence[str]], text: str) -> bool:
    """fbgemm.dll, and no torch version but 2.4.0 in the log (pytorch/pytorch#129568)."""
    version = read_log_facts(text).framework_version
    library = next(iter(values.get("library", [])), "")
    return library.lower() == "fbgemm.dll" and version in (None, "2.4.0")


#: A finding of the key explains the same failure as the ones listed: those are dropped.
_SUPPRESSES: Final[dict[str, tuple[str, ...]]] = {
    "GPU_ARCH_UNSUPPORTED": ("NO_KERNEL_IMAGE",),
    "CUDNN_VERSION_MISMATCH": ("CUDNN_INTERNAL_ERROR",),
    # pip ends a failed connection with "No matching distribution found": the index was never read.
    "PACKAGE_INDEX_UNREACHABLE": ("NO_MATCHING_DISTRIBUTION",),
}


def _first_variant(variants: Sequence[str]) -> str | None:
    return variants[0] if variants else None


def _dll_not_found(
    values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    """``driver`` when only the driver's own library is missing, ``cuda`` when the names tell the release."""
    libraries = values.get("libraries", [])
    components = _components(libraries)
    if libraries and all(DRIVER_LIBRARY.fullmatch(library) for library in libraries):
        return "driver", {}
    if (
        components
        and values.get("raised")
        and all(c.startswith("CUDA ") for c in components)
        and not set(values.get("package", ())) & _FRAMEWORK_PACKAGES
    ):
        # A compiled module built against a CUDA that is not here: its build is the fix.
        return ("import_package" if values.get("package") else "import"), {"components": components}
    if components:
        return "cuda", {"components": components}
    if not libraries and values.get("symbol"):
        windows = read_log_facts(text).os_family == "windows"
        return ("symbol_windows" if windows else "symbol"), {}
    return _first_variant(variants), {}


def _cpu_only_build(
    values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    """``macos`` on a Mac, where no CUDA build exists."""
    return ("macos" if read_log_facts(text).os_family == "darwin" else _first_variant(variants)), {}


def _cudnn_internal_error(
    values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    """``torch`` where the log is PyTorch's first."""
    torch_first = read_log_facts(text).frameworks[:1] == ("pytorch",)
    return ("torch" if torch_first else _first_variant(variants)), {}


def _torch_dll_load_failed(
    values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    """``fbgemm`` for torch 2.4.0's fbgemm.dll."""
    return ("fbgemm" if _fbgemm_of_2_4_0(values, text) else _first_variant(variants)), {}


#: ggml's CUDA code named in the log (its functions, its source file, Ollama's paths).
_GGML_CUDA: Final = re.compile(r"ggml_cuda|ggml-cuda|ollama")


def _architecture(code: str) -> Refiner:
    def refine(
        values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
    ) -> tuple[str | None, dict[str, object]]:
        variant = _first_variant(variants)
        if code == "GPU_ARCH_UNSUPPORTED" and variant != "log":
            return variant, {}
        if code == "NO_KERNEL_IMAGE" and search_log(_GGML_CUDA, text):
            return "ggml", {}  # a llama.cpp or Ollama build: its release, not a torch wheel, is the fix
        named = next(iter(values.get("capability", [])), None)
        return _by_generation(code, variant, named, text)

    return refine


def _tf_cannot_dlopen(
    values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    """``windows`` for a Windows log (the DLLs, not the .so files)."""
    return ("windows" if WINDOWS_LOG.search(text) else _first_variant(variants)), {}


def _driver_too_old(
    values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    """``log_cuda`` where the log names the driver's CUDA version; ``symbol`` for a driver function."""
    if "symbol" in variants:
        return "symbol", {}
    return ("log_cuda" if "driver_cuda" in values else "log"), {}


#: A character that cannot be in a library's file name: where the name before ".so" begins.
_NOT_IN_FILE_NAME: Final = re.compile(r"[^\w.+-]")


def _driver_symbol(match: re.Match[str]) -> Values | None:
    # The pattern starts at ".so" (re skips ahead to its literal text; a pattern that starts with
    # the file name's characters is tried at every place of a log): the name is read backwards.
    text = match.string
    name = _NOT_IN_FILE_NAME.split(text[max(0, match.start() - 100) : match.start()])[-1]
    if not name:
        return None
    library = name + text[match.start() : text.index(":", match.start())]
    return {"library": library, "symbol": match.group("symbol")}


def _out_of_memory(
    values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    """``size`` where the log says how much was asked for."""
    return ("size" if "size" in values else _first_variant(variants)), {}


LOGS_PART: Final = DiagnosisPart(
    name="logs",
    extractors=(
        _library,
        _gpu_library,
        _loaded_by_import,
        _symbol_library,
        _arch_not_compiled,
        _arch_too_old,
        _driver_found,
        _oom_tensor,
        _long_path,
        _nvml_mismatch,
        _driver_symbol,
        _cudnn_mismatch,
        _torch_dll,
        _store_python,
    ),
    suppresses=_SUPPRESSES,
    refiners={
        "DLL_NOT_FOUND": _dll_not_found,
        "CPU_ONLY_BUILD": _cpu_only_build,
        "CUDNN_INTERNAL_ERROR": _cudnn_internal_error,
        "TORCH_DLL_LOAD_FAILED": _torch_dll_load_failed,
        "NO_KERNEL_IMAGE": _architecture("NO_KERNEL_IMAGE"),
        "GPU_ARCH_UNSUPPORTED": _architecture("GPU_ARCH_UNSUPPORTED"),
        "TF_CANNOT_DLOPEN_GPU_LIBS": _tf_cannot_dlopen,
        "DRIVER_TOO_OLD": _driver_too_old,
        "GPU_OUT_OF_MEMORY": _out_of_memory,
    },
)
