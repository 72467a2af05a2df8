"""Pure readings of host identity: WSL version, architecture names, OS family.

>>> wsl_version_from_kernel("5.15.153.1-microsoft-standard-WSL2")
2
>>> wsl_version_from_kernel("4.4.0-19041-Microsoft")
1
>>> wsl_version_from_kernel("6.1.0-18-amd64") is None
True
>>> normalise_arch("AMD64"), normalise_arch("aarch64")
('x86_64', 'arm64')
"""

from __future__ import annotations

from typing import Final

_ARCH_ALIASES: Final = {"amd64": "x86_64", "x64": "x86_64", "aarch64": "arm64", "arm64": "arm64"}


def wsl_version_from_kernel(kernel_text: str) -> int | None:
    """WSL 1 or 2 from the kernel release or /proc/version text, None outside WSL.

    WSL 2 runs Microsoft's Linux kernel, whose release ends in ``-microsoft-standard-WSL2``
    (``-microsoft-standard`` in early builds); WSL 1 reports the Windows build with
    ``-Microsoft`` (Microsoft WSL documentation, "Comparing WSL 1 and WSL 2").
    """
    text = kernel_text.lower()
    if "microsoft" not in text:
        return None
    return 2 if "wsl2" in text or "microsoft-standard" in text else 1


def normalise_arch(machine: str) -> str:
    """One name per architecture, whatever spelling the OS uses."""
    lowered = machine.lower()
    return _ARCH_ALIASES.get(lowered, lowered)


def os_family(system: str) -> str:
    """``Windows``/``Linux``/``Darwin`` (platform.system) -> ``windows``/``linux``/``darwin``.

    >>> os_family("Windows"), os_family("Linux"), os_family("FreeBSD")
    ('windows', 'linux', 'unknown')
    """
    lowered = system.lower()
    return lowered if lowered in ("windows", "linux", "darwin") else "unknown"


def windows_name(release: str, version: str) -> str:
    """``Windows 11`` or ``Windows 10`` from ``platform.release()`` and ``platform.version()``.

    Python before 3.12 reports release "10" on Windows 11 too; Windows 11 is build 22000 and
    later (Microsoft, Windows 11 release information).

    >>> windows_name("10", "10.0.22631"), windows_name("10", "10.0.19045"), windows_name("11", "10.0.26100")
    ('Windows 11', 'Windows 10', 'Windows 11')
    """
    parts = version.split(".")
    if len(parts) >= 3 and parts[2].isdigit() and int(parts[2]) >= 22000:
        return "Windows 11"
    return f"Windows {release}"
