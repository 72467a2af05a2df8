"""Known errors of the platform around a framework: containers, Windows memory, XLA's ptxas.

Part of :mod:`gpuwizard.core.findings.diagnosis`, which merges :data:`PLATFORM_PART` into
its signatures. Each signature cites a public report that shows the message; the logs are recorded in
tests/fixtures/recorded/diagnose (SOURCES.md says where each one comes from).

Windows messages arrive in the user's language ("页面文件太小，无法完成操作" is Chinese for "The paging
file is too small for this operation to complete"), so Windows errors are matched by their number
(``[WinError 1455]``, ``os error 1455``), never by their English words alone.
"""

from __future__ import annotations

import re
from typing import Final

from gpuwizard.core.findings.signature import DiagnosisPart, Signature, Values, sig

#: Windows' ERROR_COMMIT_LIMIT: "The paging file is too small for this operation to complete"
#: (learn.microsoft.com/en-us/windows/win32/debug/system-error-codes--1300-1699-).
WINDOWS_PAGING_FILE_ERROR: Final = 1455


def _ptxas_version(match: re.Match[str]) -> Values:
    return {"ptxas": match.group("ptxas")} if match.group("ptxas") else {}


PLATFORM_SIGNATURES: Final[tuple[Signature, ...]] = (
    # NVML inside a container that lost its device access: systemd re-applied the container's
    # cgroup without the GPU devices (NVIDIA's notice, NVIDIA/nvidia-docker#1730). The host's
    # nvidia-smi still works.
    sig(
        "CONTAINER_NVML_UNKNOWN_ERROR",
        r"Failed to initialize NVML: Unknown Error",
        "https://github.com/NVIDIA/nvidia-container-toolkit/issues/1227",
    ),
    # Docker's daemon when --gpus (or compose's "capabilities: [gpu]") finds no GPU device
    # driver: the NVIDIA Container Toolkit is missing or not registered with Docker. The driver
    # name is empty for --gpus all and "nvidia" for compose's "driver: nvidia".
    sig(
        "DOCKER_NO_GPU_RUNTIME",
        r'could not select device driver "(?:nvidia)?" with capabilities: \[\[gpu\]\]',
        "https://github.com/AbdBarho/stable-diffusion-webui-docker/issues/423",
    ),
    # Python's OSError ("[WinError 1455] <localised text>") and Rust's io::Error
    # ("... (os error 1455)"), whatever language the text between is in.
    sig(
        "WINDOWS_PAGING_FILE_TOO_SMALL",
        rf"\[WinError {WINDOWS_PAGING_FILE_ERROR}\]|\(os error {WINDOWS_PAGING_FILE_ERROR}\)",
        "https://github.com/yassouali/pytorch-segmentation/issues/118",
        flags=re.IGNORECASE,
    ),
    # XLA (TensorFlow, JAX) found no ptxas binary and no PTX compiler library.
    sig(
        "XLA_PTXAS_MISSING",
        r"No PTX compilation provider is available|Couldn't find a suitable version of ptxas",
        "https://github.com/wutzebaer/tensorflow-5090/issues/3",
    ),
    # XLA found a ptxas older than it needs; ptxas itself refuses PTX newer than it knows.
    sig(
        "XLA_PTXAS_MISSING",
        r"You are using ptxas (?P<ptxas>\d[\w.]{0,20}?),? (?:but \w{1,10} requires ptxas|which is older than)"
        r"|ptxas[^\n]{0,300}?Unsupported \.version \d+\.\d+; current version is '\d+\.\d+'",
        "https://github.com/jax-ml/jax/issues/6799",
        _ptxas_version,
        variant="too_old",
    ),
)

PLATFORM_PART: Final = DiagnosisPart(
    codes=(
        "CONTAINER_NVML_UNKNOWN_ERROR",
        "DOCKER_NO_GPU_RUNTIME",
        "WINDOWS_PAGING_FILE_TOO_SMALL",
        "XLA_PTXAS_MISSING",
    ),
    signatures=PLATFORM_SIGNATURES,
    # torch/__init__.py names the DLL it could not load, but the cause is memory, not a DLL.
    suppresses={"WINDOWS_PAGING_FILE_TOO_SMALL": ("TORCH_DLL_LOAD_FAILED",)},
)
