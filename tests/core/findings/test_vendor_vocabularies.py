"""The vendors' error vocabularies (resources/vocabularies, written by tools/vocabularies.py)."""

from __future__ import annotations

import json
from importlib import resources

import jsonschema
import pytest

VOCABULARIES = resources.files("gpuwizard.resources").joinpath("vocabularies")
SCHEMA = json.loads(
    resources.files("gpuwizard.resources").joinpath("schemas/vocabulary.schema.json").read_text()
)
NAMES = sorted(item.name for item in VOCABULARIES.iterdir() if item.name.endswith(".json"))


def test_the_vocabularies_are_there() -> None:
    assert {
        "cuda-runtime.json",
        "cuda-driver.json",
        "nvml.json",
        "nccl.json",
        "cublas.json",
        "libraries.json",
    } <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_each_vocabulary_validates_and_every_entry_has_a_source(name: str) -> None:
    document = json.loads(VOCABULARIES.joinpath(name).read_text(encoding="utf-8"))
    errors = [error.message for error in jsonschema.Draft202012Validator(SCHEMA).iter_errors(document)]
    assert errors == []
    assert all(entry.get("source") or document["source"] for entry in document["entries"])
    assert all(entry["message"].strip() for entry in document["entries"])
