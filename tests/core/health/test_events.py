"""Verify's typed events: the words for every phase and check, and their JSON, key for key."""

from __future__ import annotations

import json
import typing
from importlib import resources

from gpuwizard.core.events import Wrapped, to_json
from gpuwizard.core.findings.model import make_finding
from gpuwizard.core.health.checks import KINDS, CheckKind, HealthCheck, HealthReport
from gpuwizard.core.health.events import (
    CHECK_WORDS,
    PHASE_WORDS,
    VERIFY_EVENTS,
    VerifyCheck,
    VerifyPhase,
    VerifyPhaseName,
    VerifyResult,
    check_title,
    phase_line,
)
from gpuwizard.core.livetest.events import LiveTestResult

BROKEN = HealthCheck(
    "env:demo:import", "import", "demo", "broken", "import torch", "not installed",
    make_finding("DRIFT_FRAMEWORK_MISSING", env="demo", framework="torch", reinstall="pip install torch", recreate="x"),
)  # fmt: skip
OK = HealthCheck("driver", "driver", "", "ok", "560.35", "560.35", note="as before")


def test_every_phase_and_every_kind_of_check_has_words():
    assert set(typing.get_args(VerifyPhaseName)) == set(PHASE_WORDS)
    assert set(typing.get_args(CheckKind)) == set(CHECK_WORDS) == set(KINDS)
    assert str(phase_line("test", "demo")) == "Training a small network in demo…"
    assert str(check_title("path", r"C:\CUDA\bin")) == r"PATH: C:\CUDA\bin"
    # A newer wizard's phase or check is shown by its name, never dropped.
    assert (str(phase_line("repair", "demo")), str(check_title("jupyter", "demo"))) == ("repair", "jupyter")


def test_a_check_event_is_the_check_s_fields_after_its_kind():
    event = to_json(VerifyCheck.of(BROKEN))
    assert list(event) == [
        "event",
        "check_id",
        "kind",
        "subject",
        "status",
        "before",
        "after",
        "finding",
        "note",
    ]
    assert (event["event"], event["kind"], event["status"]) == ("check", "import", "broken")
    assert list(event["finding"]) == ["code", "severity", "message", "hint", "params"]
    assert event["finding"]["params"]["env"] == "demo" and event["note"] is None
    again = VERIFY_EVENTS.read(json.loads(json.dumps(event)))
    assert isinstance(again, VerifyCheck) and again.check == BROKEN


def test_a_check_of_a_status_this_version_does_not_know_reads_as_skipped():
    read = VERIFY_EVENTS.read(
        {"event": "check", "check_id": "x", "kind": "x", "subject": "", "status": "odd"}
    )
    assert isinstance(read, VerifyCheck) and read.check.status == "skipped"


def test_the_result_says_healthy_only_for_a_complete_run_and_its_fields_by_status():
    report = HealthReport((OK,), "2026-03-01T10:00:00+00:00")
    keys = [
        "event",
        "schema",
        "healthy",
        "snapshot_recorded",
        "counts",
        "drifted",
        "checks",
        "status",
        "saved",
    ]
    complete = to_json(VerifyResult.of(report, "complete", saved="/home/last-good.json"))
    assert list(complete) == keys and complete["healthy"] is True
    assert complete["counts"] == {"ok": 1, "changed": 0, "broken": 0, "skipped": 0}
    cancelled = to_json(VerifyResult.of(report, "cancelled"))
    assert list(cancelled) == keys and cancelled["healthy"] is False and cancelled["saved"] is None
    nothing = to_json(VerifyResult.of(HealthReport(()), "nothing_to_verify", message="Nothing to verify."))
    assert list(nothing) == [*keys, "message"] and nothing["healthy"] is False
    unsaved = to_json(VerifyResult.of(report, "complete", save_error="disk full"))
    assert list(unsaved) == [*keys, "save_error"] and unsaved["save_error"] == "disk full"
    broken = VerifyResult.of(HealthReport((OK, BROKEN)), "complete")
    assert not broken.healthy and broken.drifted == ("env:demo:import",)


def test_a_recorded_verification_reads_typed_and_writes_back_key_for_key():
    run = resources.files("gpuwizard.resources").joinpath(
        "samples/runs/verify-torch-cpu-framework-removed.jsonl"
    )
    lines = [line for line in run.read_text(encoding="utf-8").splitlines() if line.strip()]
    events = [VERIFY_EVENTS.read(json.loads(line)) for line in lines]
    assert {type(event) for event in events} == {VerifyPhase, VerifyCheck, VerifyResult}
    assert [json.dumps(to_json(event)) for event in events] == [
        json.dumps(json.loads(line)) for line in lines
    ]
    result = events[-1]
    assert isinstance(result, VerifyResult)
    assert [check.check_id for check in result.report.broken] == ["env:torch-cpu:import"]


def test_the_short_test_s_events_are_carried_whole_with_the_environment():
    inner = LiveTestResult(verdict="cpu_only", framework="pytorch", env="demo")
    written = to_json(Wrapped(source="test", inner=inner, env="demo"))
    assert written["event"] == "result" and (written["source"], written["env"]) == ("test", "demo")
    read = VERIFY_EVENTS.read(json.loads(json.dumps(written)))
    assert isinstance(read, Wrapped) and read.env == "demo" and isinstance(read.inner, LiveTestResult)
    assert read.inner.verdict == "cpu_only"
    assert to_json(read) == written
