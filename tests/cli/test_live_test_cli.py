"""``gpuwizard test`` through the real entry point, with real PyTorch and TensorFlow on the CPU.

The PyTorch environment is made by ``gpuwizard env create`` from the local CPU wheel; the
TensorFlow one gets tensorflow-cpu from the package registry (CI reaches it). Times are
printed, not asserted (docs/architecture.md, "Performance budgets").
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from builders.wheelhouses import real_cpu_torch_folder
from gpuwizard.adapters.runner import StreamingSubprocessRunner
from gpuwizard.core.events import Event
from gpuwizard.workflow.livetest.run import LiveTestTarget, run_live_test

ENTRY_POINT = shutil.which("gpuwizard", path=str(Path(sys.executable).parent)) or "gpuwizard"
UV = shutil.which("uv", path=str(Path(sys.executable).parent))
CONTRACT = {
    "event", "verdict", "framework", "framework_version", "device", "loss_first", "loss_last",
    "samples_per_s", "speedup", "seconds", "findings",
}  # fmt: skip


def gpuwizard(*args: str, home: Path | None = None, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    # As on a person's machine, where Python writes the bytecode of what it imports (a machine
    # that sets PYTHONDONTWRITEBYTECODE would hide a first run that compiles: assert_nothing_compiled).
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    if home is not None:
        env["GPUWIZARD_HOME"] = str(home)
    return subprocess.run(
        [ENTRY_POINT, *args], capture_output=True, text=True, timeout=timeout, env=env, check=False
    )


def events_of(stdout: str) -> list[dict[str, Any]]:
    events = [json.loads(line) for line in stdout.splitlines() if line.strip()]
    assert all(isinstance(event.get("event"), str) for event in events)
    return events


def need(condition: bool, why: str) -> None:
    if not condition:
        if os.environ.get("CI") == "true":
            pytest.fail(why)
        pytest.skip(why)


@pytest.fixture(scope="session")
def torch_env_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A wizard home holding one environment, ``torchcpu``, made by the wizard itself."""
    folder = real_cpu_torch_folder(tmp_path_factory.mktemp("torch-wheels-test"))
    need(folder is not None, "the CPU torch 2.13.0 wheel is not available here")
    home = tmp_path_factory.mktemp("live-test-home")
    done = gpuwizard(
        "env", "create", "torchcpu", "--framework", "pytorch", "--version", "2.13",
        "--find-links", str(folder), "--offline", home=home,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    _AS_CREATED[home] = _bytecode(home)
    return home


# The bytecode of each home's environments as `env create` handed them over (issue 41, point 13).
_AS_CREATED: dict[Path, dict[str, int]] = {}


def _bytecode(home: Path) -> dict[str, int]:
    """Every bytecode file under ``home`` (its environments), with its modification time."""
    return {str(path): path.stat().st_mtime_ns for path in home.rglob("*.pyc")}


def assert_nothing_compiled(home: Path) -> None:
    """No run since ``env create`` compiled a module: it had written all the first run imports."""
    added = sorted(_bytecode(home).items() - _AS_CREATED[home].items())
    assert not added, f"{len(added)} modules compiled after env create, the first: {added[:5]}"


def check_cpu_only_training(done: subprocess.CompletedProcess[str], framework: str) -> dict[str, Any]:
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    events = events_of(done.stdout)
    result = events[-1]
    assert result["event"] == "result"
    assert [event["event"] for event in events].count("result") == 1
    assert result.keys() >= CONTRACT
    assert result["verdict"] == "cpu_only"
    assert result["framework"] == framework
    assert result["loss_last"] < result["loss_first"]
    assert result["samples_per_s"]["cpu"] > 0
    assert result["samples_per_s"]["gpu"] is None
    kinds = {event["event"] for event in events}
    assert {"start", "device", "phase", "step", "summary", "result"} <= kinds
    print(
        f"{framework}: verdict {result['verdict']} in {result['seconds']} s, {result['samples_per_s']['cpu']} samples/s"
    )
    return result


@pytest.mark.slow
def test_pytorch_cpu_environment_made_by_the_wizard(torch_env_home: Path):
    started = time.monotonic()
    done = gpuwizard("test", "--env", "torchcpu", "--json", home=torch_env_home)
    result = check_cpu_only_training(done, "pytorch")
    assert result["framework_version"].startswith("2.13.0")
    assert result["env"] == "torchcpu"
    print(f"whole command: {time.monotonic() - started:.1f} s")
    assert_nothing_compiled(torch_env_home)


@pytest.mark.slow
def test_pytorch_by_interpreter_with_readable_text(torch_env_home: Path):
    python = json.loads(gpuwizard("env", "list", "--json", home=torch_env_home).stdout)[0]["python"]
    done = gpuwizard("test", "--python", python, "--framework", "pytorch")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Verdict: cpu_only" in done.stdout
    assert "loss" in done.stdout
    assert_nothing_compiled(torch_env_home)


@pytest.mark.slow
def test_tensorflow_cpu(tensorflow_python: str):
    started = time.monotonic()
    done = gpuwizard("test", "--python", tensorflow_python, "--framework", "tensorflow", "--json")
    check_cpu_only_training(done, "tensorflow")
    print(f"whole command: {time.monotonic() - started:.1f} s")


def test_a_missing_interpreter_is_bad_input_and_nothing_is_recorded(tmp_path: Path):
    # Issue 19: --python naming no program is refused before anything runs (exit 2, one line),
    # and no last-tests.json is written (tests/cli/test_hostile_input.py covers the other cases).
    home = tmp_path / "home"
    done = gpuwizard("test", "--python", str(tmp_path / "no" / "python"), "--json", home=home, timeout=60)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.splitlines() == [
        f"gpuwizard: error: --python {tmp_path / 'no' / 'python'}: no such file"
    ]
    assert done.stdout == ""
    assert not (home / "last-tests.json").exists()


def test_an_environment_without_the_framework_is_broken_with_a_finding(tmp_path: Path):
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "empty")], check=True)
    python = tmp_path / "empty" / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
    done = gpuwizard("test", "--python", str(python), "--framework", "tensorflow", "--json", timeout=120)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    result = events_of(done.stdout)[-1]
    assert result["verdict"] == "broken"
    assert "FRAMEWORK_NOT_IMPORTABLE" in [finding["code"] for finding in result["findings"]]
    text = gpuwizard("test", "--python", str(python), "--framework", "tensorflow", timeout=120)
    assert text.returncode == 1
    assert "Verdict: broken" in text.stdout


@pytest.mark.parametrize(
    "args",
    [("test", "--env", "never-made"), ("test", "--env", "a", "--python", "b"), ("test", "--timeout", "0"),
     ("test", "--framework", "caffe")],
)  # fmt: skip
def test_bad_input_exits_2_with_one_line(args: tuple[str, ...]):
    done = gpuwizard(*args, timeout=60)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_a_probe_killed_part_way_is_broken_not_a_hang(torch_python: str):
    # The probe runs in an environment with torch 2.13.0 (CPU) and is killed at its first step.
    killed = threading.Event()
    events: list[Event] = []

    def watch(event: Event) -> None:
        events.append(event)
        if event.kind == "step" and not killed.is_set():
            killed.set()
            # Only this test's own probe (a child of this process): other tests' probes may run
            # at the same time on other workers.
            for status in Path("/proc").glob("[0-9]*/cmdline"):
                try:
                    mine = f"\nPPid:\t{os.getpid()}\n" in (status.parent / "status").read_text()
                    if mine and b"train_test.py" in status.read_bytes():
                        os.kill(int(status.parent.name), signal.SIGKILL)
                except OSError:
                    continue

    result = run_live_test(
        LiveTestTarget(python=torch_python, framework="pytorch"),
        runner=StreamingSubprocessRunner(),
        on_event=watch,
        cancel=threading.Event(),
        machine_has_nvidia_gpu=False,
        timeout_s=300,
    )
    assert killed.is_set()
    assert result.verdict == "broken"
    codes = [finding.code for finding in result.findings]
    # The death was seen, not waited out: a run ended by its deadline says TEST_PROBE_KILLED
    # (the next test) and nothing else.
    assert "TEST_PROBE_FAILED" in codes and "TEST_PROBE_KILLED" not in codes


@pytest.mark.slow
def test_a_probe_past_its_deadline_is_killed_and_broken(torch_python: str):
    result = run_live_test(
        LiveTestTarget(python=torch_python, framework="pytorch"),
        runner=StreamingSubprocessRunner(),
        on_event=lambda _event: None,
        cancel=threading.Event(),
        machine_has_nvidia_gpu=False,
        timeout_s=1.0,
    )
    assert result.verdict == "broken"
    assert [finding.code for finding in result.findings] == ["TEST_PROBE_KILLED"]


# --- cancelling (issue 20, point 3) ----------------------------------------------------------


def start_test(*args: str, home: Path) -> subprocess.Popen[str]:
    env = dict(os.environ, GPUWIZARD_HOME=str(home))
    return subprocess.Popen(
        [ENTRY_POINT, "test", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )


def read_until(process: subprocess.Popen[str], found: Callable[[str], bool]) -> list[str]:
    """Lines of stdout up to and with the first that ``found`` accepts (waits on output, not a clock)."""
    assert process.stdout is not None
    lines = []
    for line in process.stdout:
        lines.append(line)
        if found(line):
            return lines
    raise AssertionError("the test ended before the line came: " + "".join(lines)[-2000:])


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_during_a_test_ends_it_as_cancelled_not_broken(torch_python: str, tmp_path: Path):
    # Issue 20: Ctrl+C read "Verdict: broken. Training does not work" with advice about GPUs
    # held by other processes, exit 1. A cancelled test is `cancelled`, exit 130, as `apply` does.
    home = tmp_path / "home"
    process = start_test("--python", torch_python, "--framework", "pytorch", "--json", home=home)
    try:
        before = read_until(process, lambda line: json.loads(line)["event"] == "step")
        process.send_signal(signal.SIGINT)
        out, err = process.communicate()  # the suite's timeout ends a test that never stops
    finally:
        process.kill()
        process.wait()
    events = [json.loads(line) for line in [*before, *out.splitlines()] if line.strip()]
    assert process.returncode == 130, err
    assert "Traceback" not in err
    result = events[-1]
    assert [event["event"] for event in events].count("result") == 1
    assert (result["event"], result["verdict"], result["status"]) == ("result", "cancelled", "cancelled")
    assert result.keys() >= CONTRACT
    assert not result["findings"]  # no "probe killed" advice about hangs
    assert not any(event["event"] == "finding" for event in events)
    assert not (home / "last-tests.json").exists()  # a cancelled test says nothing: not recorded


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_sigterm_during_a_test_says_cancelled_in_words(torch_python: str, tmp_path: Path):
    home = tmp_path / "home"
    process = start_test("--python", torch_python, "--framework", "pytorch", home=home)
    try:
        before = read_until(process, lambda line: line.startswith("- Training on"))
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate()
    finally:
        process.kill()
        process.wait()
    text = "".join(before) + out
    assert process.returncode == 130, text + err
    assert "Importing PyTorch…" in text and "Compiling the model for the CPU…" in text
    assert "Cancelled. The test was stopped before it finished: no verdict." in text
    assert "broken" not in text.lower() and "Verdict:" not in text
    assert not (home / "last-tests.json").exists()
