"""Benchmark: ``gpuwizard detect --json`` against ``python -m torch.utils.collect_env``.

Both run as whole processes, interleaved, in the same run; the figures are medians of wall
time. The performance budgets (docs/architecture.md) put detect at 1/10 of collect_env (the report PyTorch asks for
in every bug report). Prints figures, and the modules detect loads (what its start-up costs);
asserts nothing (tests/test_import_graph.py checks what detect must not load).

    python tests/bench/bench_detect.py [--runs 15] [--torch-python PYTHON] [--quick]

collect_env needs torch: by default the interpreter running this script, else --torch-python
(any venv with torch; the CPU build is enough: ``python -m venv T && T/bin/pip install torch numpy``).
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


def timed(argv: list[str]) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed with {done.returncode}: {done.stderr.strip()[-300:]}")
    return elapsed, done.stdout


#: Runs the command line in this process; prints the modules it loaded.
MODULES_PROBE = """\
import contextlib, io, json, sys
from gpuwizard.cli.main import main
with contextlib.redirect_stdout(io.StringIO()):
    main(["detect", "--json"])
print(json.dumps(sorted(sys.modules)))
"""


def loaded_modules() -> list[str]:
    """Every module ``gpuwizard detect --json`` loads, as ``sys.modules`` has them after it ran."""
    _, out = timed([sys.executable, "-c", MODULES_PROBE])
    modules: list[str] = json.loads(out.splitlines()[-1])
    return modules


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument(
        "--quick", action="store_true", help="the smallest run (tests/bench/test_benches_run.py)"
    )
    parser.add_argument("--torch-python", default=sys.executable, help="an interpreter with torch installed")
    args = parser.parse_args()
    if args.quick:
        args.runs = 1

    probe = subprocess.run(
        [args.torch_python, "-c", "import torch; print(torch.__version__)"],
        capture_output=True,
        text=True,
        check=False,
    )
    if probe.returncode != 0:
        print(
            f"error: no torch in {args.torch_python}; install it (pip install torch) or pass --torch-python",
            file=sys.stderr,
        )
        return 2
    gpuwizard = shutil.which("gpuwizard", path=str(Path(sys.executable).parent)) or "gpuwizard"
    detect_argv = [gpuwizard, "detect", "--json"]
    collect_argv = [args.torch_python, "-m", "torch.utils.collect_env"]

    timed(detect_argv)  # warm the file cache for both before measuring
    _, collect_text = timed(collect_argv)
    detect_times: list[float] = []
    collect_times: list[float] = []
    detect_text = ""
    for _ in range(args.runs):
        seconds, detect_text = timed(detect_argv)
        detect_times.append(seconds)
        seconds, collect_text = timed(collect_argv)
        collect_times.append(seconds)

    detect_median = statistics.median(detect_times)
    collect_median = statistics.median(collect_times)
    report = json.loads(detect_text)
    print(f"runs: {args.runs} each, interleaved; torch {probe.stdout.strip()}")
    print(
        f"gpuwizard detect --json      median {detect_median * 1000:7.1f} ms  (min {min(detect_times) * 1000:.1f})"
    )
    print(
        f"torch.utils.collect_env      median {collect_median * 1000:7.1f} ms  (min {min(collect_times) * 1000:.1f})"
    )
    print(f"ratio detect / collect_env   {detect_median / collect_median:.3f}  (budget: at most 0.100)")
    print(
        f"in-process detection time    {report.get('detection_seconds', 0) * 1000:.1f} ms (as detect reports it)"
    )
    print(
        f"output: detect {len(detect_text)} bytes of JSON with {len(report['findings'])} finding(s); "
        f"collect_env {len(collect_text)} bytes of text"
    )
    modules = loaded_modules()
    ours = [name for name in modules if name == "gpuwizard" or name.startswith("gpuwizard.")]
    print(f"modules loaded by detect --json: {len(modules)}, of which gpuwizard's {len(ours)}:")
    print("  " + " ".join(name.removeprefix("gpuwizard.") for name in ours))
    return 0


if __name__ == "__main__":
    sys.exit(main())
