"""Known errors of Python versions without wheels, and TensorFlow's DLL load failure on Windows.

Part of :mod:`gpuwizard.core.findings.diagnosis`, which merges :data:`PYTHON_PART` into its
signatures. Each signature cites a public report that shows the message; the logs are recorded in
tests/fixtures/recorded/diagnose (SOURCES.md says where each one comes from). The texts are in
:mod:`gpuwizard.core.findings.catalog_python`.
"""

from __future__ import annotations

from typing import Final

from gpuwizard.core.findings.signature import DiagnosisPart

PYTHON_PART: Final = DiagnosisPart(codes=(), signatures=())
