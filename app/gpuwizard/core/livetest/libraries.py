r"""Where an environment's CUDA libraries come from, as typed values: loaded files, NVIDIA wheels, DLL hook.

The probes report them (``probes/cuda_libraries.py``): the live test in its ``libraries`` event,
the environment report (``probes/env_report.py``) in its object. This module reads them once,
tolerantly (a field missing or of the wrong shape is "unknown"), for the live test's result
(:class:`~gpuwizard.core.livetest.events.LiveTestResult`) and for ``verify``'s drift check of the
NVIDIA wheels (``core/health/wheel_drift.py``); they are written back by the shared codec
(:func:`gpuwizard.core.events.value_to_json`: each as an object of its fields, in their order).

>>> wheel = CudaWheel("nvidia-cudnn-cu11", "8.9.5.29")
>>> (wheel.family, wheel.cuda_tag, wheel.major, wheel.pin)
('nvidia-cudnn', 'cu11', '8', 'nvidia-cudnn-cu11==8.9.5.29')
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from gpuwizard.core.events import json_field, value_from_json

# NVIDIA's CUDA wheels name the CUDA major they are for as a ``-cuNN`` suffix
# (nvidia-cudnn-cu11, nvidia-cublas-cu12: pypi.org/user/nvidia); the same library for another
# CUDA major is the same name with another suffix.
_CUDA_SUFFIX: Final = re.compile(r"^(?P<family>.+?)-(?P<tag>cu\d+)$")


@dataclass(frozen=True)
class CudaLibrary:
    """A CUDA-family library loaded in the process: its file name and the file it came from."""

    name: str
    path: str


@dataclass(frozen=True)
class CudaWheel:
    """An installed ``nvidia-*`` distribution (name normalised as PEP 503 compares names)."""

    name: str
    version: str

    @property
    def family(self) -> str:
        """The name without its CUDA suffix: ``nvidia-cudnn`` for ``nvidia-cudnn-cu11``."""
        match = _CUDA_SUFFIX.match(self.name)
        return match.group("family") if match else self.name

    @property
    def cuda_tag(self) -> str | None:
        """The CUDA suffix of its name (``cu11``), None when it has none."""
        match = _CUDA_SUFFIX.match(self.name)
        return match.group("tag") if match else None

    @property
    def major(self) -> str:
        """The first part of its version (``8`` for cuDNN 8.9.5.29): within it, the ABI is kept."""
        return self.version.split(".", 1)[0]

    @property
    def pin(self) -> str:
        """``name==version``: what ``pip install`` takes to put exactly this one back."""
        return f"{self.name}=={self.version}"


@dataclass(frozen=True)
class DllHook:
    r"""What gpuwizard's DLL start-up hook did in a process (``probes/cuda_dll_hook.py``).

    Attributes:
        active: It put at least one ``nvidia\*\bin`` folder on the DLL search path, without a problem.
        folders: Those folders.
        problem: Why it added nothing, when it failed; None otherwise.
    """

    active: bool = json_field(read=lambda value: value is True)  # only a true boolean says it worked
    folders: tuple[str, ...] = ()
    problem: str | None = None


def libraries_from_json(value: object) -> tuple[CudaLibrary, ...]:
    """``[{"name", "path"}]`` as libraries; entries of another shape, or without both, are left out.

    >>> libraries_from_json([{"name": "libcudart.so.12", "path": "/x/libcudart.so.12"}, 7])
    (CudaLibrary(name='libcudart.so.12', path='/x/libcudart.so.12'),)
    """
    if not isinstance(value, list):
        return ()
    return tuple(
        value_from_json(CudaLibrary, item)
        for item in value
        if isinstance(item, Mapping) and item.get("name") and item.get("path")
    )


def wheels_from_json(value: object) -> tuple[CudaWheel, ...] | None:
    """``[{"name", "version"}]`` as wheels, named as PEP 503 compares names, sorted by name, each once.

    None when it is not a list (unknown).

    >>> wheels_from_json([{"name": "NVIDIA-cudnn-cu11", "version": "8.9.5.29"}, {"version": "1"}, "x"])
    (CudaWheel(name='nvidia-cudnn-cu11', version='8.9.5.29'),)
    """
    if not isinstance(value, list):
        return None
    wheels = {
        str(item["name"]).lower(): CudaWheel(str(item["name"]).lower(), str(item.get("version") or ""))
        for item in value
        if isinstance(item, Mapping) and item.get("name")
    }
    return tuple(wheels[name] for name in sorted(wheels))


def dll_hook_from_json(value: object) -> DllHook | None:
    """``{"active", "folders", "problem"}`` as a hook; None for anything else (no hook).

    >>> dll_hook_from_json({"active": "yes", "folders": ["C:/nvidia/cudnn/bin"]})
    DllHook(active=False, folders=('C:/nvidia/cudnn/bin',), problem=None)
    """
    return value_from_json(DllHook, value) if isinstance(value, Mapping) else None
