"""pip's output lines as progress records.

pip prints one message a line (Collecting, Downloading, Successfully installed...); this
module knows those messages, as recorded with pip 23.2.1 and 26.3 (tests/fixtures/recorded/envtools).
It is apart because the conda family runs pip too (an environment file's pip section), so
both tool_output.py's pip and conda entries use :func:`pip_line`.
"""

from __future__ import annotations

import re
from typing import Final
from urllib.parse import unquote

from gpuwizard.core.envs.tool_progress import Handlers, ToolProgress, first_match, percent_of, size_to_bytes

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


def pip_line(text: str) -> list[ToolProgress]:
    """The progress records in one segment of a line pip printed.

    Args:
        text: The segment, stripped, without colour sequences.

    Returns:
        The records; ``[]`` when pip's message there is not about progress.

    >>> [(p.action, p.package, p.version) for p in pip_line("Collecting demo-alpha==1.1.0")]
    [('resolve', 'demo-alpha', '1.1.0')]
    """
    return first_match(_PIP_HANDLERS, text)


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
            "download", bytes_done=done, bytes_total=total, percent=percent_of(done, total), message=text
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


_PIP_HANDLERS: Final[Handlers] = (
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


# --- names and versions -----------------------------------------------------------------


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


def _name_list(text: str) -> list[str]:
    return [name for name in (part.strip() for part in text.split(",")) if name]
