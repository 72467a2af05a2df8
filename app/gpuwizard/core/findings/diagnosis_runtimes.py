"""Known errors of JAX, ONNX Runtime, and several CUDA runtimes loaded into one process.

Part of :mod:`gpuwizard.core.findings.diagnosis`, which merges :data:`RUNTIMES_PART` into its
signatures. Each signature cites a public report that shows the message; the logs are recorded in
tests/fixtures/recorded/diagnose (SOURCES.md says where each one comes from). The texts are in
``resources/findings/runtimes.json``.

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
from gpuwizard.core.findings.signature import DiagnosisPart, Signature, Values, sig

#: Windows' ERROR_PROC_NOT_FOUND, "The specified procedure could not be found": a DLL was found
#: but lacks a function its user needs (learn.microsoft.com/en-us/windows/win32/debug/
#: system-error-codes--0-499-).
WINDOWS_PROC_NOT_FOUND: Final = 127


_JAX_BACKEND_FAILED: Final = (
    r"(?:CUDA backend failed to initialize|Unable to initialize backend 'cuda'"
    r"|Backend 'cuda' failed to initialize): "
)
#: The CUDA libraries whose versions JAX checks (jax_plugins/xla_cuda12, _check_cuda_versions).
_JAX_LIBRARIES: Final = r"cuDNN|CUDA|cuBLAS|cuFFT|cuSPARSE|cuSOLVER|CUPTI|NCCL"
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
    values: Values = {"symbol": match.group("symbol")}
    library = match.groupdict().get("library")
    if found := _LIBRARY_PATH.search(before + (library or "")):
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


JAX_SIGNATURES: Final[tuple[Signature, ...]] = (
    # jax/_src/xla_bridge.py (backends): a jaxlib without the CUDA plugin on a machine where
    # /proc/driver/nvidia or nvidia-smi shows a GPU. Some projects print it in lower case.
    sig(
        "JAX_CUDA_NOT_INSTALLED",
        r"An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not installed",
        "https://github.com/sanchit-gandhi/whisper-jax/issues/211",
        flags=re.IGNORECASE,
    ),
    # The CUDA plugin's version checks (jax_plugins/xla_cuda12, jaxlib/cuda/versions_helpers.cc):
    # "Found <library> version N, but JAX was built against version M, which is newer."
    sig(
        "JAX_CUDA_BACKEND_FAILED",
        rf"Found (?P<component>{_JAX_LIBRARIES}) version (?P<found>\d{{1,9}}), "
        r"but JAX was built against version (?P<built>\d[\d.]{0,20}?),? which is newer",
        "https://github.com/MIT-REALM/gcbfplus/issues/1",
        _jax_found,
    ),
    # jax 0.4.31 and newer: "Outdated cuDNN installation found." and the versions on the next lines.
    sig(
        "JAX_CUDA_BACKEND_FAILED",
        rf"Outdated (?P<component>{_JAX_LIBRARIES}) installation found\.",
        "https://github.com/conda-forge/jax-feedstock/issues/149",
        _jax_outdated,
    ),
    # The PJRT plugin (jax-cuda12-plugin / jax-cuda12-pjrt) from another release than jaxlib.
    sig(
        "JAX_CUDA_BACKEND_FAILED",
        r"Mismatched PJRT plugin PJRT API version \((?P<plugin_api>\d{1,4}\.\d{1,4})\) and framework "
        r"PJRT API version \(?(?P<framework_api>\d{1,4}\.\d{1,4})",
        "https://github.com/jax-ml/jax/issues/22416",
        variant="plugin_version",
    ),
    # jax/_src/xla_bridge.py (discover_pjrt_plugins): the CUDA plugin failed to load or start. An
    # AttributeError, TypeError or ImportError inside it means a plugin from another release
    # than jax and jaxlib (jax-ml/jax#26750, the maintainers' answer).
    sig(
        "JAX_CUDA_BACKEND_FAILED",
        r"Jax plugin configuration error: (?:Exception when calling jax_plugins\.xla_cuda1\d\.initialize\(\)"
        r"|Plugin module %s could not be loaded)",
        "https://github.com/google-deepmind/torax/issues/1369",
        _plugin_error,
        variant="plugin_mismatch",
    ),
    # jax/_src/lib/__init__.py (check_jaxlib_version): jax does not even import.
    sig(
        "JAX_CUDA_BACKEND_FAILED",
        r"jaxlib version (?P<jaxlib>\d[\w.+]{0,30}) is newer than and incompatible with jax version "
        r"(?P<jax>\d[\w.+]{0,30})",
        "https://github.com/pablo-arantes/making-it-rain/issues/140",
        _jaxlib_version,
        variant="jaxlib_version",
    ),
    # The backend's failure itself, whatever its reason (read when no signature above knows it).
    sig(
        "JAX_CUDA_BACKEND_FAILED",
        _JAX_BACKEND_FAILED + r"(?P<reason>[^\n]{1,200})",
        "https://github.com/rgommers/pixi-dev-scipystack/issues/1",
    ),
    # jaxlib's cuDNN loader (versions_helpers / the plugin's initialize): no libcudnn.so.9.
    sig(
        "JAX_CUDNN_LOAD_FAILED",
        r"Unable to load cuDNN\. Is it installed\?",
        "https://github.com/jax-ml/jax/issues/20519",
    ),
)

ONNXRUNTIME_SIGNATURES: Final[tuple[Signature, ...]] = (
    # onnxruntime_pybind_state.cc (CreateExecutionProviderInstance); since 1.19 it names the CUDA
    # and cuDNN majors of the build: "Require cuDNN 9.* and CUDA 12.*".
    sig(
        "ONNXRUNTIME_CUDA_UNAVAILABLE",
        # Before 1.19 the sentence may end without its period (microsoft/onnxruntime#15873).
        r"Failed to create CUDAExecutionProvider\b(?:\.(?: Require cuDNN (?P<cudnn>\d{1,2})\.\* and CUDA "
        r"(?P<cuda>\d{1,2})\.\*)?)?",
        "https://github.com/microsoft/onnxruntime/issues/21825",
    ),
    # provider_bridge_ort.cc on Windows: LoadLibrary's error number (126, ERROR_MOD_NOT_FOUND: a
    # DLL it needs is missing; learn.microsoft.com/en-us/windows/win32/debug/system-error-codes--0-499-),
    # whatever language the text beside it is in.
    sig(
        "ONNXRUNTIME_CUDA_UNAVAILABLE",
        r"LoadLibrary failed with error (?P<error>\d{1,6})[^\n]{0,400}?onnxruntime_providers_cuda\.dll",
        "https://github.com/microsoft/onnxruntime/issues/21825",
        _ort_missing,
    ),
    # Newer releases name the missing DLL: 'Error loading "...onnxruntime_providers_cuda.dll"
    # which depends on "cudnn64_9.dll" which is missing. (Error 126: ...)'.
    sig(
        "ONNXRUNTIME_CUDA_UNAVAILABLE",
        r"onnxruntime_providers_cuda\.dll\"?[^\n]{0,400}?"
        r"(?:\"(?P<missing>[\w.+-]{1,80}\.dll)\"[^\n]{0,100}?)?\(Error (?P<error>\d{1,6})",
        "https://github.com/Zeyi-Lin/HivisionIDPhotos/issues/279",
        _ort_missing,
    ),
    # Linux: the dynamic loader's words for the library the provider needs.
    sig(
        "ONNXRUNTIME_CUDA_UNAVAILABLE",
        r"Failed to load library libonnxruntime_providers_cuda\.so with error: "
        rf"(?P<missing>lib[\w+-]{{1,60}}{_SO}): cannot open shared object file",
        "https://github.com/stepfun-ai/Step-Audio/issues/127",
        _ort_missing,
    ),
    # onnxruntime_inference_collection.py: the installed package has no CUDA provider at all (the
    # CPU-only 'onnxruntime', alone or installed over 'onnxruntime-gpu').
    sig(
        "ONNXRUNTIME_CUDA_UNAVAILABLE",
        r"Specified provider 'CUDAExecutionProvider' is not in available provider names\.?\s{0,3}"
        r"Available providers: '(?P<available>[^'\n]{0,200})'",
        "https://github.com/bytedance/LatentSync/issues/225",
        _ort_available,
        variant="cpu_package",
    ),
)

MIXED_SIGNATURES: Final[tuple[Signature, ...]] = (
    # The dynamic loader: a CUDA library found a copy of another one (named after "version")
    # older than the one it was built with. torch 2.x's libcusparse with an older libnvJitLink
    # on LD_LIBRARY_PATH is the best-known case (pytorch/pytorch#111469, #134929).
    sig(
        "CUDA_LIBRARIES_MIXED",
        rf"(?P<library>{_CUDA_LIB}): undefined symbol: (?P<symbol>\w{{1,200}})"
        rf"(?:, version (?P<provider>lib\w{{1,40}}{_SO}))?",
        "https://github.com/pytorch/pytorch/issues/131312",
        _undefined_symbol,
    ),
    # glibc's relocation error for the same case; posters' markdown may bold the names.
    sig(
        "CUDA_LIBRARIES_MIXED",
        rf"symbol (?P<symbol>\w{{1,200}}),? version \*{{0,2}}(?P<provider>{_CUDA_LIB})\*{{0,2}} "
        r"not defined in file",
        "https://github.com/opendatalab/PDF-Extract-Kit/issues/57",
        _undefined_symbol,
    ),
    # cuBLAS could not open its cuBLASLt library (missing, or another CUDA's copy found first).
    sig(
        "CUDA_LIBRARIES_MIXED",
        r"Invalid handle\. Cannot load symbol (?P<symbol>cublasLt\w{1,60})",
        "https://github.com/PaddlePaddle/PaddleOCR/issues/16512",
        _cublaslt,
        variant="cublaslt",
    ),
    # Windows: GetProcAddress found the DLL but not a function it needs (127,
    # ERROR_PROC_NOT_FOUND), for a CUDA or cuDNN DLL: another copy, from a CUDA toolkit or cuDNN
    # folder on PATH, was loaded first. Matched by the number, whatever the language of the text.
    sig(
        "CUDA_LIBRARIES_MIXED",
        rf"\[WinError {WINDOWS_PROC_NOT_FOUND}\][^\n]{{0,300}}?[\\/]"
        r"(?P<dll>(?:cudnn|cublas|cusparse|cufft|curand|cusolver|cudart|nvrtc|nvjitlink)\w{0,40}\.dll)",
        "https://github.com/PaddlePaddle/Paddle/issues/75939",
        variant="windows",
        flags=re.IGNORECASE,
    ),
    # A framework probing an optional newer function (TensorFlow's and PyTorch's cuBLAS wrappers):
    # an older cuBLAS than the framework knows was loaded, and the run goes on: a note, with a
    # code of its own (a variant shares its code's severity). Windows adds GetProcAddress's
    # error number (127, ERROR_PROC_NOT_FOUND).
    sig(
        "CUDA_OPTIONAL_SYMBOL_MISSING",
        r"Could not load symbol (?P<symbol>\w{1,100}) from "
        r"(?P<library>[\w.+-]{1,60}?\.(?:dll|so(?:\.\d{1,4}){0,3}))",
        "https://github.com/nanoporetech/medaka/issues/472",
    ),
)


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


RUNTIMES_PART: Final = DiagnosisPart(
    codes=(
        "JAX_CUDA_BACKEND_FAILED",
        "JAX_CUDA_NOT_INSTALLED",
        "JAX_CUDNN_LOAD_FAILED",
        "ONNXRUNTIME_CUDA_UNAVAILABLE",
        "CUDA_LIBRARIES_MIXED",
        "CUDA_OPTIONAL_SYMBOL_MISSING",
    ),
    signatures=(*JAX_SIGNATURES, *ONNXRUNTIME_SIGNATURES, *MIXED_SIGNATURES),
    suppresses={
        # "CUDA backend failed to initialize: Unable to load cuDNN": the cuDNN finding says why.
        "JAX_CUDNN_LOAD_FAILED": ("JAX_CUDA_BACKEND_FAILED",),
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
