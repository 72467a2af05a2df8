"""Pure readings about Python interpreters: launcher listings, Store builds, probe output."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

#: A stdlib-only one-liner that any Python from 2.7 on answers with its version, pointer
#: size and real executable: "3.11.7 64 /usr/bin/python3.11".
PROBE_CODE: Final = (
    "import sys, struct; "
    "sys.stdout.write('%d.%d.%d %d %s' % (sys.version_info[0], sys.version_info[1], "
    "sys.version_info[2], struct.calcsize('P') * 8, sys.executable))"
)

# "-3.11-64  C:\\...\\python.exe *" (launcher up to 3.10) or "-V:3.12 *  C:\\...\\python.exe"
# (3.11+; tags may be "Company/Tag" for other distributions).
_LAUNCHER_LINE: Final = re.compile(
    r"^\s*-(?:V:)?(?P<tag>\S+)(?P<star1>\s+\*)?\s+(?P<path>.+?)(?P<star2>\s+\*)?\s*$"
)
_PROBE_OUTPUT: Final = re.compile(r"^(\d+\.\d+\.\d+)\s+(32|64)(?:\s+(.+))?$")


@dataclass(frozen=True)
class LauncherEntry:
    """One interpreter the Windows ``py`` launcher lists."""

    tag: str
    executable: str
    version_hint: str | None
    bits_hint: int | None
    default: bool


def parse_py_launcher_list(text: str) -> list[LauncherEntry]:
    r"""Read ``py -0p`` (``py --list-paths``) output in its old and new formats.

    >>> entries = parse_py_launcher_list(
    ...     " -V:3.12 *        C:\\Python312\\python.exe\n -3.8-32  C:\\Python38-32\\python.exe\n")
    >>> [(e.version_hint, e.bits_hint, e.default) for e in entries]
    [('3.12', 64, True), ('3.8', 32, False)]
    """
    entries: list[LauncherEntry] = []
    for line in text.splitlines():
        match = _LAUNCHER_LINE.match(line)
        if not match or not re.search(r"\.exe$", match.group("path"), re.IGNORECASE):
            continue
        tag = match.group("tag")
        version = re.match(r"^(\d+\.\d+)", tag)
        entries.append(
            LauncherEntry(
                tag=tag,
                executable=match.group("path").strip(),
                version_hint=version.group(1) if version else None,
                bits_hint=32 if tag.endswith("-32") else (64 if version else None),
                default=bool(match.group("star1") or match.group("star2")),
            )
        )
    return entries


def parse_probe_output(text: str) -> tuple[str, int, str | None] | None:
    """Read what :data:`PROBE_CODE` printed: ``(version, bits, executable)``.

    >>> parse_probe_output("3.11.7 64 /usr/bin/python3.11")
    ('3.11.7', 64, '/usr/bin/python3.11')
    >>> parse_probe_output("Python was not found; run without arguments to install") is None
    True
    """
    match = _PROBE_OUTPUT.match(text.strip())
    if not match:
        return None
    return match.group(1), int(match.group(2)), match.group(3) or None


def is_ms_store_python(executable: str) -> bool:
    r"""True for the Microsoft Store build or its ``WindowsApps`` alias.

    The Store build lives in ``WindowsApps\PythonSoftwareFoundation.Python.3.X_...`` and is
    started through an alias in ``%LOCALAPPDATA%\Microsoft\WindowsApps`` (Python docs,
    "Using Python on Windows", The Microsoft Store package).

    >>> is_ms_store_python("C:\\Users\\a\\AppData\\Local\\Microsoft\\WindowsApps\\python.exe")
    True
    >>> is_ms_store_python("C:\\Python311\\python.exe")
    False
    """
    lowered = executable.replace("/", "\\").lower()
    return "\\windowsapps\\" in lowered or "pythonsoftwarefoundation.python." in lowered


_UV_INSTALL: Final = re.compile(r"^cpython-(\d+\.\d+\.\d+)[^-]*-[^-]+-(x86_64|aarch64|x86|i686|arm64)-")
_PYENV_VERSION: Final = re.compile(r"^(\d+\.\d+\.\d+)$")


def version_from_install_folder(name: str) -> tuple[str, int | None] | None:
    """Version and pointer size from a pyenv or uv install folder name, when it tells them.

    pyenv names CPython installs by version (``versions/3.10.13``); uv by implementation,
    version, OS, architecture and libc (``cpython-3.12.7-linux-x86_64-gnu``). Other names
    (``pypy3.10-7.3.12``, ``miniconda3-latest``, virtualenvs) give None: ask the interpreter.

    >>> version_from_install_folder("3.10.13")
    ('3.10.13', None)
    >>> version_from_install_folder("cpython-3.12.7-windows-x86-none")
    ('3.12.7', 32)
    >>> version_from_install_folder("cpython-3.13.0+freethreaded-linux-x86_64-gnu")
    ('3.13.0', 64)
    >>> version_from_install_folder("pypy3.10-7.3.12") is None
    True
    """
    match = _PYENV_VERSION.match(name)
    if match:
        return match.group(1), None
    match = _UV_INSTALL.match(name)
    if match:
        return match.group(1), 32 if match.group(2) in ("x86", "i686") else 64
    return None
