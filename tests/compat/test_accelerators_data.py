"""``accelerators.json``: its schema, its sources, and consistency with the other compat files."""

from __future__ import annotations

import copy
import json
import re
from importlib import resources
from typing import Any

import jsonschema
import pytest

from gpuwizard.workflow.compat.files import schema_for

#: The LLVM AMDGPU processor name, as KFD's gfx_target_version 110000 becomes gfx1100:
#: ``gfx`` + the major version in decimal + minor and stepping as one hex digit each.
GFX = re.compile(r"^gfx(?P<major>[1-9][0-9]?)(?P<minor>[0-9a-f])(?P<step>[0-9a-f])$")


def _load(name: str) -> Any:
    text = resources.files("gpuwizard.resources").joinpath(f"compat/{name}.json").read_text("utf-8")
    return json.loads(text)


DATA = _load("accelerators")
SOURCES = _load("sources")["sources"]
PYTORCH_MINORS = {release["version"] for release in _load("pytorch")["releases"]}
VALIDATOR = jsonschema.Draft202012Validator(schema_for("accelerators"))


def errors(data: Any) -> list[str]:
    return [error.message for error in VALIDATOR.iter_errors(data)]


def source_keys(data: Any) -> set[str]:
    """Every key named in a ``source`` list anywhere in ``data``."""
    if isinstance(data, dict):
        found = set(data["source"]) if isinstance(data.get("source"), list) else set()
        return found.union(*(source_keys(v) for k, v in data.items() if k != "source"))
    if isinstance(data, list):
        return set().union(*(source_keys(item) for item in data))
    return set()


def rows_with_source(data: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The paths of every object below the top level that carries a ``source`` list."""
    found = [path] if path and isinstance(data, dict) and isinstance(data.get("source"), list) else []
    if isinstance(data, dict):
        for key, value in data.items():
            found += rows_with_source(value, (*path, key))
    elif isinstance(data, list):
        for index, item in enumerate(data):
            found += rows_with_source(item, (*path, index))
    return found


def at(data: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        data = data[part]
    return data


def all_gfx_targets(data: dict[str, Any]) -> list[str]:
    targets = [row["gfx_target"] for row in data["amd_targets"] + data["hsa_overrides"]]
    for row in data["rocm_builds"] + data["amd_windows_builds"]:
        targets += row["gfx_targets"]
    return targets


def test_the_file_is_valid_against_its_schema():
    assert errors(DATA) == []


def test_every_source_key_is_defined_in_sources_json():
    assert sorted(source_keys(DATA) - set(SOURCES)) == []


@pytest.mark.parametrize("path", rows_with_source(DATA), ids=lambda p: "/".join(map(str, p)))
def test_a_row_without_a_source_fails(path: tuple[Any, ...]):
    broken = copy.deepcopy(DATA)
    del at(broken, path)["source"]
    assert any("'source' is a required property" in message for message in errors(broken))


def test_an_empty_source_list_fails():
    broken = copy.deepcopy(DATA)
    broken["rocm_builds"][0]["source"] = []
    assert errors(broken)


@pytest.mark.parametrize("bad", ["gfx90A", "gfx11000", "gfx0900", "GFX1100", "gfx1100:xnack-", "1100"])
def test_a_malformed_gfx_target_fails(bad: str):
    broken = copy.deepcopy(DATA)
    broken["rocm_builds"][0]["gfx_targets"] = [bad]
    assert errors(broken)


def test_an_unknown_key_fails():
    broken = copy.deepcopy(DATA)
    broken["amd_targets"][0]["gfx"] = "gfx1100"
    assert errors(broken)


def test_every_gfx_target_reads_as_kfds_version_number():
    for target in all_gfx_targets(DATA):
        match = GFX.match(target)
        assert match, target
        version = int(match["major"]) * 10000 + int(match["minor"], 16) * 100 + int(match["step"], 16)
        major, minor, step = version // 10000, (version // 100) % 100, version % 100
        assert f"gfx{major}{minor:x}{step:x}" == target


def test_every_target_a_build_carries_is_a_known_target():
    known = {row["gfx_target"] for row in DATA["amd_targets"]}
    built = {t for row in DATA["rocm_builds"] + DATA["amd_windows_builds"] for t in row["gfx_targets"]}
    assert sorted(built - known) == []
    assert len(known) == len(DATA["amd_targets"]), "one row per target"


def test_names_and_pci_ids_are_unique():
    for table in ("amd_targets", "intel_families"):
        names = [n.lower() for row in DATA[table] for n in row["names"]]
        assert len(names) == len(set(names)), table
        ids = [d for row in DATA[table] for d in row["pci_device_ids"]]
        assert len(ids) == len(set(ids)), table


def test_every_torch_minor_is_a_pytorch_release():
    minors = {row["torch"] for row in DATA["rocm_builds"] + DATA["xpu_builds"]}
    minors |= {row["torch_from"] for row in DATA["apple"]["torch_macos"]}
    minors |= {row["torch_to"] for row in DATA["apple"]["torch_macos"] if "torch_to" in row}
    assert sorted(minors - PYTORCH_MINORS) == []


def test_rocm_builds_name_their_variant_once():
    pairs = [(row["torch"], row["variant"]) for row in DATA["rocm_builds"]]
    assert len(pairs) == len(set(pairs))
    for row in DATA["rocm_builds"]:
        assert row["variant"] == "rocm" + row["rocm"]


def test_xpu_builds_serve_known_xpu_families():
    families = {row["family"]: row["xpu"] for row in DATA["intel_families"]}
    for row in DATA["xpu_builds"]:
        assert all(families.get(family) is True for family in row["families"]), row["torch"]
    torches = [row["torch"] for row in DATA["xpu_builds"]]
    assert len(torches) == len(set(torches))


def test_overrides_name_known_targets():
    known = {row["gfx_target"] for row in DATA["amd_targets"]}
    assert all(row["gfx_target"] in known for row in DATA["hsa_overrides"])


def test_macos_minimums_rise_with_torch():
    def key(version: str) -> tuple[int, ...]:
        return tuple(int(part) for part in version.split("."))

    rows = DATA["apple"]["torch_macos"]
    assert [key(r["torch_from"]) for r in rows] == sorted(key(r["torch_from"]) for r in rows)
    assert [key(r["macos_min"]) for r in rows] == sorted(key(r["macos_min"]) for r in rows)
    assert key(DATA["apple"]["mps_macos_min"]) >= key("12.3")


def test_tensorflow_platforms_are_stated_once():
    platforms = [row["platform"] for row in DATA["tensorflow"]]
    assert len(platforms) == len(set(platforms))
