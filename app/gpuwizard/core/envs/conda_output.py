"""The output lines of conda, mamba and micromamba as progress records.

conda prints ``--json`` progress records (NUL-separated, see tool_output.py) or a text table;
mamba and micromamba (libmamba) print their solved plan and a line per package that arrived.
This module knows both, as recorded in the fixtures (tests/fixtures/recorded/envtools).
tool_output.py's :func:`parse_tool_line` tries :func:`conda_json`, then :func:`conda_text`.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Final

from gpuwizard.core.envs.tool_progress import Handlers, ToolProgress, first_match, percent_of, size_to_bytes

_MAX_JSON_STARTS: Final = 8
_SIZE_TEXT: Final = r"\d+(?:\.\d+)?\s*[kKMGT]?i?B"

# conda's text, and micromamba / mamba (libmamba) text, as recorded in the fixtures.
_CONDA_SOLVE: Final = re.compile(
    r"^(?:Collecting package metadata|Solving environment|Fetching package metadata"
    r"|Solving package specifications)\b"
)
_CONDA_TRANSACTION: Final = re.compile(
    r"^(?:(?:Preparing|Verifying|Executing) transaction|Transaction (?P<state>starting|finished))\b"
)
_CONDA_STAGE: Final = re.compile(
    r"^(?P<stage>Downloading and Extracting Packages|Fetching packages|Extracting packages|Linking packages)\b"
)
_MAMBA_LINKING: Final = re.compile(r"^Linking (?P<spec>\S+)$")
_MAMBA_PLAN_ROW: Final = re.compile(
    r"^\+ (?P<name>\S+)\s+(?P<version>\S+)\s+(?P<build>\S+)\s+(?P<channel>\S+)\s+(?P<size>Cached|"
    + _SIZE_TEXT
    + r")$"
)
_MAMBA_INSTALL_COUNT: Final = re.compile(r"^Install: (?P<count>\d+) packages?$")
_MAMBA_TOTAL: Final = re.compile(r"^Total download: (?P<size>" + _SIZE_TEXT + r")$")
_MAMBA_DOWNLOADED: Final = re.compile(
    r"^(?P<name>\S+)\s+(?P<size>" + _SIZE_TEXT + r")\s+@\s+\S+/s\s+\d+(?:\.\d+)?s$"
)
_MAMBA_USING_CACHE: Final = re.compile(
    r"^(?P<name>\S+)\s+(?:(?P<size>" + _SIZE_TEXT + r")\s+)?(?:\S+\s+)?Using cache$"
)
# conda writes its records with an f-string, unescaped (JSONProgressBar, see tool_output.py), so a
# record that json cannot read is still matched by its exact layout.
_CONDA_FETCH_RECORD: Final = re.compile(
    r'"fetch":"(?P<fetch>[^"]*)","finished":(?P<finished>true|false),'
    r'"maxval":(?P<maxval>\d+(?:\.\d+)?),"progress":(?P<progress>\d+(?:\.\d+)?(?:e-?\d+)?)\}'
)
_CONDA_TEXT_BAR: Final = re.compile(
    r"^(?P<spec>[^\s|]+)\s*\|\s*(?P<size>" + _SIZE_TEXT + r")\s*\|[^|]*\|\s*(?P<percent>\d+(?:\.\d+)?)%$"
)


def conda_json(text: str) -> list[ToolProgress]:
    """A ``--json`` progress record, found even behind garbage (conda/conda#12231).

    Args:
        text: One NUL-separated segment of a line, stripped.

    Returns:
        The record's progress; ``[]`` when the segment holds none (a result document, an error).
    """
    if "{" not in text:
        return []
    decoder = json.JSONDecoder()
    start = text.find("{")
    for _ in range(_MAX_JSON_STARTS):
        if start < 0:
            break
        try:
            value, _end = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            value = None
        if isinstance(value, dict):
            return _conda_record(value, text)
        start = text.find("{", start + 1)
    if match := _CONDA_FETCH_RECORD.search(text):
        record = {
            "fetch": match.group("fetch"),
            "finished": match.group("finished") == "true",
            "maxval": float(match.group("maxval")),
            "progress": float(match.group("progress")),
        }
        return _conda_record(record, text)
    return []


def _conda_record(record: dict[str, Any], text: str) -> list[ToolProgress]:
    progress = _number(record.get("progress"))
    maxval = _number(record.get("maxval"))
    finished = record.get("finished") is True
    if progress is None and not finished:
        return []  # a result document ({"success": true, ...}) or an error, not progress
    percent = 100.0 if finished else percent_of(progress, maxval)
    fetch = record.get("fetch")
    if isinstance(fetch, str):
        # conda 22.11: "pandas-1.5.2         | 11.9 MB   | ", progress a fraction of maxval 1
        # (conda/conda#12231); conda 4.1: "numpy-1.11.1-p" (cut to 14 characters), maxval the
        # size in bytes (conda/conda#3026).
        parts = [part.strip() for part in fetch.split("|")]
        name, version = _conda_name_version(parts[0])
        total = size_to_bytes(parts[1]) if len(parts) > 1 else None
        done: int | None = None
        if total is not None:
            done = round(total * percent / 100.0) if percent is not None else None
        elif maxval is not None and maxval > 1 and progress is not None:
            total, done = round(maxval), round(min(progress, maxval))
        return [ToolProgress("download", name, version, None, done, total, percent, text)]
    # conda 4.x: {"name": "openssl", "progress": 0, "maxval": 10} while it extracts and links.
    name = record.get("name")
    package = name if isinstance(name, str) and name else None
    return [ToolProgress("transaction", package, percent=percent, message=text)]


def _conda_solve(match: re.Match[str], text: str) -> list[ToolProgress]:
    return [ToolProgress("solve", message=text)]


def _conda_transaction(match: re.Match[str], text: str) -> list[ToolProgress]:
    percent = 100.0 if match.group("state") == "finished" else None
    return [ToolProgress("transaction", percent=percent, message=text)]


def _conda_stage(match: re.Match[str], text: str) -> list[ToolProgress]:
    action = {"Extracting packages": "extract", "Linking packages": "link"}.get(
        match.group("stage"), "download"
    )
    return [ToolProgress(action, message=text)]


def _mamba_linking(match: re.Match[str], text: str) -> list[ToolProgress]:
    # "Linking python-3.11.7-hab00c5b_1_cpython": NAME-VERSION-BUILD.
    name, version = _conda_name_version(match.group("spec"), with_build=True)
    return [ToolProgress("link", name, version, message=text)]


def _mamba_plan_row(match: re.Match[str], text: str) -> list[ToolProgress]:
    # "+ xz   5.2.6  h8d14728_0  conda-forge/win-64  218kB": one package of the solved plan.
    total = size_to_bytes(match.group("size"))
    return [
        ToolProgress("resolve", match.group("name"), match.group("version"), bytes_total=total, message=text)
    ]


def _mamba_install_count(match: re.Match[str], text: str) -> list[ToolProgress]:
    return [ToolProgress("resolve", count=int(match.group("count")), message=text)]


def _mamba_total(match: re.Match[str], text: str) -> list[ToolProgress]:
    return [ToolProgress("download", bytes_total=size_to_bytes(match.group("size")), message=text)]


def _mamba_fetched(match: re.Match[str], text: str) -> list[ToolProgress]:
    # "conda-forge/linux-64  33.7MB @ 5.1MB/s 6.9s" (or "... Using cache") is a channel's
    # metadata, part of solving; "ucrt  1.3MB @ 4.8MB/s 0.3s" a package that has arrived.
    name = match.group("name")
    size = size_to_bytes(match.group("size")) if match.group("size") else None
    if "/" in name:
        return [ToolProgress("solve", None, None, None, size, size, 100.0, text)]
    return [ToolProgress("download", name, None, None, size, size, 100.0, text)]


def _conda_text_bar(match: re.Match[str], text: str) -> list[ToolProgress]:
    # conda's text table: "numpy-1.11.1  | 6.1 MB  | ########## | 100%".
    name, version = _conda_name_version(match.group("spec"))
    percent = min(float(match.group("percent")), 100.0)
    total = size_to_bytes(match.group("size"))
    return [ToolProgress("download", name, version, None, None, total, percent, text)]


_CONDA_HANDLERS: Final[Handlers] = (
    (_CONDA_SOLVE, _conda_solve),
    (_CONDA_TRANSACTION, _conda_transaction),
    (_CONDA_STAGE, _conda_stage),
    (_MAMBA_LINKING, _mamba_linking),
    (_MAMBA_PLAN_ROW, _mamba_plan_row),
    (_MAMBA_INSTALL_COUNT, _mamba_install_count),
    (_MAMBA_TOTAL, _mamba_total),
    (_MAMBA_DOWNLOADED, _mamba_fetched),
    (_MAMBA_USING_CACHE, _mamba_fetched),
    (_CONDA_TEXT_BAR, _conda_text_bar),
)


def conda_text(text: str) -> list[ToolProgress]:
    """The progress records in one segment of a text line of conda, mamba or micromamba.

    Args:
        text: The segment, stripped, without colour sequences.

    Returns:
        The records; ``[]`` when the message there is not about progress.
    """
    return first_match(_CONDA_HANDLERS, text)


# --- helpers -----------------------------------------------------------------------------


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _conda_name_version(spec: str, *, with_build: bool = False) -> tuple[str | None, str | None]:
    """``numpy-base-1.23.5`` -> (numpy-base, 1.23.5); with a build string, the last part goes.

    conda package names keep their ``-`` and ``_`` (``ld_impl_linux-64``), so they are not
    normalised like Python names.
    """
    spec = spec.strip()
    if "::" in spec:  # "defaults::python-3.6.1-2"
        spec = spec.split("::", 1)[1]
    parts = spec.split("-")
    if with_build and len(parts) >= 3 and parts[-2][:1].isdigit():
        return "-".join(parts[:-2]), parts[-2]
    if len(parts) >= 2 and parts[-1][:1].isdigit():
        return "-".join(parts[:-1]), parts[-1]
    # A cut description ("numpy-1.11.1-p"): the name runs to the first "-" before a digit.
    match = re.match(r"^(?P<name>.+?)-(?P<version>\d[^-]*)", spec)
    if match:
        return match.group("name"), match.group("version")
    return (spec or None), None
