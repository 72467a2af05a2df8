"""Turning the output lines of package tools into structured progress.

The environment backends run uv, pip, conda, mamba or micromamba without a terminal, and each
line they print goes through :func:`parse_tool_line`. What the tools print was recorded from
real runs (tests/fixtures/recorded/envtools, with SOURCES.md saying which command and which
version printed each file); a line this module does not know gives ``[]``, and nothing a tool
prints, garbage included, makes it raise.

One line can give several records: conda separates its ``--json`` progress records with NUL
characters (so a line may carry more than one), and pip's ``Successfully installed a-1 b-2``
names every package it installed.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import unquote

#: The tools whose lines are understood.
TOOLS: Final = ("uv", "pip", "conda", "mamba", "micromamba")

#: What a progress record says is happening. ``resolve``: the tool works out what to install
#: (pip's Collecting/Processing, uv's Resolved, micromamba's plan rows); ``solve``: a conda
#: family tool fetches channel metadata or solves; ``download``: a package (or its metadata)
#: arrives; ``build``: a wheel is built from source; ``install``: installing starts;
#: ``installed``: a package is in place; ``extract``/``link``/``transaction``: the steps of a
#: conda transaction.
ACTIONS: Final = (
    "resolve",
    "download",
    "build",
    "install",
    "installed",
    "solve",
    "extract",
    "link",
    "transaction",
)

_CONDA_FAMILY: Final = ("conda", "mamba", "micromamba")
_MAX_JSON_STARTS: Final = 8

# Colour and cursor sequences (uv and pip print none with NO_COLOR / --no-color, but a user's
# configuration can force them).
_ANSI: Final = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")
# conda writes each --json progress record as `{...}\n\0` (conda/plugins/reporter_backends/json.py,
# JSONProgressBar.update_to; conda/common/io.py before the reporter plugins): the NUL ends up
# at the start of the next line, and "conda's flavor of json streams ... separate json objects
# with a NULL character" (conda/conda#5402). A carriage return is a redrawn progress bar.
_SEGMENT_SPLIT: Final = re.compile(r"[\x00\r]")

_SIZE: Final = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]i?b|b|bytes?)\s*$", re.IGNORECASE)
_SIZE_FACTORS: Final = {
    "b": 1,
    "byte": 1,
    "bytes": 1,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "tb": 10**12,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
    "tib": 2**40,
}
_SIZE_TEXT: Final = r"\d+(?:\.\d+)?\s*[kKMGT]?i?B"

# A requirement's project name (PEP 508), then an optional `==version`.
_REQUIREMENT: Final = re.compile(
    r"^(?P<name>[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?:\[[^\]]*\])?\s*"
    r"(?:===?\s*(?P<version>[^\s;,()]+))?"
)
_SDIST: Final = re.compile(r"^(?P<name>.+?)-(?P<version>\d[^-]*?)\.(?:tar\.gz|tar\.bz2|tgz|zip)$")
_TRAILING_VERSION: Final = re.compile(r"\((?P<version>[^()\s]+)\)\s*$")

# pip's messages: "Collecting"/"Processing" (src/pip/_internal/operations/prepare.py), "Downloading"
# (network/download.py), as recorded with pip 23.2.1 and 26.3 (tests/fixtures/recorded/envtools).
_PIP_COLLECTING: Final = re.compile(r"^Collecting (?P<req>.+)$")
_PIP_PROCESSING: Final = re.compile(r"^Processing (?P<path>\S+)")
_PIP_FETCHED: Final = re.compile(
    r"^(?P<verb>Downloading|Using cached) (?P<what>\S+)(?: \((?P<size>[^()]+)\))?\s*$"
)
_PIP_SAVED: Final = re.compile(r"^Saved (?P<path>\S+)$")
# `--progress-bar raw` (pip >= 24.1, https://pip.pypa.io/en/stable/cli/pip_install/#cmdoption-progress-bar)
# writes "Progress CURRENT of TOTAL" to stdout while downloading (src/pip/_internal/cli/progress_bars.py,
# `sys.stdout.write(f"Progress {current} of {total}\n")` in pip 26.3), TOTAL 0 when the size is unknown.
_PIP_RAW_PROGRESS: Final = re.compile(r"^Progress (?P<done>\d+) of (?P<total>\d+)$")
_PIP_SATISFIED: Final = re.compile(r"^Requirement already (?:satisfied|up-to-date): (?P<req>.+)$")
_PIP_INSTALLING: Final = re.compile(r"^Installing collected packages: (?P<names>.+)$")
_PIP_INSTALLED: Final = re.compile(r"^Successfully installed (?P<items>.+)$")
_PIP_BUILDING_WHEELS: Final = re.compile(r"^Building wheels for collected packages: (?P<names>.+)$")
_PIP_BUILDING_WHEEL: Final = re.compile(
    r"^(?:Building|Running setup\.py (?:install|develop)) (?:wheel |editable )?for (?P<name>\S+)"
    r"(?: \([^)]*\))?:?(?P<rest>.*)$"
)
_PIP_STEP_DONE: Final = re.compile(r"(?:status 'done'|\.\.\. done)\s*$")
_PIP_CREATED_WHEEL: Final = re.compile(r"^Created wheel for (?P<name>\S+): filename=(?P<file>\S+)")
_PIP_BUILT: Final = re.compile(r"^Successfully built (?P<names>.+)$")
_PIP_BUILD_STEP: Final = re.compile(
    r"^(?:Installing build dependencies|Getting requirements to build (?:wheel|editable)"
    r"|Preparing (?:editable )?metadata(?: \([^)]*\))?)(?::|\.\.\.)"
)

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
# conda writes its records with an f-string, unescaped (JSONProgressBar above), so a record that
# json cannot read is still matched by its exact layout.
_CONDA_FETCH_RECORD: Final = re.compile(
    r'"fetch":"(?P<fetch>[^"]*)","finished":(?P<finished>true|false),'
    r'"maxval":(?P<maxval>\d+(?:\.\d+)?),"progress":(?P<progress>\d+(?:\.\d+)?(?:e-?\d+)?)\}'
)
_CONDA_TEXT_BAR: Final = re.compile(
    r"^(?P<spec>[^\s|]+)\s*\|\s*(?P<size>" + _SIZE_TEXT + r")\s*\|[^|]*\|\s*(?P<percent>\d+(?:\.\d+)?)%$"
)


@dataclass(frozen=True)
class ToolProgress:
    """One thing a package tool reported, as far as one line tells it.

    Attributes:
        action: One of :data:`ACTIONS`.
        package: The distribution (or conda package) name when the line names one.
        version: Its version when the line gives it.
        count: A number of packages when the line gives one (``Installed 12 packages``).
        bytes_done: Bytes transferred so far.
        bytes_total: The size of the transfer.
        percent: 0..100.
        message: The line (or the NUL-separated record), stripped.
    """

    action: str
    package: str | None = None
    version: str | None = None
    count: int | None = None
    bytes_done: int | None = None
    bytes_total: int | None = None
    percent: float | None = None
    message: str = ""

    def __post_init__(self) -> None:
        if self.action not in ACTIONS:
            raise ValueError(f"unknown progress action: {self.action!r}")
        if self.percent is not None and not 0.0 <= self.percent <= 100.0:
            raise ValueError(f"percent out of 0..100: {self.percent!r}")


def size_to_bytes(text: str) -> int | None:
    """``"200.1 MB"`` -> 200100000; decimal units are powers of 1000, ``KiB``/``MiB``... of 1024.

    pip and micromamba print decimal units (``kB``, ``MB``), uv binary ones (``MiB``). None when
    the text is not a size.

    >>> size_to_bytes("200.1 MB"), size_to_bytes("12.0MiB"), size_to_bytes("5 kB")
    (200100000, 12582912, 5000)
    >>> size_to_bytes("Cached") is None
    True
    """
    match = _SIZE.match(text)
    if match is None:
        return None
    value = float(match.group(1)) * _SIZE_FACTORS[match.group(2).lower()]
    return round(value) if math.isfinite(value) else None


def progress_event(progress: ToolProgress, phase: str) -> dict[str, Any]:
    """The ``progress`` event of ``env create --json`` (DESIGN.md section 4) for ``progress``.

    Every field is present; the unknown ones are None (null in JSON).
    """
    return {
        "event": "progress",
        "phase": phase,
        "action": progress.action,
        "package": progress.package,
        "version": progress.version,
        "count": progress.count,
        "bytes_done": progress.bytes_done,
        "bytes_total": progress.bytes_total,
        "percent": progress.percent,
        "message": progress.message,
    }


def parse_tool_line(tool: str, line: str) -> list[ToolProgress]:
    """The progress records in one output line of ``tool`` (one of :data:`TOOLS`).

    Lines that say nothing about progress, lines of an unknown tool, and garbage give ``[]``.

    >>> [(p.action, p.package, p.version) for p in parse_tool_line("uv", " + torch==2.13.0+cpu")]
    [('installed', 'torch', '2.13.0+cpu')]
    >>> [(p.action, p.count) for p in parse_tool_line("uv", "Resolved 10 packages in 12ms")]
    [('resolve', 10)]
    """
    if tool not in TOOLS or not isinstance(line, str):
        return []
    parsers = _PARSERS[tool]
    found: list[ToolProgress] = []
    for raw in _SEGMENT_SPLIT.split(_ANSI.sub("", line)):
        segment = raw.strip()
        if not segment:
            continue
        for parser in parsers:
            try:
                records = parser(segment)
            except (ValueError, ArithmeticError):  # a number too odd to use: not progress
                records = []
            if records:
                found.extend(records)
                break
    return found


_Parser = Callable[[str], list[ToolProgress]]
_Handler = Callable[[re.Match[str], str], list[ToolProgress]]
_Handlers = tuple[tuple[re.Pattern[str], _Handler], ...]


def _first_match(handlers: _Handlers, text: str) -> list[ToolProgress]:
    """The records of the first pattern in ``handlers`` that matches ``text``."""
    for pattern, handler in handlers:
        match = pattern.match(text)
        if match is not None:
            return handler(match, text)
    return []


# --- pip ---------------------------------------------------------------------------------


def _pip_line(text: str) -> list[ToolProgress]:
    return _first_match(_PIP_HANDLERS, text)


def _pip_collecting(match: re.Match[str], text: str) -> list[ToolProgress]:
    name, version = _requirement(match.group("req"))
    return [ToolProgress("resolve", name, version, message=text)]


def _pip_processing(match: re.Match[str], text: str) -> list[ToolProgress]:
    # pip prints "Processing PATH" instead of "Collecting" for a local file or folder.
    name, version = _archive_name(match.group("path"))
    return [ToolProgress("resolve", name, version, message=text)]


def _pip_fetched(match: re.Match[str], text: str) -> list[ToolProgress]:
    what = match.group("what")
    name, version = _archive_name(what)
    size = match.group("size")
    total = size_to_bytes(size) if size else None
    # Newer pip fetches only the metadata first when the index serves it (PEP 658):
    # "Using cached httpx-0.27.0-py3-none-any.whl.metadata (7.2 kB)" (conda/conda#13835) is resolving.
    if what.endswith(".metadata"):
        return [ToolProgress("resolve", name, version, bytes_total=total, message=text)]
    if match.group("verb") == "Using cached":
        return [ToolProgress("download", name, version, None, total, total, 100.0, text)]
    return [ToolProgress("download", name, version, bytes_total=total, message=text)]


def _pip_saved(match: re.Match[str], text: str) -> list[ToolProgress]:
    name, version = _archive_name(match.group("path"))
    return [ToolProgress("download", name, version, percent=100.0, message=text)]


def _pip_raw_progress(match: re.Match[str], text: str) -> list[ToolProgress]:
    # Which file it belongs to is only known from earlier lines; a pure function cannot tell.
    done, total = int(match.group("done")), int(match.group("total"))
    if total <= 0:
        return [ToolProgress("download", bytes_done=done, message=text)]
    return [
        ToolProgress(
            "download", bytes_done=done, bytes_total=total, percent=_percent(done, total), message=text
        )
    ]


def _pip_satisfied(match: re.Match[str], text: str) -> list[ToolProgress]:
    # "Requirement already satisfied: six in ./lib/python3.11/site-packages (from x) (1.16.0)"
    name, _ = _requirement(match.group("req"))
    trailing = _TRAILING_VERSION.search(text)
    version = trailing.group("version") if trailing and trailing.group("version")[0].isdigit() else None
    return [ToolProgress("installed", name, version, message=text)]


def _pip_installing(match: re.Match[str], text: str) -> list[ToolProgress]:
    names = _name_list(match.group("names"))
    return [ToolProgress("install", count=len(names), message=text)]


def _pip_installed(match: re.Match[str], text: str) -> list[ToolProgress]:
    # "Successfully installed demo-alpha-1.1.0 demo-beta-2.1.0": NAME-VERSION, and a normalised
    # version has no "-" (PEP 440), so the last "-" separates them.
    items = match.group("items").split()
    records = [ToolProgress("installed", count=len(items), message=text)]
    for item in items:
        name, _, version = item.rpartition("-")
        if name and version:
            records.append(ToolProgress("installed", _normalise(name), version, message=text))
    return records


def _pip_building_wheels(match: re.Match[str], text: str) -> list[ToolProgress]:
    return [ToolProgress("build", count=len(_name_list(match.group("names"))), message=text)]


def _pip_building_wheel(match: re.Match[str], text: str) -> list[ToolProgress]:
    # "Building wheel for x (pyproject.toml): started" / "...: finished with status 'done'"
    # (older pip: "Building wheel for x (setup.py) ... done")
    percent = 100.0 if _PIP_STEP_DONE.search(match.group("rest")) else None
    return [ToolProgress("build", _normalise(match.group("name")), percent=percent, message=text)]


def _pip_created_wheel(match: re.Match[str], text: str) -> list[ToolProgress]:
    _, version = _archive_name(match.group("file"))
    return [ToolProgress("build", _normalise(match.group("name")), version, percent=100.0, message=text)]


def _pip_built(match: re.Match[str], text: str) -> list[ToolProgress]:
    return [ToolProgress("build", count=len(_name_list(match.group("names"))), percent=100.0, message=text)]


def _pip_build_step(match: re.Match[str], text: str) -> list[ToolProgress]:
    return [ToolProgress("build", message=text)]


_PIP_HANDLERS: Final[_Handlers] = (
    (_PIP_COLLECTING, _pip_collecting),
    (_PIP_PROCESSING, _pip_processing),
    (_PIP_FETCHED, _pip_fetched),
    (_PIP_SAVED, _pip_saved),
    (_PIP_RAW_PROGRESS, _pip_raw_progress),
    (_PIP_SATISFIED, _pip_satisfied),
    (_PIP_INSTALLING, _pip_installing),
    (_PIP_INSTALLED, _pip_installed),
    (_PIP_BUILDING_WHEELS, _pip_building_wheels),
    (_PIP_BUILDING_WHEEL, _pip_building_wheel),
    (_PIP_CREATED_WHEEL, _pip_created_wheel),
    (_PIP_BUILT, _pip_built),
    (_PIP_BUILD_STEP, _pip_build_step),
)


# --- uv ----------------------------------------------------------------------------------

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


_UV_HANDLERS: Final[_Handlers] = (
    (_UV_COUNTED, _uv_counted),
    (_UV_CHANGE, _uv_change),
    (_UV_DOWNLOADING, _uv_downloading),
    (_UV_DOWNLOADED, _uv_downloaded),
    (_UV_BUILD, _uv_build),
    (_UV_USING, _uv_using),
    (_UV_CREATING, _uv_creating),
)


def _uv_line(text: str) -> list[ToolProgress]:
    return _first_match(_UV_HANDLERS, text)


# --- conda, mamba, micromamba ------------------------------------------------------------


def _conda_json(text: str) -> list[ToolProgress]:
    """A ``--json`` progress record, found even behind garbage (conda/conda#12231)."""
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
    percent = 100.0 if finished else _percent(progress, maxval)
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


_CONDA_HANDLERS: Final[_Handlers] = (
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


def _conda_text(text: str) -> list[ToolProgress]:
    return _first_match(_CONDA_HANDLERS, text)


_PARSERS: Final[dict[str, tuple[_Parser, ...]]] = {
    "uv": (_uv_line,),
    "pip": (_pip_line,),
    # conda env create runs pip for an environment file's pip section and prints its output.
    **dict.fromkeys(_CONDA_FAMILY, (_conda_json, _conda_text, _pip_line)),
}


# --- helpers -----------------------------------------------------------------------------


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _percent(done: float | None, total: float | None) -> float | None:
    if done is None or total is None or total <= 0:
        return None
    return max(0.0, min(100.0, done / total * 100.0))


def _normalise(name: str) -> str:
    """A Python distribution's name as PEP 503 compares it (``Demo_Alpha`` -> ``demo-alpha``)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement(text: str) -> tuple[str | None, str | None]:
    text = text.strip()
    if "://" in text.split(" ")[0] or text.startswith((".", "/", "\\")) or re.match(r"^[A-Za-z]:[\\/]", text):
        name, version = _archive_name(text.split(" ")[0])
        return name, version
    match = _REQUIREMENT.match(text)
    if match is None:
        return None, None
    return _normalise(match.group("name")), match.group("version")


def _archive_name(path: str) -> tuple[str | None, str | None]:
    """Name and version from a wheel or sdist file name, a path or a URL to one.

    >>> _archive_name("./wheels/torch-2.13.0+cpu-cp311-cp311-linux_x86_64.whl")
    ('torch', '2.13.0+cpu')
    """
    base = unquote(path.split("#", 1)[0].split("?", 1)[0]).rstrip("/\\")
    base = re.split(r"[\\/]", base)[-1]
    if base.endswith(".metadata"):
        base = base[: -len(".metadata")]
    if base.endswith(".whl"):
        parts = base[: -len(".whl")].split("-")
        if len(parts) >= 5:
            return _normalise(parts[0]), parts[1]
        return None, None
    match = _SDIST.match(base)
    if match:
        return _normalise(match.group("name")), match.group("version")
    return None, None


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


def _name_list(text: str) -> list[str]:
    return [name for name in (part.strip() for part in text.split(",")) if name]
