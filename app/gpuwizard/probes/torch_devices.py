"""Which GPU PyTorch trains on: NVIDIA (CUDA), AMD (ROCm), Intel (XPU) or Apple (MPS).

Part of the ``train_test.py`` probe and of ``env_report.py`` (run by path inside the target
environment; stdlib only, Python 3.7 syntax, never imports gpuwizard). ``torch`` is handed in,
never imported here, so a test can hand in a stand-in built from recorded outputs
(tests/fixtures/frameworks/).

PyTorch reaches each vendor's GPUs through another API:

- ``cuda`` and ``rocm`` both through ``torch.cuda``: a ROCm build is HIP behind the CUDA names
  (device ``cuda:0``), told apart by ``torch.version.hip`` (its HIP version, None in any other
  build) and ``torch.version.cuda`` (None in a ROCm build); the gfx target of an AMD GPU is
  ``torch.cuda.get_device_properties(i).gcnArchName`` ("gfx942:sramecc+:xnack-");
- ``xpu`` through ``torch.xpu`` (PyTorch 2.4 and newer): ``torch.xpu._is_compiled()`` says
  whether the build has it, ``torch.version.xpu`` its SYCL toolchain version (from 2.7; None on
  some builds);
- ``mps`` through ``torch.backends.mps`` (``is_built``, ``is_available``) and ``torch.mps``: one
  device, ``mps``; its runtime is the macOS it runs on.

:func:`choose` picks the kind the plan names, or with ``auto`` the first that has a device in
the order cuda/rocm (whichever the build is), xpu, mps. A kind that was asked for and is not
there comes with the facts that say why (``unavailable``): the build lacks it (``not_built``),
the build is the other CUDA-API kind (``other_build``: a ROCm build asked for CUDA), or the
build has it and sees no device (``no_device``, with ``/dev/kfd``'s state for ROCm on Linux and
the variables that hide devices when set). The wizard turns them into a finding.
"""

import os
import platform
import subprocess
import sys
from pathlib import Path
from types import ModuleType

KINDS = ("cuda", "rocm", "xpu", "mps")
#: What ``--device`` takes: a kind, or ``auto``.
REQUESTS = ("auto", *KINDS)
#: The torch device string of each kind's first GPU.
TORCH_DEVICES = {"cuda": "cuda:0", "rocm": "cuda:0", "xpu": "xpu:0", "mps": "mps"}
#: Variables that restrict the devices a runtime enumerates (an empty value hides them all):
#: reported when set, because they are the commonest reason a present GPU is not seen.
VISIBILITY = {
    "cuda": ("CUDA_VISIBLE_DEVICES",),
    "rocm": ("HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"),
    "xpu": ("ZE_AFFINITY_MASK", "ONEAPI_DEVICE_SELECTOR"),
    "mps": (),
}
#: The device file the ROCm runtime opens (read and write) to reach any AMD GPU on Linux.
KFD_PATH = "/dev/kfd"
_MIB = 1024 * 1024


def build_kind(torch: ModuleType) -> "str | None":
    """The kind ``torch.cuda`` is in this build: ``rocm``, ``cuda``, or None (no CUDA API)."""
    version = getattr(torch, "version", None)
    if getattr(version, "hip", None):
        return "rocm"
    if getattr(version, "cuda", None):
        return "cuda"
    return None


def runtime_version(torch: ModuleType, kind: "str | None") -> "str | None":
    """The version of the runtime a kind runs on: the CUDA or HIP build, the XPU toolchain, macOS."""
    version = getattr(torch, "version", None)
    if kind == "cuda":
        return _text_or_none(getattr(version, "cuda", None))
    if kind == "rocm":
        return _text_or_none(getattr(version, "hip", None))
    if kind == "xpu":
        return _text_or_none(getattr(version, "xpu", None))
    if kind == "mps":
        return macos_version()
    return None


def choose(torch: ModuleType, requested: str = "auto") -> "dict":
    """The GPU kind to train on: ``{"gpu_kind", "gpu_runtime_version", "gpu_unavailable"}``.

    ``gpu_kind`` is None when there is none; ``gpu_unavailable`` is None unless a kind was asked
    for and is not there. With ``auto`` a failure to ask about XPU or MPS counts as none (it
    must never break a CUDA or CPU test); asked for by name, it is said in ``error``.
    """
    if requested == "auto":
        kind = _first_available(torch)
        return {
            "gpu_kind": kind,
            "gpu_runtime_version": runtime_version(torch, kind),
            "gpu_unavailable": None,
        }
    available, error = _available(torch, requested)
    if available:
        return {
            "gpu_kind": requested,
            "gpu_runtime_version": runtime_version(torch, requested),
            "gpu_unavailable": None,
        }
    return {
        "gpu_kind": None,
        "gpu_runtime_version": None,
        "gpu_unavailable": unavailable(torch, requested, error),
    }


def _first_available(torch: ModuleType) -> "str | None":
    cuda_kind = build_kind(torch)
    # torch.cuda as before this module: an exception there ends the test with its own error.
    if cuda_kind is not None and torch.cuda.is_available():
        return cuda_kind
    for kind in ("xpu", "mps"):
        if _available(torch, kind)[0]:
            return kind
    return None


def _available(torch: ModuleType, kind: str) -> "tuple":
    """(whether ``kind`` has a device, the error asking raised or None)."""
    try:
        if kind in ("cuda", "rocm"):
            return build_kind(torch) == kind and bool(torch.cuda.is_available()), None
        if kind == "xpu":
            return xpu_compiled(torch) and bool(torch.xpu.is_available()), None
        if kind == "mps":
            return mps_built(torch) and bool(torch.backends.mps.is_available()), None
    except Exception as error:  # noqa: BLE001 - a runtime that fails to start says so here
        return False, "%s: %s" % (type(error).__name__, error)
    return False, None


def xpu_compiled(torch: ModuleType) -> bool:
    """Whether the build has XPU support (``torch.xpu._is_compiled``; else ``torch.version.xpu``)."""
    module = getattr(torch, "xpu", None)
    compiled = getattr(module, "_is_compiled", None)
    if callable(compiled):
        return bool(compiled())
    return module is not None and getattr(getattr(torch, "version", None), "xpu", None) is not None


def mps_built(torch: ModuleType) -> bool:
    """Whether the build has MPS support (``torch.backends.mps.is_built``)."""
    mps = getattr(getattr(torch, "backends", None), "mps", None)
    is_built = getattr(mps, "is_built", None)
    return bool(is_built()) if callable(is_built) else False


def unavailable(torch: ModuleType, kind: str, error: "str | None" = None) -> "dict":
    """Why ``kind``, asked for, has no device: the facts, in the order the wizard reads them."""
    cuda_kind = build_kind(torch)
    if kind in ("cuda", "rocm"):
        if cuda_kind == kind:
            reason = "no_device"
        elif cuda_kind is not None:
            reason = "other_build"
        else:
            reason = "not_built"
    elif kind == "xpu":
        reason = "no_device" if xpu_compiled(torch) else "not_built"
    else:
        reason = "no_device" if mps_built(torch) else "not_built"
    facts = {
        "expected": kind,
        "reason": reason,
        "build": _text_or_none(getattr(torch, "__version__", None)),
    }  # type: dict
    # The runtime the build has: the HIP of a ROCm build asked for CUDA names the mismatch.
    runtime_kind = cuda_kind if reason == "other_build" else kind
    facts["runtime_version"] = runtime_version(torch, runtime_kind) if reason != "not_built" else None
    if kind == "rocm" and reason == "no_device":
        facts["kfd"] = kfd_state()
    hidden = {name: os.environ[name] for name in VISIBILITY.get(kind, ()) if name in os.environ}
    facts["hidden_by"] = hidden or None
    if kind == "mps":
        facts["machine"] = platform.machine() or None
    facts["error"] = error
    return {key: value for key, value in facts.items() if value is not None or key in ("expected", "reason")}


def kfd_state(path: "str | None" = None) -> "str | None":
    """``/dev/kfd`` for this user: ``missing``, ``denied`` (not readable and writable), ``ok``; None off Linux.

    Asked with ``os.access``, never opened: opening it starts a KFD process context.
    """
    if not sys.platform.startswith("linux"):
        return None
    where = path or KFD_PATH
    if not Path(where).exists():
        return "missing"
    return "ok" if os.access(where, os.R_OK | os.W_OK) else "denied"


def list_gpus(torch: ModuleType, kind: "str | None") -> "list":
    """Each GPU of ``kind`` the framework sees, as the probe reports it (``index``, ``name``, ...).

    The keys come in the order the wizard's ``device`` event declares them (``gpu_kind``, and
    ``gcn_arch`` for ROCm, right after the name), then the rest.
    """
    if kind in ("cuda", "rocm"):
        return [_cuda_gpu(torch, kind, index) for index in range(torch.cuda.device_count())]
    if kind == "xpu":
        return [_xpu_gpu(torch, index) for index in range(torch.xpu.device_count())]
    if kind == "mps":
        return [_mps_gpu(torch)]
    return []


def _cuda_gpu(torch: ModuleType, kind: str, index: int) -> "dict":
    props = torch.cuda.get_device_properties(index)
    entry = {"index": index, "name": str(props.name), "gpu_kind": kind}  # type: dict
    if kind == "rocm":
        # "gfx90a:sramecc+:xnack-": the target, then its features (ROCm's target-ID syntax).
        entry["gcn_arch"] = _text_or_none(getattr(props, "gcnArchName", None))
    major, minor = getattr(props, "major", None), getattr(props, "minor", None)
    # On ROCm major.minor is HIP's reading of the gfx target (gfx942 -> 9.4), kept as torch says it.
    entry["compute_capability"] = (
        "%d.%d" % (major, minor) if major is not None and minor is not None else None
    )
    entry["memory_total_mib"] = _mib(getattr(props, "total_memory", None))
    return entry


def _xpu_gpu(torch: ModuleType, index: int) -> "dict":
    props = torch.xpu.get_device_properties(index)
    return {
        "index": index,
        "name": str(getattr(props, "name", "") or torch.xpu.get_device_name(index)),
        "gpu_kind": "xpu",
        "compute_capability": None,
        "memory_total_mib": _mib(getattr(props, "total_memory", None)),
        "driver_version": _text_or_none(getattr(props, "driver_version", None)),
    }


def _mps_gpu(torch: ModuleType) -> "dict":
    memory = None
    recommended = getattr(getattr(torch, "mps", None), "recommended_max_memory", None)  # PyTorch 2.5+
    if callable(recommended):
        try:
            memory = _mib(recommended())
        except Exception:  # noqa: BLE001 - only a detail
            memory = None
    return {
        "index": 0,
        # Apple silicon's GPU is part of its chip; an Intel Mac's is an AMD GPU Metal reaches.
        "name": apple_chip() or ("Apple GPU" if platform.machine() == "arm64" else "Metal GPU"),
        "gpu_kind": "mps",
        "compute_capability": None,
        "memory_total_mib": memory,
    }


def matmul_dtypes(torch: ModuleType, kind: str) -> "list":
    """The dtypes a kind's matmul is measured in: float32, then float16 and bfloat16 where they run.

    ROCm and XPU say whether bfloat16 works (``is_bf16_supported``); MPS has it from macOS 14 on
    Apple silicon ("MPS BFloat16 is only supported on MacOS 14 or newer"; Intel Macs' AMD GPUs
    have none) and never has float64, which the test never uses.
    """
    half = True
    if kind == "xpu":
        try:
            half = bool(getattr(torch.xpu.get_device_properties(0), "has_fp16", True))
        except Exception:  # noqa: BLE001 - unknown: assume the common case
            half = True
    dtypes = ["float32", "float16"] if half else ["float32"]
    supported = False
    try:
        if kind == "rocm":
            supported = bool(torch.cuda.is_bf16_supported())
        elif kind == "xpu":
            supported = bool(torch.xpu.is_bf16_supported())
        elif kind == "mps":
            supported = _version_tuple(macos_version()) >= (14,) and platform.machine() == "arm64"
    except Exception:  # noqa: BLE001 - unknown: leave bfloat16 out rather than fail on it
        supported = False
    if supported:
        dtypes.append("bfloat16")
    return dtypes


def macos_version() -> "str | None":
    """The macOS version (``14.5``); None elsewhere."""
    if platform.system() != "Darwin":
        return None
    return platform.mac_ver()[0] or None


def apple_chip() -> "str | None":
    """The Apple silicon chip's name (``Apple M3 Pro``), whose GPU MPS uses; None elsewhere or on Intel."""
    if platform.system() != "Darwin" or platform.machine() != "arm64":
        return None
    try:
        done = subprocess.run(
            ["/usr/sbin/sysctl", "-n", "machdep.cpu.brand_string"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            universal_newlines=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None


def _version_tuple(text: "str | None") -> "tuple":
    """``"14.5"`` as ``(14, 5)``; ``()`` for None or text that is no version.

    >>> _version_tuple("14.5"), _version_tuple("26.0.1"), _version_tuple(None)
    ((14, 5), (26, 0, 1), ())
    """
    parts = []
    for part in str(text or "").split("."):
        if not part.isdigit():
            break
        parts.append(int(part))
    return tuple(parts)


def _mib(value: object) -> "int | None":
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return int(value // _MIB)


def _text_or_none(value: object) -> "str | None":
    return None if value in (None, "") else str(value)
