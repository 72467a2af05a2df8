"""PyTorch's own words for failures of its GPU stack: cuDNN, the driver, torchvision, cuBLAS.

Part of :mod:`gpuwizard.core.findings.diagnosis`. Each signature cites a public report whose log
is recorded in tests/fixtures/recorded/diagnose (SOURCES.md lists them); its signatures and their texts are data in
``resources/findings/torch.json``; this module holds the code they name.

>>> from gpuwizard.core.findings.diagnosis import diagnose
>>> [finding] = diagnose("RuntimeError: operator torchvision::nms does not exist")
>>> finding.code, finding.params["operator"]
('TORCHVISION_MISMATCH', 'torchvision::nms')
"""

from __future__ import annotations

import re
from typing import Final

from gpuwizard.core.findings.signature import DiagnosisPart, Values

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


TORCH_PART: Final = DiagnosisPart(
    name="torch",
    extractors=(_cudnn,),
    # cuBLAS failing to start is the out-of-memory error itself when the log says so.
    suppresses={"GPU_OUT_OF_MEMORY": ("CUBLAS_ALLOC_FAILED",)},
)
