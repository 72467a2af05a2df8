"""Every benchmark runs, in its quick mode, with the suite: none can stop working unseen.

Issue 41, point 12: ``bench_ui_stall.py`` had stopped at its own assertion (the wizard had
started asking before installing) and nobody saw, so the budget "the UI thread never blocks over
50 ms" went unmeasured. Each bench takes ``--quick`` (one run, the smallest input) and is run
here as a person runs it, a whole process; the test checks that it ends well and prints its
figures, never the figures themselves (benchmarks assert nothing: a loaded machine is slower).

The benches that need the real torch get what the suite builds anyway (the ``torch_folder`` and
``torch_python`` fixtures). They spend most of their time training, installing or starting
torch, which other tests already cover: they are marked ``heavy``, so CI (``CI=true``) and
``--heavy`` run them and a plain run skips them (``tests/conftest.py``).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from harness.waits import EVENT_S

BENCH = Path(__file__).parent
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]  # the guard of a hung bench, not a budget

#: Each bench with what its output must show once it measured: a figure's line.
FIGURES = {
    "bench_detect.py": r"ratio detect / collect_env +[\d.]+",
    "bench_diagnose.py": r"whole command, with --system \(recommender\): median +[\d.]+ s",
    "bench_env_create.py": r"wizard, the caller's uv cache +median +[\d.]+ s",
    "bench_live_test.py": r"pytorch +verdict \w+ wall median +[\d.]+ s",
    "bench_recommend.py": r"slowest case median +[\d.]+ ms",
    "bench_redaction.py": r"base64 +[\d.]+",
    "bench_ui_stall.py": r"install +worst stall: max +[\d.]+ ms.*\ntest +worst stall: max +[\d.]+ ms",
    "bench_verify_gate.py": r"gate \(recorded probe answer reused\) +median +[\d.]+ s",
    "bench_wizard_start.py": r"launch -> detection results shown median +[\d.]+ ms",
}


def run_bench(name: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(BENCH / name), "--quick", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        timeout=EVENT_S * 5,
        check=False,
    )
    assert done.returncode == 0, (
        f"{name} --quick failed ({done.returncode}):\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
    )
    assert "QThread: Destroyed" not in done.stderr, done.stderr[-3000:]
    return done.stdout


def measured(name: str, out: str) -> None:
    assert re.search(FIGURES[name], out), f"{name} printed no figures:\n{out[-3000:]}"


def test_every_bench_is_run_here_and_has_a_quick_mode():
    benches = {path.name for path in BENCH.glob("bench_*.py")}
    assert benches == set(FIGURES)
    for name in benches:
        assert '"--quick"' in (BENCH / name).read_text(encoding="utf-8"), name


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("bench_diagnose.py", []),
        ("bench_recommend.py", []),
        ("bench_redaction.py", []),
        ("bench_wizard_start.py", []),
    ],
)
def test_a_bench_of_the_wizard_alone_runs(name: str, args: list[str]):
    measured(name, run_bench(name, *args))


@pytest.mark.skipif(not hasattr(os, "wait4"), reason="the fleet's peak memory comes from os.wait4 (POSIX)")
def test_the_fleet_bench_runs():
    out = run_bench("bench_recommend.py", "--fleet")
    assert re.search(r"pytorch +8 GPUs +median +[\d.]+ s", out), out


@pytest.mark.heavy
def test_the_detect_bench_runs(torch_python: str):
    name = "bench_detect.py"
    measured(name, run_bench(name, "--torch-python", torch_python))


@pytest.mark.heavy
def test_the_ui_stall_bench_runs(torch_folder: Path):
    name = "bench_ui_stall.py"
    measured(name, run_bench(name, "--wheels", str(torch_folder)))


@pytest.mark.heavy
def test_the_live_test_bench_runs(torch_python: str):
    name = "bench_live_test.py"
    measured(name, run_bench(name, "--torch-python", torch_python))


@pytest.mark.heavy
@pytest.mark.parametrize("name", ["bench_env_create.py", "bench_verify_gate.py"])
def test_a_bench_that_installs_torch_runs(name: str, torch_folder: Path):
    measured(name, run_bench(name, "--wheels", str(torch_folder)))
