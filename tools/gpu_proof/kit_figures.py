"""The figures of a kit run, read from its files: GPUs and driver, verdict, speeds, the budget.

Each reader takes what a file holds and tolerates what is missing (a failed step leaves no file
or half of one): a figure it cannot read is None.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

#: The live test's matmul burst must reach at least this share of the measured matmul peak
#: (issue 24: "at least 70 % of the measured matmul rate").
BUDGET_PERCENT: Final = 70.0


def read_json(path: Path) -> object:
    """The file's JSON value, or None when it is missing or not JSON."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def last_result(path: Path) -> dict[str, Any] | None:
    """The last ``{"event": "result", ...}`` line of a JSON-lines file (``test --json``)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    for line in reversed(lines):
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict) and value.get("event") == "result":
            return value
    return None


def machine_figures(detect: object) -> dict[str, Any]:
    """The detected GPUs and driver (``detect --json``: ``gpuwizard.system/1``)."""
    if not isinstance(detect, dict):
        return {"gpus": None, "driver": None, "cuda_max": None}
    driver = detect.get("driver") if isinstance(detect.get("driver"), dict) else None
    gpus = [
        {key: gpu.get(key) for key in ("name", "vendor", "compute_capability", "memory_total_mib")}
        for gpu in detect.get("gpus") or []
        if isinstance(gpu, dict)
    ]
    return {
        "gpus": gpus,
        "driver": driver.get("version") if driver else None,
        "cuda_max": driver.get("cuda_max") if driver else None,
    }


def test_figures(result: dict[str, Any] | None) -> dict[str, Any]:
    """The live test's figures, from its ``result`` event (docs/architecture.md, "Live-test events")."""
    if result is None:
        return {"verdict": None}
    said = result.get("samples_per_s")
    rates: dict[str, Any] = said if isinstance(said, dict) else {}
    return {
        "verdict": result.get("verdict"),
        "test_device": result.get("device"),
        "framework_version": result.get("framework_version"),
        "samples_per_s_gpu": rates.get("gpu"),
        "samples_per_s_cpu": rates.get("cpu"),
        "speedup": result.get("speedup"),
        "test_seconds": result.get("seconds"),
        "live_matmul_tflops": result.get("matmul_tflops") or {},
        "gpu_training_vs_matmul_percent": result.get("gpu_training_vs_matmul_percent"),
        "finding_codes": [
            item.get("code") for item in result.get("findings") or [] if isinstance(item, dict)
        ],
    }


def budget_figures(live: dict[str, Any], matmul: object) -> dict[str, Any]:
    """The live test's matmul burst as a share of the measured peak, per dtype both measured.

    ``budget_ok`` is None where nothing compares (no GPU: the live test measures matmuls on
    the GPU only), else whether every shared dtype reaches :data:`BUDGET_PERCENT`.
    """
    peak = matmul.get("peak_tflops") if isinstance(matmul, dict) else None
    peak = peak if isinstance(peak, dict) else {}
    shares = {}
    for dtype, rate in sorted(live.items()):
        best = peak.get(dtype)
        if isinstance(rate, (int, float)) and isinstance(best, (int, float)) and best > 0:
            shares[dtype] = round(100.0 * rate / best, 1)
    return {
        "matmul_device": matmul.get("device") if isinstance(matmul, dict) else None,
        "matmul_peak_tflops": peak,
        "live_matmul_share_percent": shares,
        "budget_percent": BUDGET_PERCENT,
        "budget_ok": all(share >= BUDGET_PERCENT for share in shares.values()) if shares else None,
    }


def figures(out: Path) -> dict[str, Any]:
    """Every figure of the run in ``out``."""
    live = test_figures(last_result(out / "test.jsonl"))
    return {
        **machine_figures(read_json(out / "detect.json")),
        **live,
        **budget_figures(live.get("live_matmul_tflops") or {}, read_json(out / "matmul.json")),
    }
