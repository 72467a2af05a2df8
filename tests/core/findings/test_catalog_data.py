"""The finding catalog as data: resources/findings/*.json, their schema, and what lupdate is given."""

from __future__ import annotations

import ast
import json
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from gpuwizard.core.findings.catalog import CATALOG, PART_NAMES, CatalogPartError, parse_part

ROOT = Path(__file__).resolve().parents[3]
FINDINGS = resources.files("gpuwizard.resources").joinpath("findings")
SCHEMA = json.loads(
    resources.files("gpuwizard.resources").joinpath("schemas/findings.schema.json").read_text()
)

sys.path.insert(0, str(ROOT / "tools"))
import translations  # noqa: E402 - the repository's own tool, beside the sources


class DuplicateKey(ValueError):
    """A JSON object names a key twice (json.loads would keep the last silently)."""


def _refuse_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    twice = sorted({key for key in keys if keys.count(key) > 1})
    if twice:
        raise DuplicateKey(f"defined twice in one file: {twice}")
    return dict(pairs)


def read_part(name: str) -> dict[str, Any]:
    text = FINDINGS.joinpath(f"{name}.json").read_text(encoding="utf-8")
    document: dict[str, Any] = json.loads(text, object_pairs_hook=_refuse_duplicates)
    return document


def test_the_schema_is_a_valid_draft_2020_12_schema():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def test_the_folder_holds_exactly_the_parts_the_catalog_loads():
    files = sorted(entry.name for entry in FINDINGS.iterdir() if entry.name.endswith(".json"))
    assert files == sorted(f"{name}.json" for name in PART_NAMES)


@pytest.mark.parametrize("name", PART_NAMES)
def test_every_part_validates_against_the_schema(name: str):
    errors = [error.message for error in jsonschema.Draft202012Validator(SCHEMA).iter_errors(read_part(name))]
    assert errors == []


def test_codes_are_unique_across_the_files():
    codes = [code for name in PART_NAMES for code in read_part(name).get("templates", {})]
    assert len(codes) == len(set(codes)), sorted({code for code in codes if codes.count(code) > 1})
    assert codes == list(CATALOG), "the catalog holds every file's templates, in the files' order"


def test_a_duplicate_key_in_a_file_is_noticed():
    with pytest.raises(DuplicateKey, match="A"):
        json.loads('{"A": 1, "A": 2}', object_pairs_hook=_refuse_duplicates)


def test_the_schema_refuses_a_template_without_a_hint_or_with_an_unknown_severity():
    validator = jsonschema.Draft202012Validator(SCHEMA)
    assert not validator.is_valid({"templates": {"A": {"severity": "info", "message": "m"}}})
    assert not validator.is_valid({"templates": {"A": {"severity": "fatal", "message": "m", "hint": "h"}}})
    assert not validator.is_valid({"templates": {"lower": {"severity": "info", "message": "m", "hint": "h"}}})


@pytest.mark.parametrize(
    "document",
    [
        {},
        {"templates": []},
        {"templates": {"A": {"severity": "fatal", "message": "m", "hint": "h"}}},
        {"templates": {"A": {"severity": "info", "message": "m"}}},
        {"templates": {"A": "text"}},
    ],
)
def test_the_loader_refuses_a_malformed_part(document: object):
    with pytest.raises(CatalogPartError):
        parse_part("broken", document)


def test_lupdate_is_given_every_message_and_hint_in_the_findings_context(tmp_path: Path):
    source = translations.catalog_source(tmp_path).read_text(encoding="utf-8")
    calls = [
        node
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "QT_TRANSLATE_NOOP"
    ]
    marked = [(ast.literal_eval(call.args[0]), ast.literal_eval(call.args[1])) for call in calls]
    expected = [
        ("findings", text) for template in CATALOG.values() for text in (template.message, template.hint)
    ]
    assert marked == expected
