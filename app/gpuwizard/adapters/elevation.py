r"""Running one step elevated (Windows UAC): the system PATH write, and nothing else.

The wizard itself always runs unelevated. Writing the system PATH
(``HKLM\...\Session Manager\Environment``) needs an administrator token, so that single
write runs in a helper process started with ``ShellExecuteExW`` and the ``runas`` verb, which
shows the UAC prompt (Microsoft Learn, "ShellExecuteExW" and "Launching an elevated
process"). The user's "No" is ``ERROR_CANCELLED`` (1223) and nothing is written.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any, Final

from gpuwizard.adapters.runner import windows_command_line

#: ShellExecuteExW's error when the user declines the UAC prompt (winerror.h).
ERROR_CANCELLED: Final = 1223


class ElevationDeclined(Exception):
    """The user said no at the UAC prompt; nothing ran."""


class ElevationFailed(Exception):
    """The elevated helper could not be started or did not finish; the message says why."""


def relaunch_argv() -> list[str]:
    """The argv that starts this wizard again: the frozen exe, or this interpreter with ``-m``."""
    if getattr(sys, "frozen", False):
        return [sys.executable]
    return [sys.executable, "-m", "gpuwizard"]


def is_elevated() -> bool:
    """Whether this process already has an administrator token (always False off Windows)."""
    if os.name != "nt":
        return False
    import ctypes  # noqa: PLC0415 - Windows only

    return bool(ctypes.windll.shell32.IsUserAnAdmin())  # type: ignore[attr-defined]


def run_elevated(argv: Sequence[str], *, timeout_s: float = 120.0, visible: bool = False) -> int:
    """Run ``argv`` elevated, wait for it, and return its exit code.

    ``visible``: in a window the person sees (``wsl --install`` shows its download and asks
    for the distribution's Linux user); hidden otherwise (the system PATH write).

    Raises:
        ElevationDeclined: The user declined the UAC prompt.
        ElevationFailed: Not on Windows, the process could not start, or it did not end in time.
    """
    if os.name != "nt":
        raise ElevationFailed("elevation exists only on Windows")
    import ctypes  # noqa: PLC0415 - Windows only
    from ctypes import wintypes  # noqa: PLC0415

    class ShellExecuteInfo(ctypes.Structure):
        _fields_ = [
            ("cbSize", wintypes.DWORD),
            ("fMask", ctypes.c_ulong),
            ("hwnd", wintypes.HWND),
            ("lpVerb", wintypes.LPCWSTR),
            ("lpFile", wintypes.LPCWSTR),
            ("lpParameters", wintypes.LPCWSTR),
            ("lpDirectory", wintypes.LPCWSTR),
            ("nShow", ctypes.c_int),
            ("hInstApp", wintypes.HINSTANCE),
            ("lpIDList", ctypes.c_void_p),
            ("lpClass", wintypes.LPCWSTR),
            ("hkeyClass", wintypes.HKEY),
            ("dwHotKey", wintypes.DWORD),
            ("hIconOrMonitor", wintypes.HANDLE),
            ("hProcess", wintypes.HANDLE),
        ]

    see_mask_nocloseprocess, sw_hide, sw_shownormal, wait_timeout = 0x40, 0, 1, 0x102
    info = ShellExecuteInfo()
    info.cbSize = ctypes.sizeof(info)
    info.fMask = see_mask_nocloseprocess
    info.lpVerb = "runas"
    info.lpFile = argv[0]
    info.lpParameters = windows_command_line(argv[1:])
    info.nShow = sw_shownormal if visible else sw_hide
    # Private library objects, so the argtypes set here change nothing for other code; handles
    # are pointer-sized, and without argtypes ctypes would pass them as 32-bit ints.
    kernel32: Any = ctypes.WinDLL("kernel32", use_last_error=True)  # type: ignore[attr-defined]
    shell32: Any = ctypes.WinDLL("shell32", use_last_error=True)  # type: ignore[attr-defined]
    kernel32.WaitForSingleObject.argtypes = [wintypes.HANDLE, wintypes.DWORD]
    kernel32.WaitForSingleObject.restype = wintypes.DWORD
    kernel32.GetExitCodeProcess.argtypes = [wintypes.HANDLE, ctypes.POINTER(wintypes.DWORD)]
    kernel32.CloseHandle.argtypes = [wintypes.HANDLE]
    shell32.ShellExecuteExW.argtypes = [ctypes.POINTER(ShellExecuteInfo)]
    shell32.ShellExecuteExW.restype = wintypes.BOOL
    if not shell32.ShellExecuteExW(ctypes.byref(info)):
        error = ctypes.get_last_error()  # type: ignore[attr-defined]
        if error == ERROR_CANCELLED:
            raise ElevationDeclined("the administrator prompt was declined; nothing was changed")
        raise ElevationFailed(f"could not start the elevated helper (Windows error {error})")
    try:
        if kernel32.WaitForSingleObject(info.hProcess, int(timeout_s * 1000)) == wait_timeout:
            raise ElevationFailed(f"the elevated helper did not finish in {timeout_s:.0f} s")
        code = wintypes.DWORD()
        kernel32.GetExitCodeProcess(info.hProcess, ctypes.byref(code))
        return int(code.value)
    finally:
        kernel32.CloseHandle(info.hProcess)
