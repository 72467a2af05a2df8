"""System reports for recommendation tests, from a compact description of a machine."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gpuwizard.core.machine.system_report import SystemReport, report_from_json


def machine(
    *,
    os: str = "linux",
    gpus: Sequence[tuple[str, str | None]] = (("NVIDIA GeForce RTX 3060", "8.6"),),
    driver: str | None = "560.94",
    cuda_max: str | None = None,
    python: str | None = "3.11",
    wsl: bool = False,
    toolkits: Sequence[Mapping[str, Any]] = (),
    cudnn: Sequence[Mapping[str, Any]] = (),
    conda: bool = False,
    other_gpus: Sequence[str] = (),
    python_extra: Mapping[str, Any] | None = None,
    lost: Sequence[int] = (),
    arch: str = "x86_64",
    macos_version: str | None = None,
) -> SystemReport:
    """A report: ``gpus`` are ``(name, compute capability or None)`` NVIDIA GPUs."""
    data: dict[str, Any] = {
        "schema": "gpuwizard.system/1",
        "os": {
            "family": os,
            "wsl": wsl,
            "release": "",
            "arch": arch,
            "wsl_version": 2 if wsl else None,
            "macos_version": macos_version,
        },
        "python": (
            {"version": f"{python}.0", "executable": "python", "bits": 64, **(python_extra or {})}
            if python
            else None
        ),
        "driver": {"version": driver, "cuda_max": cuda_max, "source": "nvml"} if driver else None,
        "gpus": [
            {
                "index": i,
                "vendor": "nvidia",
                "name": name,
                "compute_capability": cc,
                "status": ("lost" if i in lost else "ok") if driver else "no-driver",
            }
            for i, (name, cc) in enumerate(gpus)
        ]
        + [{"index": len(gpus) + i, "vendor": _vendor_of(n), "name": n} for i, n in enumerate(other_gpus)],
        "cuda_toolkits": list(toolkits),
        "cudnn": list(cudnn),
        "managers": {
            "uv": None,
            "conda": "/opt/conda/bin/conda" if conda else None,
            "mamba": None,
            "micromamba": None,
        },
        "findings": [],
    }
    return report_from_json(data)


def _vendor_of(name: str) -> str:
    """The vendor of a non-NVIDIA GPU named in a scenario."""
    if "AMD" in name or "Radeon" in name:
        return "amd"
    return "apple" if name.startswith("Apple") else "intel"
