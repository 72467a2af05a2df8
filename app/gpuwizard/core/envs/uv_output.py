"""uv's output lines as progress records.

uv prints counted summaries (``Resolved 10 packages in 12ms``) and one ``+ name==version`` line
a package; this module knows those messages, as recorded with uv 0.5.31 and 0.13.9
(tests/fixtures/recorded/envtools). tool_output.py's :func:`parse_tool_line` hands it uv's lines.
"""

from __future__ import annotations

import re
from typing import Final

from gpuwizard.core.envs.tool_progress import Handlers, ToolProgress, first_match, size_to_bytes

# uv's messages as recorded with uv 0.5.31 and 0.13.9 (tests/fixtures/recorded/envtools).
_UV_USING: Final = re.compile(
    r"^Using (?P<impl>CPython|PyPy|GraalPy|Pyodide|Python) (?P<version>\d+(?:\.\d+)*\S*)"
    r" (?:interpreter|environment) at:"
)
_UV_CREATING: Final = re.compile(r"^Creating virtual environment at: ")
_UV_COUNTED: Final = re.compile(
    r"^(?P<verb>Resolved|Prepared|Installed|Audited|Checked) (?P<count>\d+) packages?(?: in |$)"
)
_UV_CHANGE: Final = re.compile(r"^(?P<sign>[+~]) (?P<name>[^=\s]+)==(?P<version>\S+)")
_UV_DOWNLOADING: Final = re.compile(r"^Downloading (?P<name>\S+) \((?P<size>[^()]+)\)$")
_UV_DOWNLOADED: Final = re.compile(r"^Downloaded (?P<name>\S+)$")
_UV_BUILD: Final = re.compile(
    r"^(?P<verb>Building|Built) (?P<name>[^\s=@]+)(?:==(?P<version>\S+))?(?: @ .*)?$"
)

_UV_COUNT_ACTIONS: Final = {
    "Resolved": "resolve",
    "Prepared": "download",
    "Installed": "installed",
    # Nothing to do: the packages are already there (0.5.31 says "Audited", 0.13.9 "Checked").
    "Audited": "installed",
    "Checked": "installed",
}


def _uv_counted(match: re.Match[str], text: str) -> list[ToolProgress]:
    action = _UV_COUNT_ACTIONS[match.group("verb")]
    return [ToolProgress(action, count=int(match.group("count")), message=text)]


def _uv_change(match: re.Match[str], text: str) -> list[ToolProgress]:
    # " + torch==2.13.0+cpu", " ~ x==1.0" (reinstalled); " - x==1.0" (removed) is not progress.
    return [ToolProgress("installed", match.group("name"), match.group("version"), message=text)]


def _uv_downloading(match: re.Match[str], text: str) -> list[ToolProgress]:
    # Printed only for large files (recorded: numpy, 15.6MiB); small ones arrive silently.
    total = size_to_bytes(match.group("size"))
    return [ToolProgress("download", match.group("name"), bytes_total=total, message=text)]


def _uv_downloaded(match: re.Match[str], text: str) -> list[ToolProgress]:
    return [ToolProgress("download", match.group("name"), percent=100.0, message=text)]


def _uv_build(match: re.Match[str], text: str) -> list[ToolProgress]:
    percent = 100.0 if match.group("verb") == "Built" else None
    return [ToolProgress("build", match.group("name"), match.group("version"), percent=percent, message=text)]


def _uv_using(match: re.Match[str], text: str) -> list[ToolProgress]:
    # "Using CPython 3.11.7 interpreter at: ..." (uv venv), "Using Python 3.11.2 environment at: ..."
    return [ToolProgress("resolve", match.group("impl").lower(), match.group("version"), message=text)]


def _uv_creating(match: re.Match[str], text: str) -> list[ToolProgress]:
    return [ToolProgress("install", message=text)]


_UV_HANDLERS: Final[Handlers] = (
    (_UV_COUNTED, _uv_counted),
    (_UV_CHANGE, _uv_change),
    (_UV_DOWNLOADING, _uv_downloading),
    (_UV_DOWNLOADED, _uv_downloaded),
    (_UV_BUILD, _uv_build),
    (_UV_USING, _uv_using),
    (_UV_CREATING, _uv_creating),
)


def uv_line(text: str) -> list[ToolProgress]:
    """The progress records in one segment of a line uv printed.

    Args:
        text: The segment, stripped, without colour sequences.

    Returns:
        The records; ``[]`` when uv's message there is not about progress.
    """
    return first_match(_UV_HANDLERS, text)
