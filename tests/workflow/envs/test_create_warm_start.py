"""A uv environment is handed over warm: the first run's modules compiled (issue 41, point 13).

uv installs sources only; after the import check the probe runs the live test in miniature in
the same process, so what the first run imports is compiled once, at creation. That it covers
the real first run is proven with real torch in tests/cli/test_live_test_cli.py (no module is
compiled after ``env create``); here, with real uv, a real venv and the real probes, offline
from small pure-Python wheels: a miniature run that cannot work is one line, not a failure,
and a cancel while it runs ends it and removes everything.
"""

from __future__ import annotations

import json
import shutil
import sys
import threading
from pathlib import Path

import pytest

from builders.requests import cpu_torch_plan, planned
from builders.wheels import build_wheel, bundled_pip_wheel
from gpuwizard.adapters.interpreters import own_python
from gpuwizard.adapters.runner import StreamingSubprocessRunner
from gpuwizard.core.envs.events import EnvLog, EnvPhase
from gpuwizard.core.events import Event
from gpuwizard.core.machine.system_report import ManagerFacts
from gpuwizard.workflow.envs.create import create_environment
from gpuwizard.workflow.envs.prepare import EnvTools, prepare_environment
from gpuwizard.workflow.envs.registry import list_environments
from harness.proc import end, gone, hang_after_saying_who, said
from harness.waits import set_when, until

UV = shutil.which("uv", path=str(Path(sys.executable).parent))

pytestmark = [pytest.mark.slow, pytest.mark.skipif(UV is None, reason="uv is not installed here")]

# A torch that imports and says its version, and has nothing to train with.
_TORCH = '__version__ = "2.13.0"\n\nfrom torch import version as version\n'


def _wheels(folder: Path, torch_init: str = _TORCH) -> Path:
    folder.mkdir()
    build_wheel(
        folder,
        "torch",
        "2.13.0",
        files={"torch/__init__.py": torch_init, "torch/version.py": "cuda = None\n"},
    )
    shutil.copy(bundled_pip_wheel(), folder)
    return folder


def _tools() -> EnvTools:
    return EnvTools(
        runner=StreamingSubprocessRunner(), interpreters=[own_python()], managers=ManagerFacts(uv=UV)
    )


def test_a_miniature_run_that_cannot_train_is_one_line_and_the_environment_is_made(tmp_path: Path):
    wheels = _wheels(tmp_path / "wheels")
    events: list[Event] = []
    env_tools = _tools()
    prepared = prepare_environment(
        *planned("fast", cpu_torch_plan(), tool="uv", find_links=wheels, offline=True), env_tools
    )
    result = create_environment(prepared, env_tools, events.append, threading.Event())
    assert result.status == "ok", result
    verify = [event for event in events if isinstance(event, EnvLog) and event.phase == "verify"]
    assert [event.line for event in verify] == [
        "torch 2.13.0 imports in the new environment (a CPU build).",
        "the live test in miniature did not run (AttributeError: module 'torch' has no attribute "
        "'get_num_threads'): the first test compiles what it imports as it goes",
    ]  # the miniature test's own events never reach the log
    # Its seconds, in the log file (a line of the log that starts with "{" is an event).
    logged = Path(result.log).read_text(encoding="utf-8").splitlines()
    warm = [json.loads(line.split(": ", 1)[1]) for line in logged if line.startswith("framework_import: ")]
    assert [(report["probe"], report["ok"], report["seconds"] >= 0) for report in warm] == [
        ("warm_start", False, True)
    ]


def test_a_cancel_during_the_miniature_run_ends_it_and_removes_everything(tmp_path: Path):
    marker = tmp_path / "warm-pid"
    # The first thing the miniature run asks of torch (its CUDA module) never answers.
    hangs = hang_after_saying_who(marker).replace("\n", "\n    ")
    torch_init = _TORCH + f"\n\ndef __getattr__(name):\n    {hangs}\n"
    wheels = _wheels(tmp_path / "wheels", torch_init)
    env_tools = _tools()
    prepared = prepare_environment(
        *planned("cancelled", cpu_torch_plan(), tool="uv", find_links=wheels, offline=True), env_tools
    )
    cancel = threading.Event()
    events: list[Event] = []
    try:
        with set_when(lambda: said(marker), cancel):
            result = create_environment(prepared, env_tools, events.append, cancel)
        assert result.status == "cancelled", result
        warm_pid = said(marker)
        assert warm_pid is not None, "the miniature run never began"
        until(lambda: gone(warm_pid), "the hanging miniature run ended")
    finally:
        end(said(marker))
    lines = [event.line for event in events if isinstance(event, EnvLog) and event.phase == "verify"]
    assert "torch 2.13.0 imports in the new environment (a CPU build)." in lines  # answered first
    phases = [event.phase for event in events if isinstance(event, EnvPhase)]
    assert "verify" in phases and "constraints" not in phases
    assert phases[-1] == "rollback"
    assert not prepared.prefix.exists()
    assert list_environments() == []
