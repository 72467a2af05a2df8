"""A stand-in for the ``pynvml`` module (nvidia-ml-py), answering from a recorded scenario.

The real adapter (gpuwizard.adapters.nvml.PynvmlSource) runs unchanged on top of it, so the
tests exercise its error isolation, decoding and shutdown. Values come from the scenario files
in tests/fixtures/nvml/, each of which names the real output it was taken from.

Scenario format (one JSON file):

    {"source": "...",                        # the real output the values come from
     "init_error": null | "LibraryNotFound" | "DriverNotLoaded" | "LibRmVersionMismatch" | ...,
     "system": {"nvmlSystemGetDriverVersion": "546.33", "nvmlSystemGetCudaDriverVersion": 12030,
                "nvmlSystemGetNVMLVersion": "12.546.33"},
     "devices": [{"nvmlDeviceGetName": "...", "nvmlDeviceGetUUID": "...",
                  "nvmlDeviceGetPciInfo.busId": "00000000:01:00.0",
                  "nvmlDeviceGetCudaComputeCapability": [8, 6],
                  "nvmlDeviceGetMemoryInfo.total": 12884901888},
                 {"nvmlDeviceGetHandleByIndex": {"error": "GpuIsLost"}}]}

Any value may be ``{"error": "NotSupported"}`` (or another NVML error name); a function left
out of the scenario raises ``FunctionNotFound``, as an old driver's NVML does. A top-level
``"nvmlDeviceGetCount": {"error": ...}`` makes the count fail. Scenarios recorded on a real machine
by ``tools/gpu_proof/nvml_record.py`` (the GPU proof kit) also hold ``available`` and
``recorded`` (tool, date, binding version), which the fake ignores; a device may then also hold
``nvmlDeviceGetMemoryInfo.used`` and ``nvmlDeviceGetUtilizationRates.gpu``/``.memory``
(tools/gpu_proof/FIXTURES.md).
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

FIXTURES = Path(__file__).parent.parent / "fixtures" / "nvml"


class NVMLError(Exception):
    """Base of the fake NVML errors (as pynvml.NVMLError)."""


def _error_class(name: str) -> type[NVMLError]:
    return type(f"NVMLError_{name}", (NVMLError,), {})


class FakePynvml(ModuleType):
    """A module object with pynvml's names, answering from ``scenario``."""

    def __init__(self, scenario: dict[str, Any]) -> None:
        super().__init__("pynvml")
        self.scenario = scenario
        self.NVMLError = NVMLError
        self._errors: dict[str, type[NVMLError]] = {}
        self.initialised = 0
        self.calls: list[str] = []

    def _error(self, name: str) -> NVMLError:
        cls = self._errors.setdefault(name, _error_class(name))
        return cls(name)

    def _answer(self, table: dict[str, Any], key: str) -> Any:
        self.calls.append(key)
        if self.initialised <= 0:
            raise self._error("Uninitialized")
        if key not in table:
            raise self._error("FunctionNotFound")
        value = table[key]
        if isinstance(value, dict) and "error" in value:
            raise self._error(value["error"])
        return value

    # --- library lifetime -------------------------------------------------------------

    def nvmlInit(self) -> None:  # noqa: N802 - pynvml's names
        self.calls.append("nvmlInit")
        if self.scenario.get("init_error"):
            raise self._error(self.scenario["init_error"])
        self.initialised += 1

    def nvmlShutdown(self) -> None:  # noqa: N802
        self.calls.append("nvmlShutdown")
        if self.initialised <= 0:
            raise self._error("Uninitialized")
        self.initialised -= 1

    # --- system -------------------------------------------------------------------------

    def nvmlSystemGetDriverVersion(self) -> str:  # noqa: N802
        return self._answer(self.scenario.get("system", {}), "nvmlSystemGetDriverVersion")

    def nvmlSystemGetCudaDriverVersion(self) -> int:  # noqa: N802
        return self._answer(self.scenario.get("system", {}), "nvmlSystemGetCudaDriverVersion")

    def nvmlSystemGetNVMLVersion(self) -> str:  # noqa: N802
        return self._answer(self.scenario.get("system", {}), "nvmlSystemGetNVMLVersion")

    # --- devices ------------------------------------------------------------------------

    def nvmlDeviceGetCount(self) -> int:  # noqa: N802
        # A recorded failure of the count itself (tools/gpu_proof/nvml_record.py writes it).
        self._answer({"count": self.scenario.get("nvmlDeviceGetCount", 0)}, "count")
        return len(self.scenario.get("devices", []))

    def nvmlDeviceGetHandleByIndex(self, index: int) -> dict[str, Any]:  # noqa: N802
        devices = self.scenario.get("devices", [])
        if index >= len(devices):
            raise self._error("InvalidArgument")
        device = devices[index]
        problem = device.get("nvmlDeviceGetHandleByIndex")
        if isinstance(problem, dict) and "error" in problem:
            raise self._error(problem["error"])
        return device

    def nvmlDeviceGetName(self, handle: dict[str, Any]) -> Any:  # noqa: N802
        return self._answer(handle, "nvmlDeviceGetName")

    def nvmlDeviceGetUUID(self, handle: dict[str, Any]) -> Any:  # noqa: N802
        return self._answer(handle, "nvmlDeviceGetUUID")

    def nvmlDeviceGetPciInfo(self, handle: dict[str, Any]) -> SimpleNamespace:  # noqa: N802
        return SimpleNamespace(busId=self._answer(handle, "nvmlDeviceGetPciInfo.busId"))

    def nvmlDeviceGetCudaComputeCapability(self, handle: dict[str, Any]) -> tuple[int, int]:  # noqa: N802
        major, minor = self._answer(handle, "nvmlDeviceGetCudaComputeCapability")
        return major, minor

    def nvmlDeviceGetMemoryInfo(self, handle: dict[str, Any]) -> SimpleNamespace:  # noqa: N802
        total = self._answer(handle, "nvmlDeviceGetMemoryInfo.total")
        if "nvmlDeviceGetMemoryInfo.used" in handle:
            return SimpleNamespace(total=total, used=self._answer(handle, "nvmlDeviceGetMemoryInfo.used"))
        return SimpleNamespace(total=total)

    def nvmlDeviceGetUtilizationRates(self, handle: dict[str, Any]) -> SimpleNamespace:  # noqa: N802
        gpu = self._answer(handle, "nvmlDeviceGetUtilizationRates.gpu")
        return SimpleNamespace(gpu=gpu, memory=self._answer(handle, "nvmlDeviceGetUtilizationRates.memory"))


def load_scenario(name: str) -> dict[str, Any]:
    """The recorded scenario ``tests/fixtures/nvml/<name>.json``."""
    data: dict[str, Any] = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))
    return data


def scenario_names() -> list[str]:
    """Every recorded NVML scenario."""
    return sorted(path.stem for path in FIXTURES.glob("*.json"))
