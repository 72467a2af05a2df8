"""Benchmark: ``diagnose`` on real logs, small and large, with and without a machine's report.

Prints, for every recorded log (tests/fixtures/recorded/diagnose) the median time of the
in-process diagnosis, the slowest one, and for large logs built from them (every recorded log
repeated up to 8 MiB and 64 MiB, the command's size limit) the time and peak memory of one
diagnosis; then the whole command with ``--system`` on the acceptance's Pascal report. Prints
figures; asserts nothing.

    python tests/bench/bench_diagnose.py [--runs 5] [--no-large]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

from gpuwizard.core.findings.diagnosis import diagnose

FIXTURES = Path(__file__).parent.parent / "fixtures"
DIAGNOSE = FIXTURES / "recorded" / "diagnose"
MIB = 2**20


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-large", action="store_true")
    args = parser.parse_args()
    logs = {path.name: path.read_text(encoding="utf-8") for path in sorted(DIAGNOSE.glob("*.txt"))}
    times: list[tuple[float, str]] = []
    for name, text in logs.items():
        runs = []
        for _ in range(args.runs):
            start = time.perf_counter()
            diagnose(text)
            runs.append(time.perf_counter() - start)
        times.append((statistics.median(runs), name))
    times.sort()
    print(f"{len(logs)} recorded logs, {args.runs} runs each, in process")
    print(f"  median of medians: {statistics.median(t for t, _ in times) * 1000:.2f} ms")
    print(f"  slowest: {times[-1][0] * 1000:.2f} ms ({times[-1][1]})")
    if not args.no_large:
        corpus = "\n".join(logs.values())
        for size in (8 * MIB, 64 * MIB - 1):
            text = (corpus * (size // len(corpus) + 1))[:size]
            start = time.perf_counter()
            found = diagnose(text)
            elapsed = time.perf_counter() - start
            # Memory in a second run: tracing slows Python down, so it is not timed.
            tracemalloc.start()
            diagnose(text + " ")  # another string: read_log_facts' cache must not answer
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            print(
                f"  {size / MIB:.0f} MiB of real logs repeated: {elapsed:.1f} s, peak {peak / MIB:.0f} MiB "
                f"traced beyond the text, {len(found)} findings"
            )
    gpuwizard = shutil.which("gpuwizard", path=str(Path(sys.executable).parent)) or "gpuwizard"
    log = DIAGNOSE / "no-kernel-image_torch2.7.1-cu128-rtx2060_comfyui-10326_partial.txt"
    report = FIXTURES / "reports" / "windows-gtx1080-531.79.json"
    for extra in ([], ["--system", str(report)]):
        runs = []
        for _ in range(args.runs):
            start = time.perf_counter()
            subprocess.run(
                [gpuwizard, "diagnose", str(log), "--json", *extra], capture_output=True, check=False
            )
            runs.append(time.perf_counter() - start)
        label = "with --system (recommender)" if extra else "this machine"
        print(f"  whole command, {label}: median {statistics.median(runs):.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
