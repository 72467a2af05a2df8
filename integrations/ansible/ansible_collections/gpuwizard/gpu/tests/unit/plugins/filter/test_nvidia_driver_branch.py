# -*- coding: utf-8 -*-
# Copyright: (c) 2026, GPU Setup Wizard developers
# MIT License (see https://opensource.org/licenses/MIT)
"""The nvidia_driver_branch filter: recommend --json, a plan or a version -> nvidia.nvidia_driver's branch."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.gpuwizard.gpu.plugins.filter.nvidia_driver_branch import FilterModule
from ansible_collections.gpuwizard.gpu.plugins.module_utils.driver_branches import BRANCHES

branch = FilterModule().filters()["nvidia_driver_branch"]

# A recommend --json document, abridged: the plan of PyTorch 2.14.1 cu126 on a Linux A100 machine.
RECOMMENDATION = {
    "schema": "gpuwizard.recommendation/1",
    "framework": "pytorch",
    "plan": {"framework": "pytorch", "summary": "PyTorch 2.14.1 with CUDA 12.6 (cu126) for Python 3.11 in a venv",
             "cpu_only": False, "device": "cuda", "min_driver": {"linux": "525.60.13", "windows": "528.33"}},
}


@pytest.mark.parametrize(
    "given, expected",
    [
        (RECOMMENDATION, "525"),
        (RECOMMENDATION["plan"], "525"),
        (json.dumps(RECOMMENDATION), "525"),
        ("525.60.13", "525"),
        ("450.80.02", "450"),  # CUDA 11.1+ builds
        ("580", "580"),  # CUDA 13: the branch is the minimum
        ("R535", "535"),
        ("455.23", "455"),
        ("530.30.02", "530"),
        ("100.1", "390"),
        ("615", "615"),
    ],
)
def test_the_lowest_branch_that_meets_the_minimum(given, expected):
    assert branch(given) == expected


@pytest.mark.parametrize(
    "given, expected",
    [("455.23", "460"), ("530.30.02", "535"), ("575.51.03", "580"), ("590.44.01", "595"), ("525.60.13", "525")],
)
def test_production_only_skips_new_feature_branches(given, expected):
    assert branch(given, production_only=True) == expected


def test_a_minimum_above_a_branch_s_newest_release_takes_the_next_branch():
    assert branch("390.999") == "418"


@pytest.mark.parametrize(
    "given, says",
    [
        ({"plan": {"framework": "pytorch", "cpu_only": True, "device": "cpu", "min_driver": None}}, "trains on the CPU"),
        ({"plan": {"framework": "pytorch", "cpu_only": False, "device": "rocm", "min_driver": None}}, "not for an NVIDIA GPU (rocm)"),
        ({"min_driver": {"linux": None, "windows": "452.39"}}, "only a Windows minimum driver (452.39)"),
        ("620.1", "no NVIDIA Linux driver branch at or above 620.1 is known"),
        ("not a version", "is not an NVIDIA driver version"),
        ({"gpus": []}, "has no min_driver"),
        (["525"], "not list"),
        ("", "no driver version"),
    ],
)
def test_errors_say_why_in_a_sentence(given, says):
    with pytest.raises(AnsibleFilterError, match="gpuwizard.gpu.nvidia_driver_branch: .*" + says.replace("(", r"\(").replace(")", r"\)")):
        branch(given)


def test_production_only_past_the_last_production_branch_fails():
    with pytest.raises(AnsibleFilterError, match="no NVIDIA Linux driver production branch at or above 596"):
        branch("596", production_only=True)


def test_the_table_is_in_order_and_its_kinds_are_known():
    numbers = [int(number) for number, _kind, _newest in BRANCHES]
    assert numbers == sorted(set(numbers))
    assert {kind for _number, kind, _newest in BRANCHES} <= {"ltsb", "pb", "nfb", None}
    for number, _kind, newest in BRANCHES:
        assert newest is None or newest.split(".", maxsplit=1)[0] == number
