# -*- coding: utf-8 -*-
# Copyright: (c) 2026, GPU Setup Wizard developers
# MIT License (see https://opensource.org/licenses/MIT)
"""module_utils/gpuwizard.py on the wizard's real output.

The fixtures are what gpuwizard 0.1.0 printed (apply, verify), with the home folder, the wheel
folder and the program's path replaced by neutral ones: a Windows plan's preview against a
registry snapshot (PATH and a TensorFlow environment), a Linux preview, a first run, a second
run that keeps the environment, a refusal (exit 2) with its sources stage, and verify healthy,
broken (a missing constraints file) and with nothing to verify.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os

import pytest

from ansible_collections.gpuwizard.gpu.plugins.module_utils.gpuwizard import (
    answers_text,
    apply_argv,
    apply_diff,
    apply_outcome,
    build_answers,
    drifts,
    facts_outcome,
    find_executable,
    parse_json_lines,
    result_event,
    verify_argv,
    verify_outcome,
    would_change,
)

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


def events(name):
    return parse_json_lines(fixture(name))


def test_the_run_s_own_result_is_the_last_one_without_a_source():
    first = events("apply-first.jsonl")
    nested = [event for event in first if event.get("event") == "result" and "source" in event]
    assert [event["source"] for event in nested] == ["environment", "test"]
    result = result_event(first)
    assert result["schema"] == "gpuwizard.apply/1"
    assert (result["status"], result["changed"]) == ("ok", True)


def test_a_windows_preview_would_change_path_and_make_an_environment():
    preview = events("apply-preview-windows.jsonl")
    assert would_change(preview)
    path, environment, packages = apply_diff(preview)
    assert path["before"] == ""
    assert path["after"].splitlines() == [
        "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.2\\bin",
        "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.2\\libnvvp",
        "C:\\tools\\cuda\\bin",
    ]
    assert path["before_header"].startswith("PATH (user scope, file:")
    after = environment["after"].splitlines()
    assert after[0] == "environment: tf"
    assert "tool: pip" in after
    assert "variable: TF_FORCE_GPU_ALLOW_GROWTH=true" in after
    assert "variable: TF_CPP_MIN_LOG_LEVEL=1" in after
    assert packages["after"] == "tensorflow==2.10.1\nnumpy<1.24\n"


def test_a_linux_preview_shows_the_environment_and_its_packages_and_no_path():
    diffs = apply_diff(events("apply-preview-linux.jsonl"))
    assert [diff["before_header"].split(" ")[0] for diff in diffs] == ["environment", "packages"]
    # What the environment is made with, as the plan names it: not the constraints file, which
    # pins the build installed (torch==2.13.0+cpu) once it is made.
    assert (diffs[1]["before_header"], diffs[1]["after_header"]) == ("packages of lab", "packages of lab")
    assert (diffs[1]["before"], diffs[1]["after"]) == ("", "torch==2.13.0\n")
    assert "constraints" not in diffs[1]["before_header"]


def test_mending_a_damaged_environment_says_so_in_both_befores():
    preview = events("apply-preview-linux.jsonl")
    note = "this plan's environment was damaged: it is made again"
    for event in preview:
        if event.get("event") == "stage" and event.get("stage") == "environment":
            event["note"] = note
    environment, packages = apply_diff(preview)
    assert environment["before"] == packages["before"] == "# %s\n" % note
    assert packages["after"] == "torch==2.13.0\n"


def test_a_preview_of_a_machine_already_set_up_changes_nothing():
    kept = events("apply-preview-kept.jsonl")
    assert not would_change(kept)
    assert apply_diff(kept) == []
    outcome = apply_outcome(0, fixture("apply-preview-kept.jsonl"), "", check_mode=True, want_diff=True)
    assert (outcome["failed"], outcome["changed"]) == (False, False)
    assert "diff" not in outcome


def test_check_mode_reports_what_the_preview_would_change_with_the_diff():
    outcome = apply_outcome(0, fixture("apply-preview-linux.jsonl"), "", check_mode=True, want_diff=True)
    assert (outcome["failed"], outcome["changed"]) == (False, True)
    assert outcome["result"]["status"] == "preview"
    assert len(outcome["diff"]) == 2
    assert "diff" not in apply_outcome(0, fixture("apply-preview-linux.jsonl"), "", True, want_diff=False)


def test_a_real_run_is_changed_as_its_result_says():
    first = apply_outcome(0, fixture("apply-first.jsonl"), "", check_mode=False, want_diff=False)
    again = apply_outcome(0, fixture("apply-again.jsonl"), "", check_mode=False, want_diff=True)
    assert (first["changed"], again["changed"]) == (True, False)
    assert first["msg"] == "lab is ready and trains on the CPU (cpu_only)"
    assert [stage["stage"] for stage in again["stages"]][:2] == ["detect", "plan"]
    assert "diff" not in again
    shown = apply_outcome(0, fixture("apply-first.jsonl"), "", check_mode=False, want_diff=True)["diff"]
    assert [diff["before_header"].split(" ")[0] for diff in shown] == ["environment", "packages"]  # what was made


def test_check_mode_s_message_is_ansible_s_and_the_result_the_wizard_s():
    preview = apply_outcome(0, fixture("apply-preview-linux.jsonl"), "", check_mode=True, want_diff=False)
    assert preview["msg"] == "check mode: nothing was changed; the setup would change this machine"
    assert "--yes" not in preview["msg"]
    assert preview["result"]["message"] == "nothing was changed; add --yes to carry it out"  # the wizard's, as it is
    kept = apply_outcome(0, fixture("apply-preview-kept.jsonl"), "", check_mode=True, want_diff=False)
    assert kept["msg"] == "check mode: nothing was changed; there is nothing to change"


BAD_GPUS = "gpuwizard: error: %s: 'abc' is not a GPU selection (write indices such as 0,1)\n"


def test_a_refusal_of_the_answers_the_module_wrote_names_the_task_s_options():
    written = "/root/.ansible/tmp/ansible-tmp-1764-42/answers.json"
    outcome = apply_outcome(2, "", BAD_GPUS % written, False, False, answers_written=written)
    assert outcome["msg"] == "gpuwizard: error: the task's options: 'abc' is not a GPU selection (write indices such as 0,1)"


def test_a_refusal_of_an_answer_file_the_person_gave_keeps_its_path():
    given = "/srv/fleet/answers.toml"
    outcome = apply_outcome(2, "", BAD_GPUS % given, False, False)
    assert outcome["msg"] == BAD_GPUS.strip() % given


def test_a_refusal_fails_with_its_line_and_the_findings_that_explain_it():
    outcome = apply_outcome(2, fixture("apply-refused.jsonl"), fixture("apply-refused.stderr"), False, False)
    assert outcome["failed"]
    assert outcome["msg"].startswith("gpuwizard: error: your mirror of PyTorch's index")
    assert outcome["result"] is None
    assert [finding["code"] for finding in outcome["findings"]] == ["PACKAGE_INDEX_UNREACHABLE"]


def test_a_problem_fails_with_the_result_s_message_and_findings():
    result = {"event": "result", "schema": "gpuwizard.apply/1", "status": "problem", "exit_code": 1,
              "message": "require_gpu: pytorch cannot use a GPU on this machine; nothing was changed",
              "changed": False, "findings": [{"code": "NO_NVIDIA_GPU"}]}
    outcome = apply_outcome(1, json.dumps(result) + "\n", "", False, False)
    assert outcome["failed"] and outcome["msg"] == result["message"]
    assert outcome["findings"] == [{"code": "NO_NVIDIA_GPU"}]


def test_verify_healthy_broken_and_nothing_to_verify():
    healthy = verify_outcome(0, fixture("verify-healthy.jsonl"), "")
    assert (healthy["failed"], healthy["healthy"], healthy["changed"], healthy["msg"]) == (False, True, False, "healthy")
    broken = verify_outcome(1, fixture("verify-broken.jsonl"), "")
    assert broken["failed"] and not broken["healthy"]
    (drift,) = broken["drifts"]
    assert (drift["check_id"], drift["before"], drift["after"], drift["code"]) == (
        "env:lab:constraints", "torch==2.13.0+cpu", "missing", "DRIFT_CONSTRAINTS_MISSING")
    assert "Write the line 'torch==2.13.0+cpu'" in drift["fix"]
    assert broken["msg"].startswith("the setup is broken: env:lab:constraints: torch==2.13.0+cpu -> missing (fix: ")
    nothing = verify_outcome(0, fixture("verify-nothing.jsonl"), "")
    assert (nothing["failed"], nothing["status"], nothing["healthy"]) == (False, "nothing_to_verify", False)
    assert "nothing" in nothing["msg"].lower()


def test_drifts_list_changed_checks_too_but_only_broken_ones_fail():
    health = {"healthy": True, "status": "complete", "checks": [
        {"check_id": "driver", "kind": "driver", "subject": "", "status": "changed", "before": "550.54", "after": "555.42",
         "finding": {"code": "DRIFT_DRIVER_CHANGED", "message": "m", "hint": "h"}},
        {"check_id": "gpus", "kind": "gpus", "subject": "1", "status": "ok", "before": "1", "after": "1", "finding": None},
    ]}
    assert [(drift["check_id"], drift["fix"]) for drift in drifts(health)] == [("driver", "h")]
    outcome = verify_outcome(0, json.dumps(dict(health, event="result")) + "\n", "")
    assert not outcome["failed"]
    assert outcome["msg"] == "healthy; changed since the last good state: driver: 550.54 -> 555.42 (fix: h)"


def test_verify_that_printed_no_result_fails_with_its_line():
    outcome = verify_outcome(2, "", "gpuwizard: error: --system: no such file\n")
    assert outcome["failed"] and outcome["msg"] == "gpuwizard: error: --system: no such file"


def test_answers_hold_only_the_options_given():
    params = dict(framework="pytorch", version="2.13", environment="lab", gpus=[0, "1"], offline=True,
                  find_links="/srv/wheels", python=None, test=None, replace=False)
    assert build_answers(params) == {
        "schema": "gpuwizard.answers/1", "framework": "pytorch", "version": "2.13", "environment": "lab",
        "gpus": [0, "1"], "offline": True, "find_links": "/srv/wheels", "replace": False}
    assert json.loads(answers_text(dict(framework="tensorflow", gpus="0,1")))["gpus"] == "0,1"


def test_argv_lists():
    assert apply_argv("gw", "/t/a.json", confirmed=False) == ["gw", "apply", "--answers", "/t/a.json", "--json"]
    assert apply_argv("gw", "a", True, system="s", registry="r") == [
        "gw", "apply", "--answers", "a", "--yes", "--json", "--system", "s", "--registry", "r"]
    assert verify_argv("gw") == ["gw", "verify", "--json"]
    assert verify_argv("gw", env=["a", "b"], test=False, record=False, prometheus="/m.prom") == [
        "gw", "verify", "--json", "--env", "a", "--env", "b", "--no-test", "--no-record", "--prometheus", "/m.prom"]


def test_the_program_is_the_option_then_path_then_the_role_s_location():
    assert find_executable("/x/gpuwizard", lambda name: "/usr/bin/gpuwizard") == "/x/gpuwizard"
    assert find_executable(None, lambda name: "/usr/bin/gpuwizard") == "/usr/bin/gpuwizard"
    found = find_executable(None, lambda name: None, exists=lambda path: path == "/usr/local/bin/gpuwizard")
    assert found == "/usr/local/bin/gpuwizard"
    assert find_executable(None, lambda name: None, exists=lambda path: False) is None


def test_facts_are_the_report_and_verify_s_result():
    report = {"schema": "gpuwizard.system/1", "gpus": []}
    outcome = facts_outcome((0, json.dumps(report), ""), (1, fixture("verify-broken.jsonl"), ""))
    facts = outcome["ansible_facts"]["gpuwizard"]
    assert facts["schema"] == "gpuwizard.system/1"
    assert facts["verify"]["healthy"] is False  # a broken setup is a fact, not a failure
    assert not outcome["failed"] and not outcome["changed"]
    failed = facts_outcome((2, "", "gpuwizard: error: --system: not a report\n"))
    assert failed["failed"] and failed["msg"] == "gpuwizard: error: --system: not a report"
    assert facts_outcome((0, "not json", ""))["failed"]


@pytest.mark.parametrize("rc", [1, 3, 130])
def test_every_failing_exit_code_fails(rc):
    result = {"event": "result", "schema": "gpuwizard.apply/1", "status": "rolled_back", "message": "m", "changed": False}
    assert apply_outcome(rc, json.dumps(result), "", False, False)["failed"]
