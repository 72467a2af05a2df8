"""Finding texts of PyTorch's own failures in logs: cuDNN, the driver, torchvision and cuBLAS.

What :mod:`gpuwizard.core.findings.diagnosis_torch` recognises. One part of
:data:`gpuwizard.core.findings.catalog.CATALOG`, which merges the parts. The real logs behind
each text are listed in tests/fixtures/recorded/diagnose/SOURCES.md.
"""

from __future__ import annotations

from typing import Final

from gpuwizard.core.findings.template import NVIDIA_DRIVER_DOWNLOAD, FindingTemplate
from gpuwizard.core.texts import QT_TRANSLATE_NOOP

#: The templates of PyTorch's failures, by code (and ``CODE:variant``).
TORCH_TEMPLATES: Final[dict[str, FindingTemplate]] = {
    # PyTorch's check (torch/backends/cudnn/__init__.py, _init): the loaded cuDNN must have
    # the build's major version and an equal or newer minor one. Wheels bring cuDNN with them
    # (the nvidia-cudnn-cu* wheel on Linux, a copy in torch/lib on Windows), so another
    # cuDNN found first on LD_LIBRARY_PATH is the usual cause (pytorch/pytorch#80877, which
    # worded the error).
    "CUDNN_VERSION_MISMATCH:torch": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "PyTorch was built with cuDNN {compiled}, but another cuDNN, {loaded}, was loaded first.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "PyTorch brings its own cuDNN (the nvidia-cudnn wheel it installed, or torch/lib in "
            "older wheels); a system or conda cuDNN on the library search path shadows it. Remove "
            "that cuDNN's folder from LD_LIBRARY_PATH (PATH on Windows) for this environment, or "
            "unset LD_LIBRARY_PATH, then start Python again. If the nvidia-cudnn wheel is missing, "
            "reinstall torch from the same index it came from. Only a cuDNN {major}.x at least as "
            "new as {compiled} can replace the bundled one.",
        ),
    ),
    # torch/cuda/__init__.py: _cuda_init finds no driver (cudaErrorNoDevice / no libcuda).
    "NO_NVIDIA_DRIVER:log": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP("findings", "PyTorch found no NVIDIA driver, so it cannot use a GPU here."),
        QT_TRANSLATE_NOOP(
            "findings",
            "If this computer has an NVIDIA GPU, install its driver from " + NVIDIA_DRIVER_DOWNLOAD + " "
            "(on Ubuntu: 'sudo ubuntu-drivers install') and restart; 'nvidia-smi' must then list "
            "the GPU. In a container, start it with GPU access ('docker run --gpus all ...', which "
            "needs the NVIDIA Container Toolkit on the host); in WSL 2, install the driver on "
            "Windows, not inside WSL. Without an NVIDIA GPU (a Mac, Intel or AMD graphics), run "
            "on the CPU: use the device 'cpu' instead of 'cuda' or '.cuda()'.",
        ),
    ),
    # torchvision registers its operators (torchvision::nms first) from its compiled library,
    # which loads only into the torch release it was built for (the pairs are listed at
    # https://github.com/pytorch/vision#installation).
    "TORCHVISION_MISMATCH": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "torchvision does not fit the installed torch: its compiled operators ({operator}) did not load.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "torch and torchvision are released in pairs (torch 2.5 with torchvision 0.20, 2.6 with "
            "0.21, and so on) and must come from the same build variant (CPU, cu121, cu126, ...). "
            "Install the torchvision paired with your torch from the same index, for example "
            "'pip install torch==X torchvision==Y --index-url https://download.pytorch.org/whl/cu126', "
            "or reinstall both together; check with 'pip list' that only one torch is installed.",
        ),
    ),
    # cublasCreate allocates cuBLAS's resources on the GPU. cuBLAS documentation, "cublasStatus_t":
    # ALLOC_FAILED is "usually caused by a cudaMalloc() failure"; NOT_INITIALIZED by "an error in
    # the CUDA Runtime API called by the cuBLAS routine", in practice the same allocation
    # (QwenLM/Qwen#120 and OpenBMB/VisCPM#3, maintainers' answers).
    "CUBLAS_ALLOC_FAILED": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings", "cuBLAS could not start on the GPU ({status}): almost always, GPU memory ran out."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Free GPU memory: close other programs or notebooks that hold it ('nvidia-smi' lists "
            "them), use a smaller batch size or model, or load the model in half precision. With "
            "several GPUs, pick one with free memory (CUDA_VISIBLE_DEVICES). If memory is free, "
            "check that the framework build fits the GPU and driver.",
        ),
    ),
    # TensorFlow maps nearly all GPU memory at start unless memory growth is on
    # (https://www.tensorflow.org/guide/gpu, "Limiting GPU memory growth", which also documents
    # TF_FORCE_GPU_ALLOW_GROWTH).
    "CUBLAS_ALLOC_FAILED:tensorflow": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "TensorFlow could not create a cuBLAS handle ({status}): almost always, GPU memory ran out.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "TensorFlow reserves nearly all GPU memory at start, leaving none for cuBLAS. Enable "
            "memory growth before building the model: "
            "'tf.config.experimental.set_memory_growth(gpu, True)' for each GPU, or set "
            "TF_FORCE_GPU_ALLOW_GROWTH=true. Also close other programs that use the GPU "
            "('nvidia-smi' lists them) and try a smaller batch size.",
        ),
    ),
}
