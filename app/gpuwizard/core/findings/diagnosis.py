"""Known error messages in logs and tracebacks, recognised as findings (``gpuwizard diagnose``).

:func:`diagnose` reads what a framework, a probe, pip, uv or conda printed, or a traceback a
user pasted, and returns the findings it recognises: a stable code (docs/architecture.md,
"The command-line and JSON contract"), a plain-language message and the concrete fix, with the
values it read (the missing library, the GPU architecture, the package) as parameters. Text it
does not know gives no findings; :func:`diagnose_log` then quotes the error the log holds, if it
holds one (:mod:`gpuwizard.core.findings.unrecognised`), so that nothing goes unsaid.

Every signature is a regular expression with the code it stands for and the address of a real
report that shows the message; tests/fixtures/recorded/diagnose holds those logs. Several
findings may apply to one log, but each code appears once: its matches merge their values. A
specific finding suppresses a generic one that explains the same failure (the GPU architecture
warning explains the 'no kernel image' error that follows it).

Logs are often quoted inside JSON (a probe's report, a notebook's error) or wrapped by a
console: each is read in every way :func:`gpuwizard.core.findings.log_views.log_views` gives.

>>> [f.code for f in diagnose("AssertionError: Torch not compiled with CUDA enabled")]
['CPU_ONLY_BUILD']
>>> finding = diagnose("Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found")[0]
>>> finding.code, finding.params["libraries"], finding.params["components"]
('DLL_NOT_FOUND', 'cudart64_110.dll', 'CUDA 11')
>>> diagnose("Successfully installed numpy-2.1.3")
[]
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from gpuwizard.core.findings.diagnosis_containers import CONTAINERS_PART
from gpuwizard.core.findings.diagnosis_devices import DEVICES_PART
from gpuwizard.core.findings.diagnosis_extensions import EXTENSIONS_PART
from gpuwizard.core.findings.diagnosis_network import NETWORK_SIGNATURES, network_values
from gpuwizard.core.findings.diagnosis_packages import PACKAGES_PART
from gpuwizard.core.findings.diagnosis_platform import PLATFORM_PART
from gpuwizard.core.findings.diagnosis_python import PYTHON_PART
from gpuwizard.core.findings.diagnosis_runtimes import RUNTIMES_PART
from gpuwizard.core.findings.diagnosis_torch import TORCH_PART
from gpuwizard.core.findings.diagnosis_vendors import VENDORS_PART
from gpuwizard.core.findings.log_facts import capability_of_sm, forget_logs, gpu_name, read_log_facts
from gpuwizard.core.findings.log_views import log_views
from gpuwizard.core.findings.model import Finding, finding_to_json, make_finding, sort_findings
from gpuwizard.core.findings.signature import (
    OPTIONAL_LIBRARY,
    WINDOWS_LOG,
    DiagnosisPart,
    Refiner,
    Signature,
    Values,
)
from gpuwizard.core.findings.signature import sig as _sig
from gpuwizard.core.findings.unrecognised import (
    UnrecognisedError,
    unrecognised_error,
    unrecognised_error_to_json,
)

DIAGNOSIS_SCHEMA: Final = "gpuwizard.diagnosis/1"

#: The themes with modules of their own (each cites its sources), in the order they are tried.
PARTS: Final[tuple[DiagnosisPart, ...]] = (
    PACKAGES_PART,  # pip's, uv's, conda's and mamba's "no matching distribution"
    PLATFORM_PART,  # containers' NVML, Docker's runtime, Windows' paging file, XLA's ptxas
    TORCH_PART,  # PyTorch's own words: cuDNN, the driver, torchvision, cuBLAS
    CONTAINERS_PART,  # containers, Kubernetes, WSL 2
    RUNTIMES_PART,  # JAX, ONNX Runtime, several CUDA runtimes in one process
    DEVICES_PART,  # the kernel module, device visibility, MIG
    PYTHON_PART,  # Python versions without wheels, TensorFlow's DLL load failure on Windows
    EXTENSIONS_PART,  # bitsandbytes, xFormers, compiled extensions, TensorRT engines, web UIs
    VENDORS_PART,  # the vendors' own status names and numbers, the last resort
)

#: The codes the contract lists for the diagnosis of logs (docs/architecture.md,
#: "The command-line and JSON contract"), and the ones added here.
DIAGNOSIS_CODES: Final = (
    "DLL_NOT_FOUND",
    "CUDNN_INTERNAL_ERROR",
    "CUDNN_VERSION_MISMATCH",
    "NO_KERNEL_IMAGE",
    "GPU_ARCH_UNSUPPORTED",
    "DRIVER_TOO_OLD",
    "GPU_OUT_OF_MEMORY",
    "CPU_ONLY_BUILD",
    "ZLIBWAPI_MISSING",
    "TORCH_DLL_LOAD_FAILED",
    "NO_MATCHING_DISTRIBUTION",
    "TF_CANNOT_DLOPEN_GPU_LIBS",
    "NVML_DRIVER_LIBRARY_MISMATCH",
    "TENSORFLOW_GPU_PACKAGE_REMOVED",
    "LONG_PATHS_DISABLED",
    "MS_STORE_PYTHON",
    "PACKAGE_INDEX_UNREACHABLE",
    *(code for part in PARTS for code in part.codes),
)

#: Parameters that collect every value seen; the others keep the first one.
_LIST_PARAMS: Final = frozenset({"libraries", "requirements", "packages", "python"})

#: Windows' classic path limit (MAX_PATH, 260 including the final NUL): longer paths fail.
_MAX_PATH: Final = 260

#: A longer matched line is cut to this many characters in the ``evidence`` parameter.
_EVIDENCE_CHARS: Final = 240


# --- reading values out of matches --------------------------------------------------------

#: Libraries of the CUDA stack (a missing libGL.so.1 is not a GPU problem).
_GPU_LIBRARY: Final = re.compile(
    r"cud|cublas|cufft|curand|cusolver|cusparse|nvrtc|nvjitlink|nccl|cupti|nvtoolsext", re.IGNORECASE
)
#: The driver's own library: missing means no driver, not a missing toolkit.
_DRIVER_LIBRARY: Final = re.compile(r"libcuda\.so(?:\.\d+)*|nvcuda\.dll", re.IGNORECASE)


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


def _line_at(text: str, position: int) -> str:
    start = text.rfind("\n", 0, position) + 1
    end = text.find("\n", position)
    line = text[start : end if end >= 0 else len(text)].strip()
    return line if len(line) <= _EVIDENCE_CHARS else line[: _EVIDENCE_CHARS - 1] + "…"


_SUPPORTED_ARCHS: Final = re.compile(r"supports CUDA capabilities ((?:(?:sm|compute)_\d+a?\s*)+)")
_MINIMUM_CAPABILITY: Final = re.compile(
    r"minimum cuda capability (?:that we support|supported by this library) is (\d+\.\d+)"
)


def _arch_not_compiled(match: re.Match[str]) -> Values:
    text = match.string
    line_start = text.rfind("\n", 0, match.start()) + 1
    gpu = gpu_name(text[line_start : match.start()])
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


# --- the signatures -------------------------------------------------------------------------
# Patterns start with literal text and bound their repeats, so a long line costs linear time.

SIGNATURES: Final[tuple[Signature, ...]] = (
    # TensorFlow's loader (dso_loader.cc), Windows and Linux.
    _sig(
        "DLL_NOT_FOUND",
        r"Could not load dynamic library '(?P<library>[^'\n]{1,200})'",
        "https://github.com/tensorflow/tensorflow/issues/57103",
        _library,
    ),
    # cuDNN 8/9 on Windows, loading its own sub-libraries.
    _sig(
        "DLL_NOT_FOUND",
        r"Could not load library (?P<library>[\w.+-]{1,100}\.dll)\. Error code \d+",
        "https://github.com/tensorflow/tensorflow/issues/63702",
        _library,
    ),
    _sig(
        "DLL_NOT_FOUND",
        r"Could not locate (?P<library>[\w.+-]{1,100}\.dll)\. Please make sure it is in your library path",
        "https://github.com/ddean2009/MoneyPrinterPlus/issues/91",
        _library,
    ),
    # The dynamic loader on Linux (an ImportError of torch, or TensorFlow's dlerror text).
    _sig(
        "DLL_NOT_FOUND",
        r"(?P<library>lib[\w+-]{1,60}\.so(?:\.\d+){0,3}): cannot open shared object file",
        "https://github.com/pytorch/pytorch/issues/104259",
        _gpu_library,
    ),
    _sig(
        "TF_CANNOT_DLOPEN_GPU_LIBS",
        r"Cannot dlopen some GPU libraries",
        "https://github.com/tensorflow/tensorflow/issues/65035",
    ),
    _sig(
        "NO_KERNEL_IMAGE",
        r"no kernel image is available for execution on the device"
        r"|CUDA_ERROR_NO_BINARY_FOR_GPU|cudaErrorNoKernelImageForDevice",
        "https://github.com/pytorch/pytorch/issues/44828",
        flags=re.IGNORECASE,
    ),
    # PyTorch's warning when its build has no code for the GPU (torch/cuda/__init__.py).
    _sig(
        "GPU_ARCH_UNSUPPORTED",
        r"with CUDA capability (?P<capability>sm_\d+a?) is not compatible with the current PyTorch installation",
        "https://github.com/pytorch/pytorch/issues/52736",
        _arch_not_compiled,
        variant="log",
    ),
    # PyTorch's warning for GPUs older than its oldest supported generation.
    _sig(
        "GPU_ARCH_UNSUPPORTED",
        r"Found GPU\d+ (?P<gpu>[^\n]{1,100}?) which is of cuda capability (?P<capability>\d+\.\d+)",
        "https://github.com/pytorch/pytorch/issues/16712",
        _arch_too_old,
        variant="too_old",
    ),
    _sig(
        "DRIVER_TOO_OLD",
        r"The NVIDIA driver on your system is too old \(found version (?P<found>\d{1,9})\)",
        "https://github.com/wuhuikai/FastFCN/issues/37",
        _driver_found,
        variant="log_cuda",
    ),
    _sig(
        "DRIVER_TOO_OLD",
        r"CUDA driver version is insufficient for CUDA runtime version|cudaErrorInsufficientDriver",
        "https://github.com/tensorflow/tensorflow/issues/41401",
        variant="log",
    ),
    # PyTorch.
    _sig(
        "GPU_OUT_OF_MEMORY",
        r"CUDA out of memory\.?(?: Tried to allocate (?P<size>\d+(?:\.\d+)? ?[KMGT]?i?B))?",
        "https://github.com/pytorch/pytorch/issues/16417",
    ),
    # The CUDA runtime's own words (cudaErrorMemoryAllocation: "CUDA error: out of memory"), the
    # same error of PyTorch's ROCm build ("HIP out of memory"), and ComfyUI's wording.
    _sig(
        "GPU_OUT_OF_MEMORY",
        r"(?:CUDA|HIP) error: out of memory|cudaErrorMemoryAllocation"
        r"|HIP out of memory\.?(?: Tried to allocate (?P<size>\d+(?:\.\d+)? ?[KMGT]?i?B))?"
        r"|Allocation on device(?: \d{1,3})? would exceed allowed memory\. \(out of memory\)",
        "https://github.com/Comfy-Org/ComfyUI/issues/12360",
    ),
    # TensorFlow's allocator; 'device:CPU' in the same line is host memory.
    _sig(
        "GPU_OUT_OF_MEMORY",
        r"OOM when allocating tensor(?: with shape ?\[(?P<shape>[^\]\n]{0,200})\])?(?P<rest>[^\n]{0,300})",
        "https://github.com/Azure/MachineLearningNotebooks/issues/880",
        _oom_tensor,
    ),
    # TensorFlow's CUDA driver calls.
    _sig(
        "GPU_OUT_OF_MEMORY",
        r"(?:failed to allocate [\d.]{1,20}\w? \((?P<size>\d{1,20} bytes)\) from device: )?CUDA_ERROR_OUT_OF_MEMORY",
        "https://github.com/tensorflow/tensorflow/issues/30912",
    ),
    # XLA (JAX, TensorFlow with XLA).
    _sig(
        "GPU_OUT_OF_MEMORY",
        r"RESOURCE_EXHAUSTED: Out of memory (?:while trying to allocate|allocating) (?P<size>\d{1,20} bytes)",
        "https://github.com/sokrypton/ColabFold/issues/65",
    ),
    _sig(
        "CPU_ONLY_BUILD",
        r"Torch not compiled with CUDA enabled",
        "https://github.com/pytorch/torchchat/issues/587",
        variant="pytorch",
    ),
    _sig(
        "ZLIBWAPI_MISSING",
        r"Could not (?:locate|load library) zlibwapi\.dll",
        "https://github.com/AlexeyAB/darknet/issues/8551",
    ),
    # torch/__init__.py on Windows; any language of the WinError text, quotes maybe escaped.
    _sig(
        "TORCH_DLL_LOAD_FAILED",
        r'Error loading\s{1,40}\\?"?(?P<path>[^"\n]{0,400}?torch[\\/]{1,4}lib[\\/]{1,4}(?P<library>[\w.+-]{1,80}\.dll))',
        "https://github.com/pytorch/pytorch/issues/133397",
        _torch_dll,
    ),
    _sig(
        "TENSORFLOW_GPU_PACKAGE_REMOVED",
        r'The "tensorflow-gpu" package has been removed',
        "https://github.com/dionhaefner/pyhpc-benchmarks/issues/17",
        variant="log",
    ),
    # The empty 2.12.0 package that replaced tensorflow-gpu, when pip hides its message.
    _sig(
        "TENSORFLOW_GPU_PACKAGE_REMOVED",
        r"tensorflow[-_]gpu-2\.12\.0\.tar\.gz",
        "https://github.com/googlecolab/colabtools/issues/4431",
        variant="log",
    ),
    _sig(
        "NVML_DRIVER_LIBRARY_MISMATCH",
        r"Failed to initialize NVML: Driver/library version mismatch",
        "https://github.com/mozilla/translations/issues/1167",
        _nvml_mismatch,
        flags=re.IGNORECASE,  # "Driver/Library version mismatch" in some driver releases
    ),
    _sig(
        "CUDNN_INTERNAL_ERROR",
        r"CUDNN_STATUS_INTERNAL_ERROR|Failed to get convolution algorithm\. This is probably because cuDNN failed",
        "https://github.com/tensorflow/tensorflow/issues/40646",
    ),
    _sig(
        "CUDNN_VERSION_MISMATCH",
        r"Loaded runtime CuDNN library: (?P<loaded>\d+\.\d+\.\d+) but source was compiled with: "
        r"(?P<compiled>\d+\.\d+\.\d+)",
        "https://github.com/google-research/deeplab2/issues/66",
        _cudnn_mismatch,
    ),
    # pip adds this hint for such paths since pypa/pip#10046 (2021).
    _sig(
        "LONG_PATHS_DISABLED",
        r"does not have Windows Long Path support enabled",
        "https://github.com/vulncheck-oss/sdk-python/issues/1",
        variant="log",
    ),
    # Older pip: only the error, with a path too long for Windows.
    _sig(
        "LONG_PATHS_DISABLED",
        r"Could not install packages due to an? (?:OSError|EnvironmentError): \[Errno 2\]\s{0,20}"
        r"No such file or directory: '(?P<path>[^'\n]{1,2000})'",
        "https://github.com/tensorflow/tensorflow/issues/51841",
        _long_path,
        variant="log",
    ),
    # The Store's package family name, in WindowsApps or AppData\Local\Packages paths.
    _sig(
        "MS_STORE_PYTHON",
        r"PythonSoftwareFoundation\.Python\.(?P<python>3\.\d{1,2})_",
        "https://github.com/vulncheck-oss/sdk-python/issues/1",
        _store_python,
        variant="log",
        flags=re.IGNORECASE,
    ),
    # pip's and uv's words for a package index that cannot be reached (diagnosis_network.py).
    *NETWORK_SIGNATURES,
    # The themes with modules of their own.
    *(signature for part in PARTS for signature in part.signatures),
)

#: A finding of the key explains the same failure as the ones listed: those are dropped.
_SUPPRESSES: Final[Mapping[str, tuple[str, ...]]] = {
    "GPU_ARCH_UNSUPPORTED": ("NO_KERNEL_IMAGE",),
    "CUDNN_VERSION_MISMATCH": ("CUDNN_INTERNAL_ERROR",),
    # pip ends a failed connection with "No matching distribution found": the index was never read.
    "PACKAGE_INDEX_UNREACHABLE": ("NO_MATCHING_DISTRIBUTION",),
}


def _merged_suppressions(parts: Sequence[DiagnosisPart]) -> dict[str, tuple[str, ...]]:
    merged: dict[str, list[str]] = {code: list(others) for code, others in _SUPPRESSES.items()}
    for part in parts:
        for code, others in part.suppresses.items():
            known = merged.setdefault(code, [])
            known.extend(other for other in others if other not in known)
    return {code: tuple(others) for code, others in merged.items()}


#: Every suppression, this module's and the parts'.
SUPPRESSIONS: Final = _merged_suppressions(PARTS)
#: How the parts choose the variants of their codes from the whole log.
_REFINERS: Final[dict[str, Refiner]] = {
    code: refine for part in PARTS for code, refine in part.refiners.items()
}


@dataclass
class _Hit:
    """What the matches of one code found: where first, and all the values read."""

    position: int
    evidence: str
    values: dict[str, list[str]] = field(default_factory=dict)
    variants: list[str] = field(default_factory=list)

    def add(self, values: Values, variant: str | None) -> None:
        for name, value in values.items():
            seen = self.values.setdefault(name, [])
            for item in [value] if isinstance(value, str) else value:
                if item and item not in seen:
                    seen.append(item)
        if variant and variant not in self.variants:
            self.variants.append(variant)

    def first(self, name: str) -> str | None:
        values = self.values.get(name)
        return values[0] if values else None


def diagnose(text: str) -> list[Finding]:
    """The findings whose known messages appear in ``text``: errors first, then by first appearance."""
    try:
        return _diagnose(text)
    finally:
        forget_logs()  # what the signatures remembered of this log (log_facts.per_log)


def _diagnose(text: str) -> list[Finding]:
    hits: dict[str, _Hit] = {}
    for view in log_views(text):
        # One substring search passes a signature over unless its fixed text is in the log
        # (signature.required_literal); the view in lower case is made once, when first needed.
        lowered = functools.cache(view.lower)
        for signature in SIGNATURES:
            if not signature.may_match(view, lowered):
                continue
            for match in signature.pattern.finditer(view):
                values = signature.values(match)
                if values is None:
                    continue
                hit = hits.get(signature.code)
                if hit is None:
                    hit = hits[signature.code] = _Hit(match.start(), _line_at(view, match.start()))
                elif match.start() < hit.position:
                    hit.position, hit.evidence = match.start(), _line_at(view, match.start())
                hit.add(values, signature.variant)
    _imply(hits)
    # In WSL 2 the driver's libcuda lives in /usr/lib/wsl/lib: WSL_LIBCUDA_NOT_FOUND says so, where
    # DLL_NOT_FOUND of the driver's library alone would say "install a driver".
    dll = hits.get("DLL_NOT_FOUND")
    if (
        dll
        and "WSL_LIBCUDA_NOT_FOUND" in hits
        and all(_DRIVER_LIBRARY.fullmatch(library) for library in dll.values.get("libraries", []))
    ):
        hits.pop("DLL_NOT_FOUND")
    for code, suppressed in SUPPRESSIONS.items():
        if code in hits:
            for other in suppressed:
                hits.pop(other, None)
    ordered = sorted(hits.items(), key=lambda item: item[1].position)
    return sort_findings([_finding(code, hit, text) for code, hit in ordered])


@dataclass(frozen=True)
class Diagnosis:
    """What a log shows: the findings recognised, or else the error no finding explains (if any)."""

    findings: tuple[Finding, ...]
    unrecognised: UnrecognisedError | None


def diagnose_log(text: str) -> Diagnosis:
    """The findings of ``text`` (:func:`diagnose`) and, when there are none, its unrecognised error."""
    return diagnosis_of(text, diagnose(text))


def diagnosis_of(text: str, findings: Sequence[Finding]) -> Diagnosis:
    """The diagnosis of ``text`` whose findings are known (made exact for a machine, say).

    The log's error is quoted only when nothing was recognised: a finding already explains it.
    """
    return Diagnosis(tuple(findings), None if findings else unrecognised_error(text))


def diagnosis_to_json(
    findings: Sequence[Finding], unrecognised: UnrecognisedError | None = None
) -> dict[str, object]:
    """The output of ``gpuwizard diagnose --json`` (schema ``gpuwizard.diagnosis/1``)."""
    return {
        "schema": DIAGNOSIS_SCHEMA,
        "findings": [finding_to_json(finding) for finding in findings],
        "unrecognised_error": unrecognised_error_to_json(unrecognised),
    }


def _imply(hits: dict[str, _Hit]) -> None:
    """Add the findings that other findings imply."""
    missing = hits.get("NO_MATCHING_DISTRIBUTION")
    if missing and "tensorflow-gpu" in missing.values.get("packages", []):
        removed = hits.setdefault("TENSORFLOW_GPU_PACKAGE_REMOVED", _Hit(missing.position, missing.evidence))
        removed.add({"requirements": missing.values["requirements"]}, "log")


#: The GPU generations whose builds differ (resources/findings/logs.json, NO_KERNEL_IMAGE, cites them): below
#: Maxwell (5.0) Kepler, below Turing (7.5) the CUDA 12.6 builds only, from Blackwell (10.0) the
#: CUDA 12.8 and newer ones only.
_MAXWELL: Final = (5, 0)
_TURING: Final = (7, 5)
_BLACKWELL: Final = (10, 0)


def _by_generation(
    code: str, variant: str | None, params: dict[str, object], text: str
) -> tuple[str | None, dict[str, object]]:
    """The variant of an architecture finding for the GPU generation the log names, if it does."""
    named = params.get("capability")
    sm = re.fullmatch(r"sm_(\d{2,3})a?", named) if isinstance(named, str) else None  # sm_90a is 9.0
    capability = capability_of_sm(sm.group(1)) if sm else read_log_facts(text).gpu_capability
    if capability is None:
        return variant, params
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
        return (f"log_{generation}" if generation != "kepler" else variant), params
    return generation, {"capability": capability, **params}


def _fbgemm_of_2_4_0(hit: _Hit, text: str) -> bool:
    """fbgemm.dll, and no torch version but 2.4.0 in the log (pytorch/pytorch#129568)."""
    version = read_log_facts(text).framework_version
    return (hit.first("library") or "").lower() == "fbgemm.dll" and version in (None, "2.4.0")


def _finding(code: str, hit: _Hit, text: str) -> Finding:
    params: dict[str, object] = {
        name: values if name in _LIST_PARAMS else values[0] for name, values in hit.values.items()
    }
    params["evidence"] = hit.evidence
    variant = hit.variants[0] if hit.variants else None
    if code == "DLL_NOT_FOUND":
        libraries = hit.values.get("libraries", [])
        components = _components(libraries)
        if libraries and all(_DRIVER_LIBRARY.fullmatch(library) for library in libraries):
            variant = "driver"
        elif components:
            variant, params["components"] = "cuda", components
    elif code == "CPU_ONLY_BUILD" and read_log_facts(text).os_family == "darwin":
        variant = "macos"
    elif code == "CUDNN_INTERNAL_ERROR" and read_log_facts(text).frameworks[:1] == ("pytorch",):
        variant = "torch"
    elif code == "TORCH_DLL_LOAD_FAILED" and _fbgemm_of_2_4_0(hit, text):
        variant = "fbgemm"
    elif code == "NO_KERNEL_IMAGE" or (code == "GPU_ARCH_UNSUPPORTED" and variant == "log"):
        variant, params = _by_generation(code, variant, params, text)
    elif code == "TF_CANNOT_DLOPEN_GPU_LIBS" and WINDOWS_LOG.search(text):
        variant = "windows"
    elif code == "DRIVER_TOO_OLD":
        variant = "log_cuda" if "driver_cuda" in hit.values else "log"
    elif code == "PACKAGE_INDEX_UNREACHABLE":
        variant, found = network_values(hit.values, text)
        params.update(found)
    elif code == "GPU_OUT_OF_MEMORY" and "size" in hit.values:
        variant = "size"
    elif refine := _REFINERS.get(code):
        variant, extra = refine(hit.values, hit.variants, text)
        params.update(extra)
    return make_finding(code, variant=variant, **params)
