"""A known message in a log: the code it stands for, how to find it, where it was reported.

What :mod:`gpuwizard.core.findings.diagnosis` matches logs with; apart so that the signatures of
one theme can live in a module of their own (:mod:`.diagnosis_network`, :mod:`.diagnosis_torch`,
...). Such a module gives a :class:`DiagnosisPart`: its codes, its signatures, the findings its
findings make redundant, and how a finding's variant is chosen from the whole log.
"""

from __future__ import annotations

import functools
import heapq
import importlib
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import ahocorasick

from gpuwizard.core.findings.catalog import part_document

#: Hints that a log comes from Windows: a DLL name, a drive letter or a Windows error number.
# Each alternative starts with its literal text (the checks before it look back), so that re
# skips ahead to it: a pattern starting with \b or a class is tried at every position of a log.
WINDOWS_LOG: Final = re.compile(r"\.dll\b(?<=[\w-]\.dll)|:\\(?<=\b[A-Za-z]:\\)|\[WinError \d", re.IGNORECASE)

#: TensorRT's libraries, optional for TensorFlow: a missing one is only a notice, never a failure.
#: NCCL's plugins (libnccl-net.so, libnccl-tuner.so, libnccl-profiler.so) are optional too: NCCL
#: says "NET/Plugin: Could not find: libnccl-net.so" at INFO level and goes on with its own.
OPTIONAL_LIBRARY: Final = re.compile(
    r"nvinfer|nvonnxparser|nvparsers|nccl-net|nccl-tuner|nccl-profiler", re.IGNORECASE
)

#: A match is looked for at most this far on either side of a fixed text it holds: the widest
#: reading of a pattern with an unbounded repeat (``\d+``) is capped here. No error message of
#: a log is longer.
WINDOW_CAP: Final = 64 * 1024
#: The driver's own library: missing means no driver, not a missing toolkit.
DRIVER_LIBRARY: Final = re.compile(r"libcuda\.so(?:\.\d+)*|nvcuda\.dll", re.IGNORECASE)

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
        constants: Values every match adds to those (data: ``"values"``).
        variant: The catalog variant this message calls for, if any.
    """

    code: str
    pattern: re.Pattern[str]
    source: str
    extract: Extractor | None = None
    variant: str | None = None
    #: Values every match gives besides those it reads (``{"failure": "dns"}``).
    constants: Mapping[str, str] = field(default_factory=dict, compare=False)
    #: Texts one of which every match contains (lower case where the pattern ignores case), or
    #: None: what lets a log be passed over with substring searches instead of a run of the pattern.
    needles: tuple[str, ...] | None = field(init=False, repr=False, compare=False, default=None)
    #: For each alternative of the pattern, the sets of texts its every match holds (one text of
    #: each set; the first set is the alternative's part of :attr:`needles`): where one stands on
    #: every line of a log, a rarer one still bounds where that alternative can match.
    choices: tuple[tuple[tuple[str, ...], ...], ...] = field(
        init=False, repr=False, compare=False, default=()
    )
    ignore_case: bool = field(init=False, repr=False, compare=False, default=False)

    #: The most text one match spans (its pattern's widest reading, at most :data:`WINDOW_CAP`).
    span: int = field(init=False, repr=False, compare=False, default=WINDOW_CAP)

    def __post_init__(self) -> None:
        found = required_texts(self.pattern)
        object.__setattr__(self, "needles", found[0] if found else None)
        if found:
            choices = needle_choices(self.pattern)
            # An extractor that counts only matches holding one of some texts (the numbers of a
            # vocabulary) names them (``extract.needles``): every alternative has that choice too.
            if counted := getattr(self.extract, "needles", None):
                texts = tuple(text.lower() if self.ignore_case else text for text in counted)
                choices = tuple((*sets, texts) for sets in choices)
            object.__setattr__(self, "choices", choices)
        object.__setattr__(self, "ignore_case", bool(found and found[1]))
        widest = _RE_PARSER.parse(self.pattern.pattern, self.pattern.flags).getwidth()[1]
        object.__setattr__(self, "span", min(widest, WINDOW_CAP))

    def regions(self, index: NeedleIndex) -> list[tuple[int, int]]:
        """Where in ``index``'s text a match can be: around each place one of the fixed texts stands.

        Every match holds one of them and spans at most :attr:`span` characters, so it lies
        within that much of it on either side; overlapping regions are merged. Without fixed
        texts (or where lower case changes the text's length), the whole text.
        """
        positions = self._positions(index)
        # Where the regions would cover much of the text (one message repeated on every line), one
        # run over it costs less than a run per region (it stops at diagnosis.MATCHES_PER_SIGNATURE).
        if (
            positions is None
            or len(positions) > MOST_PLACES
            or len(positions) * 2 * self.span > len(index.text)
        ):
            return [(0, len(index.text))]
        return _around(positions, self.span, len(index.text))

    def _positions(self, index: NeedleIndex) -> list[int] | None:
        # Each alternative's match holds one text of each of its sets: the set found least often
        # says best where it can be. None where an alternative's every set is everywhere.
        positions: list[int] = []
        for sets in self.choices:
            fewest: list[int] | None = None
            for needles in sets:
                places = index.positions(needles, self.ignore_case)
                if places is not None and (fewest is None or len(places) < len(fewest)):
                    fewest = places
            if fewest is None:
                return None
            positions += fewest
        return sorted(positions) if len(self.choices) > 1 else positions

    def matches(self, index: NeedleIndex) -> Iterator[re.Match[str]]:
        """The matches in ``index``'s text, in order, each once: only its :meth:`regions` are read.

        Where the extractor names the texts a counted match holds (``extract.needles``), a match
        without one may be passed over: :meth:`values` would not count it.

        ``finditer(text, start, end)`` reads the whole string for lookbehinds and ``^``, so a
        match in a region is the match the whole text has there.
        """
        for start, end in self.regions(index):
            yield from self.pattern.finditer(index.text, start, end)

    def may_match(self, text: str, lowered: Callable[[], str]) -> bool:
        """False only when no match can be in ``text`` (``lowered``: the text in lower case, made once)."""
        if self.needles is None:
            return True
        haystack = lowered() if self.ignore_case else text
        return any(needle in haystack for needle in self.needles)

    def values(self, match: re.Match[str]) -> Values | None:
        """The values this match gives, or ``None`` when it does not count."""
        values = (
            self.extract(match)
            if self.extract is not None
            else {name: value for name, value in match.groupdict().items() if value}
        )
        return values if values is None or not self.constants else {**values, **self.constants}


def search_log(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    r"""``pattern.search(text)``, read only around its fixed texts: for a question about a log.

    Every match holds one of the pattern's fixed texts (:func:`required_texts`, where it heeds
    case) within its widest reading: a log without them is passed over with substring searches,
    and one with them is read only around each, in order, until the first match (a question
    answered near a log's start does not look for its texts in the rest). Where they stand more
    than :data:`MOST_PLACES` times, the rest is read whole. A pattern that starts with ``\b`` or
    ignores case is otherwise tried at every place of a log: seconds on 64 MiB.
    """
    fixed = _fixed_texts(pattern)
    if fixed is None:
        return pattern.search(text)
    reach = _widest(pattern) + _LOOKAROUND
    region: tuple[int, int] | None = None
    for count, place in enumerate(_places_in_order(text, fixed)):
        start, end = max(0, place - reach), min(len(text), place + reach)
        if count >= MOST_PLACES:  # everywhere: one run over the rest costs less than a call each
            return pattern.search(text, region[0] if region is not None else start)
        if region is not None and start <= region[1]:
            region = (region[0], end)
            continue
        if region is not None and (found := pattern.search(text, *region)):
            return found
        region = (start, end)
    return pattern.search(text, *region) if region is not None else None


def _places_in_order(text: str, needles: Iterable[str]) -> Iterator[int]:
    # Where any of ``needles`` starts in ``text``, in order, each found when it is needed.
    ahead = [(place, needle) for needle in needles if (place := text.find(needle)) >= 0]
    heapq.heapify(ahead)
    while ahead:
        place, needle = ahead[0]
        yield place
        if (after := text.find(needle, place + 1)) >= 0:
            heapq.heapreplace(ahead, (after, needle))
        else:
            heapq.heappop(ahead)


#: A pattern's zero-width checks (``\b``, ``$``, a lookahead) read past the text it matches, and a
#: region's end would read as the text's end to them: each region reaches this much further.
_LOOKAROUND: Final = 16


def _around(positions: Iterable[int], span: int, length: int) -> list[tuple[int, int]]:
    # The stretches within ``span`` of each position (in order), overlapping ones merged.
    merged: list[tuple[int, int]] = []
    reach = span + _LOOKAROUND
    for position in positions:
        start, end = max(0, position - reach), min(length, position + reach)
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


@functools.lru_cache(maxsize=256)
def _fixed_texts(pattern: re.Pattern[str]) -> tuple[str, ...] | None:
    found = required_texts(pattern)
    return found[0] if found and not found[1] else None


@functools.lru_cache(maxsize=256)
def _widest(pattern: re.Pattern[str]) -> int:
    return int(min(_RE_PARSER.parse(pattern.pattern, pattern.flags).getwidth()[1], WINDOW_CAP))


#: More places than this cost more (a region and a call each) than one run of a pattern over the
#: whole text: a fixed text found more often is taken to be everywhere.
MOST_PLACES: Final = 50_000


class Needles:
    """Every fixed text of a set of signatures, in one Aho-Corasick automaton over lower case.

    One automaton finds all of them in one pass over a text, whatever their number: the time of
    a search grows with the text alone (pyahocorasick, a C implementation). It reads the text in
    lower case; a text whose pattern heeds case is then checked as written where it stands.
    ``exact`` (the texts as written) is for a text whose lower case is not as long as it is.
    """

    def __init__(self, signatures: Sequence[Signature]) -> None:
        exact = [n for s in signatures if not s.ignore_case for n in _all_needles(s)]
        folded = {n for s in signatures if s.ignore_case for n in _all_needles(s)}
        self.exact = _automaton(exact)
        spellings: dict[str, list[str]] = {}
        for needle in dict.fromkeys(exact):
            spellings.setdefault(needle.lower(), []).append(needle)
        #: Each text in lower case -> (itself, its length, its spellings as written, whether a
        #: pattern that ignores case wants it).
        self.both = _automaton(
            [*spellings, *folded],
            lambda key: (key, len(key), tuple(spellings.get(key, ())), key in folded),
        )


def _all_needles(signature: Signature) -> Iterator[str]:
    for sets in signature.choices:
        for needles in sets:
            yield from needles


#: The automaton reads a long text in pieces of this many characters: it copies what it reads,
#: and so does lower(), so the memory a search takes stays this size whatever the log's.
_PIECE: Final = 1 << 20
#: No fixed text is longer (a pattern's is refused): a piece overlaps the next by this much.
_LONGEST_NEEDLE: Final = 400


def _find_all(text: str, automaton: Any, ignore_case: bool) -> dict[str, list[int] | None] | None:  # noqa: ANN401
    """Where each of the automaton's texts starts in ``text``, read piece by piece.

    A text found more than :data:`MOST_PLACES` times is "everywhere" (``None``): its patterns read
    the whole text once, and the pieces after are searched without it (a log repeating one line
    would otherwise yield millions of places). ``None`` for all where lower case changes a
    piece's length (U+0130): positions would not agree.
    """
    places: dict[str, list[int] | None] = {}
    for start in range(0, len(text), _PIECE):
        piece = text[start : start + _PIECE + _LONGEST_NEEDLE - 1]
        if ignore_case:
            lowered = piece.lower()
            if len(lowered) != len(piece):
                return None
            piece = lowered
        for end, needle in automaton.iter(piece):
            begin = end - len(needle) + 1
            found = places.setdefault(needle, [])
            if begin < _PIECE and found is not None:  # one that begins in the overlap is the next piece's
                found.append(start + begin)
        if everywhere := [
            needle for needle, found in places.items() if found is not None and len(found) > MOST_PLACES
        ]:
            places.update(dict.fromkeys(everywhere))
            automaton = _automaton(word for word in automaton.keys() if places.get(word, []) is not None)  # noqa: SIM118 - pyahocorasick's keys()
            if not len(automaton):
                break
    return places


def _automaton(needles: Iterable[str], value: Callable[[str], object] = str) -> Any:  # noqa: ANN401 - pyahocorasick has no type information
    automaton = ahocorasick.Automaton()
    for needle in dict.fromkeys(needles):
        if len(needle) > _LONGEST_NEEDLE:
            raise ValueError(f"a fixed text longer than {_LONGEST_NEEDLE} characters: {needle[:60]!r}...")
        automaton.add_word(needle, value(needle))
    if len(automaton):
        automaton.make_automaton()
    return automaton


Places = dict[str, list[int] | None]


def _find_both(text: str, needles: Needles) -> tuple[Places, Places] | None:
    """Where each text stands in ``text``, as written and in lower case, in one pass per piece.

    As :func:`_find_all`; ``None`` where lower case changes a piece's length (U+0130).
    """
    exact: Places = {}
    folded: Places = {}
    automaton = needles.both
    for start in range(0, len(text), _PIECE):
        piece = text[start : start + _PIECE + _LONGEST_NEEDLE - 1]
        lowered = piece.lower()
        if len(lowered) != len(piece):
            return None
        for end, (key, length, spellings, wanted) in automaton.iter(lowered):
            begin = end - length + 1
            if begin >= _PIECE:  # one that begins in the overlap is the next piece's
                continue
            if wanted and (found := folded.setdefault(key, [])) is not None:
                found.append(start + begin)
            for spelling in spellings:
                if (
                    piece.startswith(spelling, begin)
                    and (found := exact.setdefault(spelling, [])) is not None
                ):
                    found.append(start + begin)
        everywhere = [
            (kind, needle)
            for kind in (exact, folded)
            for needle, found in kind.items()
            if found is not None and len(found) > MOST_PLACES
        ]
        for kind, needle in everywhere:
            kind[needle] = None
        if everywhere:
            automaton = _without_everywhere(automaton, exact, folded)
            if not len(automaton):
                break
    return exact, folded


def _without_everywhere(automaton: Any, exact: Places, folded: Places) -> Any:  # noqa: ANN401
    # The automaton without the texts all of whose spellings stand everywhere.
    kept = {
        key: (key, length, live, wanted and folded.get(key, []) is not None)
        for key, (_, length, spellings, wanted) in automaton.items()
        if (live := tuple(s for s in spellings if exact.get(s, []) is not None))
        or (wanted and folded.get(key, []) is not None)
    }
    return _automaton(kept, kept.__getitem__)


class NeedleIndex:
    """Where the signatures' fixed texts stand in one text: found for all of them in one pass each.

    The text in lower case (for the patterns that ignore case) is made once, when first needed.
    """

    def __init__(self, text: str, needles: Needles) -> None:
        self.text = text
        self._needles = needles
        self._found: dict[bool, Places | None] | None = None

    def _places(self, ignore_case: bool) -> Places | None:
        if self._found is None:
            both = _find_both(self.text, self._needles) if len(self._needles.both) else ({}, {})
            if both is None:  # lower case moves the places: the exact texts are found as written
                self._found = {False: _find_all(self.text, self._needles.exact, False), True: None}
            else:
                self._found = {False: both[0], True: both[1]}
        return self._found[ignore_case]

    def positions(self, needles: Sequence[str], ignore_case: bool) -> list[int] | None:
        """Every place one of ``needles`` starts, in order; ``None`` when they cannot be placed."""
        places = self._places(ignore_case)
        if places is None:
            return None
        lists = [places.get(needle, []) for needle in dict.fromkeys(needles)]
        if any(found is None for found in lists):
            return None  # one of them is everywhere: the pattern reads the whole text
        found = [place for places_of in lists for place in places_of or ()]
        return sorted(found) if len(needles) > 1 else found


#: Shorter literals pass nearly every log: not worth a search of their own.
_SHORTEST_NEEDLE: Final = 4
#: A fixed text this long is rare in a log: an alternative that has one needs no other (each
#: text searched for costs a step per place it stands).
_RARE_NEEDLE: Final = 8
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
    found = [_needles_of(alternative, ignore_case) for alternative in _alternatives(parsed)]
    if any(needles is None for needles in found):
        return None
    return tuple(needle for needles in found for needle in needles or ()), ignore_case


def needle_choices(pattern: re.Pattern[str]) -> tuple[tuple[tuple[str, ...], ...], ...]:
    r"""For each alternative of ``pattern``, the sets of texts its every match holds.

    The first set of each is what :func:`required_texts` gives for it; then every other run of
    characters the alternative holds in sequence, of :data:`_SHORTEST_NEEDLE` or more: in
    ``\bCUDA (?:driver )?error:? 222\b``, ``CUDA `` and ``error`` are on every line of a CUDA
    error log, `` 222`` rarely. Empty where the pattern has no fixed text.

    >>> needle_choices(re.compile(r"\bCUDA (?:driver )?error:? 222\b"))
    ((('CUDA ',), ('error',), (' 222',)),)
    """
    parsed = _RE_PARSER.parse(pattern.pattern, pattern.flags)
    ignore_case = bool((pattern.flags | parsed.state.flags) & re.IGNORECASE)
    choices: list[tuple[tuple[str, ...], ...]] = []
    for alternative in _alternatives(parsed):
        first = _needles_of(alternative, ignore_case)
        if first is None:
            return ()
        others: list[tuple[str, ...]] = []
        if min(map(len, first)) < _RARE_NEEDLE:
            runs = dict.fromkeys(_runs(alternative, ignore_case))
            others = [(run,) for run in runs if len(run) >= _SHORTEST_NEEDLE and (run,) != first]
        choices.append((first, *others))
    return tuple(choices)


def _alternatives(parsed: _Items) -> list[list[tuple[object, object]]]:
    # The pattern's alternatives (itself where it is not one alternation); anchors (\b, ^) match
    # no text, and a group or an alternation around them changes no run.
    items: _Items = [item for item in parsed if item[0] is not _AT]
    while len(items) == 1 and _plain_group(items[0]):
        items = [item for item in items[0][1][-1] if item[0] is not _AT]  # type: ignore[index]
    if len(items) == 1 and items[0][0] is _BRANCH:
        return [list(branch) for branch in items[0][1][1]]  # type: ignore[index]
    return [list(items)]


def _needles_of(items: _Items, ignore_case: bool) -> tuple[str, ...] | None:
    # The longest run of one alternative, or else the runs of an alternation it must pass
    # through (``(?:A|B)\(``), each alternative of which is read the same way in turn.
    run = _longest_run(items, ignore_case)
    if len(run) >= _SHORTEST_NEEDLE:
        return (run,)
    for item in items:
        branch = _branch_of(item)
        if branch is not None:
            found = [
                _needles_of([part for part in alternative if part[0] is not _AT], ignore_case)
                for alternative in branch
            ]
            if all(needles is not None for needles in found):
                return tuple(needle for needles in found for needle in needles or ())
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
    return max(_runs(items, ignore_case), key=len)


def _runs(items: _Items, ignore_case: bool) -> list[str]:
    # The runs of characters in sequence (some empty), through groups that hold only characters.
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
    return runs


def sig(
    code: str,
    pattern: str,
    source: str,
    extract: Extractor | None = None,
    *,
    variant: str | None = None,
    flags: int = 0,
) -> Signature:
    """A signature from its pattern's text (the data's are read by :func:`load_signatures`)."""
    return Signature(code, re.compile(pattern, flags), source, extract, variant)


class SignatureDataError(ValueError):
    """A part's signatures in ``resources/findings/<part>.json`` cannot be used as they are."""


#: The names of the pattern flags the data may give (``"flags": ["ignore_case"]``).
_FLAGS: Final = {"ignore_case": re.IGNORECASE, "multiline": re.MULTILINE, "dotall": re.DOTALL}


def parse_signatures(name: str, document: object, extractors: Sequence[Extractor]) -> tuple[Signature, ...]:
    """The signatures of the part ``name`` from its JSON ``document``, in their order.

    An entry names its extractor (``"extract"``) by the function's name among ``extractors``,
    the part's code that reads values out of a match; every extractor given must be used.

    >>> [s.code for s in parse_signatures("demo", {"signatures": [{"code": "A", "pattern": "x+y", "source": "https://e"}]}, ())]
    ['A']
    >>> parse_signatures("demo", {"signatures": [{"code": "A", "pattern": "(", "source": "https://e"}]}, ())
    Traceback (most recent call last):
    ...
    gpuwizard.core.findings.signature.SignatureDataError: findings/demo.json, signature 0 (A): missing ), unterminated subpattern at position 0
    """
    entries = document.get("signatures", []) if isinstance(document, dict) else None
    if not isinstance(entries, list):
        raise SignatureDataError(f"findings/{name}.json: 'signatures' is not a list")
    by_name = {extract.__name__: extract for extract in extractors}
    used: set[str] = set()
    signatures: list[Signature] = []
    for number, entry in enumerate(entries):
        fields = entry if isinstance(entry, dict) else {}
        where = f"findings/{name}.json, signature {number} ({fields.get('code', '?')})"
        code, pattern, source = fields.get("code"), fields.get("pattern"), fields.get("source")
        if not all(isinstance(value, str) and value for value in (code, pattern, source)):
            raise SignatureDataError(f"{where}: no code, pattern and source")
        flags = 0
        for flag in fields.get("flags", []):
            if flag not in _FLAGS:
                raise SignatureDataError(f"{where}: unknown flag {flag!r}")
            flags |= _FLAGS[flag]
        extract_name = fields.get("extract")
        if extract_name is not None and extract_name not in by_name:
            raise SignatureDataError(f"{where}: no extractor {extract_name!r} in its part")
        used.add(extract_name or "")
        try:
            compiled = re.compile(str(pattern), flags)
        except re.error as error:
            raise SignatureDataError(f"{where}: {error}") from None
        variant, constants = fields.get("variant"), fields.get("values", {})
        if not isinstance(constants, dict) or not all(isinstance(value, str) for value in constants.values()):
            raise SignatureDataError(f"{where}: 'values' is not an object of strings")
        signatures.append(
            Signature(
                str(code),
                compiled,
                str(source),
                by_name.get(extract_name or ""),
                variant if isinstance(variant, str) else None,
                constants,
            )
        )
    if unused := sorted(set(by_name) - used):
        raise SignatureDataError(f"findings/{name}.json: no signature uses the extractors {unused}")
    return tuple(signatures)


def load_signatures(name: str, extractors: Sequence[Extractor]) -> tuple[Signature, ...]:
    """The signatures of ``resources/findings/<name>.json``, shipped in ``gpuwizard.resources``."""
    return parse_signatures(name, part_document(name), extractors)


@dataclass
class Hit:
    """What the matches of one code found in a log: where first, and all the values read."""

    position: int
    evidence: str
    values: dict[str, list[str]] = field(default_factory=dict)
    variants: list[str] = field(default_factory=list)

    def add(self, values: Values, variant: str | None) -> None:
        """Merge one match's values (each value once, in order of appearance) and its variant."""
        for name, value in values.items():
            seen = self.values.setdefault(name, [])
            for item in [value] if isinstance(value, str) else value:
                if item and item not in seen:
                    seen.append(item)
        if variant and variant not in self.variants:
            self.variants.append(variant)

    def first(self, name: str) -> str | None:
        """The first value read under ``name``, if any."""
        values = self.values.get(name)
        return values[0] if values else None


#: Changes the hits of a whole log once every signature has run (adds the findings others
#: imply, drops one another explains better than a plain suppression can say); the log is given.
HitRule = Callable[[dict[str, Hit], str], None]


@dataclass(frozen=True)
class DiagnosisPart:
    """One theme's signatures (data) and the code that weighs them: how findings combine.

    Attributes:
        name: The catalog part whose file holds the signatures (``resources/findings/<name>.json``,
            ``"signatures"``), most specific first; the codes are theirs.
        extractors: The functions the signatures name (``"extract"``) to read values out of a match.
        suppresses: A finding of the key explains the same failure as the codes listed,
            which are then dropped (``{"WINDOWS_PAGING_FILE_TOO_SMALL": ("TORCH_DLL_LOAD_FAILED",)}``).
        refiners: For a code, how its variant and extra parameters are chosen from the whole
            log (:data:`Refiner`); without one, the first variant a matching signature named.
        rules: What changes the hits once all are found (:data:`HitRule`).
        implies: The codes its rules may add, which no signature names.
    """

    name: str
    extractors: tuple[Extractor, ...] = ()
    suppresses: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    refiners: Mapping[str, Refiner] = field(default_factory=dict)
    rules: tuple[HitRule, ...] = ()
    implies: tuple[str, ...] = ()
    signatures: tuple[Signature, ...] = field(init=False, repr=False, compare=False, default=())

    def __post_init__(self) -> None:
        object.__setattr__(self, "signatures", load_signatures(self.name, self.extractors))

    @property
    def codes(self) -> tuple[str, ...]:
        """The codes of its signatures and rules, in order of first appearance."""
        return tuple(dict.fromkeys([*(signature.code for signature in self.signatures), *self.implies]))
