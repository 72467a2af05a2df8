"""Known errors of the packages built on a framework: bitsandbytes, xFormers, compiled extensions, TensorRT engines, web UIs' GPU checks.

Part of :mod:`gpuwizard.core.findings.diagnosis`, which merges :data:`EXTENSIONS_PART` into its
signatures. Each signature cites a public report that shows the message; the logs are recorded in
tests/fixtures/recorded/diagnose (SOURCES.md says where each one comes from). The texts are in
:mod:`gpuwizard.core.findings.catalog_extensions`.
"""

from __future__ import annotations

from typing import Final

from gpuwizard.core.findings.signature import DiagnosisPart

EXTENSIONS_PART: Final = DiagnosisPart(codes=(), signatures=())
