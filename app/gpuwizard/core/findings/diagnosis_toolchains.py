r"""The compilers around a GPU stack: nvcc's host compiler, CUDA_HOME, Triton's ptxas and C compiler, PTX and the driver.

Part of :mod:`gpuwizard.core.findings.diagnosis`, which tries
:data:`TOOLCHAINS_PART` with the other parts. Each signature cites a public report whose log is recorded in
tests/fixtures/recorded/diagnose (SOURCES.md says where each one comes from); its signatures and their texts are data in
``resources/findings/toolchains.json``; this module holds the code they name.

What is matched is the fixed wording of the tools' own sources, which print it in English
whatever the system's language: nvcc's ``crt/host_config.h``, torch's
``torch/utils/cpp_extension.py``, the build scripts of flash-attn and DeepSpeed, Triton's
``backends/nvidia/compiler.py`` and ``runtime/build.py``, and the CUDA driver's own text of
error 222 (``cuda.h``). Versions, paths, GPU architectures and line wraps vary and are read.

The minimum drivers and the CUDA release that first knows an architecture come from the bundled
compatibility tables (``resources/compat/cuda.json``), read here directly: the findings layer
sits below :mod:`gpuwizard.core.compat` and cannot import it.

>>> from gpuwizard.core.findings.diagnosis import diagnose
>>> [finding] = diagnose("RuntimeError:\nThe detected CUDA version (11.8) mismatches the version "
...     "that was used to compile\nPyTorch (12.4). Please make sure to use the same CUDA versions.")
>>> finding.code, finding.params["detected"], finding.params["torch_cuda"]
('EXTENSION_CUDA_VERSION_MISMATCH', '11.8', '12.4')
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any, Final

from gpuwizard.core.findings.log_facts import capability_of_sm, per_log, read_log_facts, shows_wsl
from gpuwizard.core.findings.signature import WINDOWS_LOG, DiagnosisPart, Values, search_log

_Refined = tuple[str | None, dict[str, object]]

# --- the compatibility tables -----------------------------------------------------------------


@functools.cache
def _cuda_table() -> dict[str, Any]:
    source = resources.files("gpuwizard.resources").joinpath("compat/cuda.json")
    table: dict[str, Any] = json.loads(source.read_text(encoding="utf-8"))
    return table


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version))


def _minor(version: str) -> str:
    return ".".join(version.split(".")[:2])


def ptx_min_driver(cuda: str, driver_os: str) -> str | None:
    """The lowest driver whose PTX compiler reads PTX from CUDA ``cuda`` (``linux``/``windows``).

    The driver the toolkit release ships with (NVIDIA's release notes, table 3): minor-version
    compatibility does not cover PTX, which the driver compiles itself ("CUDA Compatibility",
    docs.nvidia.com/deploy/cuda-compatibility, "applications that rely on PTX JIT"). Where that
    table has no driver for the OS (no Windows driver ships with CUDA 13.x), the series' floor.

    >>> ptx_min_driver("12.4", "linux"), ptx_min_driver("11.8", "windows"), ptx_min_driver("13.0", "windows")
    ('550.54.14', '520.06', '580')
    >>> ptx_min_driver("8.0", "linux") is None
    True
    """
    table = _cuda_table()
    for row in table["toolkit_drivers"]:
        if _minor(row["cuda"]) == _minor(cuda) and row.get(driver_os):
            return str(row[driver_os])
    for row in table["minor_version_compatibility"]:
        if _version_key(row["cuda_from"]) <= _version_key(_minor(cuda)) <= _version_key(row["cuda_to"]):
            listed = any(_minor(r["cuda"]) == _minor(cuda) for r in table["toolkit_drivers"])
            return str(row[driver_os]) if listed and row.get(driver_os) else None
    return None


def first_cuda_for(capability: str) -> str | None:
    """The first CUDA release whose compilers know compute capability ``capability``.

    >>> first_cuda_for("12.0"), first_cuda_for("8.9"), first_cuda_for("11.0"), first_cuda_for("12.1")
    ('12.8', '11.8', '13.0', None)
    """
    rows = sorted(_cuda_table()["architectures"], key=lambda row: _version_key(row["cuda_from"]))
    for row in rows:
        if capability in row["compute_capabilities"]:
            return str(row["cuda_from"])
    return None


# --- reading values -------------------------------------------------------------------------

#: The CUDA release that host_config.h belongs to, in the header's path (Linux "cuda-12.1/",
#: Windows "CUDA\v11.8\include").
_CUDA_IN_PATH: Final = re.compile(r"(?:cuda-|CUDA[\\/]{1,2}v)(?P<cuda>\d{1,2}\.\d)\b", re.IGNORECASE)
#: nvcc -V: "Cuda compilation tools, release 11.8, V11.8.89".
_NVCC_RELEASE: Final = re.compile(r"Cuda compilation tools, release (?P<cuda>\d{1,2}\.\d)")
#: A CUDA version named in prose or a report ("cuda version is 11.8", "CUDA Version: 12.1",
#: "cuda_12.1"); never nvidia-smi's "CUDA Version" beside "Driver Version" (the driver's own).
_CUDA_NAMED: Final = re.compile(
    r"\bcuda(?:[ _]version)?(?: is|:)? ?_?(?P<cuda>1\d\.\d)\b|\bcuda[ _](?P<cuda2>1\d\.\d)\b", re.IGNORECASE
)
#: nvidia-smi's header line: "Driver Version: 535.104.05   CUDA Version: 12.2".
_SMI_HEADER: Final = re.compile(r"Driver Version: ?\S{1,20} {1,40}CUDA Version", re.IGNORECASE)
#: The driver's version: nvidia-smi ("Driver Version: 470.223.02"), prose ("nvidia driver:
#: 460.91.03", "Driver Version is ..."), the kernel module ("NVRM version: ... Module  460.80").
_DRIVER: Final = re.compile(
    r"(?:\bdriver(?: version)?(?: is)?[ :=]{0,3}|Kernel Module {1,3})(?P<driver>\d{3}\.\d{1,3}(?:\.\d{1,3})?)\b",
    re.IGNORECASE,
)


def _gcc_limit(match: re.Match[str]) -> Values:
    values: Values = {"limit": match.group("limit"), "compiler": "gcc"}
    return values | _cuda_of_header(match)


def _msvc_range(match: re.Match[str]) -> Values:
    supported = " ".join(match.group("supported").split())
    values: Values = {"supported": supported, "compiler": "msvc"}
    return values | _cuda_of_header(match)


def _cuda_of_header(match: re.Match[str]) -> Values:
    """The CUDA release of the host_config.h the error names, from the text just before it."""
    text = match.string
    before = text[max(0, match.start() - 300) : match.start()]
    found = list(_CUDA_IN_PATH.finditer(before))
    return {"cuda": found[-1].group("cuda")} if found else {}  # the path nearest the error


def _sm(match: re.Match[str]) -> Values:
    digits = match.group("digits")
    return {"sm": f"sm_{digits}{match.group('suffix') or ''}", "capability": capability_of_sm(digits)}


#: What shows that Triton's compile failed at the ptxas step (compiler.py make_cubin raising
#: CalledProcessError or, from Triton 3.2, PTXASError), after LLVM's warning about the GPU.
_PTXAS_FAILED: Final = re.compile(
    r"in make_cubin|PTXASError|ptxas(?:\.exe)?'[^\n]{0,600}returned non-zero exit status"
)


@per_log
def _shows_ptxas_failed(text: str) -> bool:
    return search_log(_PTXAS_FAILED, text) is not None


def _sm_unknown_to_llvm(match: re.Match[str]) -> Values | None:
    # LLVM's warning alone is no error: Triton goes on and may succeed (triton-windows#59).
    # Followed by a failed ptxas run, it names the GPU that Triton's compilers do not know.
    return _sm(match) if _shows_ptxas_failed(match.string) else None


def _sm_new_to_bundled_ptxas(match: re.Match[str]) -> Values | None:
    # Triton's bundled ptxas failed on the GPU's own architecture: the cause where the
    # architecture is one that only CUDA 12.8 or newer knows (Blackwell; Triton before 3.3
    # bundled an older ptxas). For older architectures ptxas fails for other reasons.
    values = _sm(match)
    first = first_cuda_for(str(values["capability"]))
    return values if first and _version_key(first) >= _version_key("12.8") else None


#: Words that show nvcc compiled (its name, CMake's check of the CUDA compiler, a .cu file).
_NVCC_RAN: Final = re.compile(r"nvcc|CMakeCUDACompilerId|\.cu\b|cudafe")


@per_log
def _shows_nvcc(text: str) -> bool:
    return search_log(_NVCC_RAN, text) is not None


def _gcc_headers(match: re.Match[str]) -> Values | None:
    # An error in libstdc++'s own headers, in nvcc's form, where nvcc ran: GCC too new for it.
    if not _shows_nvcc(match.string):
        return None
    gcc = match.group("gcc")
    return {"gcc": gcc, "header": match.group("header"), "older": str(int(gcc) - 1)}


def _libcuda_flag(match: re.Match[str]) -> Values:
    return {"flag": match.group("flag")}


def _mismatch(match: re.Match[str]) -> Values:
    return {"detected": match.group("detected"), "torch_cuda": match.group("torch_cuda")}


# --- the signatures -------------------------------------------------------------------------


# --- the variants ---------------------------------------------------------------------------


def _host_compiler(values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str) -> _Refined:
    """The compiler's variant, ``_cuda`` added where the header's path names the CUDA release."""
    variant = variants[0] if variants else "gcc"
    if values.get("cuda"):
        return f"{variant}_cuda", {}
    return variant, {}


def _libcuda_variant(values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str) -> _Refined:
    """``wsl`` where the log shows WSL 2: the driver's libcuda is in /usr/lib/wsl/lib there."""
    return ("wsl" if shows_wsl(text) else None), {}


def _cuda_home(values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str) -> _Refined:
    """``windows`` on Windows; ``cuda`` (or ``windows_cuda``) where torch's CUDA build is known.

    ``cmake`` where CMake said it (its words name the fix: nvcc on PATH or named to CMake).
    """
    if "cmake" in variants:
        return "cmake", {}
    facts = read_log_facts(text)
    windows = facts.os_family == "windows"
    if facts.build_cuda:
        return ("windows_cuda" if windows else "cuda"), {"cuda": facts.build_cuda}
    return ("windows" if windows else None), {}


def _index_tag(cuda: str) -> str:
    return "cu" + cuda.replace(".", "")


#: The CUDA builds PyTorch publishes wheels for (download.pytorch.org/whl/cuXYZ), newest last.
_TORCH_INDEXES: Final = ("11.8", "12.1", "12.4", "12.6", "12.8", "12.9", "13.0")


def _mismatch_variant(values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str) -> _Refined:
    """``index`` where PyTorch publishes a build for the toolkit found: the simplest fix."""
    detected = values.get("detected", [""])[0]
    if detected in _TORCH_INDEXES:
        return "index", {"index": _index_tag(detected)}
    return None, {}


def _ptxas_variant(values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str) -> _Refined:
    """``triton`` when Triton ran the ptxas; ``_cuda`` added where a CUDA release knows the GPU."""
    if "triton_capability" in variants and not values.get("capability"):
        return "triton_capability", {}
    capability = values.get("capability", [""])[0]
    first = first_cuda_for(capability) if capability else None
    triton = re.search(r"triton|PTXASError|_inductor", text, re.IGNORECASE) is not None
    base = "triton" if triton else "toolkit"
    if first:
        return f"{base}_cuda", {"first_cuda": first, "index": _index_tag(first)}
    return base, {}


#: The triton-windows release line of each torch minor version (the triton-windows README,
#: "3. PyTorch": each PyTorch minor version works with one Triton minor version).
_TRITON_FOR_TORCH: Final = {
    "2.4": "3.1",
    "2.5": "3.1",
    "2.6": "3.2",
    "2.7": "3.3",
    "2.8": "3.4",
    "2.9": "3.5",
    "2.10": "3.6",
    "2.11": "3.6",
}


def _c_compiler(values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str) -> _Refined:
    """``windows`` (``windows_torch`` naming the triton-windows line for the log's torch), else Linux."""
    facts = read_log_facts(text)
    if facts.os_family != "windows" and not WINDOWS_LOG.search(text):
        return None, {}
    torch = facts.framework_version
    triton = _TRITON_FOR_TORCH.get(_minor(torch)) if torch and facts.frameworks[:1] == ("pytorch",) else None
    if torch and triton:
        major, minor = triton.split(".")
        return "windows_torch", {"torch": _minor(torch), "below": f"{major}.{int(minor) + 1}"}
    return "windows", {}


def _ptx_variant(values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str) -> _Refined:
    """``cuda`` where the log names the CUDA the program was built with; ``driver`` with the driver too."""
    cuda = _build_cuda(text)
    if cuda is None:
        return None, {}
    driver_os = "windows" if WINDOWS_LOG.search(text) else "linux"
    minimum = ptx_min_driver(cuda, driver_os)
    if minimum is None:
        return None, {}
    params: dict[str, object] = {"cuda": cuda, "min_driver": minimum}
    driver = _DRIVER.search(text)
    if driver is None:
        return "cuda", params
    if _version_key(driver.group("driver")) >= _version_key(minimum):
        # The driver is new enough for that CUDA: the PTX came from a newer one the log does not name.
        return None, {"driver": driver.group("driver")}
    return "driver", {**params, "driver": driver.group("driver")}


def _build_cuda(text: str) -> str | None:
    """The CUDA a log says the failing program was built with: nvcc's release, a +cuXYZ build, prose."""
    if found := _NVCC_RELEASE.search(text):
        return found.group("cuda")
    if cuda := read_log_facts(text).build_cuda:
        return cuda
    for line in text.splitlines():
        if _SMI_HEADER.search(line):
            continue  # nvidia-smi's "CUDA Version" is the driver's newest, not the build's
        if found := _CUDA_NAMED.search(line):
            return found.group("cuda") or found.group("cuda2")
    return None


TOOLCHAINS_PART: Final = DiagnosisPart(
    name="toolchains",
    extractors=(
        _gcc_limit,
        _msvc_range,
        _mismatch,
        _sm,
        _sm_unknown_to_llvm,
        _sm_new_to_bundled_ptxas,
        _gcc_headers,
        _libcuda_flag,
    ),
    suppresses={
        # PyTorch's own warning that the GPU is too new for the build says the same as ptxas,
        # and its advice (a torch build for the GPU) brings the matching Triton.
        "GPU_ARCH_UNSUPPORTED": ("TRITON_PTXAS_UNSUPPORTED_GPU",),
    },
    refiners={
        "HOST_COMPILER_UNSUPPORTED": _host_compiler,
        "CUDA_HOME_NOT_SET": _cuda_home,
        "EXTENSION_CUDA_VERSION_MISMATCH": _mismatch_variant,
        "TRITON_PTXAS_UNSUPPORTED_GPU": _ptxas_variant,
        "TRITON_NO_C_COMPILER": _c_compiler,
        "CUDA_PTX_TOOLCHAIN_TOO_NEW": _ptx_variant,
        "LIBCUDA_NOT_LINKABLE": _libcuda_variant,
    },
)
