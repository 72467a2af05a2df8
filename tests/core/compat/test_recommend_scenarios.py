"""Hand-written recommendation scenarios from real situations (tests/fixtures/recommend_scenarios.json).

Each scenario names its source: the issue, guide or table where the situation comes from.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from builders.reports import machine
from gpuwizard.core.compat.index_view import IndexReleases
from gpuwizard.core.compat.plan import WishError, parse_wish, plan_to_json, recommendation_to_json
from gpuwizard.core.compat.recommend import recommend
from gpuwizard.workflow.compat.data import load_bundled

SCENARIOS = json.loads((Path(__file__).parents[2] / "fixtures" / "recommend_scenarios.json").read_text())[
    "scenarios"
]
COMPAT = load_bundled()
#: An index that publishes exactly what the data knows (a version beyond it does not exist).
INDEX = IndexReleases(
    {
        "pytorch": tuple(r.latest for r in COMPAT.pytorch),
        "tensorflow": tuple(r.latest for r in COMPAT.tensorflow),
    },
    "2026-11-25T00:00:00+00:00",
    "test index",
)


def test_there_are_at_least_forty_sourced_scenarios():
    assert len(SCENARIOS) >= 40
    assert len({s["id"] for s in SCENARIOS}) == len(SCENARIOS)
    for scenario in SCENARIOS:
        assert scenario["source"].strip() and scenario["situation"].strip(), scenario["id"]


def subset(expected: Any, actual: Any) -> bool:
    """``expected``'s keys all present in ``actual`` with equal values (recursively for dicts)."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            key in actual and subset(value, actual[key]) for key, value in expected.items()
        )
    return expected == actual


def report_for(description: dict[str, Any]):
    return machine(
        os=description["os"],
        gpus=[tuple(gpu) for gpu in description.get("gpus", [])],
        driver=description.get("driver"),
        cuda_max=description.get("cuda_max"),
        python=description.get("python", "3.11"),
        wsl=description.get("wsl", False),
        toolkits=description.get("toolkits", []),
        cudnn=description.get("cudnn", []),
        conda=description.get("conda", False),
        other_gpus=description.get("other_gpus", []),
        lost=description.get("lost", []),
        arch=description.get("arch", "x86_64"),
        macos_version=description.get("macos_version"),
    )


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s["id"] for s in SCENARIOS])
def test_scenario(scenario: dict[str, Any]):
    wish_data = scenario["wish"]
    wish = parse_wish(
        wish_data["framework"], wish_data.get("version"), wish_data.get("python"), wish_data.get("manager")
    )
    expect = scenario["expect"]
    report = report_for(scenario["machine"])
    if "error" in expect:
        with pytest.raises(WishError, match=expect["error"].replace(".", r"\.")):
            recommend(report, wish, COMPAT, INDEX)
        return
    rec = recommend(report, wish, COMPAT)
    data = recommendation_to_json(rec)
    plan = data["plan"]
    context = f"{scenario['id']}: plan {rec.plan.summary}; findings {[f.code for f in rec.findings]}"
    for key in ("gpu_supported", "some_release_gpu_supported", "driver_update_required"):
        if key in expect:
            assert data[key] == expect[key], context
    assert subset(expect.get("plan", {}), plan), context
    codes = {f.code for f in rec.findings}
    assert set(expect.get("findings", [])) <= codes, context
    assert not set(expect.get("findings_absent", [])) & codes, context
    alternatives = [plan_to_json(p) for p in rec.alternatives]
    for wanted in expect.get("alternatives_include", []):
        assert any(subset(wanted, alt) for alt in alternatives), (
            f"{context}; alternatives {[a['summary'] for a in alternatives]}"
        )
    for unwanted in expect.get("alternatives_absent", []):
        assert not any(subset(unwanted, alt) for alt in alternatives), context
    for text in expect.get("notes_contain", []):
        assert any(text in note for note in rec.notes), f"{context}; notes {rec.notes}"
    assert subset(expect.get("cuda_numbers", {}), data["cuda_numbers"]), context
    for package in expect.get("plan_conda_packages_include", []):
        assert package in plan["conda"]["packages"], context
    for dll in expect.get("plan_dlls_include", []):
        assert dll in plan["dlls_expected"], context
    if "plan_requirement_startswith" in expect:
        assert plan["pip"]["requirements"][0].startswith(expect["plan_requirement_startswith"]), context
