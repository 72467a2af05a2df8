"""The fixed-text prefilter of the signatures never passes over a log one of them matches."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpuwizard.core.findings import signature as signature_module
from gpuwizard.core.findings.diagnosis import SIGNATURES
from gpuwizard.core.findings.log_views import log_views
from gpuwizard.core.findings.signature import (
    WINDOW_CAP,
    NeedleIndex,
    Needles,
    Signature,
    needle_choices,
    required_texts,
    search_log,
)

RECORDED = Path(__file__).parents[2] / "fixtures" / "recorded" / "diagnose"


def _views() -> list[str]:
    return [view for path in sorted(RECORDED.glob("*.txt")) for view in log_views(path.read_text("utf-8"))]


def test_every_signature_that_matches_a_recorded_log_passes_its_prefilter() -> None:
    checked = 0
    for view in _views():
        lowered = view.lower()
        for signature in SIGNATURES:
            if signature.pattern.search(view):
                checked += 1
                assert signature.may_match(view, lambda text=lowered: text), signature.pattern.pattern
    assert checked > 200  # the recorded logs do exercise the signatures


def test_every_signature_has_fixed_text_to_search_for() -> None:
    # Without one a pattern reads every log whole (issue 35, point 5): spell its words out instead.
    assert [signature.pattern.pattern for signature in SIGNATURES if signature.needles is None] == []


@pytest.mark.parametrize(
    ("pattern", "flags", "expected"),
    [
        (r"Could not load (?P<what>\w+) library", 0, (("Could not load ",), False)),
        (r"foo(?:bar)bazz", 0, (("foobarbazz",), False)),
        (r"ab(c+d)efgh", 0, (("efgh",), False)),
        (r"first one|second one", 0, (("first one", "second one"), False)),
        (r"first one|x", 0, None),  # an alternative without fixed text: every log is searched
        (r"\b(?:Connect|Read)TimeoutError\(", 0, (("TimeoutError(",), False)),
        (r"(?:ConnectTimeout|ReadTimeout)\(", 0, (("ConnectTimeout", "ReadTimeout"), False)),
        (r"\b(?:ab|cd)\b", 0, None),
        # Case ignored: lower case, cut at i and s (re also matches dotless i and the long s).
        (r"CUDNN_status_NOT_supported", re.IGNORECASE, (("upported",), True)),
    ],
)
def test_the_fixed_text_is_read_from_the_pattern(pattern: str, flags: int, expected: object) -> None:
    assert required_texts(re.compile(pattern, flags)) == expected


_CASE_EXTRAS = st.sampled_from(["ı", "ſ", "K", "İ", "I", "S", "i", "s"])


@given(st.sampled_from([s for s in SIGNATURES if s.needles and s.ignore_case]), st.data())
def test_text_in_any_case_that_a_pattern_matches_passes_its_prefilter(
    signature: Signature, data: st.DataObject
) -> None:
    # The run's letters in any case, with the look-alikes re also matches; a match must pass.
    assert signature.needles is not None
    base = signature.needles[0]
    text = "".join(
        data.draw(
            st.sampled_from(
                [ch, ch.upper(), *(["ı", "İ"] if ch == "i" else []), *(["ſ"] if ch == "s" else [])]
            )
        )
        for ch in base
    )
    log = f"prefix {text} suffix"
    if signature.pattern.search(log):
        assert signature.may_match(log, log.lower)


def _spans(matches: object) -> list[tuple[int, int]]:
    return [match.span() for match in matches]  # type: ignore[attr-defined]


def _found(signature: Signature, matches: Iterable[re.Match[str]]) -> list[tuple[int, int]]:
    # Where the extractor names the texts a counted match holds, only counted matches must agree.
    if getattr(signature.extract, "needles", None):
        return [match.span() for match in matches if signature.values(match) is not None]
    return _spans(matches)


def test_the_regions_around_the_fixed_texts_give_every_match_a_whole_run_gives() -> None:
    needles = Needles(SIGNATURES)
    compared = 0
    for view in _views():
        index = NeedleIndex(view, needles)
        for signature in SIGNATURES:
            whole = _found(signature, signature.pattern.finditer(view))
            assert _found(signature, signature.matches(index)) == whole, (
                signature.code,
                signature.pattern.pattern,
            )
            compared += len(whole)
    assert compared > 300


_CRASH_LINE = "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"


@pytest.fixture
def small_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    # Small pieces and a low "everywhere" mark, so that a short text crosses both.
    monkeypatch.setattr(signature_module, "MOST_PLACES", 5)
    monkeypatch.setattr(signature_module, "_PIECE", 64)


def _crash_loop_around(line: str) -> tuple[str, NeedleIndex]:
    """A crash loop of one CUDA error with ``line`` in its middle, and its index."""
    text = _CRASH_LINE * 40 + line + _CRASH_LINE * 40
    return text, NeedleIndex(text, Needles(SIGNATURES))


@pytest.mark.usefixtures("small_pieces")
def test_a_text_found_everywhere_is_read_whole_and_the_pieces_overlap() -> None:
    line = _CRASH_LINE
    text = "warm up\n" * 7 + line * 40 + "Could not load dynamic library 'cudart64_110.dll'\n"
    index = NeedleIndex(text, Needles(SIGNATURES))
    for signature in SIGNATURES:
        assert _found(signature, signature.matches(index)) == _found(
            signature, signature.pattern.finditer(text)
        ), signature.code
    kernel = next(
        s for s in SIGNATURES if s.code == "NO_KERNEL_IMAGE" and any(n in line for n in s.needles or ())
    )
    assert index.positions(kernel.needles or (), kernel.ignore_case) is None  # everywhere: read whole


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        # Each run in sequence is a choice; the first is the longest (required_texts').
        (r"\bCUDA (?:driver )?error:? 222\b", ((("CUDA ",), ("error",), (" 222",)),)),
        # A long run is rare enough: no other is searched for.
        (
            r"Could not load dynamic library '(?P<l>[^']+)' x{2}yyyy",
            ((("Could not load dynamic library '",),),),
        ),
        # One alternation: each alternative has its own choices.
        (r"abcd \d efgh|wxyz", ((("abcd ",), (" efgh",)), (("wxyz",),))),
        (r"first one|x", ()),  # an alternative without fixed text: no choice at all
    ],
)
def test_each_alternative_offers_every_run_it_holds(pattern: str, expected: object) -> None:
    assert needle_choices(re.compile(pattern)) == expected


@pytest.mark.usefixtures("small_pieces")
def test_a_rarer_run_bounds_where_a_pattern_is_read_when_its_longest_is_everywhere() -> None:
    text, index = _crash_loop_around("CUDA error 222 at ggml-cuda.cu:75\n")
    toolchain = next(s for s in SIGNATURES if s.pattern.pattern.startswith(r"\bCUDA (?:driver )?error:? 222"))
    assert index.positions(toolchain.needles or (), toolchain.ignore_case) is None  # "CUDA " is everywhere
    regions = toolchain.regions(index)
    assert sum(end - start for start, end in regions) < len(text) // 4  # only around " 222"
    assert _spans(toolchain.matches(index)) == _spans(toolchain.pattern.finditer(text)) != []


def test_every_signature_spans_a_bounded_width() -> None:
    # An unbounded repeat (\d+) makes a pattern's regions the whole log: bound every repeat.
    assert [s.pattern.pattern for s in SIGNATURES if s.span >= WINDOW_CAP] == []


@pytest.mark.usefixtures("small_pieces")
def test_a_windows_number_after_common_words_is_read_only_around_the_numbers_counted() -> None:
    text, index = _crash_loop_around("Process finished with exit code -1073741515 (0xC0000135)\n")
    words = next(
        s for s in SIGNATURES if s.code == "WINDOWS_ERROR_CODE" and getattr(s.extract, "needles", None)
    )
    assert sum(end - start for start, end in words.regions(index)) < len(text) // 4
    counted = [words.values(match) for match in words.matches(index)]
    assert [values["hex"] for values in counted if values] == ["0xC0000135"]  # "exit code -1073741515"


def test_a_search_begun_at_the_first_fixed_text_finds_the_first_match_a_whole_search_finds() -> None:
    views = _views()
    compared = 0
    for signature in SIGNATURES:
        for view in views:
            whole = signature.pattern.search(view)
            found = search_log(signature.pattern, view)
            assert (found and found.span()) == (whole and whole.span()), signature.pattern.pattern
            compared += whole is not None
    assert compared > 300


def test_a_region_does_not_end_where_a_word_goes_on() -> None:
    # CONSTRUCTED: "\b" after the fixed text must see the letters that follow it in the log.
    pattern = re.compile(r"cudaErrorFoo\b")
    text = "x" * 100 + "cudaErrorFooBar and more"
    assert search_log(pattern, text) is None and pattern.search(text) is None
