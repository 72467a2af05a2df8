"""Variables an environment sets on activation, where the framework benefits from them."""

from __future__ import annotations

import re


class GpuSelectionError(ValueError):
    """A GPU selection that CUDA_VISIBLE_DEVICES cannot express (one line, exit code 2)."""


#: The variable that limits the framework to chosen GPUs, per plan device: NVIDIA's
#: CUDA_VISIBLE_DEVICES; ROCm's HIP_VISIBLE_DEVICES (ROCm docs, "GPU isolation techniques");
#: Level Zero's ZE_AFFINITY_MASK for Intel GPUs (oneAPI Level Zero specification, "Affinity Mask").
VISIBLE_DEVICES_VARIABLE = {
    "cuda": "CUDA_VISIBLE_DEVICES",
    "rocm": "HIP_VISIBLE_DEVICES",
    "xpu": "ZE_AFFINITY_MASK",
}


def activation_variables(
    framework: str, cpu_only: bool, gpus: str | None = None, device: str = "cuda"
) -> dict[str, str]:
    """The variables for a new environment.

    TensorFlow on a GPU: ``TF_FORCE_GPU_ALLOW_GROWTH=true`` makes it take GPU memory as needed
    instead of nearly all of it at start (tensorflow.org/guide/gpu#limiting_gpu_memory_growth):
    the usual cure for ``CUDNN_STATUS_INTERNAL_ERROR`` when another process holds memory
    (github.com/tensorflow/tensorflow/issues/24496), and it lets others share the card.
    ``TF_CPP_MIN_LOG_LEVEL=1`` hides TensorFlow's INFO lines but keeps warnings and errors.
    ``CUDA_VISIBLE_DEVICES`` when the user picked GPUs (docs.nvidia.com/cuda/cuda-c-programming-guide,
    "CUDA Environment Variables").

    >>> activation_variables("tensorflow", cpu_only=False, gpus="0,2")
    {'TF_FORCE_GPU_ALLOW_GROWTH': 'true', 'TF_CPP_MIN_LOG_LEVEL': '1', 'CUDA_VISIBLE_DEVICES': '0,2'}
    >>> activation_variables("pytorch", cpu_only=True)
    {}
    >>> activation_variables("pytorch", cpu_only=False, gpus="1", device="rocm")
    {'HIP_VISIBLE_DEVICES': '1'}
    """
    variables: dict[str, str] = {}
    if framework == "tensorflow":
        if not cpu_only:
            variables["TF_FORCE_GPU_ALLOW_GROWTH"] = "true"
        variables["TF_CPP_MIN_LOG_LEVEL"] = "1"
    if gpus is not None:
        # MPS has one GPU and no such variable; CPU plans keep the NVIDIA one as before.
        name = VISIBLE_DEVICES_VARIABLE.get(device, "CUDA_VISIBLE_DEVICES")
        variables[name] = check_gpu_selection(gpus)
    return variables


def check_gpu_selection(gpus: str) -> str:
    """``0,1`` style indices, or GPU UUIDs (``GPU-8f6c...``), as CUDA_VISIBLE_DEVICES takes them.

    >>> check_gpu_selection(" 0, 1 ")
    '0,1'
    """
    parts = [part.strip() for part in gpus.split(",")]
    if not parts or any(not re.fullmatch(r"[0-9]+|(GPU|MIG)-[0-9A-Za-z/-]+", part) for part in parts):
        raise GpuSelectionError(f"{gpus!r} is not a GPU selection (write indices such as 0,1)")
    if len(set(parts)) != len(parts):
        raise GpuSelectionError(f"{gpus!r} names a GPU twice")
    return ",".join(parts)
