"""What the user wants (:class:`Wish`) and what the wizard proposes (:class:`Recommendation`).

With the ``gpuwizard.recommendation/1`` JSON form (docs/architecture.md,
"The command-line and JSON contract": names kept, fields only added), and the names of frameworks,
builds and driver minimums used in messages.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from gpuwizard.core.compat.wsl_route import WslRoute
from gpuwizard.core.events import json_field, value_to_json
from gpuwizard.core.events.codec import json_metadata
from gpuwizard.core.findings.model import Finding
from gpuwizard.core.frameworks import framework_title

RECOMMENDATION_SCHEMA: Final = "gpuwizard.recommendation/1"
FRAMEWORKS: Final = ("pytorch", "tensorflow")
#: Accepted names and the framework they mean (``tensorflow-gpu`` is the removed legacy name).
FRAMEWORK_NAMES: Final = {
    "pytorch": "pytorch",
    "torch": "pytorch",
    "tensorflow": "tensorflow",
    "tensorflow-gpu": "tensorflow",
}
MANAGERS: Final = ("venv", "conda")
#: How each framework is written in messages.


class WishError(ValueError):
    """The wish cannot be understood or cannot exist (one line; exit code 2)."""


@dataclass(frozen=True)
class Wish:
    """What the user asked for.

    Attributes:
        framework: ``pytorch`` or ``tensorflow``.
        version: A minor (``2.10``) or exact (``2.10.1``) release, or None for the best one.
        python: The preferred Python minor version (``3.11``); the recommender may choose another.
        manager: ``venv`` or ``conda``, or None to let the recommender choose.
        requested_name: The framework name as given (``tensorflow-gpu`` is kept to explain it).
    """

    framework: str
    version: str | None = None
    python: str | None = None
    manager: str | None = None
    requested_name: str = json_field(default="", skip=True)  # written as `framework` (_wish_json)


def parse_wish(
    framework: str, version: str | None = None, python: str | None = None, manager: str | None = None
) -> Wish:
    """Check and normalise the command-line wish.

    Raises:
        WishError: An unknown framework or manager, or a version that is not a version.

    >>> parse_wish("tensorflow-gpu", "2.10").framework
    'tensorflow'
    >>> try:
    ...     parse_wish("caffe")
    ... except WishError as error:
    ...     print(error)
    unknown framework 'caffe' (choose pytorch, tensorflow or tensorflow-gpu)
    """
    name = framework.strip().lower()
    if name not in FRAMEWORK_NAMES:
        raise WishError(f"unknown framework {framework!r} (choose pytorch, tensorflow or tensorflow-gpu)")
    if version is not None and not re.fullmatch(r"[0-9]+\.[0-9]+(\.[0-9]+)?", version.strip()):
        raise WishError(f"{version!r} is not a framework version (write it as 2.10 or 2.10.1)")
    if python is not None and not re.fullmatch(r"3\.[0-9]{1,2}(\.[0-9]+)?", python.strip()):
        raise WishError(f"{python!r} is not a Python version (write it as 3.11)")
    if manager is not None and manager not in MANAGERS:
        raise WishError(f"unknown environment manager {manager!r} (choose venv or conda)")
    return Wish(
        framework=FRAMEWORK_NAMES[name],
        version=version.strip() if version else None,
        python=".".join(python.strip().split(".")[:2]) if python else None,
        manager=manager,
        requested_name=name,
    )


@dataclass(frozen=True)
class CudaWheels:
    """NVIDIA's CUDA and cuDNN wheels that bring a build's DLLs into a venv (Windows, TF <= 2.10).

    Attributes:
        cuda: The CUDA release of the runtime wheels (``11.8``): a minor at least the build's.
        cudnn: The cuDNN minor of the cuDNN wheel (``8.9``): same major, minor at least the build's.
        packages: The wheels, pinned exactly (``nvidia-cudnn-cu11==8.9.5.29``).
        dll_hook: The environment gets a start-up hook that makes the wheels' DLL folders
            visible (always: the wizard's environments do).
        source: The ids of the sources (sources.json) that allow it.
    """

    cuda: str
    cudnn: str
    packages: tuple[str, ...]
    dll_hook: bool = True
    source: tuple[str, ...] = ()


@dataclass(frozen=True)
class ResolvedLibrary:
    """A CUDA library left to a range, what the install resolves it to, and the plan's pin.

    Attributes:
        library: The library's name in ``library_architectures`` (``cudnn``, ``cublas``).
        package: The wheel that brings it (``nvidia-cudnn-cu12``).
        spec: The range the build's requirement allows (``<10.0,>=9.3.0.75``).
        version: What an install resolves the range to.
        resolved_on: The day of that resolution (ISO).
        source: ``pip`` (asked today), ``cache`` (asked earlier today) or ``data`` (recorded).
        pin: The bound the plan adds (``<9.11``), where the resolution drops a GPU it serves.
        drops: The compute capabilities the resolved release no longer supports, where pinned.
    """

    library: str
    package: str
    spec: str
    version: str
    resolved_on: str
    source: str
    pin: str | None = None
    drops: tuple[str, ...] = ()

    @property
    def requirement(self) -> str | None:
        """The pin as a requirement (``nvidia-cudnn-cu12<9.11``), or None."""
        return f"{self.package}{self.pin}" if self.pin else None


@dataclass(frozen=True)
class Plan:
    """One complete, installable configuration.

    Its JSON is the contract's plan (docs/architecture.md, "The command-line and JSON contract"),
    then the fields added since, ``framework`` the first of them.

    Attributes:
        framework_version: The exact release to install.
        python: The Python minor version of the environment.
        cpu_only: The build uses no GPU.
        cuda, cudnn: What the framework build uses (None for CPU builds); not a system toolkit.
        torch_variant: The PyTorch wheel tag (``cu126``, ``cpu``); None for TensorFlow.
        requirements, index_url: What pip installs, and from which index (None: the default).
        conda_channels, conda_packages: What conda installs (CUDA and cuDNN, when conda supplies them).
        conda_engine: What makes the conda environment on this machine: ``conda``, ``mamba`` or
            ``micromamba`` when installed (the first found), else ``rattler`` (py-rattler, inside
            the wizard: no conda needed); None for a venv.
        system_cuda_toolkit_required: A CUDA toolkit and cuDNN must be installed on the system.
        path_entries: Folders the plan adds to PATH (Windows, TensorFlow 2.10 and older in a venv).
        dlls_expected: DLLs the framework must find at run time (Windows, TensorFlow 2.10 and older).
        cuda_wheels: NVIDIA's CUDA and cuDNN wheels that bring those DLLs into a venv (also in
            ``requirements``); the environment gets a start-up hook that makes their folders
            visible to every start of its Python. None: CUDA comes another way.
        min_driver: The lowest NVIDIA driver per OS (None for CPU builds).
        manager: ``venv`` or ``conda``.
        target: ``native``, or ``wsl2`` when the plan runs inside WSL 2 on this Windows machine.
        gpu_indices: The GPUs the build serves.
        ptx_jit: The GPUs the build serves only through PTX (JIT-compiled at first use).
        driver_update_required: The installed driver is older than ``min_driver``.
        summary: One line describing the plan, in English.
        reasons: Why this plan, in English (one line each).
        resolved: The CUDA libraries the build leaves to a range, what an install resolves each
            to (today, or the data's recorded day) and the pin the plan adds where that release
            drops a GPU it serves (issue 36); the pins are in ``requirements`` too.
        device: The kind of GPU the build runs on: ``cuda`` (NVIDIA), ``rocm`` (AMD, through
            HIP), ``xpu`` (Intel), ``mps`` (Apple) or ``cpu``. Derived from ``cpu_only`` for plans
            made (or saved) before it existed: ``cuda`` or ``cpu``.
        rocm: The ROCm release a ``rocm`` build brings (``7.1``); None for others.
        vendor_driver_min: For ``xpu`` plans, the lowest Intel driver per OS the build needs
            (``min_driver`` stays NVIDIA's); None where the data states none.
        wsl: For ``wsl2`` plans, the distribution and what must change on Windows first
            (:class:`~gpuwizard.core.compat.wsl_route.WslRoute`); None for others.
        gpu_min_driver: For NVIDIA builds, the lowest driver per OS that drives every NVIDIA GPU
            of the machine (a driver knows only the GPUs of its time: an H200 needs R520 or newer
            whatever ``min_driver`` allows); the driver to install is at least the higher of the
            two. None where no GPU needs more than the oldest CUDA the tables know, and for
            other plans (:func:`~gpuwizard.core.compat.reasons.gpu_min_drivers`).
    """

    framework: str = field(metadata=json_metadata(after="min_driver"))
    framework_version: str
    python: str
    cpu_only: bool
    cuda: str | None
    cudnn: str | None
    torch_variant: str | None
    requirements: tuple[str, ...] = field(metadata=json_metadata(at=("pip", "requirements")))
    index_url: str | None = field(metadata=json_metadata(at=("pip", "index_url")))
    conda_channels: tuple[str, ...] = json_field(at=("conda", "channels"), default=())
    conda_packages: tuple[str, ...] = json_field(at=("conda", "packages"), default=())
    conda_engine: str | None = json_field(at=("conda", "engine"), default=None)
    system_cuda_toolkit_required: bool = False
    path_entries: tuple[str, ...] = ()
    dlls_expected: tuple[str, ...] = ()
    cuda_wheels: CudaWheels | None = None
    min_driver: Mapping[str, str | None] | None = None
    manager: str = "venv"
    target: str = "native"
    gpu_indices: tuple[int, ...] = ()
    ptx_jit: tuple[int, ...] = json_field(key="ptx_jit_gpu_indices", default=())
    driver_update_required: bool = False
    summary: str = ""
    reasons: tuple[str, ...] = ()
    resolved: tuple[ResolvedLibrary, ...] = ()
    device: str = json_field(default="", after="cpu_only")
    vendor_driver_min: Mapping[str, str | None] | None = None
    rocm: str | None = json_field(default=None, after="cudnn")
    wsl: WslRoute | None = None
    gpu_min_driver: Mapping[str, str | None] | None = None

    def __post_init__(self) -> None:
        if not self.device:
            # Frozen: the derived value is set once, here, for plans that predate the field.
            object.__setattr__(self, "device", "cpu" if self.cpu_only else "cuda")

    @property
    def cpu_build(self) -> bool:
        """The build carries no CUDA: what it downloads and takes on disk is a CPU build's.

        Not the same as :attr:`cpu_only`: PyPI's CUDA build of PyTorch trains on the CPU of a
        machine without an NVIDIA GPU, yet brings its ``nvidia-*`` wheels all the same.
        """
        return self.cpu_only and self.cuda is None

    @property
    def library_pins(self) -> tuple[str, ...]:
        """The bounds the plan puts on CUDA libraries (``nvidia-cudnn-cu12<9.11``), kept in the constraints."""
        return tuple(pin for library in self.resolved if (pin := library.requirement))


#: Characters a shell reads in a word: redirections, pipes, quotes, variables and globs (zsh, the
#: macOS default, refuses an unmatched "tensorflow[and-cuda]==2.21.0": "no matches found").
_SHELL_SPECIAL: Final = re.compile(r"[<>|&^;()\s'\"$`*?\[\]]")


def quoted_requirements(requirements: Sequence[str]) -> str:
    """Requirements as words a person can paste into cmd, PowerShell or a POSIX shell.

    A specifier such as ``numpy<2`` would be a redirection in all three, and an extra's brackets
    a glob (zsh stops at one that matches no file): such words are put in double quotes, which
    each of them takes literally here.

    >>> quoted_requirements(["tensorflow[and-cuda]==2.21.0", "nvidia-cudnn-cu12<9.11", "torch==2.13.0"])
    '"tensorflow[and-cuda]==2.21.0" "nvidia-cudnn-cu12<9.11" torch==2.13.0'
    """
    return " ".join(f'"{item}"' if _SHELL_SPECIAL.search(item) else item for item in requirements)


def plan_build_name(plan: Plan) -> str:
    """``PyTorch 2.13.0 (cu126)`` / ``TensorFlow 2.10.1 (CUDA 11.2)`` for messages."""
    title = framework_title(plan.framework)
    if plan.torch_variant:
        return f"{title} {plan.framework_version} ({plan.torch_variant})"
    if plan.cuda:
        return f"{title} {plan.framework_version} (CUDA {plan.cuda})"
    return f"{title} {plan.framework_version} (CPU)"


def describe_min_driver(min_driver: Mapping[str, str | None] | None) -> str:
    """``Linux 525.60.13, Windows 528.33`` for messages."""
    if not min_driver:
        return "none"
    parts = [f"{os_name.capitalize()} {value}" for os_name, value in min_driver.items() if value]
    return ", ".join(parts) or "unknown"


@dataclass(frozen=True)
class CudaNumbers:
    """The three CUDA numbers people confuse.

    Attributes:
        driver_max: The highest CUDA the driver supports (NVML, or derived from the driver version).
        driver_max_source: ``nvml``, ``driver tables`` or None.
        toolkits: The CUDA toolkits on disk, the one PATH reaches first first.
        framework: The CUDA the recommended build uses (None for a CPU build).
        driver: The installed driver version (None when none answers).
        driver_os: Whose driver it is: ``windows`` on Windows and in WSL 2, else ``linux``.
    """

    driver_max: str | None
    driver_max_source: str | None
    toolkits: tuple[str, ...]
    framework: str | None
    driver: str | None = None
    driver_os: str = "linux"


@dataclass(frozen=True)
class Freshness:
    """How current the knowledge behind a recommendation is.

    Attributes:
        data_generated: The date of the compatibility data.
        data_origin: ``bundled``, or where and when refreshed data was fetched.
        index_checked_at: When the package index was last asked (None: never).
        index_source: The index asked.
        unverified: Releases the index has, newer than the data knows (their matrix unverified).
        patches: ``(minor, patch)``: newer patches the index has, planned with their minor's row.
    """

    data_generated: str = ""
    data_origin: str = "bundled"
    index_checked_at: str | None = None
    index_source: str | None = None
    unverified: tuple[str, ...] = ()
    patches: tuple[tuple[str, str], ...] = ()


def _wish_json(wish: Wish) -> dict[str, Any]:
    """The wish as asked: the framework under the name given (``tensorflow-gpu`` kept)."""
    return {**value_to_json(wish), "framework": wish.requested_name or wish.framework}


def _freshness_json(freshness: Freshness) -> dict[str, Any]:
    """The freshness as JSON, by hand: nearly every key differs from its field, one is told from another."""
    return {
        "generated": freshness.data_generated,
        "source": "bundled" if freshness.data_origin == "bundled" else "fetched",
        "origin": freshness.data_origin,
        "index_checked_at": freshness.index_checked_at,
        "index": freshness.index_source,
        "newer_releases_unverified": list(freshness.unverified),
        "newer_patches_planned": [
            {"minor": minor, "version": version} for minor, version in freshness.patches
        ],
    }


@dataclass(frozen=True)
class Recommendation:
    """The answer to a wish: a plan, alternatives best first, and why.

    ``gpu_supported``: the plan uses this machine's GPU as it is (its build's machine code, not
    PTX alone; no driver update first).
    """

    framework: str
    gpu_supported: bool
    driver_update_required: bool
    plan: Plan
    alternatives: tuple[Plan, ...]
    findings: tuple[Finding, ...]
    notes: tuple[str, ...]
    cuda_numbers: CudaNumbers
    wish: Wish = json_field(default_factory=lambda: Wish("pytorch"), write=_wish_json)
    compat_origin: str = json_field(key="compat_data", default="bundled")
    freshness: Freshness = json_field(key="data_freshness", default_factory=Freshness, write=_freshness_json)
    #: Whether some release the wish allows would use this machine's GPU as it is (``gpu_supported``
    #: is the plan's own): with no version asked, an older release may where the plan's does not.
    some_release_gpu_supported: bool = False


def plan_to_json(plan: Plan) -> dict[str, Any]:
    """A plan as contract JSON: its fields (see :class:`Plan`)."""
    return value_to_json(plan)


def recommendation_to_json(rec: Recommendation) -> dict[str, Any]:
    """The recommendation as ``gpuwizard.recommendation/1`` JSON: its fields, in order."""
    return {"schema": RECOMMENDATION_SCHEMA, **value_to_json(rec)}
