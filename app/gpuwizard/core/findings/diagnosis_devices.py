"""Known errors of the driver's kernel module, device visibility (CUDA_VISIBLE_DEVICES) and MIG.

Part of :mod:`gpuwizard.core.findings.diagnosis`, which merges :data:`DEVICES_PART` into its
signatures. Each signature cites a public report that shows the message; the logs are recorded in
tests/fixtures/recorded/diagnose (SOURCES.md says where each one comes from). The texts are in
:mod:`gpuwizard.core.findings.catalog_devices`.
"""

from __future__ import annotations

from typing import Final

from gpuwizard.core.findings.signature import DiagnosisPart

DEVICES_PART: Final = DiagnosisPart(codes=(), signatures=())
