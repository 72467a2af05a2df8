r"""JSON and TOML text from outside, parsed or refused in one line.

Every reader of a file the wizard did not just write itself (a ``--system`` report, a
``--registry`` snapshot, an answer file, a compatibility bundle, and the wizard's own files
under ``GPUWIZARD_HOME``, which anything can damage) parses through here, so they all refuse
the same things with a :class:`JsonInputError` whose message is one line naming the source
(docs/architecture.md, "The command-line and JSON contract", exit code 2):

- text that is not JSON;
- an object with the same key twice: ``json`` keeps the last silently, TOML refuses it, and a
  reviewer reading the first would approve what the wizard does not do (RFC 8259 section 4:
  names "SHOULD be unique", behaviour otherwise "unpredictable");
- ``NaN``, ``Infinity`` and ``-Infinity``, which are not JSON (RFC 8259 section 6) although
  Python's ``json`` reads them;
- numbers with more digits than Python converts (``ValueError`` in ``int()``, CVE-2020-10735);
- nesting deeper than :data:`MAX_DEPTH`. Python's ``json`` and ``tomllib`` recurse once per
  level, so ``[`` repeated 100,000 times ends in a ``RecursionError``. The depth is counted
  first, in linear time, over the brackets outside strings, so the parser never goes deep.

Pure: text in, values or one-line errors out (the reading of files is the callers').

>>> parse_json('{"a": [1, {"b": null}]}', source="x.json")
{'a': [1, {'b': None}]}
>>> for bad in ('{"a": 1, "a": 2}', "[" * 100_000, "[NaN]", "{", ""):
...     try:
...         parse_json(bad, source="x.json")
...     except JsonInputError as error:
...         print(error)
x.json: not valid JSON (the key 'a' appears twice in one object)
x.json: not valid JSON (nested deeper than 64 levels)
x.json: not valid JSON (NaN is not a JSON number)
x.json: not valid JSON (Expecting property name enclosed in double quotes at line 1, column 2)
x.json: not valid JSON (it is empty)
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from itertools import accumulate
from typing import Any, Final

#: The deepest nesting accepted. Real documents stay far below it: a saved system report with
#: its ``setup`` is 8 levels deep, the compatibility data 8, the deepest JSON Schema shipped
#: 13 (measured over ``resources/`` and ``tests/fixtures``); 64 leaves room for growth while
#: every parser, validator and renderer stays a few dozen frames deep.
MAX_DEPTH: Final = 64

# A JSON string (RFC 8259 section 7), unrolled so the engine does not backtrack.
_JSON_STRING: Final = re.compile(r'"[^"\\]*(?:\\[\s\S][^"\\]*)*"')
# TOML strings (multi-line first) and comments (toml.io/en/v1.0.0, "String" and "Comment").
# A multi-line basic string may hold one or two quotes anywhere and end with up to two more.
_TOML_SKIPPED: Final = re.compile(
    r'"""(?:[^"\\]|\\[\s\S]|""?(?!"))*"""(?:""?)?'
    r"|'''(?:[^']|''?(?!'))*'''(?:''?)?"
    r'|"(?:[^"\\\n]|\\.)*"'
    r"|'[^'\n]*'"
    r"|#[^\n]*"
)
_BRACKETS: Final = re.compile(r"[\[\]{}]")
# What separates one TOML key (or value) from the next: a dotted key is a run of parts
# between two of these, each part one level deeper.
_TOML_SEPARATORS: Final = re.compile(r"[\n=,\[\]{}]")
_OPENING: Final = frozenset("[{")


class JsonInputError(ValueError):
    """Text that cannot be used as JSON (or TOML); the message is one line naming its source."""


def nesting_depth(brackets: Iterable[str]) -> int:
    """The deepest nesting of a sequence of ``[``, ``]``, ``{``, ``}`` (closing ones lower it).

    >>> nesting_depth("[{}[[]]]"), nesting_depth("")
    (3, 0)
    """
    steps = (1 if char in _OPENING else -1 for char in brackets)
    return max(accumulate(steps), default=0)


def json_depth(text: str) -> int:
    """How deep ``text`` nests arrays and objects, counting brackets outside strings only.

    Linear in the length of ``text`` and without recursion, so it is safe before parsing.

    >>> json_depth('{"a": [[1]], "b": "[[[[["}')
    3
    """
    return nesting_depth(_BRACKETS.findall(_JSON_STRING.sub("", text)))


def toml_depth(text: str) -> int:
    r"""How deep ``text`` (TOML) nests: arrays and inline tables, and the parts of dotted keys.

    ``tomllib`` recurses once per array or inline table, and its handling of a dotted key of
    ``n`` parts takes time in ``n`` squared: ``a.a.a...=1`` with 100,000 parts runs for
    minutes. Strings and comments are left out, as in :func:`json_depth`.

    >>> toml_depth('a = [[1], {b = "]]]"}]  # [[[[\n[x.y]\nc.d.e = 1')
    3
    """
    code = _TOML_SKIPPED.sub('""', text)
    brackets = nesting_depth(_BRACKETS.findall(code))
    dotted = max((part.count(".") + 1 for part in _TOML_SEPARATORS.split(code)), default=0)
    return max(brackets, dotted)


def parse_json(text: str, *, source: str, max_depth: int = MAX_DEPTH) -> Any:  # noqa: ANN401 - any JSON value
    """The JSON value in ``text``.

    Args:
        text: The document (decoded; see :func:`decode_utf8`).
        source: What the text is, for the message: a file name, ``the registry snapshot FILE``.
        max_depth: The deepest nesting accepted.

    Raises:
        JsonInputError: Not JSON, a key twice in one object, NaN or Infinity, too deep.
    """

    def refuse(why: str) -> JsonInputError:
        return JsonInputError(f"{source}: not valid JSON ({why})")

    if not text.strip():
        raise refuse("it is empty")
    if json_depth(text) > max_depth:
        raise refuse(f"nested deeper than {max_depth} levels")
    try:
        return json.loads(text, object_pairs_hook=_unique_keys, parse_constant=_no_constants)
    except _Refused as error:
        raise refuse(str(error)) from None
    except json.JSONDecodeError as error:
        raise refuse(f"{error.msg} at line {error.lineno}, column {error.colno}") from None
    except ValueError as error:  # a number with more digits than int() converts
        raise refuse(one_line(str(error))) from None
    except RecursionError:  # the depth check above should make this unreachable
        raise refuse(f"nested deeper than {max_depth} levels") from None


def check_toml_text(text: str, *, source: str, max_depth: int = MAX_DEPTH) -> None:
    """Refuse TOML text that ``tomllib`` could not parse safely (too deep); call it before parsing.

    Raises:
        JsonInputError: Nested deeper than ``max_depth`` (arrays, inline tables, dotted keys).
    """
    if toml_depth(text) > max_depth:
        raise JsonInputError(f"{source}: not valid TOML (nested deeper than {max_depth} levels)")


def decode_utf8(data: bytes, *, source: str) -> str:
    r"""``data`` as UTF-8 text (a byte order mark is dropped); one line when it is not UTF-8.

    >>> decode_utf8(b"\xef\xbb\xbf{}", source="a.json")
    '{}'
    >>> try:
    ...     decode_utf8(b'{"a": "\xff"}', source="a.json")
    ... except JsonInputError as error:
    ...     print(error)
    a.json: not UTF-8 text (byte 0xff at offset 7)
    """
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        bad = data[error.start : error.start + 1]
        raise JsonInputError(
            f"{source}: not UTF-8 text (byte 0x{bad.hex()} at offset {error.start})"
        ) from None


def one_line(text: str) -> str:
    r"""``text`` on one line: line breaks and other control or format characters escaped.

    Format characters (Unicode category Cf: bidirectional overrides, zero-width joiners) are
    escaped too, so a message cannot reorder what a terminal shows (Unicode TR #36;
    CVE-2021-42574, "Trojan Source"); so are lone surrogates, which no terminal can encode.

    >>> one_line("a\nb\u202ec\udcff")
    'a\\nb\\u202ec\\udcff'
    """
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else _escaped(char) for char in text)


def _escaped(char: str) -> str:
    return repr(char)[1:-1]  # \n, \x1b, \u202e, \udcff


class _Refused(Exception):
    """Raised from inside ``json.loads`` (its hooks), turned into :class:`JsonInputError`."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise _Refused(f"the key {one_line(repr(key))} appears twice in one object")
        found[key] = value
    return found


def _no_constants(name: str) -> None:
    raise _Refused(f"{name} is not a JSON number")
