"""Apply's typed events: a class per stage, each written with the facts of its status, key for key."""

from __future__ import annotations

import json
import typing
from dataclasses import replace
from typing import Any

import pytest

from gpuwizard.core.events import Event, Wrapped, to_json
from gpuwizard.core.findings.model import make_finding
from gpuwizard.core.fleet.events import (
    APPLY_EVENTS,
    STAGE_WORDS,
    ApplyEnvironment,
    ApplyPathChange,
    ApplyResult,
    ApplyStage,
    ApplyStageName,
    DetectStage,
    EnvironmentKept,
    EnvironmentStage,
    LiveTestFacts,
    LiveTestStage,
    PathStage,
)
from gpuwizard.core.livetest.events import Step

RESTART = make_finding("PATH_RESTART_PROGRAMS", programs=["Explorer"])
FACTS = LiveTestFacts("gpu_ok", "NVIDIA H200", 51234.0, 812.0, 63.1, 14.2)
PATH_FACTS: dict[str, Any] = {
    "scope": "user",
    "registry": "live",
    "folders": ("C:\\CUDA\\bin",),
    "changed": True,
}


def keys(event: Event) -> list[str]:
    return list(to_json(event))


def test_every_stage_has_words():
    assert set(typing.get_args(ApplyStageName)) == set(STAGE_WORDS)


@pytest.mark.parametrize(
    ("event", "expected"),
    [
        (DetectStage(status="done", summary="no NVIDIA GPU"), ["summary"]),
        (PathStage(status="skipped", note="path_scope = none"), ["note"]),
        (PathStage(status="planned", **PATH_FACTS), ["scope", "registry", "folders", "changed"]),
        (PathStage(status="failed", error="denied", **PATH_FACTS), ["error", "scope", "registry", "folders", "changed"]),
        (PathStage(status="done", journal_id=None, **PATH_FACTS),
         ["journal_id", "restart", "scope", "registry", "folders", "changed"]),
        (PathStage(status="kept", journal_id="j1", note="PATH changed since; not undone"), ["journal_id", "note"]),
        (PathStage(status="kept", journal_id="j1", error="locked"), ["journal_id", "error"]),
        (PathStage(status="undone", journal_id="j1"), ["journal_id"]),
        (EnvironmentKept(name="lab", path="/envs/lab"), ["name", "path", "note"]),
        (EnvironmentStage(status="started", name="lab", path="/envs/lab", tool="uv", python="3.11",
                          requirements=("torch==2.13.0",)), ["name", "path", "tool", "python", "requirements"]),
        (EnvironmentStage(status="planned", note="damaged: made again", name="lab", path="/e", tool="uv",
                          python="3.11", requirements=()), ["note", "name", "path", "tool", "python", "requirements"]),
        (EnvironmentStage(status="failed", name="lab"), ["name"]),
        (LiveTestStage(status="skipped", note="test = false"), ["note"]),
        (LiveTestStage(status="started", env="lab"), ["env"]),
        (LiveTestStage.done(LiveTestFacts("cpu_only")), ["verdict", "device", "samples_per_s", "speedup", "seconds"]),
    ],
)  # fmt: skip
def test_each_stage_writes_the_facts_of_its_status_in_their_order(event: ApplyStage, expected: list[str]):
    assert keys(event) == ["event", "stage", "status", *expected]
    written = to_json(event)
    read = APPLY_EVENTS.read(json.loads(json.dumps(written)))
    assert type(read) is type(event) and to_json(read) == written


def test_a_path_change_made_says_what_must_restart_even_when_nothing_must():
    assert to_json(PathStage(status="done", journal_id="j1", **PATH_FACTS))["restart"] is None
    written = to_json(PathStage(status="done", journal_id="j1", restart=RESTART, **PATH_FACTS))
    assert written["restart"]["code"] == "PATH_RESTART_PROGRAMS"
    read = APPLY_EVENTS.read(written)
    assert isinstance(read, PathStage) and read.restart == RESTART


def test_the_test_stage_and_the_result_say_the_speeds_per_device():
    stage = to_json(LiveTestStage.done(FACTS))
    assert stage["samples_per_s"] == {"gpu": 51234.0, "cpu": 812.0}
    assert (stage["verdict"], stage["speedup"], stage["seconds"]) == ("gpu_ok", 63.1, 14.2)


def test_a_stage_this_version_does_not_know_is_kept_whole():
    data = {"event": "stage", "stage": "jupyter", "status": "done", "kernel": "lab"}
    read = APPLY_EVENTS.read(data)
    assert type(read) is ApplyStage and read.extra == {"kernel": "lab"} and to_json(read) == data


def test_the_result_is_written_in_the_contract_s_order_with_the_exit_code_only_once_given():
    result = ApplyResult(
        status="ok", message="lab is ready", changed=True, framework="pytorch", framework_version="2.13.0",
        cpu_only=False, environment=ApplyEnvironment("lab", "/envs/lab", "/envs/lab/bin/python", "2.13.0"),
        path=ApplyPathChange("j1", ("C:\\CUDA\\bin",)), test=FACTS,
        findings=(make_finding("GOOD_STATE_NOT_RECORDED", env="lab", error="disk full"),), rolled_back=False,
    )  # fmt: skip
    order = [
        "event", "schema", "answers_schema", "status", "message", "changed", "framework", "framework_version",
        "cpu_only", "environment", "path", "test", "findings",
    ]  # fmt: skip
    assert keys(result) == order  # no exit code until the command line gives it
    written = to_json(replace(result, exit_code=0))
    assert list(written) == [*order[:4], "exit_code", *order[4:]] and written["exit_code"] == 0
    assert (written["schema"], written["answers_schema"]) == ("gpuwizard.apply/1", "gpuwizard.answers/1")
    assert written["environment"] == {
        "name": "lab", "path": "/envs/lab", "python": "/envs/lab/bin/python", "framework_version": "2.13.0",
    }  # fmt: skip
    assert written["path"] == {"journal_id": "j1", "folders": ["C:\\CUDA\\bin"]}
    assert written["test"]["samples_per_s"] == {"gpu": 51234.0, "cpu": 812.0}
    (finding,) = written["findings"]
    assert (finding["code"], finding["severity"]) == ("GOOD_STATE_NOT_RECORDED", "warning")
    assert "disk full" in finding["message"] and finding["hint"]
    read = APPLY_EVENTS.read(json.loads(json.dumps(written)))
    assert isinstance(read, ApplyResult) and read.test == FACTS and read.findings == result.findings
    assert to_json(read) == written


def test_the_nested_steps_events_are_carried_whole_under_their_source():
    step = Step(device="cpu", step=3, loss=1.5, samples_per_s=900.0)
    written = to_json(Wrapped(source="test", inner=step))
    assert written["source"] == "test" and written["event"] == "step"
    read = APPLY_EVENTS.read(written)
    assert isinstance(read, Wrapped) and isinstance(read.inner, Step) and read.inner.loss == 1.5
