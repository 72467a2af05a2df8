"""Known errors of the platform around a framework: containers, Windows memory, XLA's ptxas.

Part of :mod:`gpuwizard.core.findings.diagnosis`, which loads the signatures of :data:`PLATFORM_PART` into
its signatures. Each signature cites a public report that shows the message; the logs are recorded in
tests/fixtures/recorded/diagnose (SOURCES.md says where each one comes from).

Windows messages arrive in the user's language ("页面文件太小，无法完成操作" is Chinese for "The paging
file is too small for this operation to complete"), so Windows errors are matched by their number
(``[WinError 1455]``, ``os error 1455``), never by their English words alone.
"""

from __future__ import annotations

import re
from typing import Final

from gpuwizard.core.findings.signature import DiagnosisPart, Values

#: Windows' ERROR_COMMIT_LIMIT: "The paging file is too small for this operation to complete"
#: (learn.microsoft.com/en-us/windows/win32/debug/system-error-codes--1300-1699-).
WINDOWS_PAGING_FILE_ERROR: Final = 1455


def _ptxas_version(match: re.Match[str]) -> Values:
    return {"ptxas": match.group("ptxas")} if match.group("ptxas") else {}


PLATFORM_PART: Final = DiagnosisPart(
    name="platform",
    extractors=(_ptxas_version,),
    # torch/__init__.py names the DLL it could not load, but the cause is memory, not a DLL.
    suppresses={"WINDOWS_PAGING_FILE_TOO_SMALL": ("TORCH_DLL_LOAD_FAILED",)},
)
