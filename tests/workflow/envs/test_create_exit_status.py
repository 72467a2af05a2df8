"""A tool that crashes while an environment is made is said in words, never as a bare number.

Issue 37, point 5: "uv.exe exited with status 3221225781:" ended in a colon with nothing after it
(the tool printed nothing) and a number nobody could read. Here real children end by a signal
(on Linux the NTSTATUS values cannot occur: a status stops at 255), through the real streaming
runner and the real creation steps; core/exit_status.py's tests cover the Windows numbers.
"""

from __future__ import annotations

import shutil
import signal
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from builders.requests import cpu_torch_plan, planned
from builders.wheels import bundled_pip_wheel, tiny_torch
from gpuwizard.adapters.interpreters import own_python
from gpuwizard.adapters.runner import StreamingSubprocessRunner
from gpuwizard.core.envs.result import EnvResult
from gpuwizard.core.machine.system_report import ManagerFacts
from gpuwizard.workflow.envs.create import create_environment
from gpuwizard.workflow.envs.prepare import EnvTools, prepare_environment

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform == "win32", reason="a child killed by a POSIX signal"),
]

PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"
UV = shutil.which("uv", path=str(Path(sys.executable).parent))
#: A Python child that ends itself with SIGKILL, as the OOM killer ends a tool, printing nothing.
KILLED_SILENTLY = "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"


class InstallKilled(StreamingSubprocessRunner):
    """The real runner, but the install command is a real child that SIGKILLs itself."""

    def stream(self, argv: Sequence[str], on_line: Callable[[str], None], **options: Any) -> int:
        if "install" in argv:
            argv = [sys.executable, "-c", KILLED_SILENTLY]
        return super().stream(argv, on_line, **options)


def make(folder: Path, runner: StreamingSubprocessRunner, tool: str = "pip") -> EnvResult:
    tools = EnvTools(runner=runner, interpreters=[own_python()], managers=ManagerFacts(uv=UV))
    request = planned("crashing", cpu_torch_plan(), tool=tool, find_links=folder, offline=True)
    prepared = prepare_environment(*request, tools)
    return create_environment(prepared, tools, lambda _event: None, threading.Event())


@pytest.fixture
def wheels(tmp_path: Path) -> Mapping[str, Path]:
    made = {}
    for name, init in (("plain", ""), ("killing", KILLED_SILENTLY)):
        folder = tmp_path / name
        folder.mkdir()
        tiny_torch(folder, "2.13.0", init=init)
        shutil.copy(bundled_pip_wheel(), folder)
        made[name] = folder
    return made


def test_a_tool_killed_without_a_word_is_named_by_its_signal_and_said_to_be_silent(
    wheels: Mapping[str, Path],
):
    result = make(wheels["plain"], InstallKilled())
    assert result.status == "failed"
    error = result.error or ""
    assert error.startswith("install: python")  # the child that ran in the install's place
    assert f"exited with status {-signal.SIGKILL} (SIGKILL (" in error, error
    assert "out of memory" in error or "memory ran out" in error
    # Not "exited with status -9:" and nothing, as the crash of issue 37 read.
    assert error.endswith(", printing nothing") and not error.rstrip().endswith(":")
    assert not Path(result.path).exists()


def test_a_framework_whose_import_kills_the_interpreter_is_said_so_at_the_check(wheels: Mapping[str, Path]):
    result = make(wheels["killing"], StreamingSubprocessRunner())
    assert result.status == "failed"
    error = result.error or ""
    assert error.startswith(
        "verify: import torch failed: no answer from the probe (it exited with status -9 (SIGKILL"
    )
    assert not Path(result.path).exists()
