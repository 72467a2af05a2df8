"""The package indexes and conda channels a plan may use (core/compat/index_allowlist.py)."""

from __future__ import annotations

import copy

import pytest

from gpuwizard.core.compat.index_allowlist import (
    DEFAULT_TORCH_INDEX_TEMPLATE,
    disallowed_in,
    is_allowed_channel,
    is_allowed_index,
    plan_index_template,
    plan_index_url,
)
from gpuwizard.workflow.compat.data import bundled_files


@pytest.mark.parametrize(
    "url",
    [
        "https://pypi.org/simple",
        "https://pypi.org/simple/",
        "https://pypi.org/",
        "https://download.pytorch.org/whl/cu126",
        "https://download.pytorch.org/whl/{variant}",
        "https://download.pytorch.org/whl/nightly/cpu/",
    ],
)
def test_the_official_indexes_are_allowed(url: str):
    assert is_allowed_index(url)


@pytest.mark.parametrize(
    "url",
    [
        "https://evil.example/whl/{variant}",
        "http://download.pytorch.org/whl/cu126",  # not https
        "https://download.pytorch.org.evil.example/whl/cu126",
        "https://evil.example@download.pytorch.org/whl/cu126",  # a user in the URL
        "https://download.pytorch.org@evil.example/whl/cu126",
        "https://download.pytorch.org:8443/whl/cu126",
        "https://download.pytorch.org/whl/../../evil",
        "https://download.pytorch.org/whl/%2e%2e/evil",
        "https://download.pytorch.org/other/cu126",
        "https://download.pytorch.org/whlx/cu126",
        "https://download.pytorch.org/whl/cu126?redirect=https://evil.example",
        "https://pypi.org/project/torch",
        "https://test.pypi.org/simple",
        "https://files.pythonhosted.org.evil.example/simple",
        "https://download.pytorch.org/whl/{other}",
        "",
        "not a url",
    ],
)
def test_any_other_index_is_not(url: str):
    assert not is_allowed_index(url)


def test_conda_forge_and_nothing_else_is_an_allowed_channel():
    assert is_allowed_channel("conda-forge")
    assert is_allowed_channel("https://conda.anaconda.org/conda-forge/")
    for channel in (
        "pytorch",
        "nvidia",
        "defaults",
        "conda-forge-evil",
        "https://conda.anaconda.org/evil",
        "",
    ):
        assert not is_allowed_channel(channel), channel


def test_a_plan_uses_the_datas_index_only_when_it_is_allowed():
    assert plan_index_url("https://download.pytorch.org/whl/{variant}", "cu126") == (
        "https://download.pytorch.org/whl/cu126"
    )
    assert (
        plan_index_url("https://evil.example/whl/{variant}", "cu126")
        == "https://download.pytorch.org/whl/cu126"
    )
    assert plan_index_template("https://evil.example/{variant}") == DEFAULT_TORCH_INDEX_TEMPLATE


def test_the_bundled_data_names_only_allowed_indexes_and_channels():
    assert disallowed_in(bundled_files()) == []


def test_an_index_or_channel_anywhere_in_the_files_is_found():
    files = copy.deepcopy(bundled_files())
    files["pytorch"]["index_url"] = "https://evil.example/whl/{variant}"
    files["pytorch"]["releases"][0]["extra_index_url"] = "https://evil.example/simple"
    files["policies"]["channels"] = ["conda-forge", "evil"]
    files["tensorflow"]["releases"][0]["conda_packages"] = ["conda-forge::cudnn", "evil::cudatoolkit"]
    files["gpus"]["mirror"] = {"wheels": "https://evil.example/torch.whl"}
    files["sources"]["sources"]["ok"] = {"url": "https://github.com/pytorch/pytorch/issues/1"}  # a document
    found = {(item.kind, item.where, item.value) for item in disallowed_in(files)}
    assert found == {
        ("index", "pytorch.json: index_url", "https://evil.example/whl/{variant}"),
        ("index", "pytorch.json: releases/0/extra_index_url", "https://evil.example/simple"),
        ("channel", "policies.json: channels/1", "evil"),
        ("channel", "tensorflow.json: releases/0/conda_packages/1", "evil::cudatoolkit"),
        ("index", "gpus.json: mirror/wheels", "https://evil.example/torch.whl"),
    }
