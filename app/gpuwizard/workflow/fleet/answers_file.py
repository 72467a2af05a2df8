"""Reading an answer file (TOML or JSON) for ``gpuwizard apply``; checking is :mod:`gpuwizard.core.fleet.answers`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from gpuwizard.core.fleet.answers import Answers, AnswersError, parse_answers

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 reads TOML with the same library, under its old name
    import tomli as tomllib


def load_answers(path: Path) -> Answers:
    """Read and check the answer file at ``path``: ``.json`` is JSON, anything else TOML.

    Raises:
        AnswersError: The file cannot be read, parsed or used; the message names the file.
    """
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise AnswersError(f"{path}: no such answer file") from None
    except IsADirectoryError:
        raise AnswersError(f"{path}: is a folder, not an answer file") from None
    except OSError as error:
        raise AnswersError(f"{path}: cannot be read ({error.strerror or error})") from None
    try:
        text = raw.decode("utf-8-sig")
        data = json.loads(text) if path.suffix.lower() == ".json" else tomllib.loads(text)
    except UnicodeDecodeError:
        raise AnswersError(f"{path}: not UTF-8 text") from None
    except json.JSONDecodeError as error:
        raise AnswersError(f"{path}: not valid JSON (line {error.lineno}: {error.msg})") from None
    except tomllib.TOMLDecodeError as error:
        raise AnswersError(f"{path}: not valid TOML ({error})") from None
    try:
        return parse_answers(data)
    except AnswersError as error:
        raise AnswersError(f"{path}: {error}") from None
