"""Known errors of GPUs in containers, Kubernetes and WSL 2.

Part of :mod:`gpuwizard.core.findings.diagnosis`, which merges :data:`CONTAINERS_PART` into its
signatures. Each signature cites a public report that shows the message; the logs are recorded in
tests/fixtures/recorded/diagnose (SOURCES.md says where each one comes from). The texts are in
:mod:`gpuwizard.core.findings.catalog_containers`.
"""

from __future__ import annotations

from typing import Final

from gpuwizard.core.findings.signature import DiagnosisPart

CONTAINERS_PART: Final = DiagnosisPart(codes=(), signatures=())
