"""The vendors' own error vocabularies, recognised in any log: the last resort of a diagnosis.

Part of :mod:`gpuwizard.core.findings.diagnosis`, tried after every theme that knows a failure
by its cause. The vocabularies are data, written by tools/vocabularies.py from their makers' files
(resources/vocabularies/<name>.json, each entry with its source): the CUDA runtime's and driver's
status names, cuDNN's, cuBLAS's, NCCL's and NVML's, the Windows error numbers and NTSTATUS values
loaders print, and which package ships which Linux library of the CUDA stack; for AMD's ROCm, HIP's
hipError_t (with the text hipGetErrorString prints for each, which "HIP error: ..." quotes), the
HSA runtime's and rocBLAS's statuses; for Intel's oneAPI, Level Zero's, the Unified Runtime's and
SYCL's older PI result codes.

A log that shows one of these gets a finding that names the component and what the vendor says the
value means. Any finding of another part explains the failure better (it knows the cause), so each
of those suppresses these generic ones.

>>> from gpuwizard.core.findings.diagnosis import diagnose
>>> [finding] = diagnose("RuntimeError: NCCL error: ncclUnhandledCudaError")
>>> finding.code, finding.params["component"], finding.params["number"]
('VENDOR_LIBRARY_STATUS', 'NCCL', '1')
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Final

from gpuwizard.core.findings.catalog import CATALOG
from gpuwizard.core.findings.log_facts import shows_windows
from gpuwizard.core.findings.signature import OPTIONAL_LIBRARY, DiagnosisPart, Values
from gpuwizard.core.findings.vocabularies import Entry, windows_codes
from gpuwizard.core.findings.vocabularies import entries as _entries

#: The vocabularies of status values, and the finding code each one's values give.
_STATUS_VOCABULARIES: Final = {
    "cuda-runtime": "VENDOR_CUDA_ERROR",
    "cuda-driver": "VENDOR_CUDA_ERROR",
    "cudnn": "VENDOR_LIBRARY_STATUS",
    "cublas": "VENDOR_LIBRARY_STATUS",
    "cufft": "VENDOR_LIBRARY_STATUS",
    "cusolver": "VENDOR_LIBRARY_STATUS",
    "cusparse": "VENDOR_LIBRARY_STATUS",
    "nccl": "VENDOR_LIBRARY_STATUS",
    "nvml": "VENDOR_LIBRARY_STATUS",
    "hip-runtime": "VENDOR_HIP_ERROR",
    "hsa-runtime": "VENDOR_LIBRARY_STATUS",
    "rocblas": "VENDOR_LIBRARY_STATUS",
    "level-zero": "VENDOR_LIBRARY_STATUS",
    "unified-runtime": "VENDOR_LIBRARY_STATUS",
    "sycl-pi": "VENDOR_LIBRARY_STATUS",
}
#: The software stack of the vocabularies that are not NVIDIA's: the variant whose advice fits it.
_STACKS: Final = {
    "hip-runtime": "rocm",
    "hsa-runtime": "rocm",
    "rocblas": "rocm",
    "level-zero": "oneapi",
    "unified-runtime": "oneapi",
    "sycl-pi": "oneapi",
}
CODES: Final = (
    "VENDOR_CUDA_ERROR",
    "VENDOR_HIP_ERROR",
    "VENDOR_LIBRARY_STATUS",
    "WINDOWS_ERROR_CODE",
    "LIBRARY_NOT_LOADED",
)

#: Values whose vendor text means the driver is older than the CUDA the program was built for
#: (the CUDA driver API's documentation of each; cuda.h, driver_types.h): update the driver.
_DRIVER_TOO_OLD: Final = frozenset(
    {
        "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
        "cudaErrorUnsupportedPtxVersion",
        "cudaErrorInsufficientDriver",
        "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE",
        "cudaErrorCompatNotSupportedOnDevice",
        "NVML_ERROR_LIB_RM_VERSION_MISMATCH",
        # "the installed ... driver is older than the runtime" (clr's hipGetErrorString: "driver
        # version is insufficient for runtime version"): the amdgpu driver, the same advice.
        "hipErrorInsufficientDriver",
    }
)


#: Status names (not their success values) by name, with the finding code they give.
STATUS_NAMES: Final[dict[str, tuple[str, Entry]]] = {
    entry.name: (code, entry)
    for vocabulary, code in _STATUS_VOCABULARIES.items()
    for entry in _entries(vocabulary)
    if entry.number != 0
}
#: The stack (``rocm``, ``oneapi``) of each status name that is not NVIDIA's.
NAME_STACKS: Final[dict[str, str]] = {
    entry.name: stack for vocabulary, stack in _STACKS.items() for entry in _entries(vocabulary)
}
#: HIP's values by the text hipGetErrorString prints for them (in lower case), and by number; a
#: text or number two names share (a deprecated alias) is the first name's, as the header lists them.
HIP_PRINTED: Final[dict[str, Entry]] = {}
HIP_NUMBERS: Final[dict[int, Entry]] = {}


def _hip_tables() -> None:
    for entry in _entries("hip-runtime"):
        if entry.number:
            HIP_NUMBERS.setdefault(entry.number, entry)
            if entry.printed:
                HIP_PRINTED.setdefault(entry.printed.lower(), entry)


_hip_tables()
_RUNTIME_NUMBERS: Final = {entry.number: entry for entry in _entries("cuda-runtime") if entry.number}
_DRIVER_NUMBERS: Final = {entry.number: entry for entry in _entries("cuda-driver") if entry.number}
#: The Windows codes loaders print, by their unsigned number.
WINDOWS_CODES: Final = windows_codes()
#: The Linux libraries of the CUDA stack by soname, and by name without its version.
LIBRARIES: Final[dict[str, Entry]] = {entry.name: entry for entry in _entries("libraries")}
_LIBRARY_STEMS: Final[dict[str, Entry]] = {
    name.split(".so", 1)[0]: entry for name, entry in LIBRARIES.items()
}
#: NTSTATUS values have their top bit set: above this a number is one (the others are small).
_NTSTATUS_BASE: Final = 0xC0000000
#: Below this a system error number is too common a number to read as one without "WinError".
_BARE_NUMBER_MINIMUM: Final = 100


def _status_name(match: re.Match[str]) -> Values | None:
    known = STATUS_NAMES.get(match.group("name"))
    if known is None:
        return None
    return _entry_values(known[1])


def _entry_values(entry: Entry) -> Values:
    values: Values = {
        "name": entry.name,
        "number": str(entry.number),
        "meaning": entry.message,
        "component": entry.component,
    }
    if stack := NAME_STACKS.get(entry.name):
        values["stack"] = stack
    return values


def _hip_printed(match: re.Match[str]) -> Values | None:
    """HIP's own text after "HIP error: " (hipGetErrorString), read back to the value it stands for.

    The longest text of the vocabulary the quoted one begins with, ending at a word's end: "invalid
    device function" is hipErrorInvalidDeviceFunction, "invalid device ordinal" another value.
    """
    quoted = (match.group("printed") or match.group("printed2") or "").strip().lower()
    best: Entry | None = None
    for text, entry in HIP_PRINTED.items():
        if (
            quoted.startswith(text)
            and (len(quoted) == len(text) or not quoted[len(text)].isalnum())
            and (best is None or len(text) > len(best.printed))
        ):
            best = entry
    return _entry_values(best) if best else None


def _hip_number(match: re.Match[str]) -> Values | None:
    """HIP's value by its number, where a tool prints it beside HIP's text (hipInfo: "error = 0100")."""
    entry = HIP_NUMBERS.get(int(match.group("number")))
    return _entry_values(entry) if entry else None


def _cuda_number(match: re.Match[str]) -> Values | None:
    table = _DRIVER_NUMBERS if match.group("driver") or match.group("driver2") else _RUNTIME_NUMBERS
    entry = table.get(int(match.group("number")))
    return _entry_values(entry) if entry else None


def _number_texts(codes: Mapping[int, Entry]) -> tuple[str, ...]:
    """The texts one of which a counted Windows number holds: what the one-pass search looks for.

    A bare number counts from :data:`_BARE_NUMBER_MINIMUM` (its decimal digits; a negative exit
    status holds those of its two's complement), a hexadecimal one in either case of its digits
    (NTSTATUS values all begin ``C000``).
    """
    texts: list[str] = []
    for number in codes:
        if number >= _BARE_NUMBER_MINIMUM:
            texts.append(str(number))
        if number >= _NTSTATUS_BASE:
            texts.append(str((1 << 32) - number))  # -1073741515 is 0xC0000135
        texts += [f"{number:08X}", f"{number:08x}"]
    return tuple(dict.fromkeys(texts))


def _windows_code(match: re.Match[str]) -> Values | None:
    text = match.group("number")
    number = int(text, 16) if text.lower().startswith("0x") else int(text)
    if number < 0:
        number += 1 << 32  # a signed exit status: -1073741515 is 0xC0000135
    entry = WINDOWS_CODES.get(number)
    if entry is None:
        return None
    hexed = text.lower().startswith("0x") or number >= _NTSTATUS_BASE
    # A bare number counts only in a Windows log, and only when it is not a small one.
    bare = not hexed and not match.groupdict().get("winerror")
    # (Asked once per log: a Linux log repeating "exit code 127" must not be read whole per line.)
    if bare and (number < _BARE_NUMBER_MINIMUM or not shows_windows(match.string)):
        return None
    return {
        "name": entry.name,
        "number": str(entry.number),
        "hex": entry.hex,
        "meaning": entry.message,
    }


def _windows_number(match: re.Match[str]) -> Values | None:
    """A Windows number after a tool's own words ("exit code", "returned"): never a bare small one."""
    return _windows_code(match)


# Read over whole logs where "error" is on every line: only around the numbers it can count.
_windows_number.needles = _number_texts(WINDOWS_CODES)  # type: ignore[attr-defined]


def library_entry(library: str) -> Entry | None:
    """The vocabulary's entry for a Linux library name (``libcudnn_ops.so.9``), if it knows it."""
    if known := LIBRARIES.get(library):
        return known
    stem, _, version = library.partition(".so")
    like = _LIBRARY_STEMS.get(stem)
    if like is None:
        return None
    major = version.lstrip(".").split(".")[0]
    family = like.message.replace(str(like.number), major) if major.isdigit() else like.component
    return Entry(library, int(major) if major.isdigit() else 0, family, like.component, package=like.package)


def _library(match: re.Match[str], reason: str) -> Values | None:
    if reason == "missing" and OPTIONAL_LIBRARY.search(match.group("library")):
        return None  # TensorRT, optional for TensorFlow: its absence is only a notice
    entry = library_entry(match.group("library"))
    if entry is None:
        return None
    values: Values = {"library": entry.name, "component": entry.message, "reason": reason}
    if entry.package:
        values["package"] = entry.package
    if symbol := match.groupdict().get("symbol"):
        values["symbol"] = symbol
    return values


def _missing_library(match: re.Match[str]) -> Values | None:
    """A library the loader could not find (``cannot open shared object file``)."""
    return _library(match, "missing")


def _missing_symbol(match: re.Match[str]) -> Values | None:
    """A library the loader found without a symbol its caller needs (``undefined symbol``)."""
    return _library(match, "symbol")


def _vendor_variant(
    values: Mapping[str, Sequence[str]], _variants: Sequence[str], _text: str
) -> tuple[str | None, dict[str, object]]:
    return ("driver" if set(values.get("name", ())) & _DRIVER_TOO_OLD else None), {}


def _library_status_variant(
    values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    variant, extra = _vendor_variant(values, variants, text)
    # ROCm's and oneAPI's statuses: advice for their stack, not for NVIDIA's driver.
    stacks = values.get("stack", ())
    return (variant or (stacks[0] if stacks else None)), extra


#: What libraries.json names as the package of the libraries the driver installs.
_DRIVER_PACKAGE: Final = "NVIDIA driver"


def _library_variant(
    values: Mapping[str, Sequence[str]], _variants: Sequence[str], _text: str
) -> tuple[str | None, dict[str, object]]:
    reasons = values.get("reason", ["missing"])
    if reasons[0] == "missing" and _DRIVER_PACKAGE in values.get("package", ()):
        return "driver", {}  # libcuda, libnvidia-ml: the driver installs them, no package does
    return reasons[0], {}


#: Every other finding (even a notice: an optional symbol) names a cause: it explains the failure better than these generic ones.
_SPECIFIC: Final = tuple(code for code in CATALOG if ":" not in code and code not in CODES)

VENDORS_PART: Final = DiagnosisPart(
    name="vendors",
    extractors=(
        _status_name,
        _hip_printed,
        _hip_number,
        _cuda_number,
        _windows_code,
        _windows_number,
        _missing_library,
        _missing_symbol,
    ),
    suppresses=dict.fromkeys(_SPECIFIC, CODES),
    refiners={
        "VENDOR_CUDA_ERROR": _vendor_variant,
        "VENDOR_HIP_ERROR": _vendor_variant,
        "VENDOR_LIBRARY_STATUS": _library_status_variant,
        "LIBRARY_NOT_LOADED": _library_variant,
    },
)
