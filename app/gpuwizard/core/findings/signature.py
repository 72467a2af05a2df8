"""A known message in a log: the code it stands for, how to find it, where it was reported.

What :mod:`gpuwizard.core.findings.diagnosis` matches logs with; apart so that the signatures of
one theme can live in a module of their own (:mod:`.diagnosis_network`, :mod:`.diagnosis_torch`,
...). Such a module gives a :class:`DiagnosisPart`: its codes, its signatures, the findings its
findings make redundant, and how a finding's variant is chosen from the whole log.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

#: Hints that a log comes from Windows: a DLL name, a drive letter or a Windows error number.
WINDOWS_LOG: Final = re.compile(r"\b[\w-]{1,80}\.dll\b|\b[A-Za-z]:\\|\[WinError \d", re.IGNORECASE)

#: TensorRT's libraries, optional for TensorFlow: a missing one is only a notice, never a failure.
OPTIONAL_LIBRARY: Final = re.compile(r"nvinfer|nvonnxparser|nvparsers", re.IGNORECASE)

#: Values read from one match: a name and one value, or several values.
Values = dict[str, str | list[str]]
Extractor = Callable[[re.Match[str]], Values | None]
#: Chooses a finding's variant from every value its matches read (by name, in order of
#: appearance), the variants its signatures named and the whole log; returns the variant
#: (``None`` for the plain text) and parameters to add or replace.
Refiner = Callable[[Mapping[str, Sequence[str]], Sequence[str], str], tuple[str | None, dict[str, object]]]


@dataclass(frozen=True)
class Signature:
    """One known message: the code it stands for, how to find it, and where it was reported.

    Attributes:
        code: The finding code the message stands for.
        pattern: The compiled expression; its named groups are the values read from the text.
        source: The address of a real report that shows the message.
        extract: Turns a match into values (default: the named groups); ``None`` from it means
            the match is not this problem after all.
        variant: The catalog variant this message calls for, if any.
    """

    code: str
    pattern: re.Pattern[str]
    source: str
    extract: Extractor | None = None
    variant: str | None = None
    #: Texts one of which every match contains (lower case where the pattern ignores case), or
    #: None: what lets a log be passed over with substring searches instead of a run of the pattern.
    needles: tuple[str, ...] | None = field(init=False, repr=False, compare=False, default=None)
    ignore_case: bool = field(init=False, repr=False, compare=False, default=False)

    def __post_init__(self) -> None:
        found = required_texts(self.pattern)
        object.__setattr__(self, "needles", found[0] if found else None)
        object.__setattr__(self, "ignore_case", bool(found and found[1]))

    def may_match(self, text: str, lowered: Callable[[], str]) -> bool:
        """False only when no match can be in ``text`` (``lowered``: the text in lower case, made once)."""
        if self.needles is None:
            return True
        haystack = lowered() if self.ignore_case else text
        return any(needle in haystack for needle in self.needles)

    def values(self, match: re.Match[str]) -> Values | None:
        """The values this match gives, or ``None`` when it does not count."""
        if self.extract is not None:
            return self.extract(match)
        return {name: value for name, value in match.groupdict().items() if value}


#: Shorter literals pass nearly every log: not worth a search of their own.
_SHORTEST_NEEDLE: Final = 4
# re's own parser: re._parser from Python 3.11, sre_parse before (typeshed describes neither).
_RE_PARSER: Any = importlib.import_module("re._parser" if sys.version_info >= (3, 11) else "sre_parse")
_LITERAL = _RE_PARSER.LITERAL
_GROUP = _RE_PARSER.SUBPATTERN
_BRANCH = _RE_PARSER.BRANCH
_AT = _RE_PARSER.AT
_Items = Sequence[tuple[object, object]]


def required_texts(pattern: re.Pattern[str]) -> tuple[tuple[str, ...], bool] | None:
    r"""Texts one of which every match of ``pattern`` holds, and whether case is ignored.

    Read from the pattern's own parse (:mod:`re`'s parser): the longest run of characters in
    sequence at its top level, through groups, never inside a repeat; a pattern that is one
    alternation gives one run per alternative. Where case is ignored the runs are in lower case,
    cut where :mod:`re` matches more than ``lower()`` gives (``i`` also matches dotless ``ı``,
    ``s`` the long ``ſ``; any non-ASCII letter), so a search of the lowered text never misses.

    >>> required_texts(re.compile(r"Could not load dynamic library '(?P<l>[^']+)'"))
    (("Could not load dynamic library '",), False)
    >>> required_texts(re.compile(r"cudnn_status_(?:internal|bad)|CUDNN_STATUS_x", re.IGNORECASE))
    (('cudnn_', 'cudnn_'), True)
    >>> required_texts(re.compile(r"(?:ab|b)\d+")) is None
    True
    """
    parsed = _RE_PARSER.parse(pattern.pattern, pattern.flags)
    ignore_case = bool((pattern.flags | parsed.state.flags) & re.IGNORECASE)
    # Anchors (\b, ^) match no text: around a group or an alternation, they change no run.
    items: _Items = [item for item in parsed if item[0] is not _AT]
    while len(items) == 1 and _plain_group(items[0]):
        items = [item for item in items[0][1][-1] if item[0] is not _AT]  # type: ignore[index]
    if len(items) == 1 and items[0][0] is _BRANCH:
        alternatives = [list(branch) for branch in items[0][1][1]]  # type: ignore[index]
    else:
        alternatives = [list(items)]
    texts = tuple(_longest_run(alternative, ignore_case) for alternative in alternatives)
    if all(len(text) >= _SHORTEST_NEEDLE for text in texts):
        return texts, ignore_case
    # Else an alternation the sequence must pass through (``(?:A|B)\(``): one of its runs.
    for item in items if len(alternatives) == 1 else ():
        branch = _branch_of(item)
        if branch is not None:
            texts = tuple(_longest_run(list(alternative), ignore_case) for alternative in branch)
            if all(len(text) >= _SHORTEST_NEEDLE for text in texts):
                return texts, ignore_case
    return None


def _branch_of(item: tuple[object, object]) -> list[_Items] | None:
    # The alternatives of an alternation, alone or as the whole of a group without flags.
    while _plain_group(item):
        inner = [part for part in item[1][-1] if part[0] is not _AT]  # type: ignore[index]
        if len(inner) != 1:
            return None
        item = inner[0]
    return list(item[1][1]) if item[0] is _BRANCH else None  # type: ignore[index]


def _plain_group(item: tuple[object, object]) -> bool:
    # A group without flags of its own: its items stand in sequence where it stands.
    opcode, argument = item
    return opcode is _GROUP and isinstance(argument, tuple) and not argument[1] and not argument[2]


def _longest_run(items: _Items, ignore_case: bool) -> str:
    runs: list[str] = [""]
    for opcode, argument in items:
        if opcode is _LITERAL and isinstance(argument, int):
            character = chr(argument)
            if ignore_case and (not character.isascii() or character.lower() in "is"):
                runs.append("")
            else:
                runs[-1] += character.lower() if ignore_case else character
        elif _plain_group((opcode, argument)):
            group: _Items = list(argument[-1])  # type: ignore[index]
            if all(inner is _LITERAL for inner, _ in group):
                runs.append(runs.pop() + _longest_run(group, ignore_case))  # the run goes on through it
            else:
                runs += [_longest_run(group, ignore_case), ""]
        else:
            runs.append("")
    return max(runs, key=len)


def sig(
    code: str,
    pattern: str,
    source: str,
    extract: Extractor | None = None,
    *,
    variant: str | None = None,
    flags: int = 0,
) -> Signature:
    """A signature from its pattern's text."""
    return Signature(code, re.compile(pattern, flags), source, extract, variant)


@dataclass(frozen=True)
class DiagnosisPart:
    """The signatures of one theme, and how their findings combine with the others.

    Attributes:
        codes: The finding codes this part adds to the contract's list (new codes only; a
            part may also give variants of codes defined elsewhere).
        signatures: The messages it recognises, most specific first.
        suppresses: A finding of the key explains the same failure as the codes listed,
            which are then dropped (``{"WINDOWS_PAGING_FILE_TOO_SMALL": ("TORCH_DLL_LOAD_FAILED",)}``).
        refiners: For a code, how its variant and extra parameters are chosen from the whole
            log (:data:`Refiner`); without one, the first variant a matching signature named.
    """

    codes: tuple[str, ...]
    signatures: tuple[Signature, ...]
    suppresses: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    refiners: Mapping[str, Refiner] = field(default_factory=dict)
