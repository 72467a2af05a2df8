r"""Known errors of GPUs in containers, Kubernetes and WSL 2.

Part of :mod:`gpuwizard.core.findings.diagnosis`, which merges :data:`CONTAINERS_PART` into its
signatures. Each signature cites a public report that shows the message; the logs are recorded in
tests/fixtures/recorded/diagnose (SOURCES.md says where each one comes from). The texts are in
``resources/findings/containers.json``.

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
from gpuwizard.core.findings.signature import DiagnosisPart, Signature, Values, sig


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


CONTAINERS_SIGNATURES: Final[tuple[Signature, ...]] = (
    # NVIDIA's CUDA and NGC images print this banner at start when they see no driver: the
    # container was started without --gpus (older images named 'nvidia-docker run' instead of
    # the Container Toolkit, NVIDIA/nvidia-docker#1071).
    sig(
        "CONTAINER_STARTED_WITHOUT_GPU",
        r"WARNING: The NVIDIA Driver was not detected\.",
        "https://github.com/prs-eth/PanopticSegForLargeScalePointCloud/issues/20",
        _no_gpu_option,
    ),
    # nvidia-smi inside a container whose 'docker run' (or podman's) the log shows without a GPU
    # option: the driver was never passed in, whatever the host has (mattshma/bigdata#108 mounted
    # the host's driver folders by hand instead). Without such a command in the log, the same
    # line is the kernel module's (diagnosis_devices) or WSL's (below).
    sig(
        "CONTAINER_STARTED_WITHOUT_GPU",
        r"NVIDIA-SMI has failed because it couldn.t communicate with the NVIDIA driver",
        "https://github.com/mattshma/bigdata/issues/108",
        _container_run_without_gpu,
        variant="run",
    ),
    # The same banner after 'docker run --gpus all': the host's toolkit did not pass the driver
    # in, or (older NGC images under WSL 2) the banner is wrong and the GPU works
    # (NVIDIA/nvidia-container-toolkit#271, NVIDIA/nvidia-docker#1548).
    sig(
        "CONTAINER_GPU_NOT_DETECTED",
        r"WARNING: The NVIDIA Driver was not detected\.",
        "https://github.com/NVIDIA/nvidia-container-toolkit/issues/271",
        _with_gpu_option,
    ),
    # The Container Toolkit's hook (nvidia-container-cli) failing while Docker creates the
    # container: "initialization error: load library failed: libnvidia-ml.so.1" (no driver on
    # the host, or Docker cannot see it: snap or rootless Docker, Docker Desktop), "mount
    # error: file creation failed: ...: file exists" (the image already holds driver files),
    # "requirement error: unsatisfied condition: cuda>=12.8" (the image's NVIDIA_REQUIRE_CUDA
    # asks for a newer driver, theroyallab/tabbyAPI#324).
    sig(
        "CONTAINER_TOOLKIT_FAILED",
        r"nvidia-container-cli: (?P<stage>initialization error|mount error|requirement error|ldcache error"
        r"|detection error)"
        r": (?P<detail>[^\n]{1,300})",
        "https://github.com/n8n-io/self-hosted-ai-starter-kit/issues/11",
        _toolkit,
    ),
    # Docker's daemon for --runtime=nvidia (or compose's "runtime: nvidia") when no runtime of
    # that name is registered in its daemon.json (Docker Desktop on Windows has none).
    sig(
        "DOCKER_NO_GPU_RUNTIME",
        r"unknown or invalid runtime name: nvidia",
        "https://github.com/nv-tlabs/3dgrut/issues/71",
        variant="runtime_name",
    ),
    # kube-scheduler's event when no node advertises enough nvidia.com/gpu (not other resources
    # such as HAMi's nvidia.com/gpu.memory or amd.com/gpu).
    sig(
        "KUBERNETES_NO_GPU",
        r"\d{1,5}/\d{1,5} nodes are available: [^\n]{0,200}?\d{1,5} Insufficient nvidia\.com/gpu(?!\.?[\w-])",
        "https://github.com/NVIDIA/k8s-device-plugin/issues/119",
    ),
    # The NVIDIA device plugin found no usable driver on its node: recent releases log
    # "Incompatible strategy detected auto" and "did you configure the NVIDIA Container
    # Toolkit?" (0.17.1 in NVIDIA/k8s-device-plugin#1220), older ones "could not load NVML
    # library" and "did you set the docker default runtime to `nvidia`?" (#444, #303).
    sig(
        "KUBERNETES_NO_GPU",
        r"If this is a GPU node, did you (?:configure the NVIDIA Container Toolkit"
        r"|set the docker default runtime to [`']?nvidia)",
        "https://github.com/NVIDIA/k8s-device-plugin/issues/1220",
        variant="device_plugin",
    ),
    # libcuda not found where WSL mounts it: dlopen("libcuda.so") fails in WSL because the
    # loader cache holds only libcuda.so.1 (microsoft/WSL#8587); bitsandbytes 0.38 said
    # "libcuda.so not found!" (bitsandbytes-foundation/bitsandbytes#332), cuda-python "Failed
    # to dlopen libcuda.so" (NVIDIA/cuda-python#17), Triton "libcuda.so cannot found!"
    # (pytorch/pytorch#107960); TensorFlow's "Could not load dynamic library 'libcuda.so.1'"
    # and the loader's own message too.
    sig(
        "WSL_LIBCUDA_NOT_FOUND",
        r"libcuda\.so(?:\.1)?: cannot open shared object file"
        r"|Could not load dynamic library 'libcuda\.so(?:\.1)?'"
        r"|WARNING! libcuda\.so not found!"
        r"|Failed to dlopen libcuda\.so"
        r"|libcuda\.so cannot found!",
        "https://github.com/microsoft/WSL/issues/8587",
        _in_wsl,
    ),
    # ldconfig (the ".real" binary on Debian and Ubuntu) on every package install in WSL: the
    # Windows driver ships libcuda.so.1 as a copy, not a link (microsoft/WSL#5548). Harmless.
    sig(
        "WSL_LIBCUDA_NOT_SYMLINK",
        r"ldconfig(?:\.real)?: /usr/lib/wsl/lib/libcuda\.so(?:\.1)? is not a symbolic link",
        "https://github.com/mahbub-aumi/tensorflow-cuda-wsl-ubuntu24.04/issues/2",
    ),
    # nvidia-smi inside WSL when a Linux driver's nvidia-smi and libnvidia-ml run instead of
    # the ones WSL mounts from Windows (microsoft/WSL#5265, microsoft/WSL#9166).
    sig(
        "WSL_LINUX_DRIVER_CONFLICT",
        r"NVIDIA-SMI has failed because it couldn.t communicate with the NVIDIA driver"
        r"|Failed to initialize NVML: GPU access blocked by the operating system",
        "https://github.com/microsoft/WSL/issues/9166",
        _in_wsl,
    ),
)

CONTAINERS_PART: Final = DiagnosisPart(
    codes=(
        "CONTAINER_STARTED_WITHOUT_GPU",
        "CONTAINER_GPU_NOT_DETECTED",
        "CONTAINER_TOOLKIT_FAILED",
        "KUBERNETES_NO_GPU",
        "WSL_LIBCUDA_NOT_FOUND",
        "WSL_LIBCUDA_NOT_SYMLINK",
        "WSL_LINUX_DRIVER_CONFLICT",
    ),
    signatures=CONTAINERS_SIGNATURES,
    suppresses={
        # The not-found hint explains the ldconfig note too.
        "WSL_LIBCUDA_NOT_FOUND": ("WSL_LIBCUDA_NOT_SYMLINK",),
        # WSL 2 has no NVIDIA kernel module of its own (the Windows driver serves it), so the
        # kernel-module advice for "couldn't communicate" does not apply there.
        "WSL_LINUX_DRIVER_CONFLICT": ("KERNEL_MODULE_MISMATCH",),
        # Nor in a container started without the GPU: the driver was never passed in.
        "CONTAINER_STARTED_WITHOUT_GPU": ("KERNEL_MODULE_MISMATCH",),
    },
    refiners={
        "CONTAINER_TOOLKIT_FAILED": _toolkit_variant,
        "KUBERNETES_NO_GPU": _kubernetes_variant,
    },
)
