"""The post-install check's output as log entries (issue 20, point 8): no raw JSON, NumPy noise explained."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from gpuwizard.core.envs.probe_output import NUMPY_MISSING_NOTE, LogEntry, ProbeOutput
from gpuwizard.core.events import to_json

RUN_FILE = Path(__file__).parents[3] / "resources" / "samples" / "runs" / "env-create-torch-cpu.jsonl"
#: What the check printed in the recorded run (2026-11-24), before this module read it.
RECORDED = [
    "/home/ana/.local/share/gpuwizard/envs/torch-cpu/lib/python3.11/site-packages/torch/_subclasses/"
    "functional_tensor.py:368: UserWarning: Failed to initialize NumPy: No module named 'numpy' "
    "(Triggered internally at /__w/pytorch/pytorch/torch/csrc/utils/tensor_numpy.cpp:84.)",
    '  cpu = _conversion_method_template(device=torch.device("cpu"))',
    json.dumps({
        "probe": "framework_import", "module": "torch",
        "python": "/home/ana/.local/share/gpuwizard/envs/torch-cpu/bin/python", "python_version": "3.11.2",
        "distribution": "torch", "distribution_version": "2.13.0+cpu", "ok": True,
        "framework_version": "2.13.0+cpu", "cuda_build": None,
    }),
]  # fmt: skip


def read(lines: list[str]) -> tuple[list[LogEntry], ProbeOutput]:
    reader = ProbeOutput()
    entries = [entry for line in lines for entry in reader.feed(line)]
    return [*entries, *reader.finish()], reader


def test_the_recorded_check_reads_as_two_sentences():
    entries, reader = read(RECORDED)
    assert [entry.line for entry in entries] == [
        NUMPY_MISSING_NOTE,
        "torch 2.13.0+cpu imports in the new environment (a CPU build).",
    ]
    assert entries[0].details == tuple(RECORDED[:2])
    assert entries[1].report == json.loads(RECORDED[2]) == reader.report
    events = [to_json(entry.event("verify")) for entry in entries]
    assert events[0] == {
        "event": "log", "phase": "verify", "tool": "gpuwizard", "line": NUMPY_MISSING_NOTE,
        "details": RECORDED[:2],
    }  # fmt: skip
    assert events[1]["report"]["distribution_version"] == "2.13.0+cpu" and "details" not in events[1]


def test_the_recording_holds_what_the_command_now_logs_for_that_output():
    # The replayed run (Install page, screenshots) shows what `env create` logs today for the
    # output recorded that day (resources/samples/runs/README.md).
    logged = [
        event
        for event in map(json.loads, RUN_FILE.read_text(encoding="utf-8").splitlines())
        if event["event"] == "log" and event["phase"] == "verify"
    ]
    entries, _ = read(RECORDED)
    assert logged == [to_json(entry.event("verify")) for entry in entries]
    assert not any(event["line"].startswith("{") or "UserWarning" in event["line"] for event in logged)


def test_warnings_not_known_to_be_harmless_stay_as_printed():
    abi = (
        "/env/torch/_utils.py:146: UserWarning: Failed to initialize NumPy: module compiled against API "
        "version 0xf but this version of numpy is 0xd"
    )
    other = "/env/x.py:3: DeprecationWarning: old API"
    entries, _ = read([abi, "  example = torch.tensor([1])", other, "plain output"])
    assert [(entry.line, entry.tool, entry.details) for entry in entries] == [
        (abi, "probe", ()),
        ("  example = torch.tensor([1])", "probe", ()),
        (other, "probe", ()),
        ("plain output", "probe", ()),
    ]


def test_a_warning_without_its_source_line_is_still_explained():
    header = RECORDED[0]
    entries, _ = read([header])
    assert [(entry.line, entry.details) for entry in entries] == [(NUMPY_MISSING_NOTE, (header,))]
    entries, _ = read([header, RECORDED[2]])
    assert [entry.line for entry in entries] == [
        NUMPY_MISSING_NOTE,
        "torch 2.13.0+cpu imports in the new environment (a CPU build).",
    ]


def test_a_failed_import_is_said_with_its_reason():
    answer = {
        "probe": "framework_import",
        "module": "tensorflow",
        "ok": False,
        "error": "ImportError: libcudart.so.12",
    }
    entries, reader = read([json.dumps(answer)])
    assert [entry.line for entry in entries] == [
        "import tensorflow failed in the new environment: ImportError: libcudart.so.12"
    ]
    assert reader.report == answer


def test_json_that_is_not_the_answer_is_left_as_printed():
    lines = ['{"probe": ', '{"probe": 3}', '["probe"]', '{"other": 1}']
    entries, reader = read(lines)
    assert [entry.line for entry in entries] == lines
    assert reader.report is None


@given(st.lists(st.text(max_size=80), max_size=8))
def test_any_output_reads_without_raising_and_loses_no_line(lines: list[str]):
    entries, reader = read(lines)
    kept = [line for entry in entries if entry.report is None for line in (entry.details or (entry.line,))]
    answers = sum(entry.report is not None for entry in entries)
    assert len(kept) + answers == len(lines)
    assert (reader.report is not None) == (answers > 0)
