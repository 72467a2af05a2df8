"""Benchmark: time to verdict of ``gpuwizard test`` with the framework already installed.

The performance budgets (docs/architecture.md) put the verdict at under 60 s on a CPU. Runs the whole command
(``--json``) a number of times per interpreter and prints wall time, the probe's own seconds,
samples/s and the verdict; on a GPU machine also the speedup and matmul TFLOP/s. Prints
figures; asserts nothing.

    python tests/bench/bench_live_test.py [--runs 3] [--torch-python EXE] [--tf-python EXE] [--quick]

``--torch-python`` defaults to this interpreter (the dev environment has torch 2.13.0 CPU).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--torch-python", default=sys.executable)
    parser.add_argument("--tf-python", help="an interpreter with tensorflow (or tensorflow-cpu)")
    parser.add_argument(
        "--quick", action="store_true", help="the smallest run (tests/bench/test_benches_run.py)"
    )
    args = parser.parse_args()
    if args.quick:
        args.runs = 1
    gpuwizard = shutil.which("gpuwizard", path=str(Path(sys.executable).parent)) or "gpuwizard"
    cases = [("pytorch", args.torch_python)]
    if args.tf_python:
        cases.append(("tensorflow", args.tf_python))
    for framework, python in cases:
        walls, results = [], []
        for _ in range(args.runs):
            started = time.perf_counter()
            done = subprocess.run(
                [gpuwizard, "test", "--python", python, "--framework", framework, "--json"],
                capture_output=True,
                text=True,
                check=False,
            )
            walls.append(time.perf_counter() - started)
            results.append(json.loads(done.stdout.strip().splitlines()[-1]))
        last = results[-1]
        rates = last["samples_per_s"]
        print(
            f"{framework:10s} verdict {last['verdict']:8s} wall median {statistics.median(walls):5.1f} s "
            f"(runs: {', '.join(f'{wall:.1f}' for wall in walls)}); probe {last['seconds']} s; "
            f"samples/s cpu {rates['cpu']} gpu {rates['gpu']}; speedup {last['speedup']}; "
            f"matmul TFLOP/s {last.get('matmul_tflops')}; loss {last['loss_first']} -> {last['loss_last']}"
        )
    print("budget: verdict in under 60 s on a CPU (docs/architecture.md, Performance budgets)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
