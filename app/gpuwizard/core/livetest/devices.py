"""The GPU kinds the live test trains on, and why a kind the plan expected is not there.

PyTorch reaches NVIDIA GPUs through CUDA, AMD GPUs through ROCm (HIP behind ``torch.cuda``),
Intel GPUs through XPU and Apple GPUs through MPS (``probes/torch_devices.py``). The probe is
told the kind the plan expects (``--device``); when PyTorch sees no GPU of that kind it trains on
the CPU and says why in its ``start`` event (``gpu_unavailable``, read as :class:`GpuUnavailable`):
the build lacks the kind (``not_built``), the build is the other kind behind ``torch.cuda``
(``other_build``: a ROCm build where CUDA was expected, or the reverse), or the build has it and
sees no device (``no_device``: for ROCm on Linux with ``/dev/kfd``'s state, ``missing``,
``denied`` or ``ok``). :func:`unavailable_finding` turns that into the finding that explains a
``cpu_only`` verdict: which GPU was expected and why none is visible.

>>> missing = GpuUnavailable(expected="rocm", reason="no_device", runtime_version="6.3.42131-fa1d09cbd", kfd="denied")
>>> finding = unavailable_finding(missing)
>>> finding.code, finding.params["variant"]
('GPU_NOT_VISIBLE', 'rocm_kfd_denied')
>>> finding.message
'PyTorch is a ROCm build (HIP 6.3.42131-fa1d09cbd) but sees no GPU: this user cannot open /dev/kfd.'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from gpuwizard.core import gpu_kinds
from gpuwizard.core.events import json_field
from gpuwizard.core.findings.model import Finding, make_finding

#: The GPU kinds, as the probe and the plan (``plan.device``) name them.
GPU_KINDS: Final = gpu_kinds.GPU_KINDS
#: Each kind as people know it (names, never translated).
KIND_NAMES: Final[Mapping[str, str]] = {
    "cuda": "CUDA",
    "rocm": "ROCm",
    "xpu": "Intel XPU",
    "mps": "Apple MPS",
}


@dataclass(frozen=True, kw_only=True)
class GpuUnavailable:
    """Why PyTorch sees no GPU of the kind the plan expected: the probe's facts, in its order.

    Attributes:
        expected: The kind expected (``cuda``, ``rocm``, ``xpu``, ``mps``).
        reason: ``not_built`` (the build lacks the kind), ``other_build`` (the build is the
            other kind behind ``torch.cuda``) or ``no_device`` (it has the kind, and no device).
        build: ``torch.__version__``.
        runtime_version: The build's runtime for the kind (the HIP, CUDA or XPU version; for MPS
            the macOS version); for ``other_build``, the runtime the build has instead.
        kfd: ROCm on Linux: ``/dev/kfd`` is ``missing``, ``denied`` to this user, or ``ok``.
        hidden_by: The variables set that restrict the devices a runtime shows
            (``HIP_VISIBLE_DEVICES``...), with their values.
        machine: MPS: the processor architecture Python runs as (``arm64``, ``x86_64``).
        error: What asking the runtime raised, if it raised.
    """

    expected: str = ""
    reason: str = ""
    build: str | None = json_field(default=None, omit_none=True)
    runtime_version: str | None = json_field(default=None, omit_none=True)
    kfd: str | None = json_field(default=None, omit_none=True)
    hidden_by: Mapping[str, str] | None = json_field(default=None, omit_none=True)
    machine: str | None = json_field(default=None, omit_none=True)
    error: str | None = json_field(default=None, omit_none=True)


def unavailable_finding(unavailable: GpuUnavailable) -> Finding | None:
    """The finding that says which GPU was expected and why PyTorch sees none; None for an unknown kind.

    CUDA keeps the findings it always had (``CPU_ONLY_BUILD``, ``GPU_NOT_VISIBLE``); the other
    kinds have variants of ``GPU_NOT_VISIBLE`` that name their build, runtime and device files.
    """
    facts = {
        "build": unavailable.build or "this torch",
        "runtime": unavailable.runtime_version or "unknown",
        # Not in the templates: kept as the finding's data, for the support report.
        **({"hidden_by": _hidden(unavailable.hidden_by)} if unavailable.hidden_by else {}),
        **({"error": unavailable.error} if unavailable.error else {}),
    }
    variant = _variant(unavailable)
    if variant is None:
        return None
    if variant == "":
        return make_finding("GPU_NOT_VISIBLE", **facts)
    if variant == "cpu_only_build":
        return make_finding("CPU_ONLY_BUILD", **facts)
    return make_finding("GPU_NOT_VISIBLE", variant=variant, **facts)


def _variant(unavailable: GpuUnavailable) -> str | None:
    expected, reason = unavailable.expected, unavailable.reason
    if expected == "cuda":
        if reason == "other_build":
            return "cuda_rocm_build"
        return "cpu_only_build" if reason == "not_built" else ""
    if expected == "rocm":
        if reason != "no_device":
            return "rocm_not_built"
        return {"missing": "rocm_no_kfd", "denied": "rocm_kfd_denied"}.get(
            unavailable.kfd or "", "rocm_no_device"
        )
    if expected in ("xpu", "mps"):
        return f"{expected}_{'no_device' if reason == 'no_device' else 'not_built'}"
    return None


def _hidden(variables: Mapping[str, str]) -> str:
    return ", ".join(f"{name}={value!r}" for name, value in variables.items())
