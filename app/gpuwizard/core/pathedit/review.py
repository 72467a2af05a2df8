"""What is wrong with the PATH values as they are: marked entries and findings (pure).

Windows builds a program's PATH from the system value followed by the user value (Microsoft
Learn, "Environment Variables": user variables are appended to system ``Path``), so the user
entries are checked against the system ones for duplicates and for another CUDA version that
comes first.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from gpuwizard.core.events import value_to_json
from gpuwizard.core.findings.model import Finding, make_finding
from gpuwizard.core.pathedit.algebra import (
    DUPLICATE,
    EMPTY,
    MISSING,
    OTHER_CUDA_FIRST,
    EntryProblems,
    cuda_version_of,
    entry_key,
    entry_of,
    entry_problems,
    has_variable_references,
    split_segments,
)
from gpuwizard.core.texts import QT_TRANSLATE_NOOP, TranslatableText

#: Scopes in the order Windows joins them.
SCOPE_ORDER: Final = ("system", "user")
_VARIABLE: Final = re.compile(r"%[^%;\s]+%")
#: The translation context of the problems' words (lupdate reads literal contexts only).
_CONTEXT: Final = "pathedit"
#: The problem workflow/pathedit/request.py adds to the entries of a REG_SZ value with %VARS%.
_REG_SZ_WITH_VARS: Final = "reg_sz_with_vars"
_PROBLEM_WORDS: Final = {
    MISSING: QT_TRANSLATE_NOOP("pathedit", "the folder does not exist"),
    DUPLICATE: QT_TRANSLATE_NOOP("pathedit", "already on PATH earlier: only the first one counts"),
    EMPTY: QT_TRANSLATE_NOOP("pathedit", "empty entry (an extra ';')"),
    OTHER_CUDA_FIRST: QT_TRANSLATE_NOOP("pathedit", "another CUDA version comes first"),
    _REG_SZ_WITH_VARS: QT_TRANSLATE_NOOP(
        "pathedit", "the value is REG_SZ, so its %VARIABLES% are never expanded"
    ),
}


@dataclass(frozen=True)
class ScopeValue:
    """One scope's PATH as read: its registry type and value (type None: no value)."""

    scope: str
    type: str | None
    value: str


@dataclass(frozen=True)
class ScopeReview:
    """One scope's entries with their problems."""

    scope: str
    type: str | None
    value: str
    entries: tuple[EntryProblems, ...]


def first_cuda_version(reviews: Iterable[ScopeReview]) -> str | None:
    """The CUDA version whose entry comes first in the PATH programs get (reviews in Windows' order)."""
    return next(
        (entry.cuda_version for review in reviews for entry in review.entries if entry.cuda_version), None
    )


def problem_text(problem: str, *, first_cuda: str | None = None) -> TranslatableText:
    """One problem of an entry in people's words (``path show``'s text; the JSON keeps the code).

    Args:
        problem: The code (``duplicate``, ``missing``, ``empty``, ``other_cuda_first``...).
        first_cuda: The CUDA version that comes first on PATH, to name it.

    >>> problem_text("other_cuda_first", first_cuda="11.8")
    'CUDA 11.8 comes first on PATH'
    >>> problem_text("duplicate")
    'already on PATH earlier: only the first one counts'
    """
    if problem == OTHER_CUDA_FIRST and first_cuda:
        # The mark is on the entry that is shadowed, so say which version shadows it: the bare
        # code read as if this entry were the one that comes first (issue 20, point 8).
        return TranslatableText(
            _CONTEXT,
            QT_TRANSLATE_NOOP("pathedit", "CUDA {version} comes first on PATH"),
            version=first_cuda,
        )
    words = _PROBLEM_WORDS.get(problem)
    return TranslatableText(_CONTEXT, words) if words else TranslatableText(_CONTEXT, "{code}", code=problem)


def review_to_json(review: ScopeReview) -> dict[str, Any]:
    """One scope's review as ``path show --json`` and the support report write it (``length`` computed)."""
    data = value_to_json(review)
    entries = data.pop("entries")
    return {**data, "length": len(review.value), "entries": entries}


def review_paths(
    values: Sequence[ScopeValue], *, missing: Iterable[str] = (), env: Mapping[str, str] | None = None
) -> tuple[list[ScopeReview], list[Finding]]:
    """Mark each entry's problems and collect the findings, system scope first.

    ``missing`` are comparison keys of folders known not to exist (only the live registry can
    tell; a snapshot cannot).
    """
    by_scope = {v.scope: v for v in values}
    missing_keys = set(missing)
    earlier: list[str] = []
    reviews: list[ScopeReview] = []
    findings: list[Finding] = []
    cuda_order: list[str] = []
    for scope in SCOPE_ORDER:
        item = by_scope.get(scope)
        if item is None:
            continue
        entries = entry_problems(item.value, earlier_keys=earlier, missing=missing_keys, env=env)
        reviews.append(ScopeReview(scope, item.type, item.value, tuple(entries)))
        earlier.extend(k for k in (entry_key(s, env) for s in split_segments(item.value)) if k)
        for entry in entries:
            if entry.cuda_version and entry.cuda_version not in cuda_order:
                cuda_order.append(entry.cuda_version)
        findings.extend(_scope_findings(item, entries))
    if len(cuda_order) > 1:
        findings.append(make_finding("MULTIPLE_CUDA_ON_PATH", versions=cuda_order, first=cuda_order[0]))
    return reviews, findings


def _scope_findings(item: ScopeValue, entries: Sequence[EntryProblems]) -> list[Finding]:
    findings: list[Finding] = []
    if item.type == "REG_SZ" and has_variable_references(item.value):
        variables = sorted(set(_VARIABLE.findall(item.value)), key=str.casefold)
        findings.append(make_finding("PATH_REG_SZ_WITH_VARS", scope=item.scope, variables=variables))
    missing = [entry_of(e.segment) for e in entries if MISSING in e.problems]
    if missing:
        findings.append(make_finding("PATH_ENTRY_MISSING", scope=item.scope, entries=missing))
    duplicates = [entry_of(e.segment) for e in entries if DUPLICATE in e.problems]
    if duplicates:
        findings.append(make_finding("PATH_DUPLICATE_ENTRY", scope=item.scope, entries=duplicates))
    return findings


def system_cuda_shadowing(
    system_value: str, added: Iterable[str], env: Mapping[str, str] | None = None
) -> Finding | None:
    """A warning when CUDA folders go to the user PATH but the system PATH has another version.

    The system PATH comes first, so its CUDA wins whatever order the user PATH has.
    """
    versions = {v for v in (cuda_version_of(a, env) for a in added) if v}
    if not versions:
        return None
    others = []
    for segment in split_segments(system_value):
        version = cuda_version_of(segment, env) if entry_of(segment) else None
        if version and version not in versions and version not in others:
            others.append(version)
    if not others:
        return None
    return make_finding("PATH_SYSTEM_CUDA_FIRST", other_versions=others, version=sorted(versions)[0])
