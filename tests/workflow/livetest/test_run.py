"""The live test workflow on scripted probes: warnings and errors reach the diagnosis."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

from gpuwizard.adapters.runner import StreamingSubprocessRunner
from gpuwizard.core.events import Event, to_json
from gpuwizard.core.livetest.events import FindingEvent, LiveTestResult, Log, Phase, Prepare
from gpuwizard.workflow.livetest import run as live_test
from gpuwizard.workflow.livetest.run import LiveTestTarget, run_live_test
from gpuwizard.workflow.machine.system_file import load_system_report
from gpuwizard.workflow.state.last_tests import last_tests_path

REPORTS = Path(__file__).parents[2] / "fixtures" / "reports"


def test_a_driver_warning_from_the_probe_is_diagnosed(tmp_path: Path, monkeypatch):
    # A probe that prints what torch prints on a too-old driver (as a warning), then fails.
    probe = tmp_path / "train_test.py"
    probe.write_text(
        "import json\n"
        "print(json.dumps({'event': 'start', 'framework': 'pytorch', 'framework_version': '2.13.0+cu126'}))\n"
        "print(json.dumps({'event': 'warning', 'phase': 'devices', 'category': 'UserWarning', 'message': "
        "'CUDA initialization: The NVIDIA driver on your system is too old (found version 11040). "
        "Please update your GPU driver'}))\n"
        "print(json.dumps({'event': 'error', 'phase': 'train', 'type': 'RuntimeError', 'message': 'boom'}))\n"
        "raise SystemExit(1)\n"
    )
    monkeypatch.setattr(live_test, "TRAIN_PROBE", probe)
    events: list[Event] = []
    result = run_live_test(
        LiveTestTarget(python=sys.executable, framework="pytorch"),
        runner=StreamingSubprocessRunner(),
        on_event=events.append,
        cancel=threading.Event(),
    )
    codes = [finding.code for finding in result.findings]
    assert result.verdict == "broken"
    assert "DRIVER_TOO_OLD" in codes
    assert "TEST_PROBE_FAILED" in codes
    assert [event.kind for event in events].count("finding") == len(codes)


def test_a_test_cancelled_as_it_prepares_ends_cancelled_and_is_not_remembered(tmp_path: Path, monkeypatch):
    # Issue 20: a cancel is no verdict. The probe announces its import, then hangs there.
    probe = tmp_path / "train_test.py"
    probe.write_text(
        "import json, time\n"
        "print(json.dumps({'event': 'prepare', 'stage': 'import', 'framework': 'pytorch'}), flush=True)\n"
        "time.sleep(3600)\n"
    )
    monkeypatch.setattr(live_test, "TRAIN_PROBE", probe)
    cancel = threading.Event()
    events: list[Event] = []

    def watch(event: Event) -> None:
        events.append(event)
        if isinstance(event, Prepare):
            cancel.set()

    result = run_live_test(
        LiveTestTarget(python=sys.executable, framework="pytorch", env_name="demo"),
        runner=StreamingSubprocessRunner(),
        on_event=watch,
        cancel=cancel,
    )
    assert (result.verdict, result.cancelled, to_json(result)["status"]) == ("cancelled", True, "cancelled")
    assert result.findings == ()
    assert [event.kind for event in events] == ["prepare", "result"]
    assert not last_tests_path().exists()


def test_the_live_tests_own_failure_names_the_build_for_this_machine(tmp_path: Path, monkeypatch):
    # Issue 22, point 2: the live test's failure is diagnosed with the machine it ran on. A probe
    # that fails as a cu128 build fails on a Pascal card; the machine is a GTX 1080 (6.1).
    probe = tmp_path / "train_test.py"
    probe.write_text(
        "import json\n"
        "print(json.dumps({'event': 'start', 'framework': 'pytorch', 'framework_version': '2.9.0+cu128'}))\n"
        "print(json.dumps({'event': 'error', 'phase': 'train', 'type': 'RuntimeError', 'message': "
        "'CUDA error: no kernel image is available for execution on the device'}))\n"
        "raise SystemExit(1)\n"
    )
    monkeypatch.setattr(live_test, "TRAIN_PROBE", probe)
    machine = load_system_report(REPORTS / "windows-gtx1080-531.79.json")
    result = run_live_test(
        LiveTestTarget(python=sys.executable, framework="pytorch"),
        runner=StreamingSubprocessRunner(),
        on_event=lambda _event: None,
        cancel=threading.Event(),
        machine=machine,
    )
    [kernel] = [finding for finding in result.findings if finding.code == "NO_KERNEL_IMAGE"]
    assert kernel.hint.startswith("For this machine (NVIDIA GeForce GTX 1080, compute capability 6.1")
    assert kernel.params["machine_build"].endswith("(cu126)")
    assert "download.pytorch.org/whl/cu126" in kernel.params["machine_command"]


def test_lines_that_are_no_event_and_a_result_the_probe_printed_are_logged_not_taken(
    tmp_path: Path, monkeypatch
):
    # The result is the wizard's to give: a `result` the probe prints is only a line of its output.
    probe = tmp_path / "train_test.py"
    probe.write_text(
        "import json\n"
        "print(json.dumps({'event': 'result', 'verdict': 'gpu_ok', 'framework': 'pytorch'}))\n"
        "print('Segmentation fault (core dumped)')\n"
        "print(json.dumps({'no_event': 1}))\n"
        "print(json.dumps({'event': 'phase', 'phase': 'data', 'device': None, 'new': [1]}))\n"
        "raise SystemExit(1)\n"
    )
    monkeypatch.setattr(live_test, "TRAIN_PROBE", probe)
    events: list[Event] = []
    result = run_live_test(
        LiveTestTarget(python=sys.executable, framework="pytorch"),
        runner=StreamingSubprocessRunner(),
        on_event=events.append,
        cancel=threading.Event(),
    )
    assert result.verdict == "broken"
    logged = [event.line for event in events if isinstance(event, Log)]
    assert logged == [
        '{"event": "result", "verdict": "gpu_ok", "framework": "pytorch"}',
        "Segmentation fault (core dumped)",
        '{"no_event": 1}',
    ]
    [phase] = [event for event in events if isinstance(event, Phase)]
    assert to_json(phase) == {"event": "phase", "phase": "data", "device": None, "new": [1]}
    assert [event for event in events if isinstance(event, LiveTestResult)] == [result]
    assert events[-1] is result
    assert "TEST_PROBE_FAILED" in [event.code for event in events if isinstance(event, FindingEvent)]
