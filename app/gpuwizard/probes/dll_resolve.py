"""Which file each DLL name loads from, in a freshly started process, as one JSON line.

Run with the environment a program started now would get (the PATH rebuilt from the registry),
so it shows what TensorFlow 2.10 and older on Windows will find: they load ``cudart64_110.dll``
and cuDNN's DLLs by bare name, which Windows' standard search order looks for on PATH
(Microsoft Learn, "Dynamic-link library search order"). ``winmode=0`` asks ctypes for exactly
that order; Python 3.8+ otherwise leaves PATH out (docs.python.org, ctypes, "winmode").

Stdlib only, Python 3.7 syntax, never imports gpuwizard: ``python dll_resolve.py NAME...``.
Exits 0 when every DLL loads, 1 when one does not (the JSON line says which and why).
"""

import json
import os
import sys


def resolve(names: "list[str]") -> "dict[str, object]":
    """Load each DLL by bare name and report the file it came from (or the error)."""
    found = {}  # type: dict[str, object]
    errors = {}  # type: dict[str, object]
    report = {"probe": "dll_resolve", "platform": sys.platform, "found": found, "errors": errors}  # type: dict[str, object]
    if os.name != "nt":
        for name in names:
            errors[name] = "DLLs are looked for on Windows only"
        return report
    import ctypes  # noqa: PLC0415 - Windows only
    from ctypes import wintypes  # noqa: PLC0415

    get_name = ctypes.WinDLL("kernel32", use_last_error=True).GetModuleFileNameW  # type: ignore[attr-defined]
    get_name.argtypes = [wintypes.HMODULE, wintypes.LPWSTR, wintypes.DWORD]
    for name in names:
        try:
            library = ctypes.WinDLL(name, winmode=0)  # type: ignore[attr-defined]
        except OSError as error:
            errors[name] = str(error)
            continue
        buffer = ctypes.create_unicode_buffer(32768)
        get_name(library._handle, buffer, len(buffer))
        found[name] = buffer.value
    return report


def main(argv: "list[str]") -> int:
    """Print the report for the DLL names in ``argv[1:]``; 0 when all of them load."""
    report = resolve(list(argv[1:]))
    sys.stdout.write(json.dumps(report) + "\n")
    sys.stdout.flush()
    return 0 if not report["errors"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
