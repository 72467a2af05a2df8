"""The GPU kind the plan expects reaches the probe (``--device``), and the result says it."""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path

import pytest

from gpuwizard.adapters.runner import StreamingSubprocessRunner
from gpuwizard.core.events import Event
from gpuwizard.core.livetest.events import Log
from gpuwizard.workflow.livetest import run as live_test
from gpuwizard.workflow.livetest.run import LiveTestTarget, LiveTestUsageError, run_live_test

#: A probe that prints the arguments it was given, then fails as a probe does.
ECHO = (
    "import json, sys\n"
    "print('argv ' + json.dumps(sys.argv[1:]))\n"
    "print(json.dumps({'event': 'error', 'phase': 'usage', 'type': 'UsageError', 'message': 'echo'}))\n"
    "raise SystemExit(2)\n"
)


def probe_argv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, device: str) -> tuple[list[str], object]:
    probe = tmp_path / "train_test.py"
    probe.write_text(ECHO)
    monkeypatch.setattr(live_test, "TRAIN_PROBE", probe)
    events: list[Event] = []
    result = run_live_test(
        LiveTestTarget(python=sys.executable, framework="pytorch"),
        runner=StreamingSubprocessRunner(),
        on_event=events.append,
        cancel=threading.Event(),
        device=device,
    )
    (line,) = [event.line for event in events if isinstance(event, Log) and event.line.startswith("argv ")]
    return json.loads(line.removeprefix("argv ")), result


@pytest.mark.parametrize("device", ["rocm", "xpu", "mps", "cuda"])
def test_a_gpu_kind_is_passed_to_the_probe_and_named_in_the_result(tmp_path, monkeypatch, device):
    argv, result = probe_argv(tmp_path, monkeypatch, device)
    assert argv == ["--framework", "pytorch", "--device", device]
    # Broken (the probe failed), and still the result says which GPU it was to test.
    assert (result.verdict, result.device_expected) == ("broken", device)


@pytest.mark.parametrize("device", ["auto", "cpu"])
def test_no_kind_leaves_the_probes_command_line_as_it_was(tmp_path, monkeypatch, device):
    argv, result = probe_argv(tmp_path, monkeypatch, device)
    assert argv == ["--framework", "pytorch"]
    assert result.device_expected is None


def test_an_unknown_device_is_refused_before_anything_runs(tmp_path, monkeypatch):
    with pytest.raises(LiveTestUsageError, match="unknown device 'tpu'"):
        probe_argv(tmp_path, monkeypatch, "tpu")
