"""Known errors of JAX, ONNX Runtime, and several CUDA runtimes loaded into one process.

Part of :mod:`gpuwizard.core.findings.diagnosis`, which merges :data:`RUNTIMES_PART` into its
signatures. Each signature cites a public report that shows the message; the logs are recorded in
tests/fixtures/recorded/diagnose (SOURCES.md says where each one comes from). The texts are in
:mod:`gpuwizard.core.findings.catalog_runtimes`.
"""

from __future__ import annotations

from typing import Final

from gpuwizard.core.findings.signature import DiagnosisPart

RUNTIMES_PART: Final = DiagnosisPart(codes=(), signatures=())
