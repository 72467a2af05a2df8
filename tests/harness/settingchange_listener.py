"""A Windows program that waits for ``WM_SETTINGCHANGE``: run it in the Windows Python under Wine.

It proves that a broadcast really reaches other programs, as Explorer and every open console
must be reached after the wizard edits the environment (Microsoft Learn, "WM_SETTINGCHANGE
message"). It registers a window class, creates a hidden top-level window (a message-only
window, parent ``HWND_MESSAGE``, would receive no broadcasts), prints ``ready`` and pumps
messages until a ``WM_SETTINGCHANGE`` whose lParam is "Environment" arrives or the deadline (the
first argument, in seconds) passes: a timer, so it never hangs. Then it prints one JSON line:
``{"received": [the lParam string of each WM_SETTINGCHANGE, in order]}``.

Standard library only, and nothing happens on import (pytest imports every module for doctests).
"""

from __future__ import annotations

import json
import sys

WM_SETTINGCHANGE = 0x001A
WM_TIMER = 0x0113
CLASS_NAME = "GpuwizardSettingChangeListener"


def main(argv: list[str]) -> int:
    """Listen for ``float(argv[0])`` seconds at most; see the module docstring."""
    import ctypes
    from ctypes import wintypes

    deadline_ms = int(float(argv[0]) * 1000) if argv else 20000
    user32 = ctypes.WinDLL("user32", use_last_error=True)
    kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
    lresult = ctypes.c_ssize_t
    wndproc_type = ctypes.WINFUNCTYPE(lresult, wintypes.HWND, wintypes.UINT, wintypes.WPARAM, wintypes.LPARAM)

    class WNDCLASSW(ctypes.Structure):
        _fields_ = [
            ("style", wintypes.UINT),
            ("lpfnWndProc", wndproc_type),
            ("cbClsExtra", ctypes.c_int),
            ("cbWndExtra", ctypes.c_int),
            ("hInstance", wintypes.HINSTANCE),
            ("hIcon", wintypes.HICON),
            ("hCursor", wintypes.HANDLE),
            ("hbrBackground", wintypes.HBRUSH),
            ("lpszMenuName", wintypes.LPCWSTR),
            ("lpszClassName", wintypes.LPCWSTR),
        ]

    user32.DefWindowProcW.argtypes = [wintypes.HWND, wintypes.UINT, wintypes.WPARAM, wintypes.LPARAM]
    user32.DefWindowProcW.restype = lresult
    user32.CreateWindowExW.argtypes = [
        wintypes.DWORD, wintypes.LPCWSTR, wintypes.LPCWSTR, wintypes.DWORD, ctypes.c_int, ctypes.c_int,
        ctypes.c_int, ctypes.c_int, wintypes.HWND, wintypes.HMENU, wintypes.HINSTANCE, wintypes.LPVOID,
    ]  # fmt: skip
    user32.CreateWindowExW.restype = wintypes.HWND
    user32.SetTimer.argtypes = [wintypes.HWND, ctypes.c_size_t, wintypes.UINT, ctypes.c_void_p]
    user32.SetTimer.restype = ctypes.c_size_t
    kernel32.GetModuleHandleW.argtypes = [wintypes.LPCWSTR]
    kernel32.GetModuleHandleW.restype = wintypes.HMODULE

    received: list[str | None] = []

    def window_procedure(hwnd: int, message: int, wparam: int, lparam: int) -> int:
        if message == WM_SETTINGCHANGE:
            text = ctypes.wstring_at(lparam) if lparam else None
            received.append(text)
            if text == "Environment":
                user32.PostQuitMessage(0)
            return 0
        return int(user32.DefWindowProcW(hwnd, message, wparam, lparam))

    procedure = wndproc_type(window_procedure)  # kept referenced while the window lives
    instance = kernel32.GetModuleHandleW(None)
    window_class = WNDCLASSW(lpfnWndProc=procedure, hInstance=instance, lpszClassName=CLASS_NAME)
    if not user32.RegisterClassW(ctypes.byref(window_class)):
        print(json.dumps({"error": f"RegisterClassW failed: {ctypes.get_last_error()}"}), flush=True)
        return 1
    # Style 0 is WS_OVERLAPPED without WS_VISIBLE: a hidden top-level window.
    hwnd = user32.CreateWindowExW(0, CLASS_NAME, "listener", 0, 0, 0, 0, 0, None, None, instance, None)
    if not hwnd:
        print(json.dumps({"error": f"CreateWindowExW failed: {ctypes.get_last_error()}"}), flush=True)
        return 1
    user32.SetTimer(hwnd, 1, deadline_ms, None)
    print("ready", flush=True)
    message = wintypes.MSG()
    # Sent messages (SendMessageTimeout) are delivered to the window procedure inside GetMessageW.
    while user32.GetMessageW(ctypes.byref(message), None, 0, 0) > 0:
        if message.message == WM_TIMER:
            break
        user32.TranslateMessage(ctypes.byref(message))
        user32.DispatchMessageW(ctypes.byref(message))
    user32.DestroyWindow(hwnd)
    print(json.dumps({"received": received}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
