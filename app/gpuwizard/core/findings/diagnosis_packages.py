"""pip's, uv's, conda's and mamba's words for a package that cannot be found (``NO_MATCHING_DISTRIBUTION``).

Part of :mod:`gpuwizard.core.findings.diagnosis`. The signatures read the requirements and the
package names each installer could not satisfy; the variant says the likely cause from the
whole log: an install from a folder of wheels alone (``wheel_folder``), a 32-bit Python
(``32bit``), or the versions the installer saw (``versions``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Final

from packaging.version import InvalidVersion, Version

from gpuwizard.core.findings.log_facts import read_log_facts
from gpuwizard.core.findings.signature import WINDOWS_LOG, DiagnosisPart, Hit, Values

_PACKAGE_NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


_SPLIT_MARKERS: Final = re.compile(r"\{[^}\n]{0,200}\}")


def _requirement_values(requirements: Sequence[str]) -> Values | None:
    kept: list[str] = []
    packages: list[str] = []
    for raw in requirements:
        # uv names a requirement of one split with its markers: "torch{sys_platform == 'win32'}==2.7.1".
        requirement = _SPLIT_MARKERS.sub("", raw.strip().strip("`'\",;"))
        name = _PACKAGE_NAME.match(requirement.split("::")[-1])
        if name:
            kept.append(requirement)
            packages.append(name.group(0).lower().replace("_", "-"))
    return {"requirements": kept, "packages": packages} if kept else None


def _requirement(match: re.Match[str]) -> Values | None:
    groups = [value for name, value in match.groupdict().items() if value and name != "versions"]
    values = _requirement_values(groups[:1])
    if values is not None and match.groupdict().get("versions") is not None:
        values["versions"] = match.group("versions").strip() or "none"
    return values


def _conda_list(match: re.Match[str]) -> Values | None:
    items = [line.strip()[1:] for line in match.group("list").splitlines() if line.strip().startswith("-")]
    return _requirement_values([item.strip() for item in items if item.strip()])


#: An install from a folder of wheels alone: uv names "the provided package locations" only
#: with --no-index and --find-links (the real output is recorded in
#: tests/fixtures/recorded/diagnose, "recorded here"); the wizard's own log names its offline
#: options. Then a missing package is missing from the folder, whatever the Python.
_FOLDER_ONLY: Final = re.compile(
    r"was not found in the provided package locations|--no-index\b|\"offline\": true|PIP_NO_INDEX"
)
#: pip prints "Looking in links" for --find-links and "Looking in indexes" for any index but
#: PyPI's (pip/_internal/models/search_scope.py, get_formatted_locations); links alone and no
#: failed connection mean the folder was all pip had (recorded with pip 23.0.1 and 23.2.1).
_PIP_LINKS: Final = re.compile(r"^Looking in links: (?!https?://)", re.MULTILINE)
_PIP_INDEXES_OR_NETWORK: Final = re.compile(
    r"Looking in indexes: |Could not fetch URL|NewConnectionError|ConnectTimeout|Retrying \(Retry"
)
#: uv's words when the version it picked has wheels for other platforms only, and its hint
#: ("You're on Windows (`win_amd64`), but `torch` (v2.5.1) only has wheels for the following
#: platform: `linux_aarch64`").
#: In a universal resolution uv names the platform of the split that has no wheel ("has no
#: `platform_machine == 'AMD64' and sys_platform == 'win32'`-compatible wheels").
_OTHER_PLATFORM: Final = re.compile(
    r"doesn't have a source distribution or wheel for the current platform|`-compatible wheels\b"
)
_UV_PLATFORM_HINT: Final = re.compile(
    r"You're on [\w ]{1,30} \(`(?P<platform>[\w.-]{1,60})`\), but `[^`\n]{1,100}` \([^)\n]{1,40}\) only "
    r"has wheels for the following platforms?: (?P<available>[^\n;]{1,400})"
)
#: A 32-bit Python shows in its banner ("[MSC v.1916 32 bit (Intel)]"), in wheel tags (win32,
#: i686) or in words; only then, or when a Windows install found no version at all (the
#: classic 32-bit case, tensorflow/tensorflow#8251), is a 32-bit Python named as the cause.
#: Python's sys.platform is "win32" on 64-bit Windows too: a marker that names it says nothing.
_NO_MATCH_32BIT: Final = re.compile(
    r"\bwin32\b(?<!sys_platform == 'win32)(?<!sys_platform == \"win32)|\b32[- ]bit\b|\bi[3-6]86\b",
    re.IGNORECASE,
)


def _no_match_variant(
    values: Mapping[str, Sequence[str]], _variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    """Which NO_MATCHING_DISTRIBUTION text fits: a folder of wheels, a 32-bit Python, or the usual causes."""
    if _FOLDER_ONLY.search(text) or (_PIP_LINKS.search(text) and not _PIP_INDEXES_OR_NETWORK.search(text)):
        return "wheel_folder", {}
    if _OTHER_PLATFORM.search(text):
        hint = _UV_PLATFORM_HINT.search(text)
        return "platform", (
            {
                "platform": hint.group("platform"),
                "available": hint.group("available").replace("`", "").strip(),
            }
            if hint
            else {}
        )
    nothing_found = list(values.get("versions", [])) == ["none"]
    if _NO_MATCH_32BIT.search(text):
        return "32bit", {}
    # A Python the log shows (a path, a cpXY tag, a banner) is the likelier cause than a 32-bit one.
    if nothing_found and (python := read_log_facts(text).python):
        return "python", {"python": python}
    if nothing_found and WINDOWS_LOG.search(text):
        return "32bit", {}
    # A pin past every version listed says more than the list alone.
    return _beyond_available(values) or (("versions" if "versions" in values else None), {})


def _beyond_available(values: Mapping[str, Sequence[str]]) -> tuple[str, dict[str, object]] | None:
    """``newer`` / ``older`` when an exact pin lies past every version the installer listed.

    pip lists what this index offers for this Python and platform ("from versions: ..."): a pin
    newer than all of them is not published there (yet, or for this Python, platform or CUDA
    index); one older than all of them predates the wheels for this Python.
    """
    listed = values.get("versions", [])
    wanted = _pinned(values.get("requirements", [])[:1])
    if not listed or wanted is None:
        return None
    name, version = wanted
    available = sorted(
        {parsed.public for item in listed[0].split(",") if (parsed := _version(item.strip()))}, key=Version
    )
    if not available or version.public in available:
        return None
    params: dict[str, object] = {
        "package": name,
        "wanted": version.public,
        "oldest": available[0],
        "newest": available[-1],
    }
    if Version(version.public) > Version(available[-1]):
        return "newer", params
    if Version(version.public) < Version(available[0]):
        return "older", params
    return None


def _pinned(requirements: Sequence[str]) -> tuple[str, Version] | None:
    match = re.fullmatch(
        r"(?P<name>[A-Za-z0-9][\w.-]{0,100})(?:\[[^\]]{0,100}\])?==(?P<version>[\w.+!-]{1,60})",
        "".join(requirements),
    )
    version = _version(match.group("version")) if match else None
    return (match.group("name"), version) if match and version else None


def _version(text: str) -> Version | None:
    try:
        return Version(text)
    except InvalidVersion:
        return None


def _tensorflow_gpu_removed(hits: dict[str, Hit], text: str) -> None:
    """Pip finds no ``tensorflow-gpu``: the package was removed (TensorFlow 2.12), which says more."""
    missing = hits.get("NO_MATCHING_DISTRIBUTION")
    if missing and "tensorflow-gpu" in missing.values.get("packages", []):
        removed = hits.setdefault("TENSORFLOW_GPU_PACKAGE_REMOVED", Hit(missing.position, missing.evidence))
        removed.add({"requirements": missing.values["requirements"]}, "log")


PACKAGES_PART: Final = DiagnosisPart(
    name="packages",  # NO_MATCHING_DISTRIBUTION is one of the contract's first codes (diagnosis.py)
    extractors=(
        _requirement,
        _conda_list,
    ),
    refiners={"NO_MATCHING_DISTRIBUTION": _no_match_variant},
    rules=(_tensorflow_gpu_removed,),
    implies=("TENSORFLOW_GPU_PACKAGE_REMOVED",),
)
