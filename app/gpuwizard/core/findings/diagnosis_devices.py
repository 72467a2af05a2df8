"""Known errors of the driver's kernel module, device visibility (CUDA_VISIBLE_DEVICES) and MIG.

Also CUDA forward compatibility on GPUs without it, GPUs busy or in an exclusive compute mode,
and CUDA in forked worker processes.

Part of :mod:`gpuwizard.core.findings.diagnosis`, which merges :data:`DEVICES_PART` into its
signatures. Each signature cites a public report that shows the message; the logs are recorded in
tests/fixtures/recorded/diagnose (SOURCES.md says where each one comes from). The texts are in
``resources/findings/devices.json``.

CUDA's error numbers are matched as well as its words, because frameworks print them in several
forms ("Error 803:", "(803 vs. 0)", "code=803(cudaErrorSystemDriverMismatch)", "error=38 :"); the
numbers are those of the CUDA Runtime API's ``cudaError`` (docs.nvidia.com/cuda/cuda-runtime-api/
group__CUDART__TYPES.html): 38 and 100 ``cudaErrorNoDevice`` (38 before CUDA 10.1), 46
``cudaErrorDevicesUnavailable``, 101 ``cudaErrorInvalidDevice`` ("invalid device ordinal"), 803
``cudaErrorSystemDriverMismatch``, 802 ``cudaErrorSystemNotReady``, 804
``cudaErrorCompatNotSupportedOnDevice``.

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

from gpuwizard.core.findings.log_facts import per_log, shows_wsl
from gpuwizard.core.findings.signature import DiagnosisPart, Signature, Values, sig

# A log that comes from WSL 2 (log_facts.shows_wsl), where the driver is Windows' and no kernel
# module is loaded in Linux, is left to the WSL findings (diagnosis_containers).

#: What may stand between the words of the kernel's "API mismatch" message: line breaks, the
#: "NVRM:" prefix of each line, dmesg timestamps ("[ 8957.099615]") and syslog's "#012" for a
#: line break. One bounded class, so a long line costs linear time.
_NVRM_GAP: Final = r"[\s\d.\[\]#:NVRM]{1,160}"
_DRIVER_VERSION: Final = r"\d{2,4}(?:\.\d{1,4}){1,3}"

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


#: The driver stack and device visibility.
DRIVER_SIGNATURES: Final[tuple[Signature, ...]] = (
    # The kernel (dmesg, journalctl) when a driver library of one version opens the kernel module
    # of another: after a driver update without a restart, or a module DKMS did not rebuild. Since
    # about R550 the message names the client ("the client 'kwin_wayland' (pid 1005) has the
    # version ..."); syslog writes its line breaks as "#012".
    sig(
        "KERNEL_MODULE_MISMATCH",
        r"NVRM: API mismatch: the client (?:'[^'\n]{1,100}' \(pid \d{1,10}\)"
        + _NVRM_GAP
        + rf")?has the version (?P<client>{_DRIVER_VERSION}),? but{_NVRM_GAP}this kernel module has"
        rf"{_NVRM_GAP}the version (?P<module>{_DRIVER_VERSION})",
        "https://github.com/ublue-os/bazzite/issues/2668",
        _api_mismatch,
        variant="api_mismatch",
    ),
    # CUDA's cudaErrorSystemDriverMismatch (803): the libcuda loaded does not fit the kernel
    # module, a driver updated without a restart or, in a container, the image's CUDA
    # forward-compatibility libcuda on a host driver it does not fit (gpustack/gpustack#4678).
    sig(
        "KERNEL_MODULE_MISMATCH",
        r"Error 803: |\(803 vs\. 0\)|code=803\b"
        r"|CUDA_ERROR_SYSTEM_DRIVER_MISMATCH|cudaErrorSystemDriverMismatch",
        "https://github.com/intelligent-machine-learning/atorch/issues/2",
        variant="error_803",
    ),
    # nvidia-smi when no NVIDIA kernel module answers: not loaded, not built for the running
    # kernel, or refused (Secure Boot). The apostrophe is sometimes typographic in pasted logs.
    sig(
        "KERNEL_MODULE_MISMATCH",
        r"NVIDIA-SMI has failed because it couldn.t communicate with the NVIDIA driver",
        "https://github.com/fady-saied/Nvidia-Fedora-Guide/issues/9",
        _not_loaded,
    ),
    # TensorFlow's stream executor (cuda_diagnostics.cc) when /proc/driver/nvidia/version is
    # missing: no NVIDIA kernel module is loaded on this (host or container's) kernel.
    sig(
        "KERNEL_MODULE_MISMATCH",
        r"kernel driver does not appear to be running on this host",
        "https://github.com/tensorflow/tensorflow/issues/44869",
        _not_loaded,
    ),
    # cudaErrorSystemNotReady (802, CUDA_ERROR_SYSTEM_NOT_READY, "system not yet initialized"): on
    # NVSwitch systems (HGX and DGX with 4 or 8 GPUs) CUDA waits for NVIDIA Fabric Manager to set
    # up the switches (NVIDIA Fabric Manager User Guide, "Overview"; ollama/ollama#12173 on an
    # 8x H100 machine, jax-ml/jax#24866).
    sig(
        "CUDA_SYSTEM_NOT_READY",
        r"CUDA_ERROR_SYSTEM_NOT_READY|cudaErrorSystemNotReady|system not yet initialized"
        r"|init failure: 802\b|Error 802: |\(802 vs\. 0\)|code=802\b",
        "https://github.com/ollama/ollama/issues/12173",
    ),
    # CUDA's initialisation error (CUDA_ERROR_NOT_INITIALIZED / cudaErrorInitializationError, 3)
    # as llama.cpp (ggml) and Ollama print it (meta-llama/llama3#215, ollama/ollama#11593).
    sig(
        "CUDA_INIT_FAILED",
        r"failed to initialize CUDA: initialization error|cuda driver library init failure: 3\b"
        r"|CUDA_ERROR_NOT_INITIALIZED|cudaErrorInitializationError",
        "https://github.com/ollama/ollama/issues/11593",
    ),
    # cudaErrorCompatNotSupportedOnDevice (804): a CUDA forward-compatibility libcuda
    # (cuda-compat package, /usr/local/cuda/compat) on a GPU that does not support it.
    sig(
        "CUDA_FORWARD_COMPAT_UNSUPPORTED",
        r"forward compatibility was attempted on non supported HW|CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE"
        r"|cudaErrorCompatNotSupportedOnDevice|Error 804: |\(804 vs\. 0\)|code=804\b",
        "https://github.com/Dr-Noob/gpufetch/issues/53",
    ),
    # cudaErrorInvalidDevice (101, 10 before CUDA 10.1): a device number the process does not
    # have, in PyTorch's "CUDA error: ..." and THC's "cuda runtime error (101) : ..." forms.
    sig(
        "CUDA_DEVICE_NOT_VISIBLE",
        r"invalid device ordinal",
        "https://github.com/meta-llama/llama/issues/946",
        variant="ordinal",
    ),
    # No device at all: PyTorch's own words, CUDA's cudaErrorNoDevice and CUDA_ERROR_NO_DEVICE.
    sig(
        "CUDA_DEVICE_NOT_VISIBLE",
        r"No CUDA GPUs are available|no CUDA-capable device is detected"
        r"|CUDA_ERROR_NO_DEVICE\b|cudaErrorNoDevice\b",
        "https://github.com/pytorch/pytorch/issues/1040",
    ),
)

#: GPUs shared between processes: MIG instances, exclusive compute modes, forked workers.
SHARING_SIGNATURES: Final[tuple[Signature, ...]] = (
    # PyTorch's check that a device number is below the count it read from NVML, which counts
    # the GPUs while CUDA lets a process use one MIG instance only: the maintainers' summary of
    # such reports in pytorch/pytorch#131667 ("MIG is incorrectly used").
    sig(
        "MIG_DEVICE_MISUSED",
        r"device >= 0 && device < num_gpus INTERNAL ASSERT FAILED",
        "https://github.com/pytorch/pytorch/issues/110000",
    ),
    # A device number or no device at all, in a log that shows MIG instances: a process sees
    # one MIG instance, always as device 0 (MIG User Guide, "CUDA Device Enumeration").
    sig(
        "MIG_DEVICE_MISUSED",
        r"invalid device ordinal|No CUDA GPUs are available|no CUDA-capable device is detected"
        r"|CUDA_ERROR_NO_DEVICE\b|cudaErrorNoDevice\b",
        "https://github.com/mlcommons/training/issues/442",
        _on_mig,
    ),
    # Turning MIG mode on or off takes effect at a GPU reset, which fails while any process holds
    # the GPU: nvidia-smi leaves the change pending, NVIDIA's mig-parted (and the GPU Operator's
    # MIG manager) lists the GPUs it could not reset.
    sig(
        "MIG_RESET_BLOCKED",
        r"MIG mode is in pending (?:enable|disable) state"
        r"|could not be reset:\s{0,20}GPU [0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d: In use by another client",
        "https://github.com/NVIDIA/mig-parted/issues/181",
    ),
    # cudaErrorDevicesUnavailable (46), CUDA_ERROR_DEVICE_UNAVAILABLE in the driver API: the
    # wording changed from "all CUDA-capable devices are busy or unavailable" (CUDA 11 and older)
    # to "CUDA-capable device(s) is/are busy or unavailable".
    sig(
        "GPU_BUSY_OR_EXCLUSIVE",
        r"all CUDA-capable devices are busy or unavailable"
        r"|CUDA-capable device\(s\) is/are busy or unavailable"
        r"|cudaErrorDevicesUnavailable\b|CUDA_ERROR_DEVICE_UNAVAILABLE\b",
        "https://github.com/Tencent-Hunyuan/InstantCharacter/issues/21",
    ),
    # torch/cuda/__init__.py (_lazy_init) in a process forked after CUDA started in its parent.
    sig(
        "CUDA_FORKED_SUBPROCESS",
        r"Cannot re-initialize CUDA in forked subprocess",
        "https://github.com/OpenGVLab/Ask-Anything/issues/242",
    ),
)

DEVICES_PART: Final = DiagnosisPart(
    codes=(
        "KERNEL_MODULE_MISMATCH",
        "CUDA_FORWARD_COMPAT_UNSUPPORTED",
        "CUDA_DEVICE_NOT_VISIBLE",
        "MIG_DEVICE_MISUSED",
        "MIG_RESET_BLOCKED",
        "GPU_BUSY_OR_EXCLUSIVE",
        "CUDA_FORKED_SUBPROCESS",
        "CUDA_SYSTEM_NOT_READY",
        "CUDA_INIT_FAILED",
    ),
    signatures=(*DRIVER_SIGNATURES, *SHARING_SIGNATURES),
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
    },
)
