r"""PATH values as lists of folders: splitting, and a comparison key that never gets written back.

Windows PATH entries are separated by ``;``, may be quoted (a quoted entry may contain ``;``),
may hold ``%VARIABLE%`` references, and compare case-insensitively with either slash. POSIX
entries are separated by ``:``. Both kinds are handled here for either OS, so the Windows
rules are tested on Linux.

>>> split_path_value('C:\\a;;"C:\\b;c";C:\\d\\', windows=True)
['C:\\a', 'C:\\b;c', 'C:\\d\\']
>>> comparison_key("c:/Program Files/CUDA/", windows=True) == comparison_key("C:\\program files\\cuda", windows=True)
True
"""

from __future__ import annotations

import ntpath
import posixpath
import re
from collections.abc import Mapping
from typing import Final

_WINDOWS_VAR: Final = re.compile(r"%([^%;]+)%")


def split_segments(value: str) -> list[str]:
    r"""The segments of a Windows PATH value, exactly as written; ``";".join`` gives it back.

    A ``;`` inside double quotes belongs to the entry (``"C:\a;b"`` is one folder).

    >>> split_segments('C:\\a;;"C:\\b;c";')
    ['C:\\a', '', '"C:\\b;c"', '']
    """
    segments: list[str] = []
    current: list[str] = []
    quoted = False
    for char in value:
        if char == '"':
            quoted = not quoted
        if char == ";" and not quoted:
            segments.append("".join(current))
            current = []
        else:
            current.append(char)
    segments.append("".join(current))
    return segments


def entry_of(segment: str) -> str:
    """The folder a Windows PATH segment names: spaces around it and its quotes removed."""
    return segment.strip().replace('"', "").strip()


def split_path_value(value: str, *, windows: bool) -> list[str]:
    """Split a PATH value into entries, dropping empty ones and the quotes around quoted ones."""
    if not windows:
        return [entry for entry in value.split(":") if entry]
    return [entry for entry in map(entry_of, split_segments(value)) if entry]


def expand_windows_vars(entry: str, env: Mapping[str, str]) -> str:
    r"""Expand ``%NAME%`` references from ``env`` (names compare case-insensitively).

    Unknown names stay as they are, as Windows leaves them.

    >>> expand_windows_vars("%SystemRoot%\\system32;%NOPE%", {"SYSTEMROOT": "C:\\Windows"})
    'C:\\Windows\\system32;%NOPE%'
    """
    upper = {name.upper(): value for name, value in env.items()}
    return _WINDOWS_VAR.sub(lambda m: upper.get(m.group(1).upper(), m.group(0)), entry)


def comparison_key(entry: str, *, windows: bool, env: Mapping[str, str] | None = None) -> str:
    """A key under which two spellings of the same folder compare equal.

    Only for comparing: case, slashes, ``..`` and trailing separators are folded, and on
    Windows ``%VARS%`` are expanded from ``env`` when given. Never write this key back.
    """
    if windows:
        text = expand_windows_vars(entry, env) if env is not None else entry
        text = ntpath.normpath(text.replace("/", "\\")).rstrip("\\") or "\\"
        if re.fullmatch(r"[A-Za-z]:", text):
            text += "\\"
        return text.casefold()
    text = posixpath.normpath(entry)
    return text if text == "/" else text.rstrip("/")
