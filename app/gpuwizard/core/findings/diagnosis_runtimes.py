"""Known errors of JAX, ONNX Runtime, and several CUDA runtimes loaded into one process.

Part of :mod:`gpuwizard.core.findings.diagnosis`, which tries
:data:`RUNTIMES_PART` with the other parts. Each signature cites a public report that shows the message; the logs are recorded in
tests/fixtures/recorded/diagnose (SOURCES.md says where each one comes from). Its signatures and their texts are data in
``resources/findings/runtimes.json``; this module holds the code they name.

Windows messages arrive in the user's language (ONNX Runtime quotes FormatMessage's text, which
may even reach the log garbled), so its load failures are matched by the error number and the DLL
names, never by the English words around them.

>>> from gpuwizard.core.findings.diagnosis import diagnose
>>> [finding] = diagnose("CUDA backend failed to initialize: Found cuDNN version 8600, but JAX was "
...     "built against version 8906, which is newer.")
>>> finding.code, finding.params["variant"], finding.params["found"], finding.params["built"]
('JAX_CUDA_BACKEND_FAILED', 'cudnn_version', '8.6.0', '8.9.6')
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Final

from gpuwizard.core.findings.diagnosis_torch import cudnn_version
from gpuwizard.core.findings.signature import DiagnosisPart, Values

#: Windows' ERROR_PROC_NOT_FOUND, "The specified procedure could not be found": a DLL was found
#: but lacks a function its user needs (learn.microsoft.com/en-us/windows/win32/debug/
#: system-error-codes--0-499-).
WINDOWS_PROC_NOT_FOUND: Final = 127


_SO: Final = r"\.so(?:\.\d{1,4}){0,3}"
#: The CUDA stack's libraries (cuDNN, cuBLAS, cuSPARSE, nvJitLink, NCCL, ...).
_CUDA_LIB: Final = rf"lib(?:cu|nv|nccl)\w{{0,40}}{_SO}"


def _dotted(component: str, number: str) -> str:
    """A version JAX prints as one integer, in dotted form.

    >>> _dotted("cuDNN", "8906"), _dotted("cuDNN", "90100"), _dotted("CUDA", "12010")
    ('8.9.6', '9.1.0', '12.1')
    >>> _dotted("cuBLAS", "120304"), _dotted("cuDNN", "9.1.0"), _dotted("NCCL", "21805")
    ('12.3.4', '9.1.0', '21805')
    >>> _dotted("cuSOLVER", "11401"), _dotted("cuSPARSE", "12100")
    ('11.4.1', '12.1.0')
    """
    if not number.isdigit():
        return number
    value = int(number)
    if component == "cuDNN":
        return cudnn_version(number)
    if component == "CUDA":  # cudaRuntimeGetVersion: major*1000 + minor*10
        return f"{value // 1000}.{value % 1000 // 10}"
    if component in ("cuBLAS", "cuSPARSE", "cuSOLVER", "cuFFT"):
        # cuBLAS numbers its version major*10000 + minor*100 + patch (cublasGetVersion: 120205 is
        # 12.2.5); cuSOLVER, cuSPARSE and cuFFT major*1000 + minor*100 + patch (11401 is 11.4.1, as
        # JAX prints them: tests/fixtures/recorded/diagnose). Six digits or five tell which.
        scale = 10000 if value >= 100000 else 1000
        return f"{value // scale}.{value % scale // 100}.{value % 100}"
    return number


def _jax_found(match: re.Match[str]) -> Values:
    component = match.group("component")
    return {
        "component": component,
        "found": _dotted(component, match.group("found")),
        "built": _dotted(component, match.group("built")),
    }


_INSTALLED: Final = re.compile(r"Installed version: (\d{1,9})")
_MINIMUM: Final = re.compile(r"Minimum supported: (\d{1,9})")


def _jax_outdated(match: re.Match[str]) -> Values:
    # jax/_src/xla_bridge.py (_check_cuda_versions): the lines after name the installed
    # version and the minimum this jaxlib accepts.
    component = match.group("component")
    values: Values = {"component": component}
    window = match.string[match.end() : match.end() + 400]
    if (installed := _INSTALLED.search(window)) and (minimum := _MINIMUM.search(window)):
        values["found"] = _dotted(component, installed.group(1))
        values["built"] = _dotted(component, minimum.group(1))
    return values


def _jaxlib_version(match: re.Match[str]) -> Values:
    return {"jaxlib": match.group("jaxlib").rstrip("."), "jax": match.group("jax").rstrip(".")}


#: The exception a traceback ends with ("AttributeError: module ... has no attribute ...").
_EXCEPTION_LINE: Final = re.compile(r"^(?P<error>\w{1,60}(?:Error|Exception): [^\n]{1,200})", re.MULTILINE)
#: Exceptions that mean code of two releases meeting, not a missing or broken CUDA.
_RELEASE_MISMATCH: Final = ("AttributeError", "TypeError", "ImportError")


def _plugin_error(match: re.Match[str]) -> Values | None:
    exception = _EXCEPTION_LINE.search(match.string, match.end(), match.end() + 4000)
    if exception is None or not exception.group("error").startswith(_RELEASE_MISMATCH):
        return None  # another cause (no device, a library that failed): other lines tell
    return {"plugin_error": exception.group("error")}


def _line_before(match: re.Match[str]) -> str:
    """The end of the match's line before it (at most 400 characters: a path, not a whole log)."""
    text = match.string
    start = max(text.rfind("\n", 0, match.start()) + 1, match.start() - 400)
    return text[start : match.start()]


_LIBRARY_PATH: Final = re.compile(rf"(?P<path>[^\s\"'`*]{{0,300}}?(?P<library>{_CUDA_LIB}))\**:? ?$")


def _undefined_symbol(match: re.Match[str]) -> Values | None:
    before = _line_before(match)
    # "Could not load symbol X from Y. Error: Y: undefined symbol: X" is a framework probing an
    # optional function: CUDA_OPTIONAL_SYMBOL_MISSING's signature reads it.
    if "Could not load symbol" in before:
        return None
    if _DRIVER_FUNCTION.fullmatch(match.group("symbol")):
        return None  # the driver's own function (cuXxx): DRIVER_TOO_OLD's signature reads it
    values: Values = {"symbol": match.group("symbol")}
    library = match.groupdict().get("library")
    # The path is the last word before the symbol: the pattern reads that word alone, not the
    # whole line at each place (a log repeating the line had it read at every match).
    core = before.rstrip(" ")
    word = core[max(core.rfind(c) for c in " \t\"'`") + 1 :]
    if found := _LIBRARY_PATH.search(word + (library or "")):
        values["library"] = found.group("library")
        folder = found.group("path")[: -len(found.group("library"))].rstrip("/")
        if folder:
            values["folder"] = folder
    if match.group("provider"):
        values["provider"] = match.group("provider")
    # The failing library is named before "undefined symbol" (M1) or on the relocation error's
    # line (M2); the library it needed stands in when a poster's paste lost that part.
    values.setdefault("library", library or match.group("provider"))
    return values


#: A CUDA driver API function (cuda.h: cuInit, cuMemCreate, cuGreenCtxStreamCreate): "cu" and a
#: capital, unlike the libraries' cublas..., cudnn..., cusparse... and the runtime's cuda....
_DRIVER_FUNCTION: Final = re.compile(r"cu[A-Z]\w{1,60}")

#: The pip wheel each of JAX's CUDA libraries comes in (jax's setup.py, the cuda12 extra).
_JAX_WHEELS: Final = {
    "cusparse": "nvidia-cusparse-cu12",
    "cublas": "nvidia-cublas-cu12",
    "cufft": "nvidia-cufft-cu12",
    "cusolver": "nvidia-cusolver-cu12",
    "cupti": "nvidia-cuda-cupti-cu12",
    "nccl": "nvidia-nccl-cu12",
    "nvjitlink": "nvidia-nvjitlink-cu12",
}


def _jax_library(match: re.Match[str]) -> Values:
    library = match.group("library")
    return {"library": library, "wheel": _JAX_WHEELS.get(library.lower(), "nvidia-*-cu12")}


def _cublaslt(match: re.Match[str]) -> Values:
    return {"lt_symbol": match.group("symbol")}


def _ort_missing(match: re.Match[str]) -> Values:
    values: Values = {}
    if match.groupdict().get("missing"):
        values["missing"] = match.group("missing")
    if match.groupdict().get("error"):
        values["error"] = match.group("error")
    return values


def _ort_available(match: re.Match[str]) -> Values | None:
    available = match.group("available")
    if "CUDAExecutionProvider" in available:
        return None
    return {"available": available}


def _jax_variant(
    values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    """The most specific reason the CUDA backend of JAX gave."""
    del text
    for variant in ("jaxlib_version", "plugin_version", "plugin_mismatch"):
        if variant in variants:
            return variant, {}
    if "found" in values and "built" in values:
        # The first library JAX named with both versions (params keep the first values).
        return ("cudnn_version" if values["component"][0] == "cuDNN" else "cuda_version"), {}
    return None, {}


def _onnxruntime_variant(
    values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    """The CPU-only package, the CUDA and cuDNN majors the build needs, or a missing library."""
    del text
    if "cuda" in values and "cudnn" in values:
        return "requirements", {}
    if "missing" in values:
        return "missing", {"missing": values["missing"][0]}
    if "cpu_package" in variants and "error" not in values:
        return "cpu_package", {}
    return None, {}


#: The nvJitLink release a library asks for is in the symbol's name: __nvJitLinkComplete_12_4.
_NVJITLINK_RELEASE: Final = re.compile(r"nvJitLink\w{0,40}?_(\d{2})_(\d{1,2})$")


def _mixed_variant(
    values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    """Which libraries were mixed: nvJitLink, cuDNN, cuBLASLt, or a CUDA DLL on Windows."""
    del text
    if "symbol" in values:
        names = " ".join([*values.get("provider", []), *values.get("library", [])])
        for symbol in values["symbol"]:
            if release := _NVJITLINK_RELEASE.search(symbol):
                return "nvjitlink", {"needed": f"{release.group(1)}.{release.group(2)}"}
        if "cudnn" in names.lower():
            return "cudnn", {}
        return None, {}
    if "windows" in variants:
        return "windows", {"library": values["dll"][0]}
    return "cublaslt", {"symbol": values["lt_symbol"][0]}


def _cupy_nvrtc(match: re.Match[str]) -> Values:
    # nvrtc64_120_0.dll is CUDA 12's (nvrtc64_112_0.dll CUDA 11's, from 11.2); libnvrtc.so.12.
    major = match.group("major")
    cuda = major[:-1] if major else match.group("so_major")
    return {"library": match.group("library"), "cuda": cuda}


RUNTIMES_PART: Final = DiagnosisPart(
    name="runtimes",
    extractors=(
        _jax_found,
        _jax_outdated,
        _plugin_error,
        _jaxlib_version,
        _ort_missing,
        _ort_available,
        _undefined_symbol,
        _cublaslt,
        _cupy_nvrtc,
        _jax_library,
    ),
    suppresses={
        # CuPy's NVRTC is a DLL that was not found: its own finding names the toolkit to install.
        "CUPY_NVRTC_NOT_FOUND": ("DLL_NOT_FOUND", "LIBRARY_NOT_LOADED"),
        # "CUDA backend failed to initialize: Unable to load cuDNN": the cuDNN finding says why.
        "JAX_CUDNN_LOAD_FAILED": ("JAX_CUDA_BACKEND_FAILED",),
        # JAX's fallback warning ("a CUDA-enabled jaxlib is not installed") follows the library
        # that did not load: the jaxlib is there (jax-ml/jax#30050).
        "JAX_CUDA_LIBRARY_NOT_LOADED": ("JAX_CUDA_BACKEND_FAILED", "JAX_CUDA_NOT_INSTALLED"),
        # ONNX Runtime names the library its CUDA provider lacks; its own finding gives the fix.
        "ONNXRUNTIME_CUDA_UNAVAILABLE": ("DLL_NOT_FOUND",),
        # torch/__init__.py names the DLL; [WinError 127] on a CUDA DLL says why it failed.
        "CUDA_LIBRARIES_MIXED": ("TORCH_DLL_LOAD_FAILED",),
    },
    refiners={
        "JAX_CUDA_BACKEND_FAILED": _jax_variant,
        "ONNXRUNTIME_CUDA_UNAVAILABLE": _onnxruntime_variant,
        "CUDA_LIBRARIES_MIXED": _mixed_variant,
    },
)
