"""macOS facts for GPU detection: the chip's name and the macOS version.

``sysctl -n machdep.cpu.brand_string`` answers ``Apple M3 Pro`` on Apple silicon (the GPU is
part of that chip) and an Intel CPU's name on an Intel Mac. It runs by its full path, with a
deadline, through the runner; a Mac where it does not answer gets no Apple GPU, not an error.
"""

from __future__ import annotations

import platform
from typing import Final

from gpuwizard.adapters.runner import Runner, RunnerError

SYSCTL: Final = "/usr/sbin/sysctl"
SYSCTL_TIMEOUT_S: Final = 5.0


def read_cpu_brand(runner: Runner, timeout: float = SYSCTL_TIMEOUT_S) -> str | None:
    """``machdep.cpu.brand_string``, None when sysctl is missing, fails or does not answer."""
    try:
        done = runner.run([SYSCTL, "-n", "machdep.cpu.brand_string"], timeout=timeout)
    except RunnerError:
        return None
    text = done.stdout.strip()
    return text if done.ok and text else None


def read_macos_version() -> str | None:
    """``platform.mac_ver()``'s version (``14.5``), None off macOS."""
    version = platform.mac_ver()[0]
    return version or None
