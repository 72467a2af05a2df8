"""A release row's note agrees with the row's fields wherever it states a version (issue 36).

The fields of ``pytorch.json`` and ``tensorflow.json`` are the checked data: ``tools/compat_harvest.py``
reads ``latest`` and the Python range from the published wheels. A ``note`` is prose about them, so a
version the note states as the row's latest patch or as a Python bound must be the field's. Notes
that state no such version are skipped. Text a note quotes ('...') is a source's words, which may
disagree with the data on purpose (the note then says why), so it is not checked.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import pytest

from gpuwizard.core.compat.tables import CompatData, TensorflowRelease, TorchRelease, compat_from_json
from gpuwizard.workflow.compat.data import bundled_files

FILES = bundled_files()

_PY = r"(3\.\d+)\b"  # a CPython minor; "3.14t" (free-threaded) is no bound of the range
_QUOTED = re.compile(r"(?<!\w)'[^']*'(?!\w)|\"[^\"]*\"")

#: The phrasings the notes use for each field, each capturing the version it states.
_CLAIMS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "python.max",
        re.compile(rf"\b(?:stable\s+)?max(?:imum)?\s+(?:is\s+)?(?:Python\s+)?{_PY}", re.IGNORECASE),
    ),
    ("python.max", re.compile(rf"\bup\s+to\s+(?:C?Python\s+)?{_PY}", re.IGNORECASE)),
    ("python.max", re.compile(rf"\bnewest\s+(?:stable\s+)?C?Python\s+(?:is\s+)?{_PY}", re.IGNORECASE)),
    ("python.min", re.compile(rf"\bmin(?:imum)?\s+(?:is\s+)?(?:Python\s+)?{_PY}", re.IGNORECASE)),
    ("python.min", re.compile(rf"\bRequires-Python\s*>=\s*{_PY}", re.IGNORECASE)),
    ("latest", re.compile(r"\blatest\s+(?:patch\s+)?(?:is\s+)?(\d+\.\d+\.\d+)\b", re.IGNORECASE)),
)
#: "Python 3.10-3.14": both bounds.
_RANGE = re.compile(rf"\bPython\s+{_PY}\s*(?:-|–|to)\s*(?:Python\s+)?{_PY}", re.IGNORECASE)


@dataclass(frozen=True)
class Claim:
    """A version a note states for one of its row's fields."""

    field: str
    value: str
    text: str


def claims(note: str | None) -> list[Claim]:
    """The checkable versions ``note`` states, outside the passages it quotes."""
    prose = _QUOTED.sub(" ", note or "")
    found = [
        Claim(name, m.group(1), m.group(0)) for name, pattern in _CLAIMS for m in pattern.finditer(prose)
    ]
    for m in _RANGE.finditer(prose):
        found += [Claim("python.min", m.group(1), m.group(0)), Claim("python.max", m.group(2), m.group(0))]
    return found


Release = TorchRelease | TensorflowRelease


def _field(release: Release, name: str) -> str:
    return {"python.min": release.python.min, "python.max": release.python.max, "latest": release.latest}[
        name
    ]


def _checked(releases: Iterable[Release]) -> Iterator[tuple[Release, Claim, Release]]:
    """Each claim of each note, with the release whose field it speaks of.

    A latest patch belongs to the release of its minor (a note may name another release's);
    a Python bound to the row itself.
    """
    by_version = {release.version: release for release in releases}
    for release in by_version.values():
        for claim in claims(release.note):
            if claim.field == "latest":
                minor = ".".join(claim.value.split(".")[:2])
                if minor not in by_version:
                    continue
                yield release, claim, by_version[minor]
            else:
                yield release, claim, release


def disagreements(compat: CompatData) -> list[str]:
    """Each place a note states a version its row's field does not hold."""
    found = []
    for framework, releases in (("pytorch", compat.pytorch), ("tensorflow", compat.tensorflow)):
        for row, claim, subject in _checked(releases):
            value = _field(subject, claim.field)
            if claim.value != value:
                found.append(
                    f"{framework} {row.version}: the note says {claim.text!r}, "
                    f"but {subject.version}'s {claim.field} is {value}"
                )
    return found


def test_every_note_agrees_with_its_rows_fields():
    found = disagreements(compat_from_json(FILES))
    assert not found, "\n".join(found)


def test_the_notes_state_every_kind_of_checked_version():
    """Guards the phrase-matching: were it to match nothing, the test above would pass on anything."""
    compat = compat_from_json(FILES)
    kinds = {claim.field for _row, claim, _subject in _checked(compat.pytorch)}
    kinds |= {claim.field for _row, claim, _subject in _checked(compat.tensorflow)}
    assert kinds == {"python.min", "python.max", "latest"}


def _disagreements_with_note(framework: str, version: str, note: str | None) -> list[str]:
    """What :func:`disagreements` finds in one row given ``note`` (the other rows' findings left out)."""
    files = copy.deepcopy(FILES)
    row = next(r for r in files[framework]["releases"] if r["version"] == version)
    row["note"] = note
    return [
        found
        for found in disagreements(compat_from_json(files))
        if found.startswith(f"{framework} {version}:")
    ]


@pytest.mark.parametrize(
    ("framework", "version", "note", "field"),
    [
        # The notes issue 36 found: 2.14's latest and 2.9-2.12's stable maximum, as they were.
        (
            "pytorch",
            "2.14",
            "latest 2.14.0: first patch only tentative (Oct 2026) in the cadence table.",
            "latest",
        ),
        (
            "pytorch",
            "2.11",
            "Python: PT-REL writes '>=3.10, <=(3.14, 3.14t experimental)'; read as 3.14 and 3.14t both "
            "experimental, so the stable max is 3.13 (cautious)",
            "python.max",
        ),
        (
            "tensorflow",
            "2.0",
            "but PyPI has only cp27 and cp35-cp37 wheels: min 3.5 chosen (2.7 also works).",
            "python.min",
        ),
        ("tensorflow", "2.21", "Python 3.9-3.13 wheels", "python.min"),
        ("pytorch", "2.15", "supports Python up to 3.14", "python.max"),
        ("pytorch", "2.15", "Requires-Python >=3.10", "python.min"),
        ("pytorch", "2.15", "2.14's latest is 2.14.0", "latest"),
    ],
)
def test_a_note_that_contradicts_a_field_is_found(framework: str, version: str, note: str, field: str):
    found = _disagreements_with_note(framework, version, note)
    assert len(found) == 1, found
    assert field in found[0]


@pytest.mark.parametrize(
    "note",
    [
        None,
        "no GPU build on native Windows (last was 2.10): use WSL 2 with the Linux build",
        "Python 3.13t experimental.",  # a free-threaded build, no bound
        "colab #6053 says 'Python 3.10-Python 3.12'",  # a source's words
        "latest 1.9.0 of a release not in the table",
        "2.15.0.post1 also exists on Linux",
    ],
)
def test_a_note_with_nothing_checkable_is_skipped(note: str | None):
    # 2.15's fields are Python 3.11-3.15 and latest 2.15.0: a claim read from any of these would disagree.
    assert _disagreements_with_note("pytorch", "2.15", note) == []


@pytest.mark.parametrize(
    ("note", "expected"),
    [
        ("so the stable max is 3.14 (cautious)", [("python.max", "3.14")]),
        (
            "Python 3.11-3.15 (cp311..cp315 wheels; Requires-Python >=3.11)",
            [("python.min", "3.11"), ("python.min", "3.11"), ("python.max", "3.15")],
        ),
        ("newest Python 3.13", [("python.max", "3.13")]),
        ("latest 2.12.1: PR #186813", [("latest", "2.12.1")]),
        ("latest 2.5.1. pypi_default cu124", [("latest", "2.5.1")]),
    ],
)
def test_the_phrasings_the_notes_use_are_read(note: str, expected: list[tuple[str, str]]):
    assert sorted((c.field, c.value) for c in claims(note)) == sorted(expected)
