"""Failures on GPUs other than NVIDIA's: AMD's ROCm, Intel's XPU (oneAPI), Apple's MPS.

Part of :mod:`gpuwizard.core.findings.diagnosis`. The signatures and their texts are data in
``resources/findings/accelerators.json``, each with the source of its words and a public report
that shows it (tests/fixtures/recorded/diagnose, SOURCES.md).

- ``ROCM_GPU_TARGET_NOT_IN_BUILD``: the program (or rocBLAS, or Ollama's ROCm libraries) has no
  code for the GPU's gfx target. Besides its own signatures, it is what HIP's own values say for
  a kernel without code for the GPU (:data:`_HIP_CAUSES`): wherever the vendors part reads
  hipErrorNoBinaryForGpu or hipErrorInvalidDeviceFunction, by name or by the text
  hipGetErrorString prints for it ("HIP error: invalid device function"), this finding explains it.
- ``ROCM_NO_DEVICE``: the ROCm runtime sees no GPU (hipErrorNoDevice likewise); ``kfd`` where it
  could not open /dev/kfd at all, ``windows`` for the HIP SDK on Windows.
- ``ROCM_KFD_PERMISSION_DENIED``: /dev/kfd not readable for this user; ``ROCM_RUNTIME_MISSING``:
  a ROCm library the loader did not find (``hip``: libamdhip64.so.N names ROCm's major release).
- ``XPU_NO_DEVICE``, ``XPU_RUNTIME_MISSING`` (``level_zero``, ``oneapi``): Intel's GPU stack.
- ``MPS_OP_NOT_IMPLEMENTED``, ``MPS_OUT_OF_MEMORY``, ``MPS_DTYPE_UNSUPPORTED``,
  ``MPS_BACKEND_UNAVAILABLE``: PyTorch's MPS backend.

>>> from gpuwizard.core.findings.diagnosis import diagnose
>>> [finding] = diagnose("RuntimeError: HIP error: invalid device function")
>>> finding.code, finding.params["hip_error"]
('ROCM_GPU_TARGET_NOT_IN_BUILD', 'hipErrorInvalidDeviceFunction')
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Final

from gpuwizard.core.findings.log_facts import per_log, shows_windows
from gpuwizard.core.findings.signature import DiagnosisPart, Hit, Values, search_log

#: HIP values whose makers' words name the cause (hipGetErrorString, ROCm/clr hip_error.cpp): the
#: finding that explains them. hipErrorNoBinaryForGpu is "no kernel image is available for
#: execution on the device" and what clr's code-object lookup reports; hipErrorInvalidDeviceFunction
#: ("invalid device function") is what a launch of a kernel without code for the GPU returns;
#: hipErrorNoDevice is "no ROCm-capable device is detected".
_HIP_CAUSES: Final = {
    "hipErrorNoBinaryForGpu": "ROCM_GPU_TARGET_NOT_IN_BUILD",
    "hipErrorInvalidDeviceFunction": "ROCM_GPU_TARGET_NOT_IN_BUILD",
    "hipErrorNoDevice": "ROCM_NO_DEVICE",
}
#: The vendors part's generic findings, which these explain better.
_GENERIC: Final = ("VENDOR_HIP_ERROR", "VENDOR_LIBRARY_STATUS", "LIBRARY_NOT_LOADED")

# --- the GPU's gfx target, where the log names it ------------------------------------------------

#: Where a log names the GPU's target: clr's list of devices without code ("amdgcn-amd-amdhsa--gfx1031
#: - [Not Found]", hip_code_object.cpp) and rocminfo's agents ("Name:   gfx1032").
_LOG_GFX: Final = (
    re.compile(r"amdgcn-amd-amdhsa--(?P<gfx>gfx[0-9a-f]{3,5})[\w:+-]{0,40} - \[Not Found\]"),
    re.compile(r"^[ \t]{0,8}Name:[ \t]{1,40}(?P<gfx>gfx[0-9a-f]{3,5})\b", re.MULTILINE),
)


@per_log
def _log_gfx(text: str) -> str | None:
    """The GPU's gfx target as the log names it, if it does (asked once per log)."""
    for pattern in _LOG_GFX:
        if found := search_log(pattern, text):
            return found.group("gfx")
    return None


def _target_variant(
    values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    """The variant of rocBLAS's or Ollama's words where they are the log's; else ``gfx`` where the target is known."""
    if variants:
        return variants[0], {}
    read = values.get("gfx", ())
    gfx = read[0] if read else _log_gfx(text)
    return ("gfx", {"gfx": gfx}) if gfx else (None, {})


def _no_device_variant(
    _values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    if variants:
        return variants[0], {}
    return ("windows" if shows_windows(text) else None), {}


# --- libraries the loader did not find -----------------------------------------------------------

#: What each ROCm library is, by its name without "lib" and version (ROCm's component names).
_ROCM_COMPONENTS: Final = {
    "amdhip64": "HIP runtime",
    "hsa-runtime64": "ROCm runtime (HSA)",
    "hsakmt": "ROCm thunk",
    "rocblas": "rocBLAS",
    "hipblas": "hipBLAS",
    "hipblaslt": "hipBLASLt",
    "MIOpen": "MIOpen",
    "rccl": "RCCL",
    "rocsolver": "rocSOLVER",
    "hipsolver": "hipSOLVER",
    "rocsparse": "rocSPARSE",
    "hipsparse": "hipSPARSE",
    "rocrand": "rocRAND",
    "hiprand": "hipRAND",
    "rocfft": "rocFFT",
    "hipfft": "hipFFT",
    "roctx64": "ROCTX",
    "rocm_smi64": "ROCm SMI",
    "amd_smi": "AMD SMI",
}
_SONAME: Final = re.compile(r"lib(?P<stem>[\w+-]+?)\.so(?:\.(?P<major>\d+))?")


def _rocm_library(match: re.Match[str]) -> Values | None:
    """A ROCm library the loader did not find; libamdhip64.so.N names ROCm's release N."""
    library = match.group("library")
    name = _SONAME.match(library)
    if name is None:
        return None
    values: Values = {"library": library, "component": _ROCM_COMPONENTS.get(name.group("stem"), "ROCm")}
    if name.group("stem") == "amdhip64" and name.group("major"):
        values["rocm"] = name.group("major")  # HIP_VERSION_MAJOR (ROCm/clr hipamd/src/CMakeLists.txt)
    return values


def _rocm_variant(
    values: Mapping[str, Sequence[str]], _variants: Sequence[str], _text: str
) -> tuple[str | None, dict[str, object]]:
    return ("hip" if values.get("rocm") else None), {}


#: Where a log shows Intel's GPU stack: only then is a missing oneMKL library about it (CPU builds
#: of PyTorch and NumPy load oneMKL too).
_INTEL_GPU_STACK: Final = re.compile(
    r"intel_extension_for_pytorch|ipex|\bxpu\b|sycl|oneapi|level.zero", re.IGNORECASE
)


@per_log
def _shows_intel_gpu_stack(text: str) -> bool:
    return search_log(_INTEL_GPU_STACK, text) is not None


def _oneapi_library(match: re.Match[str]) -> Values | None:
    """A library of Intel's GPU stack the loader did not find: Level Zero's, or oneAPI's runtime."""
    library = match.group("library")
    if library.startswith(("libze_loader", "libze_intel_gpu")):
        return {"library": library, "component": "Level Zero", "stack": "level_zero"}
    if library.startswith("libmkl_") and not _shows_intel_gpu_stack(match.string):
        return None
    component = "oneMKL" if library.startswith("libmkl_") else "SYCL runtime"
    if library.startswith("libur_"):
        component = "Unified Runtime"
    return {"library": library, "component": component, "stack": "oneapi"}


def _oneapi_variant(
    values: Mapping[str, Sequence[str]], _variants: Sequence[str], _text: str
) -> tuple[str | None, dict[str, object]]:
    # The driver's loader first: without it nothing of the stack works.
    stacks = values.get("stack", ["oneapi"])
    return ("level_zero" if "level_zero" in stacks else "oneapi"), {}


# --- MPS -----------------------------------------------------------------------------------------

#: The names PyTorch gives 64-bit floating types (its ScalarType names and the dtype's).
_FLOAT64: Final = frozenset({"float64", "Double", "ComplexDouble"})


def _dtype_variant(
    values: Mapping[str, Sequence[str]], _variants: Sequence[str], _text: str
) -> tuple[str | None, dict[str, object]]:
    return ("float64" if set(values.get("dtype", ())) & _FLOAT64 else None), {}


def _memory_variant(
    values: Mapping[str, Sequence[str]], _variants: Sequence[str], _text: str
) -> tuple[str | None, dict[str, object]]:
    return ("sizes" if values.get("allocated") else None), {}


# --- what HIP's own values say -------------------------------------------------------------------


def _hip_causes(hits: dict[str, Hit], _text: str) -> None:
    """HIP values whose meaning is a cause give that cause's finding (the vendors part read them)."""
    hip = hits.get("VENDOR_HIP_ERROR")
    if hip is None:
        return
    for name in hip.values.get("name", []):
        if code := _HIP_CAUSES.get(name):
            hits.setdefault(code, Hit(hip.position, hip.evidence)).add({"hip_error": name}, None)


def _loaded_elsewhere(hits: dict[str, Hit], _text: str) -> None:
    """A library these findings name is no "library the GPU needs" of the CUDA stack besides."""
    dll = hits.get("DLL_NOT_FOUND")
    mine = {
        library
        for code in ("ROCM_RUNTIME_MISSING", "XPU_RUNTIME_MISSING")
        if code in hits
        for library in hits[code].values.get("library", [])
    }
    if dll and mine and set(dll.values.get("libraries", [])) <= mine:
        hits.pop("DLL_NOT_FOUND")


#: Every code of this part (its signatures' and its rule's).
_CODES: Final = (
    "ROCM_GPU_TARGET_NOT_IN_BUILD",
    "ROCM_NO_DEVICE",
    "ROCM_KFD_PERMISSION_DENIED",
    "ROCM_RUNTIME_MISSING",
    "XPU_NO_DEVICE",
    "XPU_RUNTIME_MISSING",
    "MPS_OP_NOT_IMPLEMENTED",
    "MPS_OUT_OF_MEMORY",
    "MPS_DTYPE_UNSUPPORTED",
    "MPS_BACKEND_UNAVAILABLE",
)

ACCELERATORS_PART: Final = DiagnosisPart(
    name="accelerators",
    extractors=(_rocm_library, _oneapi_library),
    suppresses={
        **dict.fromkeys(_CODES, _GENERIC),
        # HIP's "no kernel image is available" is the CUDA runtime's words too: the ROCm advice fits.
        "ROCM_GPU_TARGET_NOT_IN_BUILD": (*_GENERIC, "NO_KERNEL_IMAGE"),
        # Permission on /dev/kfd is why no device was found.
        "ROCM_KFD_PERMISSION_DENIED": (*_GENERIC, "ROCM_NO_DEVICE"),
        # torch.OutOfMemoryError is raised for MPS too: the MPS advice fits.
        "MPS_OUT_OF_MEMORY": (*_GENERIC, "GPU_OUT_OF_MEMORY"),
    },
    refiners={
        "ROCM_GPU_TARGET_NOT_IN_BUILD": _target_variant,
        "ROCM_NO_DEVICE": _no_device_variant,
        "ROCM_RUNTIME_MISSING": _rocm_variant,
        "XPU_RUNTIME_MISSING": _oneapi_variant,
        "MPS_DTYPE_UNSUPPORTED": _dtype_variant,
        "MPS_OUT_OF_MEMORY": _memory_variant,
    },
    rules=(_hip_causes, _loaded_elsewhere),
    implies=("ROCM_GPU_TARGET_NOT_IN_BUILD", "ROCM_NO_DEVICE"),
)
