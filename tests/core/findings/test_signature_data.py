"""The signatures as data (issue 35, point 2): resources/findings/<part>.json, "signatures".

Each theme's known messages live beside their finding texts; the code of a theme
(core/findings/diagnosis_<part>.py) only reads values out of matches and weighs the whole log,
registered by name. These tests check that the data and the code agree, and that a mistake in
the data is refused with a line that names the file and the entry.
"""

from __future__ import annotations

import re

import pytest

from gpuwizard.core.findings.catalog import CATALOG
from gpuwizard.core.findings.diagnosis import DIAGNOSIS_CODES, PARTS, SIGNATURES
from gpuwizard.core.findings.signature import SignatureDataError, Values, parse_signatures


def _entry(**fields: object) -> dict[str, object]:
    return {
        "code": "DEMO",
        "pattern": "demo message (?P<what>\\w+)",
        "source": "https://example.org/1",
        **fields,
    }


def _reads_what(match: re.Match[str]) -> Values:
    return {"what": match.group("what").upper()}


def test_every_signature_has_the_texts_of_its_finding():
    for signature in SIGNATURES:
        key = f"{signature.code}:{signature.variant}" if signature.variant else signature.code
        assert key in CATALOG or signature.code in CATALOG, key


def test_the_codes_are_derived_from_the_signatures_and_the_rules():
    assert set(DIAGNOSIS_CODES) == {s.code for s in SIGNATURES} | {c for p in PARTS for c in p.implies}
    assert len(DIAGNOSIS_CODES) == len(set(DIAGNOSIS_CODES))


def test_a_plain_entry_reads_its_named_groups_and_its_constant_values():
    [plain] = parse_signatures("demo", {"signatures": [_entry(values={"failure": "dns"})]}, ())
    match = plain.pattern.search("a demo message here")
    assert match is not None
    assert plain.values(match) == {"what": "here", "failure": "dns"}
    assert plain.needles == ("demo message ",)


def test_an_entry_names_its_extractor_and_its_flags():
    [named] = parse_signatures(
        "demo",
        {"signatures": [_entry(extract="_reads_what", flags=["ignore_case"], variant="loud")]},
        (_reads_what,),
    )
    match = named.pattern.search("DEMO MESSAGE here")
    assert match is not None and named.values(match) == {"what": "HERE"}
    assert named.variant == "loud"


@pytest.mark.parametrize(
    ("document", "extractors", "said"),
    [
        ({"signatures": [_entry(extract="_nowhere")]}, (), "no extractor '_nowhere' in its part"),
        ({"signatures": [_entry()]}, (_reads_what,), "no signature uses the extractors ['_reads_what']"),
        (
            {"signatures": [_entry(pattern="demo (")]},
            (),
            "signature 0 (DEMO): missing ), unterminated subpattern",
        ),
        ({"signatures": [_entry(flags=["verbose"])]}, (), "unknown flag 'verbose'"),
        ({"signatures": [_entry(values={"n": 1})]}, (), "'values' is not an object of strings"),
        ({"signatures": [{"code": "DEMO", "pattern": "demo"}]}, (), "no code, pattern and source"),
        ({"signatures": {"code": "DEMO"}}, (), "'signatures' is not a list"),
    ],
)
def test_a_mistake_in_the_data_is_refused_with_its_place(document: object, extractors: tuple, said: str):
    with pytest.raises(SignatureDataError, match=re.escape(said)) as refused:
        parse_signatures("demo", document, extractors)
    assert "findings/demo.json" in str(refused.value)


def test_every_signature_has_a_fixed_text_to_be_found_by():
    # A pattern without one (under ignore_case, letters such as i and s cut the runs) is read
    # in no region at all: it would never match (issue 39's outside check found one).
    from gpuwizard.core.findings.diagnosis import SIGNATURES

    assert [signature.pattern.pattern for signature in SIGNATURES if not signature.choices] == []
