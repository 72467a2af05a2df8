"""A plan's ``gpu_min_driver``: the lowest driver that drives every NVIDIA GPU of the machine.

A build's ``min_driver`` says which drivers run its CUDA (minor-version compatibility: 450.80.02
for CUDA 11.8), not which GPUs a driver knows: an H200 needs R520 or newer (NVIDIA first
supported Hopper with CUDA 11.8's driver, 520.61.05). The GPU's floor comes from the tables:
the first CUDA of ``cuda.json`` ``architectures`` that compiles for the GPU's compute
capability, and the driver that toolkit shipped with (``toolkit_drivers``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from builders.reports import machine
from gpuwizard.core.compat.plan import parse_wish, recommendation_to_json
from gpuwizard.core.compat.recommend import recommend
from gpuwizard.workflow.compat.data import load_bundled
from gpuwizard.workflow.machine.system_file import load_system_report

COMPAT = load_bundled()
SAMPLES = Path(__file__).resolve().parents[3] / "resources" / "samples"


@pytest.mark.parametrize(
    ("capability", "linux", "windows"),
    [
        ("9.0", "520.61.05", "520.06"),  # Hopper: CUDA 11.8
        ("8.9", "520.61.05", "520.06"),  # Ada: CUDA 11.8
        ("8.6", "455.23", "456.38"),  # Ampere GA10x: CUDA 11.1
        ("8.0", "450.51.05", "451.48"),  # A100: CUDA 11.0
        ("12.0", "570.26", "570.65"),  # Blackwell GeForce: CUDA 12.8
        ("11.0", "580.65.06", None),  # Thor: CUDA 13.0, no Windows driver listed
        ("7.5", None, None),  # Turing: in the tables' oldest row, older than they know
        ("1.0", None, None),  # not in the tables
    ],
)
def test_a_gpus_floor_is_its_first_toolkits_driver(capability, linux, windows):
    assert COMPAT.gpu_min_driver(capability, "linux") == linux
    assert COMPAT.gpu_min_driver(capability, "windows") == windows


def test_the_h200_plan_says_that_its_gpu_needs_r520_whatever_cuda_allows():
    report = load_system_report(SAMPLES / "linux-h200.json")
    rec = recommend(report, parse_wish("pytorch", "2.1"), COMPAT)
    assert rec.plan.cuda == "11.8"
    assert rec.plan.min_driver == {"linux": "450.80.02", "windows": "452.39"}
    assert rec.plan.gpu_min_driver == {"linux": "520.61.05", "windows": "520.06"}
    document = recommendation_to_json(rec)
    assert document["plan"]["gpu_min_driver"] == {"linux": "520.61.05", "windows": "520.06"}
    gpu_alternatives = [p for p in document["alternatives"] if p["min_driver"]]
    assert gpu_alternatives and all(
        p["gpu_min_driver"] == document["plan"]["gpu_min_driver"] for p in gpu_alternatives
    )


def test_every_nvidia_gpu_counts_the_newest_decides():
    report = machine(gpus=[("NVIDIA GeForce RTX 3060", "8.6"), ("NVIDIA GeForce RTX 4090", "8.9")])
    rec = recommend(report, parse_wish("pytorch"), COMPAT)
    assert rec.plan.gpu_min_driver == {"linux": "520.61.05", "windows": "520.06"}


@pytest.mark.parametrize(
    ("gpus", "framework"),
    [
        ([], "pytorch"),  # no GPU: a CPU plan needs no driver
        ([("NVIDIA GeForce RTX 2080", "7.5")], "pytorch"),  # older than the tables know
        ([("NVIDIA Test GPU", None)], "tensorflow"),  # capability unknown
    ],
)
def test_no_floor_where_the_tables_know_none(gpus, framework):
    rec = recommend(machine(gpus=gpus), parse_wish(framework), COMPAT)
    assert rec.plan.gpu_min_driver is None
    assert recommendation_to_json(rec)["plan"]["gpu_min_driver"] is None
