"""Reading an answer file (TOML or JSON) for ``gpuwizard apply``; checking is :mod:`gpuwizard.core.fleet.answers`."""

from __future__ import annotations

import sys
from pathlib import Path

from gpuwizard.adapters.input_files import ANSWERS_LIMIT, InputFileError, read_input
from gpuwizard.core.fleet.answers import Answers, AnswersError, parse_answers
from gpuwizard.core.json_input import JsonInputError, check_toml_text, decode_utf8, parse_json

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 reads TOML with the same library, under its old name
    import tomli as tomllib


def load_answers(path: Path) -> Answers:
    """Read and check the answer file at ``path``: ``.json`` is JSON, anything else TOML.

    Raises:
        AnswersError: The file cannot be read, parsed or used; the message names the file. A
            JSON file is refused as TOML would be for a key given twice; either is refused when
            nested absurdly deep (``core/json_input.py``) or larger than 1 MiB.
    """
    try:
        raw = read_input(path, limit=ANSWERS_LIMIT, what="an answer file")
    except InputFileError as error:
        if error.reason == "missing":
            raise AnswersError(f"{path}: no such answer file") from None
        raise AnswersError(str(error)) from None
    source = str(path)
    try:
        text = decode_utf8(raw, source=source)
        if path.suffix.lower() == ".json":
            data = parse_json(text, source=source)
        else:
            check_toml_text(text, source=source)  # tomllib recurses once per level
            data = tomllib.loads(text)
    except JsonInputError as error:
        raise AnswersError(str(error)) from None
    except tomllib.TOMLDecodeError as error:
        raise AnswersError(f"{path}: not valid TOML ({error})") from None
    except RecursionError:  # check_toml_text keeps tomllib shallow; in case it missed a way down
        raise AnswersError(f"{path}: not valid TOML (nested too deep)") from None
    try:
        _refuse_hidden_characters(data)
        return parse_answers(data)
    except AnswersError as error:
        raise AnswersError(f"{path}: {error}") from None


def _refuse_hidden_characters(data: object) -> None:
    """No text value holds a control character, an invisible formatting one or a lone surrogate.

    A NUL in a folder, an escape sequence or a right-to-left override in a name (Unicode TR #36;
    CVE-2021-42574, "Trojan Source"): none belongs in an answer file, and each would make the
    plan a reviewer reads differ from what runs.
    """
    for key, value in data.items() if isinstance(data, dict) else ():
        for text in value if isinstance(value, list) else [value]:
            hidden = sorted(
                {f"U+{ord(c):04X}" for c in text if not c.isprintable()} if isinstance(text, str) else ()
            )
            if hidden:
                raise AnswersError(
                    f"{key!r} holds {', '.join(hidden)}: control or invisible characters have no place here"
                )
