"""Benchmark: ``diagnose`` on real logs, small and large, with and without a machine's report.

Prints, for every recorded log (tests/fixtures/recorded/diagnose) the median time of the
in-process diagnosis, the slowest one, and for large logs built from them (every recorded log
repeated up to 8 MiB and 64 MiB, the command's size limit; 64 MiB of benign lines with one real
error at the end; one CUDA error line repeated to 64 MiB; a Linux "exit code 127" loop) the
time, speed and peak memory of one diagnosis, and each recorded log repeated alone to 2 MiB
(the median and the slowest three); then the whole command with ``--system`` on the acceptance's Pascal report. Prints
figures; asserts nothing.

    python tests/bench/bench_diagnose.py [--runs 5] [--no-large] [--quick]
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


#: The real error at the end of the long benign log.
ERROR_LOG = "no-kernel-image_torch2.7.1-cu128-rtx2060_comfyui-10326_partial.txt"
ERROR_LINE = "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
#: A shell loop whose command is missing: 127 is also Windows' ERROR_PROC_NOT_FOUND.
EXIT_LOOP = "bash: foo: command not found\nProcess exited with exit code 127\n"


def _repeat(text: str, size: int) -> str:
    return (text * (size // len(text) + 1))[:size]


def _large(label: str, text: str) -> str:
    """One diagnosis of ``text``: its time, speed and peak memory (traced in a second, untimed run)."""
    start = time.perf_counter()
    found = diagnose(text)
    elapsed = time.perf_counter() - start
    other = text + " "  # another string: the per-log caches must not answer
    tracemalloc.start()
    diagnose(other)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    size = len(text) / MIB
    return (
        f"  {label}, {size:.0f} MiB: {elapsed:.1f} s ({size / elapsed:.1f} MiB/s), peak {peak / MIB:.0f} MiB "
        f"traced beyond the text, {len(found)} findings"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-large", action="store_true")
    parser.add_argument(
        "--quick", action="store_true", help="the smallest run (tests/bench/test_benches_run.py)"
    )
    args = parser.parse_args()
    if args.quick:
        args.runs, args.no_large = 1, True
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
        # Each recorded log alone, repeated to 2 MiB: an extractor that reads the whole log (or
        # a whole joined line) at every match shows here as one log far slower than the rest.
        repeated = []
        for name, text in logs.items():
            start = time.perf_counter()
            diagnose(_repeat(text, 2 * MIB))
            repeated.append((time.perf_counter() - start, name))
        repeated.sort()
        print("each recorded log repeated alone to 2 MiB")
        print(f"  median: {statistics.median(t for t, _ in repeated):.2f} s")
        for seconds, name in repeated[-3:]:
            print(f"  slow: {seconds:.2f} s ({name})")
        corpus = "\n".join(logs.values())
        benign = "\n".join(text for name, text in logs.items() if name.startswith("negative_"))
        error = logs[ERROR_LOG]
        size = 64 * MIB - 1
        # A long run's log: benign lines (the recorded negatives) for 64 MiB, one real error at the end.
        print(_large("benign lines, one error at the end", _repeat(benign, size - len(error)) + error))
        # The case of the issue: one CUDA error line repeated (a crash loop).
        print(_large("one CUDA error line repeated", _repeat(ERROR_LINE, size)))
        # A Linux loop repeating a number Windows also uses ("exit code 127"): each bare number's
        # question (is this a Windows log?) must be asked once per log, not once per line.
        print(_large("a Linux 'exit code 127' loop", _repeat(EXIT_LOOP, size)))
        # Every recorded log repeated: every signature matches everywhere (the worst case).
        for every in (8 * MIB, size):
            print(_large("every recorded log repeated", _repeat(corpus, every)))
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
