"""Known errors of the driver's kernel module, device visibility (CUDA_VISIBLE_DEVICES) and MIG.

Also CUDA forward compatibility on GPUs without it, GPUs busy or in an exclusive compute mode,
and CUDA in forked worker processes.

Part of :mod:`gpuwizard.core.findings.diagnosis`, which tries
:data:`DEVICES_PART` with the other parts. Each signature cites a public report that shows the message; the logs are recorded in
tests/fixtures/recorded/diagnose (SOURCES.md says where each one comes from). Its signatures and their texts are data in
``resources/findings/devices.json``; this module holds the code they name.

CUDA's error numbers are matched as well as its words, because frameworks print them in several
forms ("Error 803:", "(803 vs. 0)", "code=803(cudaErrorSystemDriverMismatch)", "error=38 :"); the
numbers are those of the CUDA Runtime API's ``cudaError`` (docs.nvidia.com/cuda/cuda-runtime-api/
group__CUDART__TYPES.html): 38 and 100 ``cudaErrorNoDevice`` (38 before CUDA 10.1), 46
``cudaErrorDevicesUnavailable``, 101 ``cudaErrorInvalidDevice`` ("invalid device ordinal"), 803
``cudaErrorSystemDriverMismatch``, 802 ``cudaErrorSystemNotReady``, 804
``cudaErrorCompatNotSupportedOnDevice``.

TensorFlow's failed start of CUDA (``TF_NO_GPU_FOUND``) is read from its own words and the
CUresult it prints, through cuda.h's enumeration (``resources/vocabularies/cuda-driver.json``); the
lines TensorFlow's diagnostics print after it (no kernel module, a missing libcuda) belong to it,
and whether it is a fault at all depends on the machine (:mod:`.gpu_readings`).

>>> from gpuwizard.core.findings.diagnosis import diagnose
>>> [finding] = diagnose("NVRM: API mismatch: the client has the version 550.54.14, but "
...                      "NVRM: this kernel module has the version 535.161.07.")
>>> finding.code, finding.params["variant"], finding.params["client"], finding.params["module"]
('KERNEL_MODULE_MISMATCH', 'api_mismatch', '550.54.14', '535.161.07')
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Final

from gpuwizard.core.findings.gpu_readings import TF_NO_GPU_CODE
from gpuwizard.core.findings.log_facts import per_log, read_log_facts, shows_windows, shows_wsl
from gpuwizard.core.findings.signature import DRIVER_LIBRARY, DiagnosisPart, Hit, Values
from gpuwizard.core.findings.vocabularies import entries

# A log that comes from WSL 2 (log_facts.shows_wsl), where the driver is Windows' and no kernel
# module is loaded in Linux, is left to the WSL findings (diagnosis_containers).


#: CUDA_VISIBLE_DEVICES as a shell, a script or a launcher prints it: ``CUDA_VISIBLE_DEVICES=0``,
#: ``os.environ["CUDA_VISIBLE_DEVICES"] = '7'``, ``export CUDA_VISIBLE_DEVICES=``. Spaces after
#: "=" only before a quote: in ``CUDA_VISIBLE_DEVICES= python x.py`` the value is empty.
_VISIBLE: Final = re.compile(
    r"CUDA_VISIBLE_DEVICES['\"]?\]?[ \t]{0,3}=(?:[ \t]{0,3}['\"])?(?P<visible>[\w,:/${}-]{0,200})"
)
#: torchrun's (and torch.distributed.launch's) number of processes per machine.
_NPROC: Final = re.compile(r"--nproc[_-]per[_-]node[ =]{1,3}(?P<processes>\d{1,4})\b")
#: torchrun's prefix of each process's output lines ("[rank5]: RuntimeError: ...").
_RANK: Final = re.compile(r"\[rank(\d{1,4})\]:")
#: nvidia-smi's banner: the driver and the CUDA version its libcuda reports.
_SMI_BANNER: Final = re.compile(
    r"Driver Version: (?P<driver>\d{2,4}(?:\.\d{1,4}){1,2})\s{1,20}"
    r"CUDA Version: (?P<driver_cuda>\d{1,2}\.\d{1,2})"
)
#: nvidia-smi's compute-mode column and ``nvidia-smi -q``: a GPU only one process may use.
_EXCLUSIVE: Final = re.compile(r"E\. Process|E\. Thread|Exclusive_Process|Exclusive_Thread|\bProhibited\b")
#: Signs that the GPUs are MIG instances: their names ("MIG 1g.10gb", "A100-SXM4-80GB-MIG-3g.40gb"),
#: their UUIDs ("MIG-GPU-<uuid>/7/0" before R470, "MIG-<uuid>" since; MIG User Guide, "CUDA
#: Device Enumeration"), nvidia-smi's "MIG devices:" table, or words. nvidia-smi's "MIG M." column
#: and "MIG Mode" section appear for every recent GPU, so they are no sign.
_MIG: Final = re.compile(
    r"\bMIG[ -](?:GPU-[0-9a-f]|[0-9a-f]{8}-|\d{1,2}g\.\d{1,3}gb)|\bMIG_UID|-MIG-\d{1,2}g\.\d{1,3}gb"
    r"|\bMIG devices:|\bMIG (?:GPU )?(?:instances?|slices?|partitions?)\b"
)


# Whether a whole log shows WSL or MIG, asked once per log however many lines match (a long
# log repeating one error must not be searched again for every repetition).
@per_log
def _shows_mig(text: str) -> bool:
    return _MIG.search(text) is not None


def _not_loaded(match: re.Match[str]) -> Values | None:
    return None if shows_wsl(match.string) else {}


def _api_mismatch(match: re.Match[str]) -> Values:
    return {"client": match.group("client"), "module": match.group("module")}


def _kernel_module_variant(
    values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    # The two versions say the most; error 803 names the libcuda side; the rest (the plain text)
    # is a module that is not running.
    if values.get("client"):
        return "api_mismatch", {}
    return ("error_803" if "error_803" in variants else None), {}


def _forward_compat_variant(
    values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    if banner := _SMI_BANNER.search(text):
        return "smi", {"driver": banner.group("driver"), "driver_cuda": banner.group("driver_cuda")}
    return None, {}


def _not_visible_variant(  # noqa: PLR0911 - one return per variant
    values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    visible = _VISIBLE.search(text)
    if "ordinal" in variants:
        if processes := _NPROC.search(text):
            return "ordinal_torchrun", {"processes": processes.group("processes")}
        # torchrun prefixes each process's lines with its rank: a rank above 0 means several
        # processes, at least the highest rank + 1 (torch.distributed.elastic's log prefixes).
        ranks = [int(rank) for rank in _RANK.findall(text)]
        if ranks and max(ranks) >= 1:
            return "ordinal_torchrun", {"processes": str(max(ranks) + 1)}
        if visible:
            return "ordinal_visible", {"visible": visible.group("visible")}
        return "ordinal", {}
    if visible and visible.group("visible") in ("", "-1"):
        return "hidden", {"visible": visible.group("visible")}
    if visible:
        return "none_visible", {"visible": visible.group("visible")}
    return None, {}


def _on_mig(match: re.Match[str]) -> Values | None:
    return {} if _shows_mig(match.string) else None


def _mig_variant(
    values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    return ("mig" if _shows_mig(text) else None), {}


def _busy_variant(
    values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    return ("exclusive" if _EXCLUSIVE.search(text) else None), {}


#: cuda.h's CUresult values (resources/vocabularies/cuda-driver.json), by number and by name.
_CURESULTS: Final = {entry.number: entry for entry in entries("cuda-driver") if entry.number}
_CURESULT_NAMES: Final = {entry.name: entry for entry in _CURESULTS.values()}
#: What cuInit returns where no driver is loaded: TensorFlow's stub of libcuda answers every call
#: with CUDA_ERROR_SHARED_OBJECT_INIT_FAILED when libcuda did not load (tsl/cuda/cuda_stub.cc,
#: GetSymbolNotFoundError), and the CUDA toolkit's stub libcuda with CUDA_ERROR_STUB_LIBRARY
#: ("the CUDA driver that the application has loaded is a stub library", cuda.h).
_NO_DRIVER_RESULTS: Final = frozenset({"CUDA_ERROR_SHARED_OBJECT_INIT_FAILED", "CUDA_ERROR_STUB_LIBRARY"})
#: "no CUDA-capable devices were detected by the installed CUDA driver" (cuda.h).
_NO_DEVICE_RESULT: Final = "CUDA_ERROR_NO_DEVICE"


def _tf_cuinit(match: re.Match[str]) -> Values | None:
    """TensorFlow's failed cuInit, with the CUresult read back through cuda.h's enumeration."""
    frameworks = read_log_facts(match.string).frameworks
    if "jax" in frameworks and "tensorflow" not in frameworks:
        return None  # XLA's same line in a JAX log: JAX's findings say what JAX needs
    name, number = match.group("name"), match.group("number")
    entry = _CURESULT_NAMES.get(name) if name else _CURESULTS.get(int(number))
    if entry is None:
        return {"status": name or f"UNKNOWN ERROR ({number})"}
    return {"status": f"{entry.name} ({entry.number})", "cuinit": entry.name, "meaning": entry.message}


def _tf_no_gpu_variant(
    values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    """What TensorFlow's start lacked: the driver's library, its kernel module, a device, or CUDA's libraries.

    The driver first: without its library nothing else can load; a log of TensorFlow 2.14 and newer
    that only says "Could not find cuda drivers" lacks the CUDA runtime its GPU support loads.
    """
    results = set(values.get("cuinit", ()))
    if values.get("driver_library") or results & _NO_DRIVER_RESULTS:
        library = next(iter(values.get("driver_library", ())), None)
        return "no_driver", {
            "driver_library": library or ("nvcuda.dll" if shows_windows(text) else "libcuda.so.1")
        }
    if values.get("kernel_module"):
        return "no_module", {}
    if _NO_DEVICE_RESULT in results:
        return "no_device", {}
    return (None if values.get("status") else "runtime"), {}


#: Findings that name why CUDA did not start better than TensorFlow's own line (each of them
#: matches the same cuInit status or tells the machine's set-up): with one, TF_NO_GPU_FOUND goes.
_NAMES_THE_CAUSE: Final = (
    "CUDA_INIT_FAILED",
    "CUDA_SYSTEM_NOT_READY",
    "CUDA_FORWARD_COMPAT_UNSUPPORTED",
    "GPU_BUSY_OR_EXCLUSIVE",
    "MIG_DEVICE_MISUSED",
    "NVML_DRIVER_LIBRARY_MISMATCH",
    "TF_CANNOT_DLOPEN_GPU_LIBS",  # TensorFlow found a GPU: its start did not fail
    "OPEN_KERNEL_MODULE_UNSUPPORTED_GPU",
    "CONTAINER_STARTED_WITHOUT_GPU",
    "DOCKER_NO_NVIDIA_GPU",
    "WSL1_NO_GPU",
    "WSL_LINUX_DRIVER_CONFLICT",
    "WSL_LIBCUDA_NOT_FOUND",
    "WSL_LIBCUDA_NOT_SYMLINK",
)


def _tensorflow_without_gpu(hits: dict[str, Hit], text: str) -> None:
    """TensorFlow's failed start with the lines that belong to it, or dropped where another names the cause.

    After a failed cuInit TensorFlow's diagnostics say whether the kernel module runs
    (cuda_diagnostics.cc: "kernel driver does not appear to be running on this host", or the
    module's version); before it, its loader may have said that libcuda is missing. Without a
    running driver these are one fact, which a machine without a GPU explains: they become
    TF_NO_GPU_FOUND's variant. A running driver in the log means a GPU is there: the findings of
    the devices then name the cause. A CUDA_VISIBLE_DEVICES the log sets, a device number it
    asked for, or a finding of :data:`_NAMES_THE_CAUSE` does too.
    """
    found = hits.get(TF_NO_GPU_CODE)
    if found is None:
        return
    if any(code in hits for code in _NAMES_THE_CAUSE):
        del hits[TF_NO_GPU_CODE]
        return
    module = hits.get("KERNEL_MODULE_MISMATCH")
    visible = hits.get("CUDA_DEVICE_NOT_VISIBLE")
    if read_log_facts(text).nvidia_driver_running:
        if module is not None or visible is not None:
            del hits[TF_NO_GPU_CODE]
        return
    if module is not None:
        if module.values.get("client") or "error_803" in module.variants:
            del hits[TF_NO_GPU_CODE]  # two driver versions: the mismatch is the cause
            return
        del hits["KERNEL_MODULE_MISMATCH"]
        found.add({"kernel_module": "not_running"}, None)
    if visible is not None:
        if "ordinal" in visible.variants or _VISIBLE.search(text):
            del hits[TF_NO_GPU_CODE]
            return
        del hits["CUDA_DEVICE_NOT_VISIBLE"]
    dll = hits.get("DLL_NOT_FOUND")
    libraries = dll.values.get("libraries", []) if dll is not None else []
    drivers = [library for library in libraries if DRIVER_LIBRARY.fullmatch(library)]
    if dll is not None and drivers:
        # The driver's library is this finding's fact; the CUDA runtime's dlerror stays DLL_NOT_FOUND's.
        found.add({"driver_library": drivers}, None)
        dll.values["libraries"] = [library for library in libraries if library not in drivers]
        if not dll.values["libraries"]:
            del hits["DLL_NOT_FOUND"]


DEVICES_PART: Final = DiagnosisPart(
    name="devices",
    extractors=(
        _api_mismatch,
        _not_loaded,
        _on_mig,
        _tf_cuinit,
    ),
    suppresses={
        # The fabric manager not running explains the devices CUDA and JAX then do not see.
        "CUDA_SYSTEM_NOT_READY": ("CUDA_DEVICE_NOT_VISIBLE", "JAX_CUDA_BACKEND_FAILED", "CUDA_INIT_FAILED"),
        # The more telling findings name why CUDA did not initialise.
        "JAX_CUDA_BACKEND_FAILED": ("CUDA_INIT_FAILED",),
        "CUDA_FORKED_SUBPROCESS": ("CUDA_INIT_FAILED",),
        "CUDA_DEVICE_NOT_VISIBLE": ("CUDA_INIT_FAILED",),
        # NVML's "Driver/library version mismatch" is the same failure, and CUDA finds no device
        # when no kernel module answers (tensorflow/tensorflow#44869: CUDA_ERROR_NO_DEVICE, then
        # "kernel driver does not appear to be running"); PyTorch then says "Found no NVIDIA
        # driver", though nvidia-smi's message shows the driver's programs are installed.
        "KERNEL_MODULE_MISMATCH": (
            "NVML_DRIVER_LIBRARY_MISMATCH",
            "CUDA_DEVICE_NOT_VISIBLE",
            "NO_NVIDIA_DRIVER",
            "MIG_DEVICE_MISUSED",  # no module running: no MIG instance either
            "CUDA_INIT_FAILED",
        ),
        # On MIG the device number or the missing device is the MIG rule, not a typo.
        "MIG_DEVICE_MISUSED": ("CUDA_DEVICE_NOT_VISIBLE",),
    },
    refiners={
        "KERNEL_MODULE_MISMATCH": _kernel_module_variant,
        "CUDA_FORWARD_COMPAT_UNSUPPORTED": _forward_compat_variant,
        "CUDA_DEVICE_NOT_VISIBLE": _not_visible_variant,
        "MIG_DEVICE_MISUSED": _mig_variant,
        "GPU_BUSY_OR_EXCLUSIVE": _busy_variant,
        TF_NO_GPU_CODE: _tf_no_gpu_variant,
    },
    rules=(_tensorflow_without_gpu,),
)
