"""Build the sample system reports shipped in resources/samples/ from the test machines.

Each sample is what the real detection reports for a machine of fakes.machines (NVML from the
recorded scenarios, PCI from transcribed lspci, CUDA/cuDNN from installer-shaped trees), with
the temporary folders renamed to the paths a real machine has. ``tests/test_samples.py``
checks the shipped files are exactly what this builds; to rebuild them:

    python tests/builders/samples.py
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent.parent))

from builders.gpu_machines import MACHINES as GPU_MACHINES
from builders.gpu_machines import gpu_machine
from builders.sysfs import NO_GPU_VM, NOUVEAU_DESKTOP
from builders.trees import cudnn_zip, windows_toolkit
from fakes.machines import (
    WINDOWS_HOST,
    WINDOWS_PYTHON,
    WSL2_HOST,
    Machine,
    display_adapter,
    windows_registry,
)
from gpuwizard.core.machine.system_report import ManagerFacts, report_to_json
from gpuwizard.workflow.machine.detect import detect_system

ROOT = Path(__file__).parent.parent.parent


def _windows_two_cuda(root: Path) -> tuple[Machine, dict[str, str]]:
    pf = root / "Program Files"
    cuda_11 = windows_toolkit(pf, "11.2.2")
    cuda_12 = windows_toolkit(pf, "12.1.1")
    cudnn_bin = cudnn_zip(root / "tools" / "cuda", "8.1.0")
    path = [
        root / "Windows",
        cuda_12 / "bin",
        cuda_12 / "libnvvp",
        cuda_11 / "bin",
        cuda_11 / "libnvvp",
        cudnn_bin,
    ]
    machine = Machine(
        root,
        nvml="windows_rtx2080super_610",
        host=WINDOWS_HOST,
        python=WINDOWS_PYTHON,
        env={
            "PATH": ";".join(map(str, path)),
            "ProgramFiles": str(pf),
            "CUDA_PATH": str(cuda_12),
            "CUDA_PATH_V11_2": str(cuda_11),
            "CUDA_PATH_V12_1": str(cuda_12),
            "SystemRoot": str(root / "Windows"),
        },
        registry=windows_registry(
            [
                display_adapter(
                    "NVIDIA GeForce RTX 2080 SUPER", "NVIDIA", "32.0.15.6262", "PCI\\VEN_10DE&DEV_1E81"
                )
            ],
            long_paths=0,
        ),
    )
    return machine, {str(pf): "C:\\Program Files", str(root / "tools"): "C:\\tools"}


def _gpu_machine(name: str, root: Path) -> tuple[Any, dict[str, str]]:
    """An AMD, Intel, Apple or hybrid machine recorded in tests/fixtures/gpus/ (gpu_machines.py)."""
    return gpu_machine(name, root), {}


SAMPLES: dict[str, Callable[[Path], tuple[Any, dict[str, str]]]] = {
    "windows-rtx2080super-two-cuda.json": _windows_two_cuda,
    "linux-4xa100-one-lost.json": lambda root: (Machine(root, nvml="four_a100_one_lost"), {}),
    "linux-h200.json": lambda root: (Machine(root, nvml="h200_linux_610"), {}),
    "wsl2-rtx4070-laptop.json": lambda root: (
        Machine(root, nvml="wsl2_rtx4070_laptop_566", host=WSL2_HOST, wsl_driver_files=["libnvidia-ml.so.1"]),
        {},
    ),
    "linux-gtx970-nouveau.json": lambda root: (
        Machine(root, nvml="gpu_without_driver", pci=NOUVEAU_DESKTOP),
        {},
    ),
    "no-gpu.json": lambda root: (Machine(root, nvml="no_gpu", pci=NO_GPU_VM), {}),
    # One sample per recorded machine of tests/fixtures/gpus/, named after its folder.
    **{f"{name}.json": partial(_gpu_machine, name) for name in GPU_MACHINES},
}


def sample_text(name: str) -> str:
    """The JSON text of one sample, built afresh."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder).resolve()
        machine, renames = SAMPLES[name](root)
        report = detect_system(machine.sources())
        report = replace(report, wizard_version=None, detection_seconds=None, interpreters=(machine.python,))
        if machine.host.system == "Windows":
            report = replace(
                report, managers=ManagerFacts(conda="C:\\Users\\ana\\miniconda3\\Scripts\\conda.exe")
            )
        data = report_to_json(report)
        for section, keys in (("cuda_toolkits", ("root",)), ("cudnn", ("location", "header"))):
            for item in data[section]:
                for key in keys:
                    if item[key]:
                        for old, new in renames.items():
                            item[key] = item[key].replace(old, new)
                        item[key] = item[key].replace("/", "\\")
        for item in data["gpu_runtimes"]:
            for key in ("location", "source"):
                if item[key]:
                    item[key] = item[key].replace(str(root), "")
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        if folder in text or str(root) in text:
            raise AssertionError(f"{name}: a temporary path leaked into the sample")
        return text


def build_samples(folder: Path) -> list[Path]:
    """Write every sample into ``folder``."""
    written = []
    for name in SAMPLES:
        path = folder / name
        path.write_text(sample_text(name), encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    for written_path in build_samples(ROOT / "resources" / "samples"):
        print(written_path)
