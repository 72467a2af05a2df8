"""Known errors of serving and multi-GPU stacks: llama.cpp/Ollama, vLLM, NCCL, torch.distributed, TensorFlow's GPU builds.

Part of :mod:`gpuwizard.core.findings.diagnosis`, which tries
:data:`SERVING_PART` with the other parts. Each signature cites a public report that shows the message; the logs are recorded in
tests/fixtures/recorded/diagnose (SOURCES.md says where each one comes from). Its signatures and their texts are data in
``resources/findings/serving.json``; this module holds the code they name.

Every pattern matches the fixed words the software's own source prints (cited beside it), with
the variable parts (sizes, devices, versions, GPU names) read as values:

- ggml (llama.cpp, Ollama): its CUDA backend's failed ``cudaMalloc`` and the buffer it could not
  allocate, with the MiB and the device;
- vLLM: bfloat16 refused below compute capability 8.0, and a KV cache too small for the model's
  maximum length (vLLM's own numbers give the fix);
- NCCL: peer-to-peer access the GPUs do not have, and any other NCCL failure, quoting NCCL's
  ``WARN`` line and version;
- torch.distributed: no NCCL in the build (Windows, macOS, CPU-only builds), no libuv in the
  Windows builds of PyTorch 2.4 and newer;
- TensorFlow: no kernels for the GPU's compute capability (PTX compiled at start), and a
  TensorFlow 2.11 or newer on native Windows, which has no GPU build at all.

>>> from gpuwizard.core.findings.diagnosis import diagnose
>>> [finding] = diagnose("ggml_backend_cuda_buffer_type_alloc_buffer: allocating 9866.00 MiB on "
...     "device 1: cudaMalloc failed: out of memory")
>>> finding.code, finding.params["size"], finding.params["device"]
('GGML_CUDA_OUT_OF_MEMORY', '9866.00 MiB', '1')
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Final

from gpuwizard.core.findings.diagnosis_vendors import STATUS_NAMES
from gpuwizard.core.findings.log_facts import per_log, shows_wsl
from gpuwizard.core.findings.signature import WINDOWS_LOG, DiagnosisPart, Values, search_log

# --- ggml: llama.cpp, Ollama -------------------------------------------------------------------

#: Words that show ggml's code printed the log (its function names, its model format, its users).
_GGML_LOG: Final = re.compile(r"ggml|gguf|llama|ollama", re.IGNORECASE)
_OLLAMA_LOG: Final = re.compile(r"\bollama\b|llama runner process", re.IGNORECASE)
_MIB: Final = 1024 * 1024


def _ggml_buffer(match: re.Match[str]) -> Values | None:
    """The device of a ``CUDA1``/``ROCm0`` buffer, and its size in MiB when the line gives bytes."""
    values: Values = {"device": match.group("device") or match.group("device2")}
    if size := match.group("bytes"):
        values["size"] = f"{int(size) / _MIB:.2f} MiB"
    return values


def _ggml_sized(match: re.Match[str]) -> Values | None:
    # ggml prints the size with the C locale's "%.2f": a comma where the locale has one.
    return {"size": f"{match.group('mib').replace(',', '.')} MiB", "device": match.group("device")}


def _in_ggml_log(match: re.Match[str]) -> Values | None:
    """A bare "cudaMalloc failed" counts only where ggml's words show whose it is."""
    return {} if _shows_ggml(match.string) else None


@per_log
def _shows_ggml(text: str) -> bool:
    return _GGML_LOG.search(text) is not None


def _ggml(
    values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    """``ollama`` for Ollama's logs (its options differ); ``size`` where the size and device are known."""
    ollama = _OLLAMA_LOG.search(text) is not None
    sized = bool(values.get("size") and values.get("device"))
    if ollama:
        return ("ollama_size" if sized else "ollama"), {}
    return ("size" if sized else None), {}


# --- vLLM ---------------------------------------------------------------------------------------

#: vLLM runs on compute capability 7.0 and newer (docs.vllm.ai, "GPU" installation, "Requirements").
_VLLM_OLDEST: Final = (7, 0)


def _capability_tuple(capability: str) -> tuple[int, int] | None:
    major, _, minor = capability.partition(".")
    return (int(major), int(minor or 0)) if major.isdigit() and minor.isdigit() else None


def _vllm_bf16(
    values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    """``too_old`` for a GPU vLLM cannot run at all (below 7.0), where half precision does not help."""
    capability = values.get("capability", [""])[0]
    number = _capability_tuple(capability)
    extra: dict[str, object] = {} if capability else {"capability": "?"}
    return ("too_old" if number is not None and number < _VLLM_OLDEST else None), extra


def _vllm_kv(
    values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    """The variant whose numbers the log gave: vLLM's estimate, its token count, or none."""
    if values.get("estimate"):
        return "estimate", {}
    if values.get("kv_tokens"):
        return "tokens", {}
    if values.get("needed"):
        return "needed", {}
    return "no_memory", {}


# --- NCCL ---------------------------------------------------------------------------------------

#: NCCL's log lines: "host:pid:tid [dev] file.cc:line NCCL WARN text" (src/debug.cc, ncclDebugLog).
_NCCL_WARN: Final = re.compile(r"NCCL WARN (?P<text>[^\n]{1,300})")
#: NCCL 2.13 and newer keep the last WARN text; PyTorch prints it after "Last error:"
#: (torch/csrc/distributed/c10d/NCCLUtils.cpp, getNcclErrorDetailStr), each line with its
#: launcher's prefix ("[rank7]: ", "(Runner pid=16018) ").
_LAST_ERROR: Final = re.compile(
    r"Last error:[ \t]{0,5}\n(?:[ \t]{0,20}(?:\[rank\d{1,5}\]:|\(\w{1,40} pid=\d{1,9}\)))?[ \t]{0,5}(?P<text>[^\n]{1,300})"
)
#: "NCCL version 2.27.3" (PyTorch's error, NCCL's INFO banner), "NCCL version 2.21.5+cuda11.8".
_NCCL_VERSION: Final = re.compile(r"NCCL version (?P<version>\d{1,2}\.\d{1,3}\.\d{1,3})")
#: NCCL's status names that PyTorch prints ("ncclUnhandledCudaError: Call to CUDA function failed.").
_NCCL_STATUS: Final = re.compile(r"\b(?P<name>nccl(?:Unhandled|System|Internal|Invalid|Remote)\w{0,30})\b")


def _nccl_details(text: str) -> dict[str, object]:
    """The NCCL version and NCCL's own words (its first WARN line, or the last error PyTorch quotes)."""
    details: dict[str, object] = {}
    if version := _nccl_version(text):
        details["nccl_version"] = version
    warning = _NCCL_WARN.search(text) or _LAST_ERROR.search(text)
    if warning:
        details["warning"] = warning.group("text").strip()
    return details


def _nccl_error(
    values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    """``warning`` where NCCL's own words are in the log, else the reason NCCL's status gives."""
    details = _nccl_details(text)
    if "warning" not in details and values.get("warning"):  # NCCL's words quoted without its prefix
        details["warning"] = values["warning"][0]
    if not values.get("reason") and (status := _NCCL_STATUS.search(text)):
        known = STATUS_NAMES.get(status.group("name"))
        details["reason"] = known[1].message if known else status.group("name")
    if "warning" in details:
        # NCCL's shared-memory transport: the fix is the container's /dev/shm, not NCCL's settings.
        if "shared memory segment" in str(details["warning"]):
            return "shared_memory", details
        return "warning", details
    details.setdefault("reason", values.get("reason", ["?"])[0])
    return None, details


def _nccl_peer(
    values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    details = _nccl_details(text)
    details["warning"] = values.get("warning", [str(details.get("warning", ""))])[0]
    return None, details


# --- torch.distributed --------------------------------------------------------------------------

#: Windows named in words: an issue form's "OS: Windows 11", "win10", a wheel's "win_amd64".
_WINDOWS_WORDS: Final = re.compile(r"\bWindows\b|\bwin(?:10|11|32|_amd64)\b|\bWin ?1[01]\b", re.IGNORECASE)


@per_log
def _windows(text: str) -> bool:
    return not shows_wsl(text) and bool(WINDOWS_LOG.search(text) or _WINDOWS_WORDS.search(text))


def _distributed(
    values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    """``libuv`` for the Windows builds' TCPStore; ``windows`` for no NCCL on Windows."""
    if "libuv" in variants:
        return "libuv", {}
    return ("windows" if _windows(text) else None), {}


# --- TensorFlow ---------------------------------------------------------------------------------

#: The first GPU generation TensorFlow's pip builds have no kernels or PTX of their own for:
#: Blackwell (10.0, 12.0), where the driver's compilation of older PTX often fails.
_BLACKWELL: Final = (10, 0)
#: TensorFlow 2.10 was the last release with GPU support on native Windows (tensorflow.org/install/pip,
#: "Windows Native": "TensorFlow 2.10 was the last TensorFlow release that supported GPU on native-Windows").
_FIRST_WITHOUT_WINDOWS_GPU: Final = (2, 11)
#: A TensorFlow version in a log or an issue form: "### TensorFlow version\n\n2.18.0", "tf 2.16",
#: "TensorFlow Version: 2.12.1", "tensorflow==2.17.0", "tensorflow-2.15.0-cp311-...whl".
_TF_VERSION: Final = re.compile(
    r"\b(?:tensorflow|tf)(?:[-_](?:gpu|cpu|intel))?(?:[ \t]version)?[\s:=#>-]{1,30}(?:tf[ -]?|v)?"
    r"(?P<major>[12])\.(?P<minor>\d{1,2})\b",
    re.IGNORECASE,
)


@per_log
def _tf_version(text: str) -> tuple[int, int] | None:
    match = _TF_VERSION.search(text)
    return (int(match.group("major")), int(match.group("minor"))) if match else None


def _tf_capability(
    values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    """``blackwell`` for compute capability 10.0 and newer, where the compilation from PTX often fails.

    ``ptx_failed`` where the log shows that compilation failing (the capability is then unknown).
    """
    if "ptx_failed" in variants and not values.get("capability"):
        return "ptx_failed", {}
    number = _capability_tuple(values.get("capability", [""])[0])
    return ("blackwell" if number is not None and number >= _BLACKWELL else None), {}


def _native_windows_tf(match: re.Match[str]) -> Values | None:
    """An empty GPU list counts only in a log of TensorFlow 2.11 or newer on Windows (not WSL)."""
    text = match.string
    version = _tf_version(text)
    if version is None or version < _FIRST_WITHOUT_WINDOWS_GPU or not _windows(text):
        return None
    return {"tf_version": f"{version[0]}.{version[1]}"}


#: vLLM's own words: its package, its logger's prefix, its name.
_VLLM_LOG: Final = re.compile(r"vllm|vLLM|VLLM")


@per_log
def _nccl_version(text: str) -> str:
    found = search_log(_NCCL_VERSION, text)
    return found.group("version") if found else ""


def _nccl_shared_memory(match: re.Match[str]) -> Values:
    return {
        "needed": match.group("needed"),
        "available": match.group("available"),
        "version": _nccl_version(match.string),
    }


@per_log
def _shows_vllm(text: str) -> bool:
    return search_log(_VLLM_LOG, text) is not None


def _in_vllm_log(match: re.Match[str]) -> Values | None:
    # torch.device("") raises these words anywhere: vLLM's empty platform is one cause among others.
    return {} if _shows_vllm(match.string) else None


SERVING_PART: Final = DiagnosisPart(
    name="serving",
    extractors=(
        _ggml_sized,
        _ggml_buffer,
        _in_ggml_log,
        _native_windows_tf,
        _nccl_shared_memory,
        _in_vllm_log,
    ),
    suppresses={
        # ggml's failed cudaMalloc is the same failure as the CUDA runtime's "out of memory".
        "GGML_CUDA_OUT_OF_MEMORY": ("GPU_OUT_OF_MEMORY",),
        # The peer-access failure is the cause NCCL's generic error reports.
        "NCCL_PEER_ACCESS_FAILED": ("NCCL_ERROR",),
        "NCCL_SHARED_MEMORY_EXCEEDED": ("NCCL_ERROR",),
        # torch's CUDA check and the missing toolkit are what vLLM's empty platform comes from.
        "VLLM_NO_PLATFORM": ("TORCH_CUDA_UNAVAILABLE", "CUDA_HOME_NOT_SET"),
    },
    refiners={
        "GGML_CUDA_OUT_OF_MEMORY": _ggml,
        "VLLM_BF16_UNSUPPORTED_GPU": _vllm_bf16,
        "VLLM_KV_CACHE_TOO_SMALL": _vllm_kv,
        "NCCL_PEER_ACCESS_FAILED": _nccl_peer,
        "NCCL_ERROR": _nccl_error,
        "TORCH_DISTRIBUTED_BACKEND_UNAVAILABLE": _distributed,
        "TF_NO_KERNELS_FOR_GPU": _tf_capability,
    },
)
