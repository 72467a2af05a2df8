"""The pure parts of `gpuwizard export`: the base-image table, the container's plan, pins and YAML."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from importlib import resources

import jsonschema
import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from builders.reports import machine
from gpuwizard.core.compat.plan import Plan, Wish
from gpuwizard.core.compat.recommend import recommend
from gpuwizard.core.compat.tables import minor_of, version_key
from gpuwizard.core.exports.docker import (
    base_image,
    container_report,
    docker_images_from_json,
    plan_container,
)
from gpuwizard.core.exports.files import (
    ExportError,
    check_name,
    pinned_requirements,
    plan_with_build,
    yaml_scalar,
)
from gpuwizard.workflow.compat.data import load_bundled

RESOURCES = resources.files("gpuwizard.resources")
DATA = json.loads(RESOURCES.joinpath("compat/docker_images.json").read_text("utf-8"))
SCHEMA = json.loads(RESOURCES.joinpath("schemas/compat-docker-images.schema.json").read_text("utf-8"))
IMAGES = docker_images_from_json(DATA)
COMPAT = load_bundled()
RTX = ("NVIDIA GeForce RTX 3060", "8.6")


def schema_errors(data: dict) -> list[str]:
    return [e.message for e in jsonschema.Draft202012Validator(SCHEMA).iter_errors(data)]


# --- the table ------------------------------------------------------------------------------------


def test_the_table_is_valid_and_every_source_is_defined():
    assert schema_errors(DATA) == []
    named = {
        key
        for part in ("ubuntu_python", "nvidia_cuda", "tensorflow_gpu")
        for row in DATA[part]
        for key in row["source"]
    }
    named |= set(DATA["python_slim"]["source"])
    assert named <= set(DATA["sources"]), named - set(DATA["sources"])


@pytest.mark.parametrize("part", ["ubuntu_python", "nvidia_cuda", "tensorflow_gpu"])
def test_a_row_without_a_source_fails_the_schema(part: str):
    broken = copy.deepcopy(DATA)
    del broken[part][0]["source"]
    assert any("source" in error for error in schema_errors(broken))


def test_a_floating_tag_fails_the_schema():
    broken = copy.deepcopy(DATA)
    broken["tensorflow_gpu"][0]["image_version"] = "latest"
    assert schema_errors(broken)


def test_every_linux_cuda_build_of_pytorch_has_an_image_but_cuda_10_2():
    cudas = {v.cuda for r in COMPAT.pytorch for v in r.variants if v.cuda and "linux" in v.platforms}
    assert cudas - {row.cuda for row in IMAGES.cuda} == {"10.2"}  # torch 1.12's cu102 only


def test_every_tensorflow_release_from_2_10_has_a_gpu_image_of_its_own_minor():
    for release in COMPAT.tensorflow:
        if version_key(release.version) >= version_key("2.10"):
            image = IMAGES.tensorflow[release.version]
            assert minor_of(image) == release.version and version_key(image) <= version_key(release.latest)


# --- base images --------------------------------------------------------------------------------


def torch_plan(cuda: str | None, python: str, variant: str) -> Plan:
    index = f"https://download.pytorch.org/whl/{variant}"
    return Plan("pytorch", "2.13.0", python, cuda is None, cuda, None, variant, ("torch==2.13.0",), index)


@pytest.mark.parametrize(
    ("cuda", "python", "variant", "expected"),
    [
        ("12.6", "3.12", "cu126", "nvidia/cuda:12.6.3-cudnn-runtime-ubuntu24.04"),
        ("12.6", "3.10", "cu126", "nvidia/cuda:12.6.3-cudnn-runtime-ubuntu22.04"),
        ("11.8", "3.10", "cu118", "nvidia/cuda:11.8.0-cudnn8-runtime-ubuntu22.04"),
        ("11.8", "3.12", "cu118", None),  # no Ubuntu with Python 3.12 has a CUDA 11.8 image
        (None, "3.11", "cpu", "python:3.11-slim"),
    ],
)
def test_base_image_of_a_pytorch_plan(cuda, python, variant, expected):
    base = base_image(torch_plan(cuda, python, variant), IMAGES)
    assert (base.reference if base else None) == expected


def test_a_tensorflow_image_carries_its_own_release():
    plan = Plan(
        "tensorflow", "2.19.1", "3.12", False, "12.5", "9.3", None, ("tensorflow[and-cuda]==2.19.1",), None
    )
    base = base_image(plan, IMAGES)
    assert base is not None
    assert (base.reference, base.framework_version, base.python) == (
        "tensorflow/tensorflow:2.19.0-gpu",
        "2.19.0",
        None,
    )


# --- the container's plan -----------------------------------------------------------------------


def test_the_container_of_a_windows_host_is_linux_with_the_hosts_gpu_and_driver():
    host = machine(
        os="windows", driver="546.33", toolkits=[{"version": "11.2", "root": "C:\\CUDA", "on_path": True}]
    )
    report = container_report(host, IMAGES.pythons())
    assert (report.os.family, report.os.wsl, report.os.container) == ("linux", True, True)
    assert report.driver == host.driver and report.gpus == host.gpus
    assert report.cuda_toolkits == () and report.python is None
    assert [p.version for p in report.interpreters] == ["3.12.0", "3.10.0", "3.8.0"]


def test_tensorflow_on_a_windows_host_is_planned_for_linux_in_the_container():
    host = machine(os="windows", gpus=[RTX], driver="546.33")
    assert recommend(host, Wish("tensorflow"), COMPAT).plan.framework_version == "2.10.1"  # native Windows
    container = plan_container(host, Wish("tensorflow"), COMPAT, IMAGES)
    assert container.plan.framework_version == "2.21.0"
    assert container.plan.requirements == ("tensorflow[and-cuda]==2.21.0",)
    assert container.plan.path_entries == () and container.plan.dlls_expected == ()
    assert container.base.reference == "tensorflow/tensorflow:2.21.0-gpu"


def test_a_pytorch_plan_moves_to_the_python_its_cuda_image_has():
    kepler = machine(gpus=[("Tesla K80", "3.7"), ("Tesla K80", "3.7")], driver="470.256.02", python="3.11")
    container = plan_container(kepler, Wish("pytorch"), COMPAT, IMAGES)
    assert (container.plan.torch_variant, container.plan.python) == ("cu118", "3.10")
    assert container.base.reference == "nvidia/cuda:11.8.0-cudnn8-runtime-ubuntu22.04"


def test_no_image_for_the_plan_is_bad_input():
    with pytest.raises(ExportError, match="no official tensorflow/tensorflow GPU image"):
        plan_container(machine(driver="470.256.02"), Wish("tensorflow", "2.5"), COMPAT, IMAGES)


# --- the build of an environment ----------------------------------------------------------------


def test_the_environments_build_is_kept_even_where_another_would_be_recommended():
    rec = recommend(machine(gpus=[RTX], driver="560.94"), Wish("pytorch", "2.12.1", "3.11"), COMPAT)
    assert rec.plan.torch_variant != "cu130" or rec.plan.index_url is None
    plan = plan_with_build(rec, "2.12.1+cu130", COMPAT)
    assert (plan.torch_variant, plan.cuda, plan.index_url) == (
        "cu130",
        "13.0",
        "https://download.pytorch.org/whl/cu130",
    )
    assert pinned_requirements(plan) == ("torch==2.12.1+cu130",)
    assert plan.min_driver == {
        "linux": COMPAT.min_driver("13.0", "linux"),
        "windows": COMPAT.min_driver("13.0", "windows"),
    }


def test_an_unknown_build_is_bad_input():
    rec = recommend(machine(), Wish("pytorch", "2.12.1"), COMPAT)
    with pytest.raises(ExportError, match="not in the compatibility data"):
        plan_with_build(rec, "2.12.1+cu999", COMPAT)


def test_pins_get_the_local_label_only_with_the_pytorch_index():
    plan = torch_plan("12.6", "3.12", "cu126")
    assert pinned_requirements(plan) == ("torch==2.13.0+cu126",)
    assert pinned_requirements(replace(plan, index_url=None)) == ("torch==2.13.0",)
    tf = Plan(
        "tensorflow", "2.21.0", "3.12", False, "12.5", "9.3", None, ("tensorflow[and-cuda]==2.21.0",), None
    )
    assert pinned_requirements(tf) == ("tensorflow[and-cuda]==2.21.0",)


# --- names and YAML -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["demo", "pytorch-2.13.0-cu126", "a_b.c"])
def test_good_names(name: str):
    assert check_name(name) == name


@pytest.mark.parametrize("name", ["Demo", "../x", "-x", "", "a b", "x" * 200])
def test_bad_names(name: str):
    with pytest.raises(ExportError):
        check_name(name)


@pytest.mark.parametrize(
    "text",
    ["--index-url https://download.pytorch.org/whl/cu126", "tensorflow[and-cuda]==2.21.0", "python=3.12",
     "nvidia-cudnn-cu11==8.6.*", "yes", "null", "1.10", "2001-12-14", "0x1F", ".inf", "a: b", "x #y", "-", "'q'"],
)  # fmt: skip
def test_yaml_scalars_read_back_as_the_same_string(text: str):
    assert yaml.safe_load(f"key: {yaml_scalar(text)}\n") == {"key": text}


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40))
def test_any_yaml_scalar_reads_back_as_the_same_string(text: str):
    assert yaml.safe_load(f"- {yaml_scalar(text)}\n") == [text]


@given(st.text(alphabet="abyn01.:-+ =#[]{}<>!*&|%@,xeEt'\"~\\", max_size=12))
def test_yaml_scalars_of_indicator_characters_read_back(text: str):
    assert yaml.safe_load(f"key: {yaml_scalar(text)}\n") == {"key": text}
