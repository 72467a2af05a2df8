"""Benchmark: an environment with torch and numpy from a local wheel folder, wizard vs venv + pip.

The wizard (``gpuwizard env create ... --find-links DIR --offline``, uv path, as a whole process:
detection, creation, install, the import check, constraints) against ``python -m venv`` and
``pip install --no-index --find-links DIR`` of the same wheels, in the same run, alternating.
The performance budgets (docs/architecture.md) put the wizard at no more than half of venv + pip. uv is timed with
its cache cold (an empty ``UV_CACHE_DIR`` per run) and warm (the second install from the same
folder). Prints figures; asserts nothing.

    python tests/bench/bench_env_create.py [--runs 3] [--wheels DIR]
"""

from __future__ import annotations

import argparse
import os
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--wheels", type=Path, help="the wheel folder (default: a cache folder, filled once)")
    args = parser.parse_args()
    cache = args.wheels or Path(tempfile.gettempdir()) / "gpuwizard-bench-wheels"
    cache.mkdir(parents=True, exist_ok=True)
    wheels = real_cpu_torch_folder(cache, extra=("numpy",))
    if wheels is None:
        print("the CPU torch 2.13.0 wheel is not available here; nothing measured")
        return 1
    gpuwizard = shutil.which("gpuwizard", path=str(Path(sys.executable).parent)) or "gpuwizard"
    size = sum(wheel.stat().st_size for wheel in wheels.glob("*.whl")) / 1e6
    print(f"wheels: {wheels} ({len(list(wheels.glob('*.whl')))} files, {size:.0f} MB); runs: {args.runs}")
    figures: dict[str, list[float]] = {
        "venv + pip": [],
        "wizard, uv cache cold": [],
        "wizard, uv cache warm": [],
    }
    with tempfile.TemporaryDirectory(prefix="gw-bench-") as scratch_name:
        scratch = Path(scratch_name)
        for run in range(args.runs):
            base = dict(os.environ)
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
                        "--with", "numpy", "--find-links", str(wheels), "--offline", "--json"]  # fmt: skip
                figures[label].append(timed(argv, env))
                shutil.rmtree(home)
            shutil.rmtree(uv_cache)
    baseline = statistics.median(figures["venv + pip"])
    for label, times in figures.items():
        median = statistics.median(times)
        runs = ", ".join(f"{value:.1f}" for value in times)
        print(f"{label:24s} median {median:6.2f} s  ratio {median / baseline:5.2f}  (runs: {runs})")
    print("budget: wizard / (venv + pip) <= 0.50 (docs/architecture.md, Performance budgets)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
