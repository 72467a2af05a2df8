"""Benchmark: ``gpuwizard recommend`` offline, from the bundled data, as a whole process.

Issue 3 budgets the offline answer at under 0.5 s. Each case runs on a saved report (so no
detection is included) a number of times; the figures are medians of wall time. Prints
figures; asserts nothing.

``--fleet`` runs it instead on generated reports of 8, 1,000, 3,000 and 10,000 GPUs (a DGX
SuperPOD node has 8; a fleet's export thousands; issue 33), a mix of Hopper, Kepler, Blackwell,
Ampere and an unknown model, and prints each run's wall time and the process's peak resident
memory (its ``ru_maxrss``, from ``os.wait4``; POSIX only). The work must grow linearly with
the GPUs: ``tests/core/compat/test_recommend_scale.py`` checks that by counting it.

    python tests/bench/bench_recommend.py [--runs 11] [--quick]
    python tests/bench/bench_recommend.py --fleet [--runs 3] [--gpus 8 1000 3000 10000]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from importlib import resources
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests/, for its builders
from builders.reports import machine
from gpuwizard.core.machine.system_report import report_to_json

REPORTS = Path(__file__).parent.parent / "fixtures" / "reports"
CASES = [
    ("windows-rtx3060-546.33.json", ["--framework", "pytorch"]),
    ("windows-rtx3060-546.33.json", ["--framework", "tensorflow"]),
    ("linux-k80-470.256.02.json", ["--framework", "pytorch"]),
    ("windows-gtx1080-531.79.json", ["--framework", "tensorflow", "--version", "2.10"]),
    ("no-gpu", ["--framework", "pytorch"]),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=None, help="runs per case (default 11; --fleet: 3)")
    parser.add_argument("--fleet", action="store_true", help="generated reports of many GPUs instead")
    parser.add_argument("--gpus", type=int, nargs="+", default=[8, 1000, 3000, 10000])
    parser.add_argument(
        "--quick", action="store_true", help="the smallest run (tests/bench/test_benches_run.py)"
    )
    args = parser.parse_args()
    if args.quick:  # one run of each case, and of the smallest fleet
        args.runs, args.gpus = 1, [8]
    gpuwizard = shutil.which("gpuwizard", path=str(Path(sys.executable).parent)) or "gpuwizard"
    if args.fleet:
        return fleet(gpuwizard, args.gpus, args.runs or 3)
    args.runs = args.runs or 11
    no_gpu = Path(str(resources.files("gpuwizard.resources").joinpath("samples", "no-gpu.json")))
    print(f"runs: {args.runs} per case; whole process, --json, bundled data")
    worst = 0.0
    for report, wish in CASES:
        path = no_gpu if report == "no-gpu" else REPORTS / report
        argv = [gpuwizard, "recommend", *wish, "--system", str(path), "--json"]
        subprocess.run(argv, capture_output=True, check=True)  # warm the file cache
        times = []
        for _ in range(args.runs):
            started = time.perf_counter()
            subprocess.run(argv, capture_output=True, check=True)
            times.append(time.perf_counter() - started)
        median = statistics.median(times)
        worst = max(worst, median)
        print(
            f"  {report:<30} {' '.join(wish):<38} median {median * 1000:6.1f} ms  (max {max(times) * 1000:.1f})"
        )
    print(f"slowest case median {worst * 1000:.1f} ms (budget: 500)")
    return 0


#: The fleet's models, repeated in turn: every per-GPU path of the recommender runs (GPUs every
#: build serves, one the newest builds dropped, one newer than TensorFlow's machine code, one
#: no table knows).
FLEET_MODELS = (
    ("NVIDIA H100 80GB HBM3", "9.0"),
    ("Tesla K80", "3.7"),
    ("NVIDIA GeForce RTX 5090", "12.0"),
    ("NVIDIA A100-SXM4-80GB", "8.0"),
    ("NVIDIA Prototype 9999", None),
)


def fleet_report(count: int, folder: Path) -> Path:
    """A saved ``gpuwizard.system/1`` report of ``count`` NVIDIA GPUs on Linux."""
    gpus = [FLEET_MODELS[number % len(FLEET_MODELS)] for number in range(count)]
    path = folder / f"fleet-{count}.json"
    report = machine(gpus=gpus, driver="570.86.15", cuda_max="12.8")
    path.write_text(json.dumps(report_to_json(report)), encoding="utf-8")
    return path


def timed_run(argv: list[str]) -> tuple[float, int | None]:
    """Wall seconds and peak resident memory in bytes (None where ``os.wait4`` is missing)."""
    started = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if not hasattr(os, "wait4"):
        process.wait()
        return time.perf_counter() - started, None
    _pid, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {process.returncode}")
    # Linux reports ru_maxrss in KiB, macOS in bytes.
    return seconds, usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024)


def fleet(gpuwizard: str, sizes: list[int], runs: int) -> int:
    """Time and peak memory of ``recommend`` on generated reports of ``sizes`` GPUs."""
    print(f"runs: {runs} per case; whole process, --system FILE --json, bundled data")
    with tempfile.TemporaryDirectory() as folder:
        for framework in ("pytorch", "tensorflow"):
            for count in sizes:
                argv = [gpuwizard, "recommend", "--framework", framework, "--json"]
                argv += ["--system", str(fleet_report(count, Path(folder)))]
                results = [timed_run(argv) for _ in range(runs)]
                median = statistics.median(seconds for seconds, _ in results)
                peaks = [peak for _, peak in results if peak is not None]
                memory = f"peak {max(peaks) / 2**20:6.1f} MiB" if peaks else "peak memory unknown here"
                print(f"  {framework:<10} {count:>6} GPUs  median {median:7.2f} s  {memory}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
