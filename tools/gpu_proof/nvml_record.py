"""Record NVML's raw answers as an NVML scenario: ``python tools/gpu_proof/nvml_record.py OUT/nvml.json``.

The GPU proof kit runs this with its own Python (the one with PyTorch) on the machine with the GPU.
It asks NVML exactly what the wizard's NVML adapter asks (``app/gpuwizard/adapters/nvml.py``:
``PynvmlSource`` for detection, ``UsageSampler`` during the live test) and writes the answers, per
device, in the scenario format that ``tests/fakes/fake_pynvml.py`` replays (its docstring defines
it), so that ``tools/gpu_proof/to_fixtures.py`` can turn it into ``tests/fixtures/nvml/NAME.json``:

- ``system``: ``nvmlSystemGetDriverVersion``, ``nvmlSystemGetCudaDriverVersion``,
  ``nvmlSystemGetNVMLVersion``;
- ``devices``, one entry per index below ``nvmlDeviceGetCount``: ``nvmlDeviceGetName``,
  ``nvmlDeviceGetUUID``, ``nvmlDeviceGetPciInfo.busId``, ``nvmlDeviceGetCudaComputeCapability``,
  ``nvmlDeviceGetMemoryInfo.total`` and ``.used``, ``nvmlDeviceGetUtilizationRates.gpu`` and
  ``.memory`` (the last three at the moment of recording: the wizard samples them while it trains);
  a device whose ``nvmlDeviceGetHandleByIndex`` fails holds only that call and its error.

An NVML error is recorded as the format records it, ``{"error": "GpuIsLost"}`` (pynvml's class
``NVMLError_GpuIsLost`` without its prefix, as the adapter names it). ``FunctionNotFound``, and a
binding too old to have the function at all, are recorded by leaving the key out: the format's
own meaning of a missing key. A failing ``nvmlDeviceGetCount`` is recorded as a top-level
``"nvmlDeviceGetCount": {"error": ...}``, an addition the fake reads too.

Where NVML cannot be used (nvidia-ml-py missing, no driver, ``nvmlInit`` failing) the file says
``{"available": false, "error": "..."}`` (plus ``init_error``, the scenario's field, when
``nvmlInit`` raised an NVML error) and the exit status is still 0: a machine without a GPU is a
result, not a failure of the recorder. Exit 2 only for bad arguments.

Standard library plus ``pynvml`` (nvidia-ml-py); Python 3.10 or later.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import platform
import sys
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from types import ModuleType
from typing import Any, Final

TOOL: Final = "tools/gpu_proof/nvml_record.py"
#: nvidia-ml-py's distribution name (pypi.org/project/nvidia-ml-py): it provides ``pynvml``.
BINDING: Final = "nvidia-ml-py"


class _Absent:
    """An answer to leave out of the scenario (``FunctionNotFound``: the format's missing key)."""


ABSENT: Final = _Absent()


def _text(value: object) -> str:
    """Older nvidia-ml-py releases return bytes, newer ones str (as the adapter's ``_text``)."""
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def _error_name(error: BaseException) -> str:
    """``NVMLError_GpuIsLost`` -> ``GpuIsLost``, exactly as the adapter's ``_error_name``."""
    name = type(error).__name__
    return name.removeprefix("NVMLError_") if name != "NVMLError" else f"NVMLError({error})"


class _Recorder:
    """Calls NVML functions and turns each answer or error into a scenario value."""

    def __init__(self, nvml: ModuleType) -> None:
        self.nvml = nvml

    def answer(self, call: Callable[[], object]) -> Any:  # noqa: ANN401 - pynvml's structures are untyped
        """The value ``call`` returns, ``{"error": NAME}`` when NVML raised, or ABSENT."""
        try:
            return call()
        except self.nvml.NVMLError as error:
            name = _error_name(error)
            return ABSENT if name == "FunctionNotFound" else {"error": name}
        except AttributeError:
            # The binding is older than the function: the adapter reads this as FunctionNotFound.
            return ABSENT
        except UnicodeDecodeError:
            # A name that is not UTF-8: the adapter records "Unknown" for it (nvitop does the same).
            return {"error": "Unknown"}

    def put(self, table: dict[str, Any], key: str, call: Callable[[], object]) -> object:
        """Record ``call``'s answer under ``key`` (unless absent); returns the answer."""
        value = self.answer(call)
        if value is not ABSENT:
            table[key] = value
        return value


def _is_error(value: object) -> bool:
    return isinstance(value, dict) and "error" in value


def _record_device(recorder: _Recorder, index: int) -> dict[str, Any]:
    nvml = recorder.nvml
    device: dict[str, Any] = {}
    handle = recorder.answer(lambda: nvml.nvmlDeviceGetHandleByIndex(index))
    if handle is ABSENT or _is_error(handle):
        # A lost GPU: the only call the adapter makes for it (gpustat #125).
        device["nvmlDeviceGetHandleByIndex"] = handle if _is_error(handle) else {"error": "FunctionNotFound"}
        return device
    recorder.put(device, "nvmlDeviceGetName", lambda: _text(nvml.nvmlDeviceGetName(handle)))
    recorder.put(device, "nvmlDeviceGetUUID", lambda: _text(nvml.nvmlDeviceGetUUID(handle)))
    recorder.put(device, "nvmlDeviceGetPciInfo.busId", lambda: _text(nvml.nvmlDeviceGetPciInfo(handle).busId))
    recorder.put(
        device,
        "nvmlDeviceGetCudaComputeCapability",
        lambda: [int(part) for part in nvml.nvmlDeviceGetCudaComputeCapability(handle)],
    )
    _put_fields(recorder, device, "nvmlDeviceGetMemoryInfo", lambda: nvml.nvmlDeviceGetMemoryInfo(handle),
                ("total", "used"))  # fmt: skip
    _put_fields(recorder, device, "nvmlDeviceGetUtilizationRates",
                lambda: nvml.nvmlDeviceGetUtilizationRates(handle), ("gpu", "memory"))  # fmt: skip
    return device


def _put_fields(
    recorder: _Recorder, device: dict[str, Any], call: str, ask: Callable[[], Any], fields: tuple[str, ...]
) -> None:
    """One call whose answer is a structure: ``CALL.FIELD`` keys, or its error under the first field."""
    answer = recorder.answer(ask)
    if answer is ABSENT:
        return
    if _is_error(answer):
        device[f"{call}.{fields[0]}"] = answer
        return
    for name in fields:
        recorder.put(device, f"{call}.{name}", lambda name=name: int(getattr(answer, name)))


def _record_initialised(nvml: ModuleType) -> dict[str, Any]:
    recorder = _Recorder(nvml)
    system: dict[str, Any] = {}
    recorder.put(system, "nvmlSystemGetDriverVersion", lambda: _text(nvml.nvmlSystemGetDriverVersion()))
    recorder.put(system, "nvmlSystemGetCudaDriverVersion", lambda: int(nvml.nvmlSystemGetCudaDriverVersion()))
    recorder.put(system, "nvmlSystemGetNVMLVersion", lambda: _text(nvml.nvmlSystemGetNVMLVersion()))
    scenario: dict[str, Any] = {"system": system}
    count = recorder.answer(lambda: int(nvml.nvmlDeviceGetCount()))
    if count is ABSENT or _is_error(count):
        scenario["nvmlDeviceGetCount"] = count if _is_error(count) else {"error": "FunctionNotFound"}
        count = 0
    scenario["devices"] = [_record_device(recorder, index) for index in range(count)]
    return scenario


def _binding_version() -> str | None:
    try:
        return metadata.version(BINDING)
    except metadata.PackageNotFoundError:
        return None


def _source(scenario: dict[str, Any], recorded: dict[str, Any]) -> str:
    """The scenario's ``source`` line: what recorded it, when, and what it saw."""
    binding = recorded.get("binding_version") or "version unknown"
    head = f"gpu proof kit run ({TOOL}, {BINDING} {binding}) on {recorded['date']}"
    if not scenario.get("available"):
        return f"{head}: NVML not available ({scenario.get('error')})"
    names = [
        device.get("nvmlDeviceGetName")
        for device in scenario["devices"]
        if isinstance(device.get("nvmlDeviceGetName"), str)
    ]
    gpus = ", ".join(f"{names.count(name)} x {name}" for name in dict.fromkeys(names)) or "no GPU"
    driver = scenario["system"].get("nvmlSystemGetDriverVersion")
    return f"{head}: {gpus}, driver {driver if isinstance(driver, str) else 'unknown'}"


def record(load: Callable[[], ModuleType], now: datetime.datetime | None = None) -> dict[str, Any]:
    """NVML's answers as a scenario, or ``available: false`` with the reason.

    Args:
        load: Returns the ``pynvml`` module (tests pass the fake).
        now: The recording time (default: now, in UTC).
    """
    when = now or datetime.datetime.now(datetime.timezone.utc)
    recorded = {
        "tool": TOOL,
        "date": when.isoformat(timespec="seconds"),
        "binding_version": _binding_version(),
        "python": platform.python_version(),
        "platform": sys.platform,
    }
    scenario: dict[str, Any]
    try:
        nvml = load()
    except ImportError as error:
        scenario = {"available": False, "error": f"{BINDING} is not installed: {error}"}
    else:
        try:
            nvml.nvmlInit()
        except nvml.NVMLError as error:
            scenario = {
                "available": False,
                "error": f"nvmlInit failed: {type(error).__name__}: {error}",
                "init_error": _error_name(error),
            }
        except OSError as error:  # a broken library file, before pynvml can wrap it
            scenario = {"available": False, "error": f"nvmlInit failed: {error}"}
        else:
            try:
                scenario = {"available": True, "init_error": None, **_record_initialised(nvml)}
            finally:
                # The answers are already read; a failed shutdown changes none of them.
                with contextlib.suppress(nvml.NVMLError):
                    nvml.nvmlShutdown()
    scenario["recorded"] = recorded
    return {"source": _source(scenario, recorded), **scenario}


def _import_pynvml() -> ModuleType:
    import pynvml  # noqa: PLC0415 - only where it is asked for; its absence is a result

    module: ModuleType = pynvml
    return module


def main(argv: list[str] | None = None) -> int:
    """Record into the file named on the command line; 0 also where NVML is not available."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="the file to write (OUT/nvml.json)")
    args = parser.parse_args(argv)
    out: Path = args.out
    if not out.parent.is_dir():
        print(f"nvml_record: error: no folder {out.parent}", file=sys.stderr)
        return 2
    scenario = record(_import_pynvml)
    out.write_text(json.dumps(scenario, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"nvml_record: {scenario['source']} -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
