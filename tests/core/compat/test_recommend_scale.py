"""``recommend`` on a fleet's report: the work grows linearly with the number of GPUs.

A DGX SuperPOD node has 8 GPUs, a fleet's export thousands (issue 33: 10,000 GPUs took 84 s
and 457 MB). The work is counted, not timed, so a loaded CI machine gives the same answer:
every line of Python the recommender runs (``sys.settrace``: loops over the GPUs included),
with each GPU's index an ``int`` whose ``==`` is a Python method, so that looking an index up
in a tuple (a C loop, no line of Python otherwise) is counted too. Four times the GPUs must
cost at most about four times the work; the quadratic code cost about sixteen times. ``tests/bench/bench_recommend.py
--fleet`` prints the time and peak memory of the whole command for 8 to 10,000 GPUs.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import replace
from types import FrameType

import pytest

from builders.reports import machine
from gpuwizard.core.compat.plan import parse_wish
from gpuwizard.core.compat.recommend import recommend
from gpuwizard.core.compat.tables import CompatData
from gpuwizard.core.machine.system_report import SystemReport
from gpuwizard.workflow.compat.data import load_bundled

#: A mixed fleet, so that every per-GPU path runs: GPUs every build serves (Hopper, Ampere),
#: one the newest builds dropped (Kepler: GPU_NOT_SERVED, GPU_ARCH_UNSUPPORTED), one newer than
#: TensorFlow's machine code (Blackwell: its PTX, GPU_PTX_ONLY), and one whose compute
#: capability no table knows (GPU_ARCH_UNKNOWN).
MODELS = (
    ("NVIDIA H100 80GB HBM3", "9.0"),
    ("Tesla K80", "3.7"),
    ("NVIDIA GeForce RTX 5090", "12.0"),
    ("NVIDIA A100-SXM4-80GB", "8.0"),
    ("NVIDIA Prototype 9999", None),
)
#: The smaller fleet, and how many times larger the other one is.
BASE, FACTOR = 60, 4
#: Linear work with a fixed part grows by less than FACTOR; a little room for the rounding of
#: models per fleet size. The quadratic code: FACTOR squared (16).
MOST = FACTOR * 1.1


class CountedIndex(int):
    """A GPU index whose comparisons are Python calls (counted by the profiler)."""

    def __eq__(self, other: object) -> bool:
        return int(self) == other

    def __ne__(self, other: object) -> bool:
        return int(self) != other

    __hash__ = int.__hash__


def fleet(count: int, os: str) -> SystemReport:
    gpus = [MODELS[number % len(MODELS)] for number in range(count)]
    report = machine(os=os, gpus=gpus, driver="570.86.15", cuda_max="12.8")
    counted = tuple(replace(gpu, index=CountedIndex(gpu.index)) for gpu in report.gpus)
    return replace(report, gpus=counted)


def work_of_recommend(report: SystemReport, framework: str, compat: CompatData) -> int:
    """The Python lines one recommendation executes (deterministic for one input)."""
    wish = parse_wish(framework, None, None, None)
    lines = 0

    def count(_frame: FrameType, event: str, _arg: object) -> Callable[..., object]:
        nonlocal lines
        if event in ("call", "line"):
            lines += 1
        return count

    previous = sys.gettrace()  # a coverage run's tracer is put back afterwards
    sys.settrace(count)
    try:
        recommendation = recommend(report, wish, compat)
    finally:
        sys.settrace(previous)
    assert recommendation.plan.framework == framework
    return lines


@pytest.mark.parametrize(
    ("framework", "os"),
    [("pytorch", "linux"), ("tensorflow", "linux"), ("tensorflow", "windows")],
)
def test_four_times_the_gpus_is_at_most_four_times_the_work(framework: str, os: str):
    compat = load_bundled()
    small = work_of_recommend(fleet(BASE, os), framework, compat)
    large = work_of_recommend(fleet(BASE * FACTOR, os), framework, compat)
    assert large <= small * MOST, (
        f"{BASE} GPUs: {small} lines run; {BASE * FACTOR} GPUs: {large} ({large / small:.1f}x)"
    )


def test_the_plans_still_serve_every_gpu_of_the_fleet():
    # The same answer as GPU by GPU: each index once, in the machine's order, identical models
    # with identical reasons.
    report = fleet(BASE, "linux")
    recommendation = recommend(report, parse_wish("pytorch", None, None, None), load_bundled())
    plan = recommendation.plan
    assert list(plan.gpu_indices) == sorted(set(plan.gpu_indices))
    served = {gpu.name for gpu in report.gpus if gpu.index in set(plan.gpu_indices)}
    assert "NVIDIA H100 80GB HBM3" in served
    reasons = [reason for reason in plan.reasons if "compute capability" in reason]
    assert len(reasons) == len(plan.gpu_indices)
