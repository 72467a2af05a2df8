"""The vendors' vocabularies (``resources/vocabularies/*.json``) as typed entries: read alone.

Apart from the diagnosis (:mod:`.diagnosis_vendors`) so that a process reporting a child's exit
status (:mod:`gpuwizard.core.exit_status`: the PATH editor's elevated helper, env create) reads
the Windows numbers without loading the signatures and their matching machinery.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Final

#: The Windows vocabularies: system error numbers and NTSTATUS values.
WINDOWS_VOCABULARIES: Final = ("windows-errors", "windows-ntstatus")


@dataclass(frozen=True)
class Entry:
    """One value of a vocabulary: its name and number, the maker's words, whose it is."""

    name: str
    number: int
    message: str
    component: str
    hex: str = ""
    package: str = ""
    #: What the library's error-string function prints for it (HIP's hipGetErrorString), if known.
    printed: str = ""


def _read(name: str) -> tuple[str, list[dict[str, object]]]:
    source = resources.files("gpuwizard.resources").joinpath(f"vocabularies/{name}.json")
    document = json.loads(source.read_text(encoding="utf-8"))
    return str(document["component"]), list(document["entries"])


def entries(name: str) -> list[Entry]:
    """The entries of one vocabulary (``cuda-runtime``, ``windows-ntstatus``), in its order."""
    component, rows = _read(name)
    return [
        Entry(
            str(entry["name"]),
            int(str(entry["number"])),
            str(entry["message"]),
            str(entry.get("component", component)),
            str(entry.get("hex", "")),
            str(entry.get("package", "")),
            str(entry.get("printed", "")),
        )
        for entry in rows
    ]


def windows_codes() -> dict[int, Entry]:
    """The Windows codes loaders and crashed programs give, by their unsigned number."""
    return {entry.number: entry for vocabulary in WINDOWS_VOCABULARIES for entry in entries(vocabulary)}
