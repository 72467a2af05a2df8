"""The compatibility data: schemas, sources on every row, and consistency between the files."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpuwizard.core.compat.tables import minor_of, version_key
from gpuwizard.workflow.compat.data import bundled_files, load_bundled
from gpuwizard.workflow.compat.files import COMPAT_FILES, validation_errors

FILES = bundled_files()
COMPAT = load_bundled()


def test_the_bundled_data_is_valid():
    assert validation_errors(FILES) == []


def rows_with_source(data: Any, path: str = "") -> list[str]:
    """Paths (a/0/b) of every object in ``data`` that carries a ``source`` list."""
    found = []
    if isinstance(data, dict):
        if isinstance(data.get("source"), list):
            found.append(path)
        for key, value in data.items():
            found += rows_with_source(value, f"{path}/{key}")
    elif isinstance(data, list):
        for index, item in enumerate(data):
            found += rows_with_source(item, f"{path}/{index}")
    return found


def at(data: Any, path: str) -> Any:
    for part in filter(None, path.split("/")):
        data = data[int(part)] if isinstance(data, list) else data[part]
    return data


@pytest.mark.parametrize("name", [n for n in COMPAT_FILES if n != "sources"])
def test_a_row_without_a_source_fails(name: str):
    paths = [p for p in rows_with_source(FILES[name]) if p.count("/") >= 2]  # rows, not the file
    assert paths, f"{name}.json has no rows with sources"
    for path in paths:
        broken = copy.deepcopy(FILES)
        del at(broken[name], path)["source"]
        errors = validation_errors(broken, names=[name])
        assert any("source" in error for error in errors), (name, path)


@pytest.mark.parametrize("name", [n for n in COMPAT_FILES if n != "sources"])
def test_an_empty_source_list_fails(name: str):
    path = next(p for p in rows_with_source(FILES[name]) if p.count("/") >= 2)
    broken = copy.deepcopy(FILES)
    at(broken[name], path)["source"] = []
    assert validation_errors(broken, names=[name])


def test_an_undefined_source_key_fails():
    broken = copy.deepcopy(FILES)
    broken["cuda"]["toolkit_drivers"][0]["source"] = ["NO-SUCH-SOURCE"]
    assert validation_errors(broken) == ["cuda.json: source 'NO-SUCH-SOURCE' is not defined in sources.json"]


def test_every_source_has_a_title_and_an_address():
    for key, source in FILES["sources"]["sources"].items():
        assert source["title"].strip() and source["url"].strip(), key


# --- consistency -----------------------------------------------------------------------------


@pytest.mark.parametrize("release", COMPAT.tensorflow, ids=lambda r: r.version)
def test_tensorflow_release_rows(release):
    assert minor_of(release.latest) == release.version
    assert version_key(release.python.min) <= version_key(release.python.max)
    policy = COMPAT.policy("tf_native_windows_gpu_ended")
    if version_key(release.version) > version_key(policy["last_version"]):
        assert "windows" not in release.gpu, "no native-Windows GPU build after 2.10"
    for os_name, build in release.gpu.items():
        assert COMPAT.min_driver(build.cuda, "windows" if os_name == "windows" else "linux"), build.cuda
        assert build.archs.sass or build.archs.ptx
        for cc in (*build.archs.sass, *([build.archs.ptx] if build.archs.ptx else [])):
            assert COMPAT.cuda_can_target(build.cuda, cc), f"CUDA {build.cuda} cannot build for {cc}"
        if build.cuda_supply == "and-cuda":
            first = COMPAT.policy("tensorflow_and_cuda_extra")["first_version"]
            assert os_name == "linux" and version_key(release.version) >= version_key(first)
        if version_key(build.cuda) >= version_key("12.0"):
            assert not any(version_key(cc) < version_key("5.0") for cc in build.archs.sass), (
                "CUDA 12 dropped Kepler"
            )


def test_tensorflow_releases_are_unique_and_newest_first():
    versions = [r.version for r in COMPAT.tensorflow]
    assert len(set(versions)) == len(versions) and versions == sorted(versions, key=version_key, reverse=True)
    assert versions[-1] == "2.0"


@pytest.mark.parametrize("release", COMPAT.pytorch, ids=lambda r: r.version)
def test_pytorch_release_rows(release):
    assert minor_of(release.latest) == release.version
    names = [v.name for v in release.variants]
    assert len(set(names)) == len(names) and "cpu" in names
    for variant in release.variants:
        if variant.is_cpu:
            assert variant.cudnn is None and set(variant.platforms) >= {"linux", "windows"}
            continue
        assert variant.name == "cu" + variant.cuda.replace(".", ""), variant.name  # cu126 is CUDA 12.6
        assert COMPAT.min_driver(variant.cuda, "linux") and COMPAT.min_driver(variant.cuda, "windows")
        assert "darwin" not in variant.platforms, "no CUDA on macOS"
        for archs in variant.platforms.values():
            assert archs.sass, f"{variant.name}: an empty architecture list"
            for cc in archs.sass:
                assert COMPAT.cuda_can_target(variant.cuda, cc), f"CUDA {variant.cuda} cannot build for {cc}"
    for os_name, default in release.pypi_default.items():
        variant = next(v for v in release.variants if v.name == default)
        assert os_name in variant.platforms
    assert release.pypi_default.get("windows") == "cpu", "PyPI's Windows torch is CPU-only"
    channel_end = COMPAT.policy("pytorch_conda_channel_ended")["last_version"]
    assert release.conda_pytorch_channel == (version_key(release.version) <= version_key(channel_end))


def test_driver_floors_and_toolkit_drivers_agree():
    for floor in COMPAT.driver_floors:
        assert version_key(floor.cuda_from) <= version_key(floor.cuda_to)
        for toolkit in COMPAT.toolkit_drivers:
            if floor.covers(toolkit.cuda) and toolkit.linux:
                # A toolkit's own driver always satisfies the floor of its series.
                assert version_key(toolkit.linux) >= version_key(floor.linux), toolkit.cuda
    assert [f.cuda_from for f in COMPAT.driver_floors] == sorted(
        (f.cuda_from for f in COMPAT.driver_floors), key=version_key
    )


@pytest.mark.parametrize("card", COMPAT.gpu_cards, ids=lambda c: c.match)
def test_every_card_resolves_to_its_own_capability(card):
    assert card.compute_capability in {cc for ccs in COMPAT.gpu_families.values() for cc in ccs}
    assert COMPAT.compute_capability_for_name(f"NVIDIA GeForce {card.match}") == card.compute_capability
    assert COMPAT.compute_capability_for_name(card.match.upper()) == card.compute_capability


def test_names_that_contain_other_names():
    name = COMPAT.compute_capability_for_name
    assert name("NVIDIA A100-SXM4-80GB") == "8.0" and name("NVIDIA A10") == "8.6"
    assert name("NVIDIA GeForce GTX TITAN X") == "5.2" and name("NVIDIA TITAN X (Pascal)") == "6.1"
    assert name("NVIDIA RTX 4000 Ada Generation") == "8.9" and name("Quadro RTX 4000") == "7.5"
    assert name("NVIDIA L40S") == "8.9" and name("NVIDIA L4") == "8.9"
    assert name("Tesla V100-SXM2-16GB") == "7.0" and name("GeForce GT 1030 mystery") is None


def test_policies_are_all_there():
    for policy_id in (
        "tf_native_windows_gpu_ended",
        "tensorflow_gpu_package_removed",
        "no_cuda_on_macos",
        "pytorch_conda_channel_ended",
        "tensorflow_and_cuda_extra",
        "wsl2_gpu",
    ):
        assert COMPAT.policy(policy_id)["text"]
    last = COMPAT.policy("tf_native_windows_gpu_ended")["last_version"]
    assert any(r.version == last and "windows" in r.gpu for r in COMPAT.tensorflow)
