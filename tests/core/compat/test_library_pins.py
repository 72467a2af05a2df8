"""Issue 36: the plan is what gets installed; range pins resolved before a GPU is promised."""

from __future__ import annotations

import json
from dataclasses import replace
from importlib import resources

import jsonschema
import pytest

from builders.reports import machine
from gpuwizard.core.compat.library_pins import pin_for_gpus, resolved_ranges
from gpuwizard.core.compat.plan import ResolvedLibrary, parse_wish, plan_to_json, recommendation_to_json
from gpuwizard.core.compat.recommend import recommend
from gpuwizard.core.compat.tables import LibraryRange
from gpuwizard.workflow.compat.data import load_bundled

COMPAT = load_bundled()
SCHEMA = json.loads(
    resources.files("gpuwizard.resources").joinpath("schemas/recommendation-1.schema.json").read_text()
)
GTX_1080_TI = ("NVIDIA GeForce GTX 1080 Ti", "6.1")
TITAN_V = ("NVIDIA TITAN V", "7.0")
RTX_4090 = ("NVIDIA GeForce RTX 4090", "8.9")
CUDNN_RANGE = LibraryRange(
    "cudnn", "nvidia-cudnn-cu12", "<10.0,>=9.3.0.75", "9.28.0.42", "2026-11-29", "PIP-DRY-RUN"
)


def newest_tensorflow(gpu: tuple[str, str]):
    report = machine(os="linux", gpus=[gpu], driver="580.95.05", python="3.12")
    return recommend(report, parse_wish("tensorflow"), COMPAT)


@pytest.mark.parametrize("gpu", [GTX_1080_TI, TITAN_V], ids=["pascal-6.1", "volta-7.0"])
def test_a_gpu_todays_cudnn_dropped_gets_the_newest_tensorflow_with_cudnn_pinned_below_the_drop(
    gpu: tuple[str, str],
):
    rec = newest_tensorflow(gpu)
    plan = rec.plan
    assert rec.gpu_supported and plan.framework_version == "2.21.0" and not plan.cpu_only
    assert plan.requirements == ("tensorflow[and-cuda]==2.21.0", "nvidia-cudnn-cu12<9.11")
    assert plan.library_pins == ("nvidia-cudnn-cu12<9.11",)
    [cudnn] = [library for library in plan.resolved if library.library == "cudnn"]
    assert (cudnn.version, cudnn.source, cudnn.pin, cudnn.drops) == ("9.28.0.42", "data", "<9.11", (gpu[1],))
    # The reason names what the range resolves to, on which day, and the pin.
    [why] = [reason for reason in plan.reasons if "resolves to" in reason]
    assert "9.28.0.42" in why and "2026-11-29" in why and "nvidia-cudnn-cu12<9.11" in why and gpu[1] in why


def test_a_gpu_todays_cudnn_still_supports_keeps_the_range_unpinned():
    rec = newest_tensorflow(RTX_4090)
    assert rec.gpu_supported and rec.plan.framework_version == "2.21.0"
    assert rec.plan.requirements == ("tensorflow[and-cuda]==2.21.0",)
    assert rec.plan.library_pins == ()
    assert {library.package: library.version for library in rec.plan.resolved} == {
        "nvidia-cudnn-cu12": "9.28.0.42",
        "nvidia-cublas-cu12": "12.9.3.13",
    }


def test_recommend_json_shows_what_the_ranges_resolve_to():
    data = recommendation_to_json(newest_tensorflow(GTX_1080_TI))
    jsonschema.validate(data, SCHEMA)
    resolved = {entry["package"]: entry for entry in data["plan"]["resolved"]}
    assert resolved["nvidia-cudnn-cu12"] == {
        "library": "cudnn",
        "package": "nvidia-cudnn-cu12",
        "spec": "<10.0,>=9.3.0.75",
        "version": "9.28.0.42",
        "resolved_on": "2026-11-29",
        "source": "data",
        "pin": "<9.11",
        "drops": ["6.1"],
    }
    assert resolved["nvidia-cublas-cu12"]["pin"] is None
    # Exact pins (TF 2.19.1 pins cuDNN ==9.3.0.75) leave nothing to resolve.
    older = recommend(
        machine(os="linux", gpus=[GTX_1080_TI], driver="580.95.05", python="3.12"),
        parse_wish("tensorflow", "2.19"),
        COMPAT,
    )
    assert plan_to_json(older.plan)["resolved"] == [] and older.plan.library_pins == ()


def test_todays_answer_from_the_installer_replaces_the_datas():
    asked = {"nvidia-cudnn-cu12": ("9.10.2.21", "2026-12-01", "pip")}
    [library] = pin_for_gpus(resolved_ranges((CUDNN_RANGE,), asked), ["6.1"], COMPAT)
    assert (library.version, library.resolved_on, library.source, library.pin) == (
        "9.10.2.21",
        "2026-12-01",
        "pip",
        None,
    )
    [recorded] = resolved_ranges((CUDNN_RANGE,))
    assert (recorded.version, recorded.source) == ("9.28.0.42", "data")


def test_no_pin_where_the_range_cannot_reach_below_the_drop():
    # CONSTRUCTED: a range that starts above the release that dropped the GPU cannot be pinned
    # below it: the library stays as resolved, unpinned.
    library = ResolvedLibrary("cudnn", "nvidia-cudnn-cu12", ">=9.12,<10", "9.28.0.42", "2026-11-29", "data")
    assert pin_for_gpus([library], ["6.1"], COMPAT) == (library,)
    # A GPU the resolved release supports needs no pin, whatever the range.
    assert pin_for_gpus([library], ["8.9"], COMPAT) == (library,)
    # Several GPUs: the pin is below the earliest release that drops one of them.
    pinned = pin_for_gpus([replace(library, spec="<10,>=9.3")], ["6.1", "8.9"], COMPAT)
    assert pinned[0].pin == "<9.11" and pinned[0].drops == ("6.1",)
