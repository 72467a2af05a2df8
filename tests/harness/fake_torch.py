"""A stand-in ``torch`` module built from a recorded printout (tests/fixtures/frameworks/*.json).

The live test's probe asks torch which GPU it has (``probes/torch_devices.py``): ``torch.version``,
``torch.cuda`` (CUDA, or HIP on ROCm), ``torch.xpu``, ``torch.backends.mps`` and ``torch.mps``.
No AMD, Intel or Apple GPU can be had here, so those paths run on a module whose answers are the
ones real machines printed, as the fixture's ``torch`` object records them:

- ``__version__``; ``version``: ``cuda``, ``hip``, ``xpu`` (a key left out is an attribute the
  build does not have, as ``torch.version.xpu`` before 2.7);
- ``cuda``: ``is_available``, ``arch_list``, ``devices`` (each printed property; the total memory
  as printed, ``total_memory_mb``), ``is_bf16_supported`` when recorded;
- ``cudnn_version``: what ``torch.backends.cudnn.version()`` printed;
- ``xpu`` (left out: a torch before 2.4, without ``torch.xpu``): ``compiled``, ``is_available``,
  ``arch_list``, ``devices``, ``is_bf16_supported`` when recorded;
- ``mps``: ``is_built``, ``is_available``.

A function the record does not have raises AttributeError when called, as a value that was never
printed is unknown. ``calls`` lists each ``synchronize`` and ``empty_cache`` by module, so a test
sees which runtime the backend waited on. Stdlib only: a probe run in a child process can use it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "frameworks"
_MIB = 1024 * 1024


def load_record(name: str) -> dict[str, Any]:
    """The fixture ``name`` (its file name) as recorded: ``recorded`` (the sources), ``torch``, ``platform``."""
    record: dict[str, Any] = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    return record


def fake_torch(record: dict[str, Any]) -> ModuleType:
    """A ``torch`` module that answers as the recorded one did (``record``: a fixture's ``torch``)."""
    torch = ModuleType("torch")
    calls: list[str] = []
    torch.__dict__["calls"] = calls
    torch.__dict__["__version__"] = record["__version__"]
    torch.__dict__["version"] = SimpleNamespace(**record.get("version", {}))
    cuda = record.get("cuda", {})
    torch.__dict__["cuda"] = _runtime(
        cuda, "cuda", calls, get_arch_list=lambda: list(cuda.get("arch_list", []))
    )
    torch.__dict__["backends"] = SimpleNamespace(
        cudnn=SimpleNamespace(version=lambda: record.get("cudnn_version")),
        mps=SimpleNamespace(
            is_built=lambda: bool(record.get("mps", {}).get("is_built")),
            is_available=lambda: bool(record.get("mps", {}).get("is_available")),
        ),
        cuda=SimpleNamespace(matmul=SimpleNamespace(allow_tf32=False)),
    )
    if "xpu" in record:
        xpu = record["xpu"]
        torch.__dict__["xpu"] = _runtime(
            xpu,
            "xpu",
            calls,
            _is_compiled=lambda: bool(xpu.get("compiled")),
            get_arch_list=lambda: list(xpu.get("arch_list", [])),
        )
    torch.__dict__["mps"] = SimpleNamespace(
        synchronize=lambda: calls.append("mps.synchronize"),
        empty_cache=lambda: calls.append("mps.empty_cache"),
    )
    torch.__dict__["get_num_threads"] = lambda: 1
    torch.__dict__["set_num_threads"] = lambda count: None
    torch.__dict__["get_float32_matmul_precision"] = lambda: "high"  # CUDA's TF32 default
    return torch


def _runtime(
    facts: dict[str, Any], name: str, calls: list[str], **extra: Callable[..., Any]
) -> SimpleNamespace:
    """``torch.cuda`` or ``torch.xpu`` from its recorded facts."""
    devices = [_properties(device) for device in facts.get("devices", [])]
    module = SimpleNamespace(
        is_available=lambda: bool(facts.get("is_available")),
        device_count=lambda: len(devices) if facts.get("is_available") else 0,
        get_device_properties=lambda index: devices[index],
        get_device_name=lambda index=0: devices[index].name,
        synchronize=lambda: calls.append(f"{name}.synchronize"),
        empty_cache=lambda: calls.append(f"{name}.empty_cache"),
        **extra,
    )
    if "is_bf16_supported" in facts:
        module.is_bf16_supported = lambda: bool(facts["is_bf16_supported"])
    return module


def _properties(device: dict[str, Any]) -> SimpleNamespace:
    """A device's properties as printed; the memory printed in MB is given back in bytes, as torch has it."""
    props = {key: value for key, value in device.items() if key != "total_memory_mb"}
    if "total_memory_mb" in device:
        props["total_memory"] = int(device["total_memory_mb"]) * _MIB
    return SimpleNamespace(**props)
