r"""What a log says about the machine and the build it ran on: Python, framework, CUDA, the GPU.

Logs name more than their error: a path says which Python ran (``python3.10/site-packages``,
``Python310\lib``), a wheel or version string which build (``torch-2.7.1+cu128``), a warning the
GPU's architecture (``CUDA capability sm_61``). :func:`read_log_facts` collects them, so the
diagnosis of a log can give advice for the Python, build and GPU the log shows
(:mod:`gpuwizard.core.findings.diagnosis_context`).

>>> facts = read_log_facts(
...     "File '/home/u/.venv/lib/python3.10/site-packages/torch/cuda/__init__.py'\n"
...     "NVIDIA GeForce GTX 1080 with CUDA capability sm_61 is not compatible ...\n"
...     "torch 2.7.1+cu128"
... )
>>> facts.python, facts.frameworks, facts.framework_version, facts.build_cuda, facts.gpu_capability
('3.10', ('pytorch',), '2.7.1', '12.8', '6.1')
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Final, TypeVar

from gpuwizard.core.findings.signature import WINDOWS_LOG

_T = TypeVar("_T")
#: How to forget what :func:`per_log` remembered (one entry per cached function).
_PER_LOG_CACHES: list[Callable[[], None]] = []


def per_log(function: Callable[[str], _T]) -> Callable[[str], _T]:
    """``function`` of a whole log, computed once per log while it is diagnosed.

    Signatures ask about the whole log at every match (does it show WSL? which Python?): a long
    log repeating one error must not be read again for each repetition. What is remembered is
    dropped by :func:`forget_logs` when the diagnosis ends, so no log stays in memory after it.
    """
    cached = lru_cache(maxsize=4)(function)
    _PER_LOG_CACHES.append(cached.cache_clear)
    return cached


@per_log
def shows_windows(text: str) -> bool:
    """Whether the log shows Windows (a DLL, a drive letter, ``[WinError N]``): asked once per log."""
    return WINDOWS_LOG.search(text) is not None


def forget_logs() -> None:
    """Drop what :func:`per_log` functions remembered (the logs themselves with it)."""
    for clear in _PER_LOG_CACHES:
        clear()


@dataclass(frozen=True)
class LogFacts:
    """What a log shows of the set-up it ran on; None (or empty) where it does not say.

    Attributes:
        frameworks: ``pytorch``, ``tensorflow``, ``jax``, in order of first appearance.
        python: The Python minor version (``3.10``) the log's paths, tags or banner name most.
        framework_version: The framework's version as a wheel or version string names it (``2.7.1``).
        build_cuda: The CUDA version of the framework build (``12.8`` from ``+cu128``).
        cudnn: A cuDNN version the log names (``9.1.0``).
        gpu_capability: The GPU's compute capability (``6.1``) from ``sm_61`` or ``capability 6.1``.
        gpu: The GPU's name, where a warning names it with its capability.
        os_family: ``windows``, ``linux`` or ``darwin`` where paths or library names tell; ``wsl``
            for WSL.
        no_gpu_reassurance: The log says itself that a missing CUDA runtime does not matter
            without a GPU: TensorFlow's "Ignore above cudart dlerror if you do not have a GPU set
            up on your machine." (``cudart_stub.cc``, printed after the dlerror of cudart).
        nvidia_driver_running: The log shows an NVIDIA driver whose kernel module runs, so its
            machine has an NVIDIA GPU: TensorFlow's diagnostics after a failed cuInit read the
            module's version ("kernel reported version is: 515.43.4", ``cuda_diagnostics.cc``).
    """

    frameworks: tuple[str, ...] = ()
    python: str | None = None
    framework_version: str | None = None
    build_cuda: str | None = None
    cudnn: str | None = None
    gpu_capability: str | None = None
    gpu: str | None = None
    os_family: str | None = None
    no_gpu_reassurance: bool = False
    nvidia_driver_running: bool = False


# Patterns start with literal text and bound their repeats: a long line costs linear time.
_PYTHON_PATTERNS: Final = (
    # POSIX paths: lib/python3.10/site-packages; an interpreter name python3.10.
    re.compile(r"python(?<=\bpython)(3\.\d{1,2})(?:[\\/]|\b)"),
    # Windows installs: C:\Python310\, Programs\Python\Python312\, Python313\Lib.
    re.compile(r"python(?<=[\\/]python)(3)(\d{1,2})(?:-32)?[\\/]"),
    # Wheel tags and banners: cp310, "Python 3.10.12".
    re.compile(r"cp(?<=\bcp)(3)(\d{1,2})\b"),
    re.compile(r"python (?<=\bpython )(3\.\d{1,2})\.\d{1,3}\b"),
    # GitHub's issue forms: a "### Python version" heading, the answer below it.
    re.compile(
        r"^#{1,4} ?python version[ \t]{0,20}\n(?:[ \t]{0,20}\n){0,2}[ \t]{0,20}(?:python )?(3\.\d{1,2})\b",
        re.MULTILINE,
    ),
)
_FRAMEWORK_WORDS: Final = (
    ("pytorch", re.compile(r"torch\b(?<=\btorch)|pytorch\b(?<=\bpytorch)")),
    # TensorFlow's own loader names itself by its source files and words (dso_loader.cc:
    # "Could not load dynamic library '...'"); TensorFlow 2.16 and newer build XLA and TSL as
    # bazel's external/local_xla and external/local_tsl (JAX's are external/xla).
    (
        "tensorflow",
        re.compile(
            r"tensorflow\b(?<=\btensorflow)|dso_loader\.cc|cudart_stub\.cc|could not load dynamic library '"
            r"|external/local_(?:xla|tsl)/"
        ),
    ),
    ("jax", re.compile(r"jax(?<=\bjax)(?:lib)?\b")),
)
#: torch-2.7.1+cu128 (wheel), torch==2.7.1+cu128, torch 2.7.1+cu128 (pip list), 2.7.1+cu128 alone.
_TORCH_BUILD: Final = re.compile(
    r"torch(?<=\btorch)(?:[-=]{1,2}| {1,20}|: ?)(?P<version>\d{1,2}\.\d{1,2}(?:\.\d{1,3})?)(?:\+(?P<variant>cu\d{2,3}|cpu|rocm[\d.]{1,8}))?"
)
_CUDA_VARIANT: Final = re.compile(r"\+cu(?P<digits>\d{2,3})\b")
_TF_VERSION: Final = re.compile(
    r"tensorflow(?<=\btensorflow)(?:[-_]gpu)?(?:[-=]{1,2}| {1,20})(?P<version>\d{1,2}\.\d{1,2}(?:\.\d{1,3})?)\b"
)
_CUDNN: Final = re.compile(
    r"cudnn(?<=\bcudnn)(?: version)?[ :]{1,3}v?(?P<version>\d{1,2}\.\d{1,2}(?:\.\d{1,3})?)\b"
)
#: PyTorch: "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible"; TensorFlow:
#: "compute capability: 8.6"; PyTorch's old-GPU warning "which is of cuda capability 3.0".
_CAPABILITY_SM: Final = re.compile(r" with CUDA capability sm_(?P<digits>\d{2,3})\b")
#: How much of the line before "with CUDA capability" may name the GPU.
_GPU_NAME_MAX: Final = 120
_CAPABILITY_DOTTED: Final = re.compile(
    r"(?:compute capability:? |cuda capability )(?P<major>\d{1,2})\.(?P<minor>\d)\b"
)
#: Signs in a log that it comes from WSL 2: the WSL kernel's release ("5.15.167.4-microsoft-
#: standard-WSL2" in microsoft/WSL#12859; older kernels end in "-microsoft-standard"), the
#: folder where WSL mounts the Windows driver's libraries (/usr/lib/wsl/lib, NVIDIA's CUDA on WSL
#: User Guide, "Getting Started with CUDA on WSL 2"), the word WSL or the wsl command (a prompt
#: "PS C:\> wsl -d Ubuntu", NVIDIA's repository name "wsl-ubuntu"), and Windows drives under
#: /mnt (/mnt/c/Users/..., WSL's default automount root, learn.microsoft.com/en-us/windows/wsl/
#: wsl-config, "automount settings"), and its name written out, "Windows Subsystem for Linux" (a
#: person's "Fresh Windows Subsystem for Linux install of Ubuntu", outside check of issue 39).
_WSL: Final = re.compile(
    r"wsl\b(?<=\bwsl)|wsl[12]\b(?<=\bwsl[12])|microsoft-standard|/mnt/[a-z]/users/|windows subsystem for linux"
)
#: macOS: home folders under /Users (not Git Bash's /c/Users), Homebrew, the kernel's or the
#: system's name, Apple silicon ("mac M2", "Apple M3"), PyTorch's Metal device.
_MACOS: Final = tuple(
    re.compile(pattern)
    for pattern in (
        r"/Users/(?<![\w:]/Users/)(?<!/[A-Za-z]/Users/)[^/\s]{1,60}/",
        r"/opt/homebrew/",
        r"Darwin\b(?<=\bDarwin)",
        r"macOS\b(?<=\bmacOS)",
        r"ac ?M[1-5]\b(?<=\b[Mm]ac M[1-5])|ac ?M[1-5]\b(?<=\b[Mm]acM[1-5])",
        r"Apple (?<=\bApple )(?:M[1-5]|silicon)\b",
        r"macosx_(?<=\bmacosx_)\d",
    )
)
#: TensorFlow 2.x's line after the dlerror of cudart (stream_executor/cuda/cudart_stub.cc), in
#: lower case: tensorflow/tensorflow#57103, #35872 (where its maintainer points to it).
_NO_GPU_REASSURANCE: Final = "ignore above cudart dlerror if you do not have a gpu"
#: A running NVIDIA kernel module, in lower case: TensorFlow's diagnostics after a failed cuInit
#: read its version from /proc/driver/nvidia/version ("kernel reported version is: 515.43.4",
#: stream_executor/cuda/cuda_diagnostics.cc; tensorflow/tensorflow#62494). Its own process says
#: so; an nvidia-smi pasted beside a log may come from anywhere (the host of a container).
_DRIVER_RUNNING: Final = re.compile(r"kernel reported version is: \d{2,4}\.\d")
_LINUX: Final = re.compile(r"\.so\b|/site-packages/|/usr/(?:local/)?lib")
_LIBRARY_NAME: Final = re.compile(r"\blib[\w+-]{1,60}\Z")


@per_log
def read_log_facts(text: str) -> LogFacts:
    """The facts ``text`` shows of the set-up it ran on (read once per log, however many ask)."""
    # Words whose case varies are looked for in the text in lower case, with patterns that start
    # with their literal words: re then skips ahead to them at memory speed, where a pattern that
    # ignores case or starts with \b is tried at every position (about 30x slower on a long log).
    lowered = lowered_edges(text)
    text = _edges(text)
    return LogFacts(
        frameworks=_frameworks(lowered),
        python=_python(lowered),
        framework_version=_framework_version(lowered),
        build_cuda=_build_cuda(text),
        cudnn=(match.group("version") if (match := _CUDNN.search(lowered)) else None),
        gpu_capability=_capability(text, lowered),
        gpu=_gpu(text),
        os_family=_os_family(text),
        no_gpu_reassurance=_NO_GPU_REASSURANCE in lowered,
        nvidia_driver_running=_DRIVER_RUNNING.search(lowered) is not None,
    )


@per_log
def _lowered(text: str) -> str:
    # In pieces: lower() of a text that is not ASCII takes 12 bytes a character while it works
    # (CPython's full case mapping), which for a long log is far more than the log.
    return "".join(text[at : at + _LOWER_PIECE].lower() for at in range(0, len(text), _LOWER_PIECE))


_LOWER_PIECE: Final = 1 << 20


#: A long log tells its set-up at its start (banners, versions, paths) and its failure at its end:
#: of one longer than twice this, the facts are read from its first and last this many characters,
#: so that their time and memory stay bounded whatever the log's size (a crash loop, a training run).
_EDGE_CHARS: Final = 2**20


def _edges(text: str) -> str:
    return text if len(text) <= 2 * _EDGE_CHARS else text[:_EDGE_CHARS] + "\n" + text[-_EDGE_CHARS:]


@per_log
def shows_wsl(text: str) -> bool:
    """Whether ``text`` comes from WSL 2 (:data:`_WSL`); asked once per log, however many lines ask."""
    return _WSL.search(lowered_edges(text)) is not None


@per_log
def lowered_edges(text: str) -> str:
    """The part of ``text`` its facts are read from (:func:`_edges`) in lower case: made once per log."""
    return _lowered(_edges(text))


def capability_of_sm(digits: str) -> str:
    """``61`` -> ``6.1``, ``120`` -> ``12.0`` (the sm_XY naming of NVIDIA's compilers).

    >>> capability_of_sm("61"), capability_of_sm("120"), capability_of_sm("100")
    ('6.1', '12.0', '10.0')
    """
    return f"{digits[:-1]}.{digits[-1]}"


def _frameworks(text: str) -> tuple[str, ...]:
    found = [(match.start(), name) for name, pattern in _FRAMEWORK_WORDS if (match := pattern.search(text))]
    return tuple(name for _, name in sorted(found))


def _python(text: str) -> str | None:
    counts: Counter[str] = Counter()
    for pattern in _PYTHON_PATTERNS:
        for match in pattern.finditer(text):
            groups = [group for group in match.groups() if group]
            version = groups[0] if len(groups) == 1 else f"{groups[0]}.{groups[1]}"
            counts[version] += 1
    return counts.most_common(1)[0][0] if counts else None


def _framework_version(text: str) -> str | None:
    if match := _TORCH_BUILD.search(text):
        return match.group("version")
    if match := _TF_VERSION.search(text):
        return match.group("version")
    return None


def _build_cuda(text: str) -> str | None:
    if not (match := _CUDA_VARIANT.search(text)):
        return None
    digits = match.group("digits")  # cu128 -> 12.8, cu92 -> 9.2
    return f"{digits[:-1]}.{digits[-1]}"


def _capability(text: str, lowered: str) -> str | None:
    if match := _CAPABILITY_SM.search(text):
        return capability_of_sm(match.group("digits"))
    if match := _CAPABILITY_DOTTED.search(lowered):
        return f"{match.group('major')}.{match.group('minor')}"
    return None


def _gpu(text: str) -> str | None:
    if not (match := _CAPABILITY_SM.search(text)):
        return None
    return gpu_name_before(text, match.start()) or None


def gpu_name_before(text: str, position: int) -> str:
    """The GPU's name in ``text`` just before ``position`` ("with CUDA capability"), in its line.

    At most :data:`_GPU_NAME_MAX` characters are read back: a log whose lines were joined (the
    unwrapped view of a repeated log) must not be read from its start at every match.
    """
    start = max(text.rfind("\n", max(0, position - _GPU_NAME_MAX), position) + 1, position - _GPU_NAME_MAX)
    return gpu_name(text[max(0, start) : position])


def gpu_name(before: str) -> str:
    """The GPU's name in its line's text before "with CUDA capability".

    A warning's prefix (``UserWarning:``) and a log's own (journald's ``host unit[pid]:``,
    torchrun's ``[rank0]:``, Docker Compose's ``service-1  | ``) are left out.

    >>> gpu_name("Oct 04 llm webui[394]: NVIDIA GeForce RTX 5090")
    'NVIDIA GeForce RTX 5090'
    >>> gpu_name("vllm-1  | NVIDIA GeForce RTX 5070 Ti")
    'NVIDIA GeForce RTX 5070 Ti'
    """
    return re.sub(r"^.*(?:UserWarning|Warning|\]):|^[\w.-]{1,100} {1,8}\| ", "", before).strip(" \t`'\">[]")


def _os_family(text: str) -> str | None:
    if shows_wsl(text):
        return "wsl"
    if any(pattern.search(text) for pattern in _MACOS):
        return "darwin"
    if WINDOWS_LOG.search(text):
        return "windows"
    return "linux" if _shows_linux(text) else None


def _shows_linux(text: str) -> bool:
    # A shared library's name (libcudnn.so) is looked for from its ".so" back to "lib".
    for match in _LINUX.finditer(text):
        if match.group() != ".so" or _LIBRARY_NAME.search(text, max(0, match.start() - 62), match.start()):
            return True
    return False
