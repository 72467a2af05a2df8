"""Saved system reports: read and check a ``gpuwizard.system/1`` file (the ``--system`` input).

A file that cannot be used raises :class:`SystemFileError` with one line that says what is
wrong and where, so the command line can print it and exit 2 before any window opens.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

from gpuwizard.adapters.input_files import SYSTEM_REPORT_LIMIT, InputFileError, read_input
from gpuwizard.core.json_input import JsonInputError, decode_utf8, parse_json
from gpuwizard.core.machine.system_report import SYSTEM_SCHEMA, SystemReport, report_from_json


class SystemFileError(ValueError):
    """A saved system report cannot be used; the message is one line."""


def system_schema() -> dict[str, Any]:
    """The JSON Schema of ``gpuwizard.system/1`` shipped in the package."""
    text = resources.files("gpuwizard.resources").joinpath("schemas/system-1.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def load_system_report(path: Path) -> SystemReport:
    """Read, check and return the report in ``path``.

    Raises:
        SystemFileError: The file is missing, unreadable, too large, not UTF-8, not JSON (a key
            twice, NaN, nested too deep included: ``core/json_input.py``), or not a
            ``gpuwizard.system/1`` report.
    """
    try:
        raw = read_input(path, limit=SYSTEM_REPORT_LIMIT, what="a system report")
        data = parse_json(decode_utf8(raw, source=str(path)), source=str(path))
    except (InputFileError, JsonInputError) as error:
        raise SystemFileError(str(error)) from None
    check_system_data(data, str(path))
    return report_from_json(data)


def check_system_data(data: object, origin: str = "report") -> None:
    """Check that ``data`` is a ``gpuwizard.system/1`` report.

    Raises:
        SystemFileError: It is not; the message names the first problem and where it is.
    """
    import jsonschema  # noqa: PLC0415 - only the --system path pays for it

    if not isinstance(data, dict):
        raise SystemFileError(f"{origin}: not a {SYSTEM_SCHEMA} report (expected a JSON object)")
    if data.get("schema") != SYSTEM_SCHEMA:
        found = data.get("schema")
        raise SystemFileError(f"{origin}: not a {SYSTEM_SCHEMA} report (its schema is {found!r})")
    validator = jsonschema.Draft202012Validator(system_schema())
    error = jsonschema.exceptions.best_match(validator.iter_errors(data))
    if error is not None:
        where = "/".join(str(part) for part in error.absolute_path) or "(top level)"
        message = error.message.splitlines()[0]
        raise SystemFileError(f"{origin}: not a valid {SYSTEM_SCHEMA} report: at {where}: {message}")
