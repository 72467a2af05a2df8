"""The streaming runner: lines as they come, exit status, and cancel killing the whole tree."""

from __future__ import annotations

import os
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from gpuwizard.adapters.runner import (
    CommandCancelled,
    CommandNotFound,
    CommandTimedOut,
    StreamingSubprocessRunner,
)
from harness.waits import EVENT_S

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="process groups are POSIX")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/status")
    # A zombie that is not our child (its parent died first) is gone for every purpose.
    return not (status.is_file() and "\nState:\tZ" in status.read_text())


def _wait_for(path: Path, seconds: float = 20) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if path.is_file() and path.read_text().strip():
            return path.read_text().strip()
        time.sleep(0.05)
    raise AssertionError(f"{path} never appeared")


def test_lines_arrive_in_order_with_stderr_merged_and_status_returned():
    lines: list[str] = []
    code = "import sys\nprint('one', flush=True)\nprint('two', file=sys.stderr, flush=True)\nprint('three')\nsys.exit(4)"
    status = StreamingSubprocessRunner().stream(
        [sys.executable, "-c", code], lines.append, cancel=threading.Event()
    )
    assert (status, lines) == (4, ["one", "two", "three"])


def test_carriage_return_redraws_are_separate_lines_and_blank_lines_dropped():
    lines: list[str] = []
    code = "import sys; sys.stdout.write('10%\\r50%\\r100%\\n\\n  \\ndone\\n')"
    StreamingSubprocessRunner().stream([sys.executable, "-c", code], lines.append, cancel=threading.Event())
    assert lines == ["10%", "50%", "100%", "done"]


def test_variables_reach_the_child_and_python_path_does_not(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("PYTHONPATH", "/somewhere/else")
    lines: list[str] = []
    code = "import os; print(os.environ.get('GW_TEST'), os.environ.get('PYTHONPATH'))"
    StreamingSubprocessRunner().stream(
        [sys.executable, "-c", code], lines.append, cancel=threading.Event(), env_overrides={"GW_TEST": "yes"}
    )
    assert lines == ["yes None"]


def test_missing_program_is_reported():
    with pytest.raises(CommandNotFound):
        StreamingSubprocessRunner().stream(["/no/such/program"], print, cancel=threading.Event())


@posix_only
def test_cancel_kills_the_child_and_its_grandchildren(tmp_path: Path):
    # The child starts a grandchild that ignores SIGTERM, as a build backend might; both must go.
    pids = tmp_path / "pids"
    grandchild = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(120)"
    child = textwrap.dedent(
        f"""
        import os, subprocess, sys, time
        g = subprocess.Popen([sys.executable, "-c", {grandchild!r}])
        open({str(pids)!r}, "w").write(f"{{os.getpid()}} {{g.pid}}")
        print("started", flush=True)
        time.sleep(120)
        """
    )
    cancel = threading.Event()
    lines: list[str] = []
    outcome: list[BaseException] = []

    def run() -> None:
        try:
            StreamingSubprocessRunner().stream([sys.executable, "-c", child], lines.append, cancel=cancel)
        except CommandCancelled as error:
            outcome.append(error)

    worker = threading.Thread(target=run)
    worker.start()
    child_pid, grandchild_pid = map(int, _wait_for(pids).split())
    started = time.monotonic()
    cancel.set()
    worker.join(EVENT_S)
    assert not worker.is_alive()
    assert outcome, "stream() did not raise CommandCancelled"
    assert time.monotonic() - started < 10
    assert lines == ["started"]
    deadline = time.monotonic() + 5
    while (_alive(child_pid) or _alive(grandchild_pid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child_pid)
    assert not _alive(grandchild_pid)


def test_timeout_kills_and_raises():
    started = time.monotonic()
    with pytest.raises(CommandTimedOut):
        StreamingSubprocessRunner().stream(
            [sys.executable, "-c", "import time; time.sleep(60)"],
            print,
            cancel=threading.Event(),
            timeout=0.5,
        )
    assert time.monotonic() - started < 10


def test_cancel_set_before_start_still_stops_promptly():
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(CommandCancelled):
        StreamingSubprocessRunner().stream(
            [sys.executable, "-c", "import time; time.sleep(60)"], print, cancel=cancel
        )
