r"""Known errors of the machine under a framework: kernel module flavour, WSL 2, Docker without a GPU, conda's virtual packages.

Part of :mod:`gpuwizard.core.findings.diagnosis`, which tries
:data:`HOSTS_PART` with the other parts. Each signature cites a public report that shows the message and, in a comment, the
source that prints it; the logs are recorded in tests/fixtures/recorded/diagnose (SOURCES.md says
where each one comes from). Its signatures and their texts are data in ``resources/findings/hosts.json``; this module holds the code they name.

- The NVIDIA open kernel module (the default from driver 560) on a GPU without a GSP (Maxwell,
  Pascal, Volta): ``OPEN_KERNEL_MODULE_UNSUPPORTED_GPU``.
- CUDA finding no device inside WSL 2, where the cause is the libcuda loaded, not
  CUDA_VISIBLE_DEVICES: the ``libcuda`` variant of ``WSL_LINUX_DRIVER_CONFLICT``
  (:mod:`.diagnosis_containers`).
- Docker asked for a GPU that WSL 2 or the machine does not have: ``DOCKER_NO_NVIDIA_GPU``.
- conda's, mamba's and pixi's virtual packages: ``CONDA_CUDA_VIRTUAL_PACKAGE`` (``__cuda``),
  ``GLIBC_TOO_OLD`` (``__glibc``, and pip skipping manylinux wheels newer than the system's
  glibc), ``CUDA_PACKAGE_ON_MACOS`` (a CUDA wheel asked for on a Mac, where none exists).

>>> from gpuwizard.core.findings.diagnosis import diagnose
>>> [f.code for f in diagnose("NVRM: nvidia.ko because it does not include the required GPU")]
['OPEN_KERNEL_MODULE_UNSUPPORTED_GPU']
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Final

from gpuwizard.core.findings.log_facts import lowered_edges, per_log, read_log_facts, shows_wsl
from gpuwizard.core.findings.signature import DiagnosisPart, Values, search_log

# --- the open kernel module on GPUs before Turing --------------------------------------------

#: The GPU's PCI ID in the kernel's message ("(PCI ID: 10de:1bb3)").
_PCI_ID: Final = re.compile(r"\(PCI ID: 10de:(?P<device>[0-9a-fA-F]{4})\)")
#: A GPU named in the log: lspci's chip and product ("GP104GL [Tesla P4]"), or a product name.
_GPU_NAMED: Final = re.compile(
    r"\b(?P<chip>G[MPV]1\d{2}[A-Z]{0,3})\b(?: \[(?P<product>[^\]\n]{1,60})\])?"
    r"|(?P<name>(?:GeForce )?(?:GTX|GT) ?\d{3,4}(?: Ti| SUPER)?(?: Mobile| Max-Q)?"
    r"|Tesla [MPV]\d{1,3}\w{0,4}|Quadro [MP]\d{3,4}\w{0,3}|TITAN (?:X[p]?|V)\b)"
)
_CHIP_ARCHITECTURE: Final = {"GM": "Maxwell", "GP": "Pascal", "GV": "Volta"}


def _architecture(name: str, chip: str | None) -> str | None:
    if chip:
        return _CHIP_ARCHITECTURE.get(chip[:2])
    if re.search(r"\b(?:GTX|GT) ?10\d{2}|Tesla P|Quadro P|TITAN Xp?\b", name):
        return "Pascal"
    if re.search(r"\bGTX ?(?:9\d{2}|7[45]0)|Tesla M|Quadro M", name):
        return "Maxwell"
    if re.search(r"Tesla V|TITAN V", name):
        return "Volta"
    return None


def _open_module_variant(
    values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    """The GPU the log names (lspci, a product name, a framework's warning), if it names one."""
    params: dict[str, object] = {}
    if pci := _PCI_ID.search(text):
        params["pci_device"] = pci.group("device").lower()
    named = _GPU_NAMED.search(text)
    gpu = read_log_facts(text).gpu
    if named:
        gpu = named.group("product") or named.group("name") or named.group("chip")
        architecture = _architecture(named.group(0), named.group("chip"))
        if architecture:
            params["architecture"] = architecture
    if not gpu:
        return None, params
    params["gpu"] = gpu
    return ("gpu_named" if "architecture" in params else "gpu"), params


# --- WSL 2: CUDA finds no device ---------------------------------------------------------------

#: The log sets or names CUDA_VISIBLE_DEVICES: then the device finding says more.
_VISIBLE_NAMED: Final = re.compile(r"CUDA_VISIBLE_DEVICES")
#: nvidia-smi's own failure: the plain WSL_LINUX_DRIVER_CONFLICT text fits it.
_SMI_FAILED: Final = re.compile(
    r"NVIDIA-SMI has failed because it couldn.t communicate|GPU access blocked by the operating system"
)


def _wsl_no_device(match: re.Match[str]) -> Values | None:
    """CUDA's "no device" counts as WSL's libcuda problem only in a WSL log that names no device list."""
    text = match.string
    return {} if shows_wsl(text) and not _names_devices(text) else None


@per_log
def _names_devices(text: str) -> bool:
    return _VISIBLE_NAMED.search(text) is not None


def _wsl_variant(
    values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    return ("libcuda" if "libcuda" in variants and not _SMI_FAILED.search(text) else None), {}


# --- Docker without an NVIDIA GPU ------------------------------------------------------------

#: Graphics that are not NVIDIA's, or the poster's words that the machine has no NVIDIA GPU.
#: Case spelled out (a pattern that ignores case is tried at every place of a long log).
_OTHER_GRAPHICS: Final = re.compile(
    r"Intel(?:®|\(R\))? (?:Xe|Iris|UHD|HD|Arc)\b[^\n]{0,20}Graphics|AMD Radeon\b|Radeon(?:™)? (?:RX|Pro|Graphics)\b"
    r"|\b(?:[Dd]oesn't|[Dd]oes not|[Dd]on't|[Dd]o not) have an? (?:NVIDIA|Nvidia|nvidia|dedicated)[ \w]{0,20}"
    r"(?:GPU|graphics card|card)|\b[Ww]ithout an? (?:dedicated|NVIDIA|Nvidia|nvidia) (?:GPU|graphics card)"
    r"|\b(?:no NVIDIA|no Nvidia|no nvidia|no dedicated|No NVIDIA|No Nvidia|No nvidia|No dedicated) (?:GPU|graphics card)"
)


# An NVIDIA GPU named elsewhere in the log does not veto: a benign nvidia-smi table pasted with
# another machine's error must not change the finding (test_diagnosis_negatives), and Docker's
# "could not select" on a machine with an NVIDIA GPU names no other graphics.
@per_log
def _no_nvidia_gpu(text: str) -> bool:
    return search_log(_OTHER_GRAPHICS, text) is not None


def _other_graphics_only(match: re.Match[str]) -> Values | None:
    """Docker's "could not select device driver" counts only where the log shows no NVIDIA GPU."""
    return {} if _no_nvidia_gpu(match.string) else None


def _docker_variant(
    values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    return ("other_gpu" if _no_nvidia_gpu(text) else None), {}


# --- conda's, mamba's and pixi's virtual packages ----------------------------------------------

_VERSION: Final = r"\d{1,2}(?:\.\d{1,2})?"
#: The version of a virtual package the machine has: conda info and pixi info
#: ("__cuda=12.1=0"), conda's classic report ("feature:/linux-64::__cuda==11.4=0"), pixi's list.
#: pixi's solver lists the one it has as an option of a conflict ("│  └─ __cuda 12.8").
#: It starts with its literal text, so that re skips ahead to it (an alternation of two does not).
_HAS_CUDA: Final = re.compile(
    rf"__cuda(?:={{1,2}}(?P<found>{_VERSION})=|(?<=─ __cuda) (?P<listed>{_VERSION})\b)"
)
#: conda's macOS platforms and virtual package: a solve for a Mac.
_MACOS_SUBDIR: Final = re.compile(r"\bosx-(?:arm)?64\b|__osx=")
#: The CUDA a conflict asks for, where the solver names it: conda-forge's cuda-version package.
_CUDA_VERSION_ASKED: Final = re.compile(rf"cuda-version >=(?P<version>{_VERSION})")
_HAS_GLIBC: Final = re.compile(
    rf"__glibc={{1,2}}(?P<found>{_VERSION})=|\bGLIBC[ _]?(?P<named>2\.\d{{1,2}})\b"
)
#: A required version in a spec: ">=12.1", ">=2.28,<3.0.a0", "12.*", "12".
_REQUIRED: Final = re.compile(rf"(?:>=|==|=)? ?(?P<version>{_VERSION})")


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def _spec_version(spec: str) -> str | None:
    """The lowest version a spec accepts (">=12.1,<13" -> "12.1"), or None for any ("*", "")."""
    spec = spec.strip(" *'\"[]")
    found = _REQUIRED.match(spec)
    return found.group("version") if found and spec else None


def _virtual_spec(match: re.Match[str]) -> Values:
    return {name: value.strip() for name, value in match.groupdict().items() if value and value.strip()}


def _cuda_variant(
    values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    """No CUDA driver on the machine, one too old for the package, or a Mac (no CUDA at all)."""
    if read_log_facts(text).os_family == "darwin" or search_log(_MACOS_SUBDIR, text):
        return "macos", {}
    required = next((v for spec in values.get("spec", []) if (v := _spec_version(spec))), None)
    if required is None and (asked := search_log(_CUDA_VERSION_ASKED, text)):
        required = asked.group("version")
    # The first version the log shows (read around "__cuda" only, not the whole log).
    if (has := search_log(_HAS_CUDA, text)) is None:
        return None, {}
    found = has.group("found") or has.group("listed")
    if required and _version(found) < _version(required):
        return "too_old", {"required": required, "found": found}
    return "older", {"found": found}


@per_log
def _glibc_found(text: str) -> str | None:
    """The system's glibc the log shows: conda's virtual package, a GLIBC version, an old distribution."""
    if match := search_log(_HAS_GLIBC, text):
        return match.group("found") or match.group("named")
    return _distribution_glibc(text)


@per_log
def _distribution_glibc(text: str) -> str | None:
    """The glibc of the distribution the log names (its release notes), if it names an old one.

    Read like the log's other facts: in lower case, from its first and last MiB, each pattern
    only around its names (a pattern that starts with a word boundary is otherwise tried at every
    place).
    """
    lowered = lowered_edges(text)
    for pattern, version in _DISTRIBUTION_GLIBC:
        if search_log(pattern, lowered):
            return version
    return None


def _loader_glibc(match: re.Match[str]) -> Values:
    """The loader's "version `GLIBC_2.33' not found (required by LIB)": the glibc a library needs.

    The system's own is read only from the distribution the log names: the GLIBC_ in the line
    is the one required, not the one there.
    """
    values: Values = {
        "required": match.group("required"),
        "by": match.group("by").replace("\\", "/").rsplit("/", 1)[-1],
    }
    if found := _distribution_glibc(match.string):
        values["found"] = found
    return values


#: Distributions whose glibc is older than recent manylinux wheels need (their release notes).
_DISTRIBUTION_GLIBC: Final = (
    (
        re.compile(
            r"\b(?:centos|red hat enterprise|rhel|oracle linux|scientific linux)[^\n]{0,30}?\b7(?:\.\d{1,2})?\b"
        ),
        "2.17",
    ),
    (
        re.compile(
            r"\b(?:centos|red hat enterprise|rhel|rocky linux|almalinux)[^\n]{0,30}?\b8(?:\.\d{1,2})?\b"
        ),
        "2.28",
    ),
    # Ubuntu's and Debian's own packages of glibc (packages.ubuntu.com, packages.debian.org: libc6
    # 2.27 in bionic, 2.31 in focal, 2.35 in jammy; 2.28 in buster, 2.31 in bullseye); people
    # write the names in any case ("ubuntu 20.04"): the patterns read the log in lower case.
    (re.compile(r"\bubuntu 18\.04\b"), "2.27"),
    (re.compile(r"\bubuntu 20\.04\b"), "2.31"),
    (re.compile(r"\bubuntu 22\.04\b"), "2.35"),
    (re.compile(r"\bdebian(?: gnu/linux)? 10\b|\bbuster\b"), "2.28"),
    (re.compile(r"\bdebian(?: gnu/linux)? 11\b|\bbullseye\b"), "2.31"),
)


def _conda_glibc(match: re.Match[str]) -> Values | None:
    """conda's, mamba's or pixi's __glibc requirement, where the system's glibc is older (not a Mac's cross-solve)."""
    text = match.string
    required = match.group("required")
    if read_log_facts(text).os_family == "darwin":
        return None
    found = _glibc_found(text)
    if found and _version(found) >= _version(required):
        return None  # conda's misleading report (conda/conda#12489): not the cause
    return {"required": required, **({"found": found} if found else {})}


#: manylinux tags name the glibc a wheel needs (PEP 600): manylinux_2_28, manylinux2014 (2.17).
_MANYLINUX: Final = re.compile(r"manylinux_2_(?P<minor>\d{1,2})")


def _pip_glibc(match: re.Match[str]) -> Values | None:
    """No wheel pip could use, and the log shows a glibc older than the manylinux tag it names."""
    text = match.string
    found = _glibc_found(text)
    newest = _newest_manylinux(text)
    if not found or newest is None or newest <= _version(found)[1]:
        return None
    return {"required": f"2.{newest}", "found": found}


@per_log
def _newest_manylinux(text: str) -> int | None:
    """The newest glibc minor a manylinux tag in the log asks for (read once per log, not per match)."""
    return max((int(tag.group("minor")) for tag in _MANYLINUX.finditer(text)), default=None)


def _glibc_variant(
    values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    variant = variants[0] if variants else "conda"
    return (variant if values.get("found") else f"{variant}_unknown"), {}


#: CUDA builds on PyPI: NVIDIA's wheels (nvidia-cublas-cu12), CuPy's, JAX's plugins, PyTorch's
#: local versions (+cu118), cuda-python.
_CUDA_PACKAGE: Final = re.compile(
    r"^(?:nvidia-[\w-]{1,60}|cupy-cuda\d{2,3}x?|jax-cuda\d{2}-[\w-]{1,20}|cuda-python|cuda-bindings)\b"
    r"|\+cu\d{2,3}\b",
    re.IGNORECASE,
)


def _cuda_on_macos(match: re.Match[str]) -> Values | None:
    package = match.group("package").strip("`'\",;")
    if not _CUDA_PACKAGE.search(package):
        return None
    text = match.string
    if read_log_facts(text).os_family != "darwin" and not _names_mac_wheels(text):
        return None
    return {"packages": package}


@per_log
def _names_mac_wheels(text: str) -> bool:
    return _MAC_WHEEL.search(text) is not None


#: A wheel tag for macOS (macosx_11_0_arm64): the log is about a Mac even when it says no more.
_MAC_WHEEL: Final = re.compile(r"macosx_\d")


#: The GCC release that first brought each libstdc++ symbol version GLIBCXX_3.4.N (N: release),
#: from the libstdc++ manual, "ABI Policy and Guidelines" (gcc.gnu.org/onlinedocs/libstdc++/manual/abi.html).
_GLIBCXX_GCC: Final = {
    21: "5.1",
    22: "6.1",
    23: "7.1",
    24: "7.2",
    25: "8.1",
    26: "9.1",
    27: "9.2",
    28: "10.1",
    29: "11.1",
    30: "12.1",
    31: "13.1",
    32: "13.2",
    33: "14.1",
}


def _libstdcxx(match: re.Match[str]) -> Values | None:
    gcc = _GLIBCXX_GCC.get(int(match.group("minor")))
    if gcc is None:
        return None  # a version this table does not know: its GCC cannot be named
    return {
        "library": match.group("library"),
        "needed": match.group("needed"),
        "gcc": gcc,
        "required_by": match.group("required_by") or "the program",
    }


HOSTS_PART: Final = DiagnosisPart(
    name="hosts",
    extractors=(
        _wsl_no_device,
        _other_graphics_only,
        _virtual_spec,
        _conda_glibc,
        _pip_glibc,
        _cuda_on_macos,
        _loader_glibc,
        _libstdcxx,
    ),
    suppresses={
        # The open module refused the GPU: no module runs, so nvidia-smi, CUDA and PyTorch find
        # nothing; the kernel-module advice (restart, rebuild) does not help.
        "OPEN_KERNEL_MODULE_UNSUPPORTED_GPU": (
            "KERNEL_MODULE_MISMATCH",
            "CUDA_DEVICE_NOT_VISIBLE",
            "NO_NVIDIA_DRIVER",
            "CUDA_INIT_FAILED",
            "VENDOR_CUDA_ERROR",
        ),
        # In WSL 2 the device list is not the cause (outside check: CUDA_VISIBLE_DEVICES advice).
        "WSL_LINUX_DRIVER_CONFLICT": ("CUDA_DEVICE_NOT_VISIBLE", "CUDA_INIT_FAILED", "VENDOR_CUDA_ERROR"),
        # No GPU to give: reinstalling the Container Toolkit (outside check) cannot help.
        "DOCKER_NO_NVIDIA_GPU": ("CONTAINER_TOOLKIT_FAILED", "DOCKER_NO_GPU_RUNTIME"),
        "CONDA_CUDA_VIRTUAL_PACKAGE": ("NO_MATCHING_DISTRIBUTION",),
        "GLIBC_TOO_OLD": ("NO_MATCHING_DISTRIBUTION", "PYTHON_VERSION_NO_WHEELS"),
        "CUDA_PACKAGE_ON_MACOS": ("NO_MATCHING_DISTRIBUTION", "PYTHON_VERSION_NO_WHEELS", "GLIBC_TOO_OLD"),
    },
    refiners={
        "OPEN_KERNEL_MODULE_UNSUPPORTED_GPU": _open_module_variant,
        "WSL_LINUX_DRIVER_CONFLICT": _wsl_variant,
        "DOCKER_NO_NVIDIA_GPU": _docker_variant,
        "CONDA_CUDA_VIRTUAL_PACKAGE": _cuda_variant,
        "GLIBC_TOO_OLD": _glibc_variant,
    },
)
