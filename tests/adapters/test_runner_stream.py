"""The streaming runner: lines as they come, exit status, and cancel killing the whole tree."""

from __future__ import annotations

import os
import signal
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from gpuwizard.adapters.runner import (
    CommandCancelled,
    CommandNotFound,
    CommandTimedOut,
    StreamingSubprocessRunner,
)
from harness.waits import EVENT_S, until

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="process groups are POSIX")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/status")
    # A zombie that is not our child (its parent died first) is gone for every purpose.
    return not (status.is_file() and "\nState:\tZ" in status.read_text())


def _wait_for(path: Path) -> str:
    """What a child wrote to ``path``, once it has written it."""
    return until(lambda: path.is_file() and path.read_text().strip(), f"{path} written")


def _end(*pids: int | None) -> None:
    """Kill what a failed test left running (the test's own children, by their ids)."""
    for pid in pids:
        if pid is not None and _alive(pid):
            os.kill(pid, signal.SIGKILL)


def _said(path: Path) -> int | None:
    """The process id a child wrote to ``path``; None when it never got that far.

    None on Windows too, where these tests cannot look at processes by id (``os.kill`` there
    ends the process whatever the signal): the exception raised is all they check there.
    """
    written = path.read_text().strip() if path.is_file() else ""
    return int(written) if written and sys.platform != "win32" else None


#: A child that writes its process id to ``argv[1]``, then sleeps.
_SLEEPER = "import os, sys, time; open(sys.argv[1], 'w').write(str(os.getpid())); time.sleep({})"


#: How long the children below sleep: far past any test's limit, so that one a cancel or a
#: timeout did not end is still running when the limit comes, and the test fails, not passes late.
FOREVER_S = 3600


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
    grandchild = (
        f"import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep({FOREVER_S})"
    )
    child = textwrap.dedent(
        f"""
        import os, subprocess, sys, time
        g = subprocess.Popen([sys.executable, "-c", {grandchild!r}])
        open({str(pids)!r}, "w").write(f"{{os.getpid()}} {{g.pid}}")
        print("started", flush=True)
        time.sleep({FOREVER_S})
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
    try:
        cancel.set()
        # Both sleep for an hour: stream() returns within the wait only because the cancel ended them.
        worker.join(EVENT_S)
        assert not worker.is_alive()
        assert outcome, "stream() did not raise CommandCancelled"
        assert lines == ["started"]
        until(lambda: not _alive(child_pid) and not _alive(grandchild_pid), "the child and grandchild ended")
    finally:
        _end(child_pid, grandchild_pid)


@pytest.mark.timeout(EVENT_S)  # the child sleeps for an hour: only the timeout under test ends it
def test_timeout_kills_and_raises(tmp_path: Path):
    pid = tmp_path / "pid"
    try:
        with pytest.raises(CommandTimedOut):
            StreamingSubprocessRunner().stream(
                [sys.executable, "-c", _SLEEPER.format(FOREVER_S), str(pid)],
                print,
                cancel=threading.Event(),
                timeout=0.5,  # the limit under test
            )
        # A child that had started far enough to say who it is must be gone (one killed while
        # Python still started, on a loaded machine, never says).
        if (child := _said(pid)) is not None:
            until(lambda: not _alive(child), "the timed-out child ended")
    finally:
        _end(_said(pid))


@pytest.mark.timeout(EVENT_S)  # the child sleeps for an hour: only the cancel ends it
def test_cancel_set_before_start_still_stops_promptly(tmp_path: Path):
    pid = tmp_path / "pid"
    cancel = threading.Event()
    cancel.set()
    try:
        with pytest.raises(CommandCancelled):
            StreamingSubprocessRunner().stream(
                [sys.executable, "-c", _SLEEPER.format(FOREVER_S), str(pid)], print, cancel=cancel
            )
        if (child := _said(pid)) is not None:  # it may never have started
            until(lambda: not _alive(child), "the cancelled child ended")
    finally:
        _end(_said(pid))
