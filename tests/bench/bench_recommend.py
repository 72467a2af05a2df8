"""Benchmark: ``gpuwizard recommend`` offline, from the bundled data, as a whole process.

Issue 3 budgets the offline answer at under 0.5 s. Each case runs on a saved report (so no
detection is included) a number of times; the figures are medians of wall time. Prints
figures; asserts nothing.

    python tests/bench/bench_recommend.py [--runs 11]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from importlib import resources
from pathlib import Path

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
    parser.add_argument("--runs", type=int, default=11)
    args = parser.parse_args()
    gpuwizard = shutil.which("gpuwizard", path=str(Path(sys.executable).parent)) or "gpuwizard"
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


if __name__ == "__main__":
    sys.exit(main())
