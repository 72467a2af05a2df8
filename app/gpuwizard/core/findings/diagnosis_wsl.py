r"""Known failures of the WSL 2 route itself: WSL 1, virtualization, the distribution's disk and memory.

Part of :mod:`gpuwizard.core.findings.diagnosis`, which tries :data:`WSL_PART` with the other
parts. Its signatures and their texts are data in ``resources/findings/wsl.json`` (the facts and
their sources are that file's ``notes``); the real logs are recorded in
tests/fixtures/recorded/diagnose (SOURCES.md says where each one comes from). This module holds
the code the signatures name:

- WSL 1 instead of 2: ``WSL1_NO_GPU`` (the machine check's code) in the variants ``log`` (WSL 1's
  kernel release in the log) and ``distro`` (a ``wsl -l -v`` row with VERSION 1). WSL 1 has no
  GPU at all, so it explains the GPU findings a WSL 1 log also gives (no libcuda, nvidia-smi
  failing, no device): they are dropped.
- Virtualization off in the firmware or the Virtual Machine Platform not enabled:
  ``WSL_VIRTUALIZATION_DISABLED``; the WSL optional component itself not enabled: ``WSL_NOT_ENABLED``.
- The distribution out of disk: ``WSL_DISK_FULL``, the variant ``windows_drive`` where Windows'
  own drive is full (wsl.exe's ERROR_DISK_FULL, a write under ``/mnt/<drive>/``).
- The virtual machine's memory limit: ``WSL_MEMORY_LIMIT``, a process the out-of-memory killer
  ended inside WSL 2.

A full disk and a killed process are claimed only when the log itself shows WSL (its kernel, its
folders, the word WSL, a Windows drive under ``/mnt``): elsewhere they have other causes and
other fixes, and stay what they were (a killed process on plain Linux is an unrecognised error).
A GPU's own out-of-memory error (``GPU_OUT_OF_MEMORY``) is another finding: the killer acts on
the computer's memory.

>>> from gpuwizard.core.findings.diagnosis import diagnose
>>> [f.code for f in diagnose("Error code: Wsl/Service/CreateInstance/CreateVm/HCS/HCS_E_HYPERV_NOT_INSTALLED")]
['WSL_VIRTUALIZATION_DISABLED']
>>> [f.code for f in diagnose("Linux 5.15.167.4-microsoft-standard-WSL2\nLoading model...\nKilled")]
['WSL_MEMORY_LIMIT']
>>> [f.code for f in diagnose("Loading model...\nKilled")]
[]
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Final

from gpuwizard.core.findings.log_facts import per_log, shows_wsl
from gpuwizard.core.findings.signature import DRIVER_LIBRARY, DiagnosisPart, Hit, Values

# --- WSL 1 -------------------------------------------------------------------------------------

#: The header of ``wsl -l -v``: never translated (microsoft/WSL, src/windows/inc/wsl.h).
_LIST_HEADER: Final = re.compile(r"NAME[ \t]{1,120}STATE[ \t]{1,40}VERSION")
#: One row of the table: the default mark, the name, the state, the version (WslClient.cpp).
_LIST_ROW: Final = re.compile(
    r"^[ \t>|`]{0,8}(?P<default>\*)?[ \t]{1,8}(?P<distro>[^\s*][^\s]{0,79})[ \t]{1,120}"
    r"(?:Running|Stopped|Installing|Uninstalling|Converting|Exporting)[ \t]{1,40}(?P<version>[12])[ \t]{0,8}$",
    re.MULTILINE,
)
#: Docker Desktop's own distributions (always WSL 2): they say nothing about the user's.
_DOCKER_DESKTOP: Final = re.compile(r"docker-desktop(?:-data)?")


@per_log
def _wsl_list(text: str) -> tuple[bool, bool]:
    """Whether ``text`` holds a ``wsl -l -v`` table, and whether a user's distribution in it is WSL 2.

    Read once per log: a log repeating the table must not be read again at every row.
    """
    if _LIST_HEADER.search(text) is None:
        return False, False
    user_wsl2 = any(
        row.group("version") == "2" and not _DOCKER_DESKTOP.fullmatch(row.group("distro"))
        for row in _LIST_ROW.finditer(text)
    )
    return True, user_wsl2


def _wsl1_row(match: re.Match[str]) -> Values | None:
    """A VERSION 1 row counts for the default distribution, or when no user's distribution is WSL 2.

    A WSL 1 distribution kept beside the WSL 2 one in use is no failure.
    """
    listed, user_wsl2 = _wsl_list(match.string)
    if listed and (match.group("default") or not user_wsl2):
        return {"distro": match.group("distro")}
    return None


def _wsl1_variant(
    values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    """The distribution named when a ``wsl -l -v`` row shows it, else the log's own WSL 1 kernel."""
    return ("distro" if values.get("distro") else "log"), {}


def _wsl1_driver_library(hits: dict[str, Hit], text: str) -> None:
    """WSL 1 has no libcuda at all: the missing driver library is WSL 1's doing, not a driver to install."""
    dll = hits.get("DLL_NOT_FOUND")
    libraries = dll.values.get("libraries", []) if dll else []
    if dll and "WSL1_NO_GPU" in hits and all(DRIVER_LIBRARY.fullmatch(name) for name in libraries):
        hits.pop("DLL_NOT_FOUND")


# --- the distribution's disk and memory ----------------------------------------------------------

#: A Windows drive as WSL mounts it (/mnt/c/...): a write there fills the Windows drive.
_WINDOWS_DRIVE_PATH: Final = re.compile(r"/mnt/(?P<drive>[a-zA-Z])/")
#: How much of the line around a match is searched for such a path.
_LINE_REACH: Final = 400


@per_log
def _shows_wsl_here(text: str) -> bool:
    """Whether the log shows WSL (:func:`shows_wsl`), or a Windows drive where WSL mounts it.

    log_facts counts /mnt/<drive>/ only before "users/"; a program's own folder on a Windows
    drive (/mnt/f/webui/venv) shows WSL as well: plain Linux has no single-letter mounts there
    by default (WSL's automount root, learn.microsoft.com/en-us/windows/wsl/wsl-config).
    """
    return shows_wsl(text) or _WINDOWS_DRIVE_PATH.search(text) is not None


def _line_around(match: re.Match[str]) -> str:
    # At most _LINE_REACH on either side: a log without line breaks is not copied whole per match.
    text, reach_start = match.string, max(0, match.start() - _LINE_REACH)
    newline = text.rfind("\n", reach_start, match.start())
    end = text.find("\n", match.end(), match.end() + _LINE_REACH)
    return text[newline + 1 if newline >= 0 else reach_start : end if end >= 0 else match.end() + _LINE_REACH]


def _enospc_in_wsl(match: re.Match[str]) -> Values | None:
    """A full disk counts only in a WSL log; a path under /mnt/<drive>/ in its line names the Windows drive."""
    if not _shows_wsl_here(match.string):
        return None
    drive = _WINDOWS_DRIVE_PATH.search(_line_around(match))
    return {"drive": f"{drive.group('drive').upper()}:"} if drive else {}


def _disk_variant(
    values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    """Windows' drive when wsl.exe said so or the failed write was on it, else the distribution's disk."""
    return ("windows_drive" if "windows_drive" in variants or values.get("drive") else None), {}


def _killed_in_wsl(match: re.Match[str]) -> Values | None:
    """A killed process counts only in a WSL log: elsewhere the VM's memory limit is not the cause."""
    if not _shows_wsl_here(match.string):
        return None
    return {name: value for name, value in match.groupdict().items() if value}


def _in_wsl_log(match: re.Match[str]) -> Values | None:
    """A driver library's failure counts only where the log shows WSL itself (its kernel, folders, name).

    Stricter than the disk's and memory's test: on plain Linux the same words mean a driver
    problem that other parts name, and a folder under /mnt/<letter>/ alone does not outweigh that.
    """
    if not shows_wsl(match.string):
        return None
    return {name: value for name, value in match.groupdict().items() if value}


WSL_PART: Final = DiagnosisPart(
    name="wsl",
    extractors=(_wsl1_row, _enospc_in_wsl, _killed_in_wsl, _in_wsl_log),
    suppresses={
        # WSL 1 has no GPU: no libcuda in /usr/lib/wsl/lib, nvidia-smi cannot reach a driver, CUDA
        # finds no device, and a Linux driver installed there cannot help either.
        "WSL1_NO_GPU": (
            "WSL_LIBCUDA_NOT_FOUND",
            "WSL_LIBCUDA_NOT_SYMLINK",
            "WSL_LINUX_DRIVER_CONFLICT",
            "KERNEL_MODULE_MISMATCH",
            "NO_NVIDIA_DRIVER",
            "CUDA_INIT_FAILED",
            "CUDA_DEVICE_NOT_VISIBLE",
            "TORCH_CUDA_UNAVAILABLE",
            "VENDOR_CUDA_ERROR",
            "DOCKER_NO_NVIDIA_GPU",
        ),
    },
    refiners={"WSL1_NO_GPU": _wsl1_variant, "WSL_DISK_FULL": _disk_variant},
    rules=(_wsl1_driver_library,),
)
