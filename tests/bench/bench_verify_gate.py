"""Benchmark: the cluster gate, ``gpuwizard verify --no-test --oneline`` on a set-up machine.

Issue 40 asks the gate (a Slurm prolog, ``HealthCheckProgram`` or NHC check) to answer within a
second on a machine the wizard set up. The set-up is made as an administrator makes it:
``gpuwizard apply`` with an answer file (the real CPU torch 2.13.0 from a local wheel folder,
offline) in a temporary ``GPUWIZARD_HOME``, then one ``verify --no-test`` that records the last
good state with each environment's fingerprint. Then, as whole processes, each a number of times:

- the gate as it runs: each unchanged environment's recorded probe answer is reused;
- the gate without the reuse: the fingerprints are taken out of ``last-good.json`` before each
  run (what a state recorded by an older version holds), so the probe imports torch again.

Prints the median and the slowest of each; asserts nothing. The state stays in a temporary
folder; the wheel folder is a cache, filled once.

    python tests/bench/bench_verify_gate.py [--runs 7] [--wheels DIR] [--quick]
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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests/, for its builders
from builders.wheelhouses import real_cpu_torch_folder

GATE = ("verify", "--no-test", "--oneline")


def without_fingerprints(snapshot: Path) -> None:
    """Take every environment's fingerprint and recorded probe answer out of the last good state."""
    data = json.loads(snapshot.read_text(encoding="utf-8"))
    for env in data.get("environments", []):
        env.pop("probe_fingerprint", None)
        env.pop("probe", None)
    snapshot.write_text(json.dumps(data, indent=2), encoding="utf-8")


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}: {done.stdout}{done.stderr}")
    return seconds, done.stdout.strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--wheels", type=Path, help="the wheel folder (default: a cache folder, filled once)")
    parser.add_argument(
        "--quick", action="store_true", help="the smallest run (tests/bench/test_benches_run.py)"
    )
    args = parser.parse_args()
    if args.quick:
        args.runs = 1
    cache = args.wheels or Path(tempfile.gettempdir()) / "gpuwizard-bench-wheels"
    wheels = real_cpu_torch_folder(cache)
    if wheels is None:
        print("the CPU torch 2.13.0 wheel is not available here; nothing measured")
        return 1
    gpuwizard = shutil.which("gpuwizard", path=str(Path(sys.executable).parent)) or "gpuwizard"
    with tempfile.TemporaryDirectory(prefix="gw-bench-gate-") as scratch_name:
        scratch = Path(scratch_name)
        home = scratch / "home"
        env = {
            **os.environ,
            "GPUWIZARD_HOME": str(home),
            # --quick: the caller's cache (the test suite's run holds the torch it unpacked already).
            "UV_CACHE_DIR": (args.quick and os.environ.get("UV_CACHE_DIR")) or str(scratch / "uv-cache"),
            # The set-up is offline: no refresh of the compatibility data, no index asked.
            "GPUWIZARD_NO_REFRESH": "1",
            "GPUWIZARD_NO_INDEX_CHECK": "1",
        }
        answers = scratch / "lab.toml"
        answers.write_text(
            f'framework = "pytorch"\nversion = "2.13"\nenvironment = "lab"\n'
            f'find_links = "{wheels.as_posix()}"\noffline = true\n',
            encoding="utf-8",
        )
        print(f"setting up: gpuwizard apply --answers {answers} --yes (torch 2.13.0+cpu from {wheels})")
        subprocess.run([gpuwizard, "apply", "--answers", str(answers), "--yes"], env=env, check=True,
                       stdout=subprocess.DEVNULL)  # fmt: skip
        seconds, _ = timed([gpuwizard, "verify", "--no-test"], env)
        print(f"first verify --no-test (probes, records the fingerprint): {seconds:.2f} s")
        snapshot = home / "last-good.json"

        gate: list[float] = []
        for _ in range(args.runs):
            seconds, line = timed([gpuwizard, *GATE], env)
            gate.append(seconds)
        print(f"  {line}")
        probed: list[float] = []
        for _ in range(args.runs):
            without_fingerprints(snapshot)
            seconds, _ = timed([gpuwizard, *GATE], env)
            probed.append(seconds)
    print(f"runs: {args.runs} each; whole process, wall time")
    for label, times in (("gate (recorded probe answer reused)", gate), ("gate without the reuse", probed)):
        print(f"  {label:<38} median {statistics.median(times):5.2f} s  (max {max(times):.2f})")
    print("budget: the gate answers within 1 s on a set-up machine (issue 40)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
