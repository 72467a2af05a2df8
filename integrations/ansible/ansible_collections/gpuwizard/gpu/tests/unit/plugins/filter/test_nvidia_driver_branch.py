# -*- coding: utf-8 -*-
# Copyright: (c) 2026, GPU Setup Wizard developers
# MIT License (see https://opensource.org/licenses/MIT)
"""The nvidia_driver_branch filter: recommend --json, a plan or a version -> nvidia.nvidia_driver's branch."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import re

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


# The day every test judges end of life on (each branch's end is in the table).
DAY = "2026-12-01"

# The H200 machine's PyTorch 2.1 plan (recommend --json, abridged): CUDA 11.8 runs on 450.80.02,
# an H200 on no driver older than CUDA 11.8's own, 520.61.05.
H200_PLAN = {"framework": "pytorch", "summary": "PyTorch 2.1.2 with CUDA 11.8 (cu118) for Python 3.11 in a venv",
             "cpu_only": False, "device": "cuda", "min_driver": {"linux": "450.80.02", "windows": "452.39"},
             "gpu_min_driver": {"linux": "520.61.05", "windows": "520.06"}}


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
        ("616", "620"),
    ],
)
def test_the_lowest_branch_that_meets_the_minimum_ended_ones_included(given, expected):
    assert branch(given, include_eol=True, as_of=DAY) == expected


@pytest.mark.parametrize(
    "given, expected",
    [
        (RECOMMENDATION, "580"),  # R525 to R575 have ended by then
        ("450.80.02", "580"),
        ("590.44.01", "590"),  # a New Feature Branch has no end of life
        ("595", "595"),
        ("611", "615"),  # R610 ended in August 2026
    ],
)
def test_a_branch_past_its_end_of_life_is_not_given(given, expected):
    assert branch(given, as_of=DAY) == expected
    assert branch(given, False, False, DAY) == expected  # positionally


def test_the_day_decides_which_branches_have_ended():
    assert branch("525.60.13", as_of="2023-11-30") == "525"  # R525 ended on 2023-12-01
    assert branch("525.60.13", as_of="2023-12-01") == "535"
    assert branch("535.54.03", as_of="2026-05-31") == "535"  # R535: June 2026
    assert branch("535.54.03", as_of="2026-06-01") == "580"


def test_the_gpus_minimum_counts_not_only_the_builds():
    assert branch(H200_PLAN, include_eol=True, as_of=DAY) == "520"  # not "450": R450 cannot drive an H200
    assert branch({"plan": H200_PLAN}, production_only=True, include_eol=True, as_of=DAY) == "525"
    assert branch(H200_PLAN, production_only=True, as_of=DAY) == "580"
    assert branch(H200_PLAN["min_driver"]["linux"], include_eol=True, as_of=DAY) == "450"  # a version alone: no GPU known


def test_a_plan_from_a_wizard_without_the_gpu_minimum_takes_the_plan_s():
    plan = dict(H200_PLAN, gpu_min_driver=None)
    assert branch(plan, include_eol=True, as_of=DAY) == "450"


@pytest.mark.parametrize(
    "given, expected",
    [("455.23", "460"), ("530.30.02", "535"), ("575.51.03", "580"), ("590.44.01", "595"), ("525.60.13", "525"),
     ("555.42.02", "570")],  # R560 and R565 are New Feature Branches
)
def test_production_only_skips_new_feature_branches(given, expected):
    assert branch(given, production_only=True, include_eol=True, as_of=DAY) == expected


def test_production_only_never_gives_r390():
    assert branch("100.1", production_only=True, include_eol=True, as_of=DAY) == "418"


def test_a_minimum_above_a_branch_s_newest_release_takes_the_next_branch():
    assert branch("390.999", include_eol=True, as_of=DAY) == "418"


@pytest.mark.parametrize(
    "given, says",
    [
        ({"plan": {"framework": "pytorch", "cpu_only": True, "device": "cpu", "min_driver": None}}, "trains on the CPU"),
        ({"plan": {"framework": "pytorch", "cpu_only": False, "device": "rocm", "min_driver": None}}, "not for an NVIDIA GPU (rocm)"),
        ({"min_driver": {"linux": None, "windows": "452.39"}}, "only a Windows minimum driver (452.39)"),
        ("625.1", "no NVIDIA Linux driver branch at or above 625.1 is known that is still supported on 2026-12-01"),
        ("not a version", "is not an NVIDIA driver version"),
        ({"gpus": []}, "has no min_driver"),
        (["525"], "not list"),
        ("", "no driver version"),
    ],
)
def test_errors_say_why_in_a_sentence(given, says):
    with pytest.raises(AnsibleFilterError, match="gpuwizard.gpu.nvidia_driver_branch: .*" + says.replace("(", r"\(").replace(")", r"\)")):
        branch(given, as_of=DAY)


def test_a_day_that_is_not_one_is_refused():
    with pytest.raises(AnsibleFilterError, match="'2026-13-01' is not a day written as YYYY-MM-DD"):
        branch("525.60.13", as_of="2026-13-01")


def test_production_only_past_the_last_production_branch_fails():
    with pytest.raises(AnsibleFilterError, match="no NVIDIA Linux driver production branch at or above 621 is known \\(the newest"):
        branch("621", production_only=True, include_eol=True, as_of=DAY)


def test_the_table_is_in_order_and_its_kinds_and_days_are_known():
    numbers = [int(number) for number, _kind, _newest, _end in BRANCHES]
    assert numbers == sorted(set(numbers))
    assert {kind for _number, kind, _newest, _end in BRANCHES} <= {"ltsb", "pb", "nfb", None}
    for number, _kind, newest, end in BRANCHES:
        assert newest is None or newest.split(".", maxsplit=1)[0] == number
        assert end is None or re.match(r"^20\d\d-(0[1-9]|1[0-2])(-\d\d)?$", end), (number, end)


def test_nvidia_s_data_center_ltsbs():
    assert [number for number, kind, _newest, _end in BRANCHES if kind == "ltsb"] == ["418", "450", "470", "535", "580", "620"]
