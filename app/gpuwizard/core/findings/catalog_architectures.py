"""Finding texts of a build without code for the GPU: no kernel image, unsupported architectures.

What :mod:`gpuwizard.core.findings.diagnosis` says when a framework build lacks the GPU's
architecture, by the GPU's generation where the log names it (Kepler, older than Turing, Turing to
Hopper, Blackwell). One part of :data:`gpuwizard.core.findings.catalog.CATALOG`, which merges the
parts.
"""

from __future__ import annotations

from typing import Final

from gpuwizard.core.findings.template import FindingTemplate
from gpuwizard.core.texts import QT_TRANSLATE_NOOP

# Texts that several variants share (one source, one translation).
_NO_CODE_FOR_GPU: Final = QT_TRANSLATE_NOOP(
    "findings",
    "The installed build has no code for this GPU (compute capability {capability}): 'no "
    "kernel image is available for execution on the device'.",
)
_ARCH_NOT_SUPPORTED: Final = QT_TRANSLATE_NOOP(
    "findings",
    "{gpu} (CUDA capability {capability}) is not supported by the installed PyTorch build.",
)

#: The templates of builds without code for the GPU, by code (and ``CODE:variant``).
ARCHITECTURE_TEMPLATES: Final[dict[str, FindingTemplate]] = {
    # Which PyTorch builds carry which GPU generations: resources/compat/pytorch.json, read from
    # the wheels (PYPI-TORCH-WHEEL) and PyTorch's release notes. From 2.8 on, GPUs older than
    # Turing (Maxwell 5.x, Pascal 6.x, Volta 7.0) are only in the CUDA 12.6 builds (cu126; Volta
    # left cu128 with 2.11, pytorch/pytorch#172352, PR #175253), and 2.14 is the last release with
    # a cu126 build (RFC pytorch/pytorch#190385); Blackwell (10.0, 12.0) only in CUDA 12.8 and
    # newer builds, from 2.7 on (PyTorch 2.7 release notes). A variant is chosen when the log
    # names the GPU's architecture (sm_61, "compute capability 6.1"): its advice comes first.
    "NO_KERNEL_IMAGE": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "The installed build has no code for this GPU ('no kernel image is available for "
            "execution on the device').",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Install a build that includes your GPU's architecture; 'nvidia-smi --query-gpu=name,compute_cap "
            "--format=csv' shows it. GPUs older than Turing (compute capability below 7.5: GTX 10-series, "
            "Titan V) are only in PyTorch's CUDA 12.6 builds: 'pip install torch --index-url "
            "https://download.pytorch.org/whl/cu126'. RTX 50-series GPUs (Blackwell, 12.0) need PyTorch "
            "2.7 or newer from a CUDA 12.8 or newer index, for example 'pip install torch --index-url "
            "https://download.pytorch.org/whl/cu128'. If the error comes from an extension built "
            "separately (detectron2, mamba-ssm, flash-attn), rebuild or reinstall it for this GPU. "
            "'gpuwizard diagnose LOG --system REPORT' names the exact build for a machine.",
        ),
    ),
    "NO_KERNEL_IMAGE:pre_turing": FindingTemplate(
        "error",
        _NO_CODE_FOR_GPU,
        QT_TRANSLATE_NOOP(
            "findings",
            "GPUs older than Turing (compute capability below 7.5: GTX 900 and 10-series, Titan V) are "
            "only in PyTorch's CUDA 12.6 builds, not in the CUDA 12.8 and newer ones: 'pip install "
            "torch --index-url https://download.pytorch.org/whl/cu126' (PyTorch 2.14 is the last "
            "release with such a build). If the error comes from an extension built separately "
            "(detectron2, mamba-ssm, flash-attn), rebuild it for this GPU.",
        ),
    ),
    "NO_KERNEL_IMAGE:kepler": FindingTemplate(
        "error",
        _NO_CODE_FOR_GPU,
        QT_TRANSLATE_NOOP(
            "findings",
            "Kepler GPUs (compute capability 3.x) are only in old PyTorch releases' CUDA 11 builds, "
            "which also need a driver that serves them. 'gpuwizard recommend --framework pytorch' on "
            "that machine (or 'gpuwizard diagnose LOG --system REPORT') names the newest one that fits; "
            "otherwise use the CPU build.",
        ),
    ),
    # Turing to Hopper (7.5 to 9.0) are in every current CUDA build (the lists above); a GPU of
    # theirs without a kernel image points at an old PyTorch (Ampere needs 1.7.1 or newer, built
    # for CUDA 11.0 or newer: PyTorch 1.7.1 release notes) or an extension built for other GPUs.
    "NO_KERNEL_IMAGE:current_gpu": FindingTemplate(
        "error",
        _NO_CODE_FOR_GPU,
        QT_TRANSLATE_NOOP(
            "findings",
            "Every current PyTorch CUDA build (cu126, cu128 and newer) includes compute capability "
            "{capability}, so the code that failed is older or was built apart: a PyTorch from before "
            "this GPU's generation (Ampere needs 1.7.1 or newer, built for CUDA 11.0 or newer), or an "
            "extension compiled for other GPUs (detectron2, mamba-ssm, flash-attn, bitsandbytes, a "
            "custom CUDA op). Install a current PyTorch ('pip install torch --index-url "
            "https://download.pytorch.org/whl/cu126'), then rebuild the extension for this GPU, for "
            "example with TORCH_CUDA_ARCH_LIST set to {capability}.",
        ),
    ),
    "NO_KERNEL_IMAGE:blackwell": FindingTemplate(
        "error",
        _NO_CODE_FOR_GPU,
        QT_TRANSLATE_NOOP(
            "findings",
            "Blackwell GPUs (RTX 50-series: 12.0; B200: 10.0) need PyTorch 2.7 or newer from a CUDA "
            "12.8 or newer index, for example 'pip install torch --index-url "
            "https://download.pytorch.org/whl/cu128', with a driver of the 570 series or newer. If the "
            "error comes from an extension built separately (detectron2, mamba-ssm, flash-attn), "
            "rebuild it for this GPU.",
        ),
    ),
    "GPU_ARCH_UNSUPPORTED:log": FindingTemplate(
        "error",
        _ARCH_NOT_SUPPORTED,
        QT_TRANSLATE_NOOP(
            "findings",
            "Install a PyTorch build whose list of architectures includes {capability}: GPUs older "
            "than Turing are only in the CUDA 12.6 builds (.../whl/cu126), RTX 50-series GPUs only "
            "in the CUDA 12.8 and newer ones (.../whl/cu128), for example 'pip install torch "
            "--index-url https://download.pytorch.org/whl/cu126'. Until then, GPU work fails with "
            "'no kernel image is available for execution on the device'.",
        ),
    ),
    "GPU_ARCH_UNSUPPORTED:log_pre_turing": FindingTemplate(
        "error",
        _ARCH_NOT_SUPPORTED,
        QT_TRANSLATE_NOOP(
            "findings",
            "GPUs older than Turing ({capability} is one) are only in PyTorch's CUDA 12.6 builds, not "
            "in the CUDA 12.8 and newer ones: 'pip install torch --index-url "
            "https://download.pytorch.org/whl/cu126' (PyTorch 2.14 is the last release with such a "
            "build). Until then, GPU work fails with 'no kernel image is available for execution on "
            "the device'.",
        ),
    ),
    "GPU_ARCH_UNSUPPORTED:log_current_gpu": FindingTemplate(
        "error",
        _ARCH_NOT_SUPPORTED,
        QT_TRANSLATE_NOOP(
            "findings",
            "Every current PyTorch CUDA build (cu126, cu128 and newer) includes {capability}: the "
            "installed one is older than this GPU's generation. Install a current build, for example "
            "'pip install torch --index-url https://download.pytorch.org/whl/cu126', after "
            "'pip uninstall torch'. Until then, GPU work fails with 'no kernel image is available "
            "for execution on the device'.",
        ),
    ),
    "GPU_ARCH_UNSUPPORTED:log_blackwell": FindingTemplate(
        "error",
        _ARCH_NOT_SUPPORTED,
        QT_TRANSLATE_NOOP(
            "findings",
            "Blackwell GPUs ({capability}; RTX 50-series) need PyTorch 2.7 or newer from a CUDA 12.8 "
            "or newer index, for example 'pip install torch --index-url "
            "https://download.pytorch.org/whl/cu128', with a driver of the 570 series or newer. Until "
            "then, GPU work fails with 'no kernel image is available for execution on the device'.",
        ),
    ),
    "GPU_ARCH_UNSUPPORTED:too_old": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings", "{gpu} (compute capability {capability}) is too old for the installed PyTorch."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "PyTorch builds drop old GPU generations over time. Install an older PyTorch release "
            "that still supports compute capability {capability}, build PyTorch from source for it, "
            "or use the CPU build.",
        ),
    ),
}
