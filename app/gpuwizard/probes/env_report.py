"""Describe the framework build inside an environment and the GPUs it sees, as one JSON object.

Run by the environment's own interpreter (``python env_report.py --framework pytorch``): stdlib
only, Python 3.7 syntax, never imports gpuwizard. Prints one JSON object and exits 0, or 1 (still
with one JSON object, ``"ok": false``, saying why) when the framework cannot be imported or asked.

The object carries the framework version; whether it was built with CUDA and the CUDA and cuDNN
it was built with (``torch.version.cuda`` and ``torch.backends.cudnn.version()``, or
``tf.sysconfig.get_build_info()``); the compute capabilities the build carries code for
(``torch.cuda.get_arch_list()``, TensorFlow's ``cuda_compute_capabilities``); and each GPU the
framework sees with ``arch_in_build``: whether the build carries code that runs on it.
Machine code (``sm_XY``) runs on GPUs of the same major version and a minor one at least Y
(``sm_90a``-style entries only on exactly 9.0); PTX (``compute_XY``) is compiled by the driver for
any GPU of capability at least X.Y, so a GPU served only that way has ``ptx_only: true``.

It also names the NVIDIA wheels installed (``cuda_wheels``: ``[{"name", "version"}]``, the
``nvidia-*`` distributions), what gpuwizard's DLL start-up hook did (``dll_hook``: ``{"active",
"folders", "problem"}``, or null when the environment has none), both known even when the import
fails, and the CUDA-family libraries the process has loaded once the framework is imported, each
with the file it came from (``cuda_libraries``: ``[{"name", "path"}]``): ``cuda_libraries.py``.

PyTorch's GPUs are looked for per kind (``torch_devices.py``): NVIDIA through CUDA, AMD through
ROCm (``hip_build``; each GPU's ``gcn_arch``, its gfx target, checked against the build's list),
Intel through XPU, Apple through MPS. The report names the kind found (``gpu_kind``) and its
runtime's version (``gpu_runtime_version``: the CUDA or HIP build, the XPU toolchain, the macOS
version); with ``--device KIND`` (a kind the plan expects) it also says why that kind is not
there (``gpu_unavailable``). Each key is written only when known, so a CPU build's report is as
it always was.

``train_test.py`` beside this file imports these helpers, so the two report the same facts.
"""

import json
import os
import platform
import re
import sys
import traceback
import warnings
from pathlib import Path
from types import ModuleType

try:  # imported as gpuwizard.probes.env_report (tests, doctests, train_test.py's own import)
    from . import cuda_libraries, torch_devices
    from .process_end import exit_now
except ImportError:  # run by path (with -I the script's folder is not on sys.path): the file beside
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import cuda_libraries  # type: ignore[import-not-found,no-redef]
    import torch_devices  # type: ignore[import-not-found,no-redef]
    from process_end import exit_now  # type: ignore[import-not-found,no-redef]

FRAMEWORKS = ("pytorch", "tensorflow")
_MODULES = {"pytorch": "torch", "tensorflow": "tensorflow"}
_ARCH = re.compile(r"^(sm|compute)_(\d+)([a-z]?)$")
_WINDOWS_LIB_VERSION = re.compile(r"^64_(\d+)$")


class ImportFailed(Exception):
    """The framework could not be imported; ``cause`` is what the import raised."""

    def __init__(self, framework: str, cause: BaseException, trace: str) -> None:
        super().__init__("%s: %s" % (type(cause).__name__, cause))
        self.framework = framework
        self.cause = cause
        self.trace = trace


def python_info() -> "dict":
    """The interpreter running the probe: version and executable."""
    return {"python": "%d.%d.%d" % sys.version_info[:3], "python_executable": sys.executable}


def import_framework(framework: str) -> ModuleType:
    """Import ``torch`` or ``tensorflow`` quietly and return the module.

    For TensorFlow, C++ logging is kept to errors (``TF_CPP_MIN_LOG_LEVEL=2`` unless set) and
    memory growth is switched on for every GPU before anything else touches them: without it
    TensorFlow takes all GPU memory at once, the usual cause of ``CUDNN_STATUS_INTERNAL_ERROR``.

    Raises:
        ImportFailed: The import raised (any exception, also SystemExit from a broken build).
    """
    if framework == "tensorflow":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    try:
        module = __import__(_MODULES[framework])
    except BaseException as error:  # a broken build may raise anything, even SystemExit
        if isinstance(error, KeyboardInterrupt):
            raise
        raise ImportFailed(framework, error, traceback.format_exc()) from None
    if framework == "tensorflow":
        tensorflow_memory_growth(module)
    return module


def tensorflow_memory_growth(tf: ModuleType) -> "list":
    """Switch on memory growth for every GPU TensorFlow sees; returns the messages of failures.

    Must run before any operation initialises the GPUs (a later call raises RuntimeError, which
    is reported rather than raised: the test then shows whether it matters).
    """
    problems = []
    for gpu in tf.config.list_physical_devices("GPU"):
        try:
            tf.config.experimental.set_memory_growth(gpu, True)
        except Exception as error:  # noqa: BLE001
            problems.append("%s: %s" % (type(error).__name__, error))
    return problems


def framework_report(framework: str, module: ModuleType, device: str = "auto") -> "dict":
    """Version, build (CUDA, cuDNN, architectures) and the GPUs the framework sees.

    ``device`` (PyTorch): the GPU kind to look for (``torch_devices.REQUESTS``); ``auto`` takes
    the first that has one. TensorFlow is looked at as before, whatever it is.
    """
    report = _torch_report(module, device) if framework == "pytorch" else _tensorflow_report(module)
    arch_list = report["arch_list"]
    for gpu in report["gpus"]:
        if gpu.get("gcn_arch"):  # an AMD GPU: the build's list names gfx targets
            covered, ptx_only, matched = gfx_coverage(gpu["gcn_arch"], arch_list)
        else:
            covered, ptx_only, matched = arch_coverage(gpu.get("compute_capability"), arch_list)
        gpu["arch_in_build"] = covered
        gpu["ptx_only"] = ptx_only
        gpu["arch_matched"] = matched
    report["gpu_available"] = bool(report["gpus"])
    return report


def arch_coverage(capability: "str | None", arch_list: "list") -> "tuple":
    """Whether a build with ``arch_list`` runs on a GPU of ``capability`` (``"8.6"``).

    Returns ``(arch_in_build, ptx_only, matched_entry)``; the first two are None when either
    side is unknown (no capability, or an empty architecture list).

    >>> arch_coverage("8.6", ["sm_80", "sm_90"])
    (True, False, 'sm_80')
    >>> arch_coverage("12.0", ["sm_90", "compute_90"])
    (True, True, 'compute_90')
    >>> arch_coverage("7.5", ["sm_80", "sm_90a"])
    (False, False, None)
    """
    wanted = capability_tuple(capability)
    if wanted is None or not arch_list:
        return None, None, None
    native = None  # type: tuple | None
    ptx = None  # type: tuple | None
    for entry in arch_list:
        parsed = _parse_arch(entry)
        if parsed is None:
            continue
        kind, built, suffix = parsed
        if kind == "sm":
            exact_only = suffix == "a"  # sm_90a: arch-specific features, that GPU only
            runs = built == wanted or (not exact_only and built[0] == wanted[0] and built[1] <= wanted[1])
            if runs and (native is None or built > native[0]):
                native = (built, str(entry))
        elif built <= wanted and (suffix != "a" or built == wanted) and (ptx is None or built > ptx[0]):
            ptx = (built, str(entry))
    if native is not None:
        return True, False, native[1]
    if ptx is not None:
        return True, True, ptx[1]
    return False, False, None


def _parse_arch(entry: object) -> "tuple | None":
    text = str(entry).strip().lower()
    plain = re.match(r"^(\d+)\.(\d+)$", text)
    if plain:  # some builds list capabilities as "7.5"
        return "sm", (int(plain.group(1)), int(plain.group(2))), ""
    match = _ARCH.match(text)
    if not match:
        return None
    digits = match.group(2)
    if len(digits) < 2:
        return None
    return match.group(1), (int(digits[:-1]), int(digits[-1])), match.group(3)


def gfx_coverage(gcn_arch: str, arch_list: "list") -> "tuple":
    """Whether a ROCm build with ``arch_list`` carries code for an AMD GPU of ``gcn_arch``.

    ROCm code objects are built per gfx target, with no PTX-like fallback, so the GPU's target
    (``gcnArchName`` without its features) must be in the list. Returns ``(arch_in_build,
    ptx_only, matched_entry)`` as :func:`arch_coverage` does; the first two are None when the
    list is empty.

    >>> gfx_coverage("gfx942:sramecc+:xnack-", ["gfx90a", "gfx942", "gfx1100"])
    (True, False, 'gfx942')
    >>> gfx_coverage("gfx1031", ["gfx1030", "gfx1100"])
    (False, False, None)
    """
    if not arch_list:
        return None, None, None
    target = str(gcn_arch).split(":")[0].strip().lower()
    for entry in arch_list:
        if str(entry).split(":")[0].strip().lower() == target:
            return True, False, str(entry)
    return False, False, None


def capability_tuple(capability: "str | None") -> "tuple | None":
    """``"8.6"`` as ``(8, 6)``; None when it is not of that form."""
    match = re.match(r"^(\d+)\.(\d+)$", str(capability or "").strip())
    return (int(match.group(1)), int(match.group(2))) if match else None


def _torch_report(torch: ModuleType, device: str = "auto") -> "dict":
    cuda_build = getattr(torch.version, "cuda", None)
    hip_build = getattr(torch.version, "hip", None)
    report = {
        "framework_version": str(torch.__version__),
        "built_with_cuda": cuda_build is not None,
        "cuda_build": cuda_build,
        "cudnn_build": None,
        "hip_build": hip_build,
        "arch_list": [],
        "gpus": [],
    }  # type: dict
    if cuda_build is not None or hip_build is not None:
        report["arch_list"] = _torch_arch_list(torch)
        try:
            cudnn = torch.backends.cudnn.version()
        except Exception:  # noqa: BLE001 - a missing libcudnn says so here
            cudnn = None
        if hip_build is not None:
            # On ROCm torch.backends.cudnn is MIOpen, its version MAJOR*1000000 + MINOR*1000 + PATCH
            # (pytorch/pytorch, torch/csrc/cuda/shared/cudnn.cpp): 3001000 is MIOpen 3.1.0.
            report["miopen_build"] = _miopen_text(cudnn)
        else:
            report["cudnn_build"] = _torch_cudnn_text(cudnn)
    # Which GPU it trains on, CUDA, ROCm, XPU or MPS, and the GPUs of that kind it sees: the
    # device kind, its runtime's version, and why a kind asked for is not there (torch_devices).
    # Only what is known is added: a CPU build's report reads as it always did.
    if device != "auto":
        report["device_requested"] = device
    choice = torch_devices.choose(torch, device)
    report.update((key, value) for key, value in choice.items() if value is not None)
    if choice["gpu_kind"] == "xpu":
        report["arch_list"] = _xpu_arch_list(torch)
    report["gpus"] = torch_devices.list_gpus(torch, choice["gpu_kind"])
    return report


def _xpu_arch_list(torch: ModuleType) -> "list":
    # The device targets the XPU build carries code for ("bmg", "dg2", "pvc", ...).
    try:
        return [str(arch) for arch in torch.xpu.get_arch_list()]
    except Exception:  # noqa: BLE001
        return []


def _torch_arch_list(torch: ModuleType) -> "list":
    # get_arch_list() answers [] while no GPU is usable; the compiled-in flags answer anyway.
    try:
        arches = list(torch.cuda.get_arch_list())
    except Exception:  # noqa: BLE001
        arches = []
    if not arches:
        try:
            arches = str(torch._C._cuda_getArchFlags() or "").split()
        except Exception:  # noqa: BLE001
            arches = []
    return [str(arch) for arch in arches]


def _torch_cudnn_text(version: object) -> "str | None":
    """``90100`` (cuDNN 9) or ``8902`` (cuDNN 8) as ``9.1.0`` / ``8.9.2``."""
    if not isinstance(version, int) or version <= 0:
        return None
    if version >= 10000:  # cuDNN 9 and later: major*10000 + minor*100 + patch
        return "%d.%d.%d" % (version // 10000, version // 100 % 100, version % 100)
    return "%d.%d.%d" % (version // 1000, version // 100 % 10, version % 100)


def _miopen_text(version: object) -> "str | None":
    """MIOpen's version as ``torch.backends.cudnn.version()`` gives it on ROCm: ``3001000`` as ``3.1.0``.

    >>> _miopen_text(3001000), _miopen_text(None)
    ('3.1.0', None)
    """
    if not isinstance(version, int) or version <= 0:
        return None
    return "%d.%d.%d" % (version // 1000000, version // 1000 % 1000, version % 1000)


def _tensorflow_report(tf: ModuleType) -> "dict":
    try:
        info = dict(tf.sysconfig.get_build_info())
    except Exception:  # noqa: BLE001 - very old builds have no build info
        info = {}
    built_with_cuda = bool(info.get("is_cuda_build", tf.test.is_built_with_cuda()))
    report = {
        "framework_version": str(tf.__version__),
        "built_with_cuda": built_with_cuda,
        "cuda_build": _tf_library_version(info.get("cuda_version")),
        "cudnn_build": _tf_library_version(info.get("cudnn_version")),
        "arch_list": [str(arch) for arch in info.get("cuda_compute_capabilities") or []],
        "gpus": [],
        "keras_version": _keras_version(tf),
    }  # type: dict
    for index, gpu in enumerate(tf.config.list_physical_devices("GPU")):
        entry = {"index": index, "name": gpu.name, "compute_capability": None, "memory_total_mib": None}
        try:
            details = tf.config.experimental.get_device_details(gpu)
        except Exception:  # noqa: BLE001 - TensorFlow < 2.3
            details = {}
        if details.get("device_name"):
            entry["name"] = str(details["device_name"])
        capability = details.get("compute_capability")
        if isinstance(capability, (tuple, list)) and len(capability) == 2:
            entry["compute_capability"] = "%d.%d" % (int(capability[0]), int(capability[1]))
        report["gpus"].append(entry)
    return report


def _tf_library_version(value: object) -> "str | None":
    """TensorFlow's build versions: ``"12.5.1"`` on Linux, ``"64_112"`` (DLL suffix) on Windows."""
    if value in (None, ""):
        return None
    text = str(value)
    match = _WINDOWS_LIB_VERSION.match(text)
    if match:
        digits = match.group(1)
        return digits[:-1] + "." + digits[-1] if len(digits) >= 3 else digits
    return text


def _keras_version(tf: ModuleType) -> "str | None":
    try:
        return str(tf.keras.__version__)
    except Exception:  # noqa: BLE001
        return None


def _parse_framework(argv: "list") -> "str | None":
    args = list(argv[1:])
    for position, arg in enumerate(args):
        if arg.startswith("--framework="):
            return arg.split("=", 1)[1]
        if arg == "--framework" and position + 1 < len(args):
            return args[position + 1]
    return args[0] if args and not args[0].startswith("-") else None


def _parse_device(argv: "list") -> str:
    """``--device KIND`` (``torch_devices.REQUESTS``); ``auto`` when not given."""
    args = list(argv[1:])
    for position, arg in enumerate(args):
        if arg.startswith("--device="):
            return arg.split("=", 1)[1]
        if arg == "--device" and position + 1 < len(args):
            return args[position + 1]
    return "auto"


def main(argv: "list") -> int:
    """Print the report for ``--framework pytorch|tensorflow [--device KIND]``; 0 when it could be made."""
    report = {"probe": "env_report"}  # type: dict
    report.update(python_info())
    framework = _parse_framework(argv)
    if framework == "tensorflow-gpu":
        framework = "tensorflow"
    report["framework"] = framework
    device = _parse_device(argv)
    if framework not in FRAMEWORKS or device not in torch_devices.REQUESTS:
        usage = "usage: env_report.py --framework pytorch|tensorflow [--device %s]" % "|".join(
            torch_devices.REQUESTS
        )
        report.update(ok=False, error=usage, traceback="")
        _print(report)
        return 2
    # Before the import: which NVIDIA wheels are there (and the DLL hook) says most when it fails.
    report.update(cuda_libraries.environment_facts())
    caught = []  # type: list
    try:
        with warnings.catch_warnings(record=True) as caught:
            module = import_framework(framework)
            report.update(framework_report(framework, module, device))
    except ImportFailed as failure:
        report.update(ok=False, phase="import", error=str(failure), traceback=failure.trace[-4000:])
        return _finish(report, caught, 1)
    except BaseException as error:  # noqa: BLE001 - any failure is reported, never a bare crash
        report.update(
            ok=False,
            phase="report",
            error="%s: %s" % (type(error).__name__, error),
            traceback=traceback.format_exc()[-4000:],
        )
        return _finish(report, caught, 1)
    report["machine"] = platform.machine()
    report["ok"] = True
    return _finish(report, caught, 0)


def _finish(report: "dict", caught: "list", status: int) -> int:
    """Add the warnings and the CUDA libraries loaded by now (a failed import may have loaded some)."""
    report["warnings"] = _warning_texts(caught)
    report.update(cuda_libraries.loaded_facts())
    _print(report)
    return status


def _warning_texts(caught: "list") -> "list":
    texts = []
    for item in caught:
        text = "%s: %s" % (item.category.__name__, item.message)
        if text not in texts:
            texts.append(text)
    return texts


def _print(report: "dict") -> None:
    sys.stdout.write(json.dumps(report) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    exit_now(main(sys.argv))
