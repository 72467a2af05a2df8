"""Benchmark: an environment with torch and numpy from a local wheel folder, wizard vs venv + pip.

The wizard (``gpuwizard env create ... --find-links DIR --offline``, uv path, as a whole process:
detection, creation, install, the import check, constraints) against ``python -m venv`` and
``pip install --no-index --find-links DIR`` of the same wheels, in the same run, alternating.
The performance budgets (docs/architecture.md) put the wizard at no more than half of venv + pip. uv is timed with
its cache cold (an empty ``UV_CACHE_DIR`` per run) and warm (the second install from the same
folder). Prints figures; asserts nothing. ``--quick`` (what the test suite runs, so that the
bench cannot stop working unseen) makes one wizard run of torch alone, without the baseline.

    python tests/bench/bench_env_create.py [--runs 3] [--wheels DIR] [--quick]

``--proven`` times the way to a proven environment instead (issue 41, point 13): ``env create``
(wall, CPU seconds, its import check phase from the ``--json`` stream), then the first and a
second ``gpuwizard test --env``; for this checkout and, with ``--before DIR`` (an older
``app`` folder: ``git archive HEAD app | tar -x -C DIR``), for that code too, alternating.
Without ``PYTHONDONTWRITEBYTECODE`` (as on a person's machine) unless ``--no-write``.

    python tests/bench/bench_env_create.py --proven [--runs 3] [--before DIR] [--no-write]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests/, for its builders and fakes
from builders.wheelhouses import real_cpu_torch_folder


def timed(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def proven_once(gpuwizard: str, wheels: Path, env: dict[str, str]) -> dict[str, float]:
    """One ``env create`` (wall, CPU, its verify phase) then two ``test --env``; seconds each."""
    argv = [gpuwizard, "env", "create", "bench", "--framework", "pytorch", "--version", "2.13",
            "--find-links", str(wheels), "--offline", "--json"]  # fmt: skip
    cpu, started = _children_cpu(), time.perf_counter()
    phases: list[tuple[str, float]] = []
    with subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, text=True) as process:
        assert process.stdout is not None
        for line in process.stdout:
            event = json.loads(line) if line.startswith("{") else {}
            if event.get("event") in ("phase", "result"):
                phases.append((event.get("phase", "end"), time.perf_counter() - started))
    figures = {"create": time.perf_counter() - started, "create CPU": _children_cpu() - cpu}
    spans = itertools.pairwise(phases)
    figures["import check (verify)"] = next(
        (end - begin for (name, begin), (_, end) in spans if name == "verify"), 0.0
    )
    for label in ("first test", "second test"):
        figures[label] = timed([gpuwizard, "test", "--env", "bench"], env)
    figures["create + first test"] = figures["create"] + figures["first test"]
    return figures


def proven(args: argparse.Namespace, gpuwizard: str, wheels: Path) -> int:
    """Time to a proven environment: this checkout (and ``--before``'s code), alternating."""
    versions = {"now": None} if args.before is None else {"before": args.before / "app", "now": None}
    figures: dict[str, list[dict[str, float]]] = {label: [] for label in versions}
    with tempfile.TemporaryDirectory(prefix="gw-bench-") as scratch_name:
        scratch = Path(scratch_name)
        for run in range(args.runs):
            for label, code in versions.items():
                home = scratch / f"home-{label}-{run}"
                env = {**os.environ, "GPUWIZARD_HOME": str(home), "UV_CACHE_DIR": str(scratch / "uv-cache")}
                env.pop("PYTHONDONTWRITEBYTECODE", None)
                env.pop("PYTHONPATH", None)
                if args.no_write:
                    env["PYTHONDONTWRITEBYTECODE"] = "1"
                if code is not None:
                    env["PYTHONPATH"] = str(code)  # ahead of the installed checkout on sys.path
                once = proven_once(gpuwizard, wheels, env)
                figures[label].append(once)
                said = ", ".join(f"{key} {value:.2f}" for key, value in once.items())
                print(f"{label} run {run + 1}: {said} (load {os.getloadavg()[0]:.1f})", flush=True)
                shutil.rmtree(home)
    writes = "PYTHONDONTWRITEBYTECODE=1" if args.no_write else "imports may write bytecode"
    print(f"medians of {args.runs} run(s) ({writes}; {os.cpu_count()} cores):")
    for label, runs in figures.items():
        for key in runs[0]:
            print(f"  {label:6s} {key:24s} {statistics.median(run[key] for run in runs):6.2f} s")
    return 0


def add_proven_options(parser: argparse.ArgumentParser) -> None:
    """``--proven`` and its options (issue 41, point 13)."""
    parser.add_argument("--proven", action="store_true", help="time env create and the first tests instead")
    parser.add_argument(
        "--before", type=Path, help="with --proven: a folder holding an older app/ to compare"
    )
    parser.add_argument("--no-write", action="store_true", help="with --proven: PYTHONDONTWRITEBYTECODE=1")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--wheels", type=Path, help="the wheel folder (default: a cache folder, filled once)")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="one wizard run of torch alone, with the caller's uv cache, no venv + pip "
        "(tests/bench/test_benches_run.py)",
    )
    add_proven_options(parser)
    args = parser.parse_args()
    if args.quick:
        args.runs = 1
    cache = args.wheels or Path(tempfile.gettempdir()) / "gpuwizard-bench-wheels"
    cache.mkdir(parents=True, exist_ok=True)
    extra = () if args.quick else ("numpy",)
    wheels = real_cpu_torch_folder(cache, extra=extra)
    if wheels is None:
        print("the CPU torch 2.13.0 wheel is not available here; nothing measured")
        return 1
    gpuwizard = shutil.which("gpuwizard", path=str(Path(sys.executable).parent)) or "gpuwizard"
    if args.proven:
        return proven(args, gpuwizard, wheels)
    size = sum(wheel.stat().st_size for wheel in wheels.glob("*.whl")) / 1e6
    print(f"wheels: {wheels} ({len(list(wheels.glob('*.whl')))} files, {size:.0f} MB); runs: {args.runs}")
    figures: dict[str, list[float]] = (
        {"wizard, the caller's uv cache": []}
        if args.quick
        else {"venv + pip": [], "wizard, uv cache cold": [], "wizard, uv cache warm": []}
    )
    with_numpy = [] if args.quick else ["--with", "numpy"]
    with tempfile.TemporaryDirectory(prefix="gw-bench-") as scratch_name:
        scratch = Path(scratch_name)
        for run in range(args.runs):
            base = dict(os.environ)
            if args.quick:
                home = scratch / "home"
                env = {**base, "GPUWIZARD_HOME": str(home)}
                argv = [gpuwizard, "env", "create", "bench", "--framework", "pytorch", "--version", "2.13",
                        "--find-links", str(wheels), "--offline", "--json"]  # fmt: skip
                figures["wizard, the caller's uv cache"].append(timed(argv, env))
                continue
            target = scratch / f"pip-{run}"
            pip = [str(target / "bin" / "python"), "-m", "pip", "install", "--disable-pip-version-check",
                   "--no-index", "--find-links", str(wheels), "torch==2.13.0", "numpy"]  # fmt: skip
            started = time.perf_counter()
            subprocess.run([sys.executable, "-m", "venv", str(target)], check=True)
            subprocess.run(
                pip, env={**base, "PIP_FIND_LINKS": str(wheels)}, check=True, stdout=subprocess.DEVNULL
            )
            figures["venv + pip"].append(time.perf_counter() - started)
            shutil.rmtree(target)

            uv_cache = scratch / f"uv-cache-{run}"
            for label in ("wizard, uv cache cold", "wizard, uv cache warm"):
                home = scratch / f"home-{run}-{label[-4:]}"
                env = {**base, "GPUWIZARD_HOME": str(home), "UV_CACHE_DIR": str(uv_cache)}
                argv = [gpuwizard, "env", "create", "bench", "--framework", "pytorch", "--version", "2.13",
                        *with_numpy, "--find-links", str(wheels), "--offline", "--json"]  # fmt: skip
                figures[label].append(timed(argv, env))
                shutil.rmtree(home)
            shutil.rmtree(uv_cache)
    baseline = statistics.median(figures["venv + pip"]) if "venv + pip" in figures else None
    for label, times in figures.items():
        median = statistics.median(times)
        runs = ", ".join(f"{value:.1f}" for value in times)
        ratio = f"{median / baseline:5.2f}" if baseline else "    -"
        print(f"{label:24s} median {median:6.2f} s  ratio {ratio}  (runs: {runs})")
    print("budget: wizard / (venv + pip) <= 0.50 (docs/architecture.md, Performance budgets)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
