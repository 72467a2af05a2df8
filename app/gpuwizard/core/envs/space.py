"""How much free disk an environment needs, decided before anything is downloaded.

A CUDA build of PyTorch with its ``nvidia-*`` wheels takes several GB once unpacked, and a
disk that fills up part-way through an install leaves a broken environment and a confusing
``OSError: [Errno 28]``; the wizard checks first and says how much is missing.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

MIB: Final = 1024 * 1024
GIB: Final = 1024 * MIB

# Installed sizes, rounded up, measured with `du -sh` of fresh environments (Linux x86_64):
# torch 2.13.0+cpu with its dependencies 1.1 GiB (this project's tests/bench run); a CUDA 12
# build pulls about 3 GB of nvidia-* wheels on top (pytorch/pytorch#108929 lists their sizes);
# tensorflow 2.16-2.20 about 1.9 GiB, with `[and-cuda]` about 5.5 GiB more (tensorflow.org/install/pip).
_FRAMEWORK_BYTES: Final = {
    ("pytorch", False): 7 * GIB,
    ("pytorch", True): int(1.5 * GIB),
    ("tensorflow", False): 8 * GIB,
    ("tensorflow", True): int(2.5 * GIB),
}
# Download sizes: the wheels a fresh environment fetches, summed from the index's own file sizes
# (PEP 700 "size" in PyPI's JSON simple API) for the set `uv pip compile` resolves, Linux x86_64,
# CPython 3.11, measured 2026-11-25: torch 2.15.0 from PyPI (CUDA 13.2 build with its nvidia-*
# wheels) 3.00 GB; tensorflow[and-cuda] 2.20 3.50 GB; tensorflow 2.20 0.70 GB; torch 2.13.0+cpu
# with its dependencies 0.20 GB (the wheels of this project's tests' folder).
_FRAMEWORK_DOWNLOAD: Final = {
    ("pytorch", False): int(3.0e9),
    ("pytorch", True): int(0.2e9),
    ("tensorflow", False): int(3.5e9),
    ("tensorflow", True): int(0.7e9),
}
#: The interpreter, pip, the wizard's files and pip's temporary unpacking.
BASE_BYTES: Final = 300 * MIB
#: Wheels are zip files; installed, they take about this many times their size (torch: 190 MB -> 700 MB).
UNPACK_FACTOR: Final = 4


def required_bytes(framework: str, cpu_only: bool, local_wheel_bytes: Iterable[int] | None = None) -> int:
    """Free bytes needed to create the environment.

    When the packages come from a local folder, its wheels' sizes give a closer figure than
    the framework's typical size.

    >>> required_bytes("pytorch", cpu_only=True) // MIB
    1836
    >>> required_bytes("pytorch", cpu_only=True, local_wheel_bytes=[200 * MIB]) // MIB
    1100
    """
    if local_wheel_bytes is not None:
        return BASE_BYTES + UNPACK_FACTOR * sum(local_wheel_bytes)
    return BASE_BYTES + _FRAMEWORK_BYTES.get((framework, cpu_only), 8 * GIB)


def download_bytes(framework: str, cpu_only: bool) -> int:
    """About how many bytes installing the framework downloads (its wheels and their dependencies).

    >>> round(download_bytes("pytorch", cpu_only=False) / 1e9, 1)
    3.0
    """
    return _FRAMEWORK_DOWNLOAD.get((framework, cpu_only), int(3.5e9))


def space_message(needed: int, free: int, where: str) -> str:
    """The one-line refusal when ``free`` is less than ``needed``.

    >>> space_message(3 * GIB, GIB, "/home")
    'not enough free disk space in /home: 1.1 GB free, about 3.2 GB needed (free 2.1 GB more)'
    """
    return (
        f"not enough free disk space in {where}: {_gb(free)} free, about {_gb(needed)} needed "
        f"(free {_gb(needed - free)} more)"
    )


def _gb(size: int) -> str:
    return f"{size / 1e9:.1f} GB"
