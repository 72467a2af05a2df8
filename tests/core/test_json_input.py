"""``core/json_input.py``: strict JSON (and TOML depth) for everything read from outside (issue 19)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from gpuwizard.core.json_input import (
    MAX_DEPTH,
    JsonInputError,
    check_toml_text,
    decode_utf8,
    json_depth,
    one_line,
    parse_json,
    toml_depth,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]


def refusal(text: str) -> str:
    with pytest.raises(JsonInputError) as refused:
        parse_json(text, source="f.json")
    message = str(refused.value)
    assert message.startswith("f.json: ") and "\n" not in message
    return message


def test_the_deepest_accepted_and_the_first_refused():
    assert parse_json("[" * MAX_DEPTH + "]" * MAX_DEPTH, source="f.json") is not None
    assert "nested deeper than 64 levels" in refusal("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    assert "nested deeper" in refusal('{"a":' * 100 + "1" + "}" * 100)


# A limit of its own, not an assert on the clock: a linear pass takes well under a second, one
# that recursed would raise RecursionError (not this refusal), and a quadratic one would take
# hours here. A regular expression stuck in C is stopped only by a thread.
@pytest.mark.timeout(60, method="thread")
@pytest.mark.parametrize("depth", [100_000, 1_000_000])
def test_absurd_nesting_is_refused_quickly_without_recursion(depth: int):
    assert "nested deeper" in refusal("[" * depth)
    assert "nested deeper" in refusal("[" * depth + "]" * depth)


def test_brackets_inside_strings_do_not_count():
    text = json.dumps({"a": "[" * 10_000, "b": '\\"[[[[', "c": [[["]]]]]"]]]})
    assert json_depth(text) == 4
    assert parse_json(text, source="f.json")["c"] == [[["]]]]]"]]]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('{"a": 1, "a": 1}', "the key 'a' appears twice in one object"),
        ('{"x": {"b": 1, "b": 2}}', "the key 'b' appears twice"),
        ('[{"\\u202e": 1, "\\u202e": 2}]', "the key '\\u202e' appears twice"),
        ("[NaN]", "NaN is not a JSON number"),
        ('{"a": Infinity}', "Infinity is not a JSON number"),
        ("[-Infinity]", "-Infinity is not a JSON number"),
        ("1" * 5000, "digits"),
        ("", "it is empty"),
        (" \n", "it is empty"),
        ("{} {}", "Extra data at line 1, column 4"),
        ('{"a": "\x01"}', "Invalid control character"),
    ],
)
def test_what_python_json_would_accept_or_mangle_is_refused(text: str, said: str):
    assert said in refusal(text)


def test_utf8_strictly_with_the_offset_of_the_first_bad_byte():
    assert decode_utf8(b"\xef\xbb\xbf[1]", source="f") == "[1]"
    with pytest.raises(JsonInputError, match=r"^f: not UTF-8 text \(byte 0xed at offset 2\)$"):
        decode_utf8(b'["\xed\xa0\x80"]', source="f")  # an encoded surrogate
    with pytest.raises(JsonInputError, match="byte 0xff at offset 0"):
        decode_utf8('{"a": 1}'.encode("utf-16"), source="f")


@pytest.mark.timeout(60, method="thread")  # as above: a linear pass, not a clock
@pytest.mark.parametrize(
    "text",
    [
        "a = " + "[" * 100_000,
        "a = " + "{b = " * 100_000,
        ".".join(["a"] * 100_000) + " = 1",
        "[" + ".".join(["a"] * 100_000) + "]",
        '"a".' * 100 + "b = 1",
    ],
    ids=["arrays", "inline-tables", "dotted-key", "table-header", "quoted-dotted-key"],
)
def test_toml_that_tomllib_would_recurse_or_crawl_through_is_refused_first(text: str):
    with pytest.raises(JsonInputError, match=r"^a\.toml: not valid TOML \(nested deeper than 64 levels\)$"):
        check_toml_text(text, source="a.toml")


def test_toml_strings_and_comments_do_not_count():
    text = (
        'a = "[[[[ a.b.c.d.e.f.g"\n'
        "b = '[[[['\n"
        'c = """\n[[[[\n""\\"[[[["""\n'
        "d = '''[[[[''''\n"
        "# [[[[[[[[ a.b.c\n"
        "[t.u]\n"
        "e = [[1], {f = 2.5}]\n"
    )
    assert toml_depth(text) == 2
    check_toml_text(text, source="a.toml")
    assert tomllib.loads(text)["t"]["u"]["e"] == [[1], {"f": 2.5}]


def test_one_line_escapes_line_breaks_controls_format_characters_and_surrogates():
    assert one_line("plain text, café, 实验") == "plain text, café, 实验"
    assert (
        one_line("a\nb\r\x1b[31m\u202e\u2066\u200b\udcff") == "a\\nb\\r\\x1b[31m\\u202e\\u2066\\u200b\\udcff"
    )
    one_line("\udcff").encode("utf-8")


def every_shipped_json() -> list[Path]:
    folders = [ROOT / "resources", ROOT / "tests" / "fixtures", ROOT / "docs"]
    return sorted(path for folder in folders for path in folder.rglob("*.json"))


def test_every_json_file_shipped_or_in_the_fixtures_passes_the_strict_reader():
    """The limits fit real files: no shipped file nests deeper than MAX_DEPTH or repeats a key."""
    deepest = 0
    for path in every_shipped_json():
        text = path.read_bytes().decode("utf-8-sig")
        parse_json(text, source=str(path))
        deepest = max(deepest, json_depth(text))
    print(f"deepest real JSON: {deepest} levels (limit {MAX_DEPTH})")
    assert deepest * 4 <= MAX_DEPTH
