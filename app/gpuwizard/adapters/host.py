"""The host the wizard runs on: OS, architecture, WSL, container, distribution."""

from __future__ import annotations

import platform
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from gpuwizard.core.machine.host_facts import normalise_arch, os_family, windows_name, wsl_version_from_kernel
from gpuwizard.core.machine.system_report import OsFacts

_PROC_VERSION: Final = Path("/proc/version")
# Docker writes /.dockerenv and Podman /run/.containerenv into every container.
_CONTAINER_MARKERS: Final = (Path("/.dockerenv"), Path("/run/.containerenv"))


@dataclass(frozen=True)
class HostReading:
    """Raw facts about the host, before interpretation."""

    system: str
    release: str
    version: str
    machine: str
    proc_version: str | None
    container: bool
    distribution: str | None
    frozen: bool


def in_container(platform_name: str, exists: Callable[[Path], bool] = Path.exists) -> bool:
    """Whether a Linux container's marker file is there (``platform_name``: ``sys.platform``).

    Only on Linux: on Windows "/.dockerenv" is a path on the current drive, so a folder of that
    name on one drive would make the same machine a container from there and not from another.
    """
    return platform_name.startswith("linux") and any(exists(marker) for marker in _CONTAINER_MARKERS)


def read_host() -> HostReading:
    """Read the host (cheap: platform calls and a few small files)."""
    try:
        proc_version = _PROC_VERSION.read_text(encoding="utf-8", errors="replace")
    except OSError:
        proc_version = None
    distribution = None
    if sys.platform.startswith("linux"):
        try:
            distribution = platform.freedesktop_os_release().get("PRETTY_NAME")
        except OSError:
            distribution = None
    elif sys.platform == "win32":
        distribution = windows_name(platform.release(), platform.version())
    elif sys.platform == "darwin":
        distribution = f"macOS {platform.mac_ver()[0]}"
    return HostReading(
        system=platform.system(),
        release=platform.release(),
        version=platform.version(),
        machine=platform.machine(),
        proc_version=proc_version,
        container=in_container(sys.platform),
        distribution=distribution,
        frozen=bool(getattr(sys, "frozen", False)),
    )


def os_facts(host: HostReading) -> OsFacts:
    """Interpret a host reading as the report's ``os`` section."""
    family = os_family(host.system)
    wsl_version = None
    if family == "linux":
        wsl_version = wsl_version_from_kernel(host.proc_version or host.release)
    return OsFacts(
        family=family,
        wsl=wsl_version is not None,
        # Windows: platform.version() is "10.0.22631"; release() only says "10" or "11".
        release=host.version if family == "windows" else host.release,
        arch=normalise_arch(host.machine),
        wsl_version=wsl_version,
        container=host.container,
        distribution=host.distribution,
    )
