"""PyTorch's own words for failures of its GPU stack: cuDNN, the driver, torchvision, cuBLAS.

Part of :mod:`gpuwizard.core.findings.diagnosis`. Each signature cites a public report whose log
is recorded in tests/fixtures/recorded/diagnose (SOURCES.md lists them); the texts are in
``resources/findings/torch.json``.

>>> from gpuwizard.core.findings.diagnosis import diagnose
>>> [finding] = diagnose("RuntimeError: operator torchvision::nms does not exist")
>>> finding.code, finding.params["operator"]
('TORCHVISION_MISMATCH', 'torchvision::nms')
"""

from __future__ import annotations

import re
from typing import Final

from gpuwizard.core.findings.signature import DiagnosisPart, Signature, Values, sig

#: cuDNN 9 numbers its version major*10000 + minor*100 + patch, older releases
#: major*1000 + minor*100 + patch (cudnn.h, CUDNN_VERSION).
_CUDNN9_NUMBER: Final = 10000


def cudnn_version(text: str) -> str:
    """A cuDNN version as PyTorch prints it, in dotted form.

    >>> cudnn_version("(9, 10, 2)"), cudnn_version("7102"), cudnn_version("90100")
    ('9.10.2', '7.1.2', '9.1.0')
    """
    if text.startswith("("):
        return ".".join(part.strip() for part in text.strip("()").split(","))
    number = int(text)
    if number >= _CUDNN9_NUMBER:
        return f"{number // 10000}.{number % 10000 // 100}.{number % 100}"
    return f"{number // 1000}.{number % 1000 // 100}.{number % 100}"


def _cudnn(match: re.Match[str]) -> Values:
    compiled = cudnn_version(match.group("compiled"))
    return {
        "compiled": compiled,
        "loaded": cudnn_version(match.group("loaded")),
        "major": compiled.split(".")[0],
    }


_VERSION: Final = r"(?:\(\d{1,3}, ?\d{1,3}, ?\d{1,3}\)|\d{4,6})"

TORCH_SIGNATURES: Final[tuple[Signature, ...]] = (
    # torch/backends/cudnn/__init__.py since pytorch/pytorch#80877 (2022): "compiled  against"
    # (two spaces) ... "found runtime version"; before it "linked against", and in PyTorch 1.x
    # "cuDNN version mismatch" with version numbers (7102 for 7.1.2).
    sig(
        "CUDNN_VERSION_MISMATCH",
        r"cuDNN version (?:incompatibility|mismatch): PyTorch was compiled\s{1,3}against "
        rf"(?P<compiled>{_VERSION}) but (?:found runtime version|linked against) (?P<loaded>{_VERSION})",
        "https://github.com/gladiaio/gladia/issues/928",
        _cudnn,
        variant="torch",
    ),
    # torch/cuda/__init__.py (_lazy_init); PyTorch before 1.0 wrapped the sentence over lines.
    sig(
        "NO_NVIDIA_DRIVER",
        r"Found no NVIDIA driver on your system",
        "https://github.com/runpod/containers/issues/56",
        variant="log",
    ),
    # torchvision/_meta_registrations.py registers a fake kernel for its C++ operator, which
    # is missing when torchvision's compiled library did not load into this torch.
    sig(
        "TORCHVISION_MISMATCH",
        r"operator (?P<operator>torchvision::\w{1,60}) does not exist",
        "https://github.com/fudan-generative-vision/hallo/issues/98",
    ),
    # TensorFlow's stream executor (cuda_blas.cc) first: its variant names memory growth.
    sig(
        "CUBLAS_ALLOC_FAILED",
        r"failed to create cublas handle: (?P<status>CUBLAS_STATUS_(?:ALLOC_FAILED|NOT_INITIALIZED))",
        "https://github.com/tensorflow/tensorflow/issues/7072",
        variant="tensorflow",
    ),
    # PyTorch (at::cuda::getCurrentCUDABlasHandle): "CUDA error: ... when calling `cublasCreate(handle)`".
    sig(
        "CUBLAS_ALLOC_FAILED",
        r"(?P<status>CUBLAS_STATUS_(?:ALLOC_FAILED|NOT_INITIALIZED)) when calling `?cublasCreate",
        "https://github.com/QwenLM/Qwen3/issues/873",
    ),
)

TORCH_PART: Final = DiagnosisPart(
    codes=("NO_NVIDIA_DRIVER", "TORCHVISION_MISMATCH", "CUBLAS_ALLOC_FAILED"),
    signatures=TORCH_SIGNATURES,
    # cuBLAS failing to start is the out-of-memory error itself when the log says so.
    suppresses={"GPU_OUT_OF_MEMORY": ("CUBLAS_ALLOC_FAILED",)},
)
