r"""Known errors of GPUs in containers, Kubernetes and WSL 2.

Part of :mod:`gpuwizard.core.findings.diagnosis`, which tries
:data:`CONTAINERS_PART` with the other parts. Each signature cites a public report that shows the message; the logs are recorded in
tests/fixtures/recorded/diagnose (SOURCES.md says where each one comes from). Its signatures and their texts are data in
``resources/findings/containers.json``; this module holds the code they name.

WSL 2 errors are claimed only when the log itself shows WSL (the WSL kernel's name, the
``/usr/lib/wsl`` folder, a ``wsl`` command or the word WSL, or a Windows drive under ``/mnt``):
the same words on a plain Linux machine have other causes (a kernel module that is not loaded,
a driver updated without a reboot), which other parts recognise.

>>> from gpuwizard.core.findings.diagnosis import diagnose
>>> [f.code for f in diagnose("docker: Error response from daemon: unknown or invalid runtime name: nvidia.")]
['DOCKER_NO_GPU_RUNTIME']
>>> [f.code for f in diagnose("OSError: libcuda.so: cannot open shared object file")]
['DLL_NOT_FOUND']
>>> [f.code for f in diagnose("WSL 2\nOSError: libcuda.so: cannot open shared object file")]
['WSL_LIBCUDA_NOT_FOUND']
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Final

from gpuwizard.core.findings.log_facts import per_log, shows_wsl
from gpuwizard.core.findings.signature import DRIVER_LIBRARY, DiagnosisPart, Hit, Values


# Whether a whole log shows WSL or a GPU option, asked once per log however many lines match (a
# long log repeating one error must not be searched again for every repetition).
@per_log
def _shows_gpu_option(text: str) -> bool:
    return _GPU_REQUESTED.search(text) is not None


def _in_wsl(match: re.Match[str]) -> Values | None:
    """The match counts only when the log shows WSL."""
    if not shows_wsl(match.string):
        return None
    return {name: value for name, value in match.groupdict().items() if value}


#: A GPU asked for on the command line or in compose: --gpus, the nvidia runtime, a CDI device,
#: compose's device reservation (the banner's own "Use 'nvidia-docker run'" does not count).
_GPU_REQUESTED: Final = re.compile(
    r"(?<![\w-])--gpus[= ]|--runtime[= ]nvidia\b|--device[= ]nvidia\.com/gpu|capabilities: ?\[ ?[\"']?gpu"
)


def _no_gpu_option(match: re.Match[str]) -> Values | None:
    """The banner counts as a missing GPU option only when the log shows none."""
    return None if _shows_gpu_option(match.string) else {}


#: A container started from the command line: docker or podman run, docker compose up/run.
_CONTAINER_RUN: Final = re.compile(
    r"\b(?:docker|podman|nerdctl) (?:container )?run\b|\bdocker[ -]compose (?:up|run)\b"
)


@per_log
def _shows_container_run(text: str) -> bool:
    return _CONTAINER_RUN.search(text) is not None


def _container_run_without_gpu(match: re.Match[str]) -> Values | None:
    """nvidia-smi's failure counts as a container without GPUs only after a run command without one."""
    text = match.string
    return {} if _shows_container_run(text) and not _shows_gpu_option(text) and not shows_wsl(text) else None


def _with_gpu_option(match: re.Match[str]) -> Values | None:
    """The banner although the log shows a GPU option: the host or the image is at fault."""
    return {} if _shows_gpu_option(match.string) else None


def _toolkit(match: re.Match[str]) -> Values:
    stage = match.group("stage")
    detail = match.group("detail").strip().removesuffix(".").removesuffix(": unknown").strip()
    return {"stage": stage, "detail": detail}


def _toolkit_variant(
    values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    """The driver's library missing, a mount that failed, a driver too old for the image, or another error."""
    detail = (values.get("detail") or [""])[0]
    stage = (values.get("stage") or [""])[0]
    if "load library failed" in detail:
        library = re.search(r"lib[\w.-]{1,60}\.so(?:\.\d+){0,3}", detail)
        return "driver_library", {"library": library.group(0) if library else "libnvidia-ml.so.1"}
    if stage == "mount error":
        return "mount", {}
    if stage == "requirement error":
        cuda = re.search(r"cuda ?>= ?(\d+(?:\.\d+)?)", detail)
        return "requirement", {"cuda": cuda.group(1) if cuda else "?"}
    return None, {}


def _kubernetes_variant(
    values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    """The device plugin's own failure explains the pending pods; it goes first."""
    return ("device_plugin" if "device_plugin" in variants else None), {}


def _wsl_driver_library(hits: dict[str, Hit], text: str) -> None:
    """In WSL 2 the driver's libcuda is in /usr/lib/wsl/lib: the WSL finding, not "install a driver".

    WSL_LIBCUDA_NOT_FOUND says where it is, where DLL_NOT_FOUND of the driver's library alone
    would tell to install a driver.
    """
    dll = hits.get("DLL_NOT_FOUND")
    libraries = dll.values.get("libraries", []) if dll else []
    if dll and "WSL_LIBCUDA_NOT_FOUND" in hits and all(DRIVER_LIBRARY.fullmatch(name) for name in libraries):
        hits.pop("DLL_NOT_FOUND")


CONTAINERS_PART: Final = DiagnosisPart(
    name="containers",
    extractors=(
        _no_gpu_option,
        _container_run_without_gpu,
        _with_gpu_option,
        _toolkit,
        _in_wsl,
    ),
    suppresses={
        # The not-found hint explains the ldconfig note too.
        "WSL_LIBCUDA_NOT_FOUND": ("WSL_LIBCUDA_NOT_SYMLINK",),
        # WSL 2 has no NVIDIA kernel module of its own (the Windows driver serves it), so the
        # kernel-module advice for "couldn't communicate" does not apply there.
        "WSL_LINUX_DRIVER_CONFLICT": ("KERNEL_MODULE_MISMATCH",),
        # Nor in a container started without the GPU: the driver was never passed in.
        "CONTAINER_STARTED_WITHOUT_GPU": ("KERNEL_MODULE_MISMATCH",),
    },
    rules=(_wsl_driver_library,),
    refiners={
        "CONTAINER_TOOLKIT_FAILED": _toolkit_variant,
        "KUBERNETES_NO_GPU": _kubernetes_variant,
    },
)
