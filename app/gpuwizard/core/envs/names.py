"""Environment names and folders the wizard accepts (checked before anything is created).

A name becomes a folder name on every OS and, for conda, an ``-n`` argument, so it must be
safe for all of them: no path separators or traversal, none of the device names Windows
reserves in every folder, no characters Windows forbids in file names, no trailing dot or
space (Windows strips them, so ``demo.`` and ``demo`` would be the same folder). It is also
shown in lists, logs and prompts, so it must be plain visible text: no control characters, no
invisible formatting characters (bidirectional overrides, zero-width joiners), no bytes that
were not UTF-8. And every file name the wizard makes from it must fit the file systems' limit,
counted in bytes, not characters (:data:`NAME_MAX_BYTES`).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

#: Longest name accepted: leaves room under Windows' 260-character MAX_PATH for site-packages.
NAME_MAX_CHARS: Final = 64
#: The longest file name (one path component) where the wizard runs: 255 bytes of UTF-8 on
#: Linux's ext4, XFS and Btrfs (NAME_MAX) and macOS's APFS; 255 UTF-16 code units on Windows'
#: NTFS and on macOS's HFS+, which stores names decomposed (NFD). A name over it cannot be made:
#: ENAMETOOLONG (Errno 36) from every call that names it, the settling of an interrupted creation
#: included, which then failed again at every later command.
FILE_NAME_MAX: Final = 255
#: Longest name accepted, in UTF-8 bytes (and UTF-16 units, decomposed). The longest file name
#: the wizard makes from a name is the name itself, its folder (``envs/NAME``; a conda
#: environment's ``ENVS_DIR/NAME``). The others: the folders beside it while it is made, replaced
#: or removed are named by the run, not the name (``.gpuwizard-making-``, ``.gpuwizard-replaced-``,
#: ``.gpuwizard-removing-``, ``.gpuwizard-kernel-`` and 16 hex digits, 35-37 bytes:
#: ``workflow/envs/recovery.py``, ``registry.py``; before issue 33 the moved-aside copy was
#: ``.NAME.gpuwizard-replaced-XXXXXXXX``, 29 bytes more than the name, so that a name over 226
#: bytes could be made but never replaced); the log ``env-create-SAFE-YYYYmmdd-HHMMSS-XXXXXXXX.log``
#: keeps only ``[A-Za-z0-9._-]`` of the name (``workflow/envs/create.py``, ``_file_safe``), at
#: most 64 + 40 = 104 bytes; the Jupyter kernel's folder at most 64 (``_kernel_name``); records
#: and locks are named by a hash. A file name made from the name and more must lower this.
NAME_MAX_BYTES: Final = FILE_NAME_MAX

# Device names reserved in every folder, with or without an extension
# (learn.microsoft.com/windows/win32/fileio/naming-a-file, "Naming Conventions").
_WINDOWS_RESERVED: Final = frozenset(
    {"con", "prn", "aux", "nul", "conin$", "conout$"}
    | {f"com{digit}" for digit in "123456789¹²³"}
    | {f"lpt{digit}" for digit in "123456789¹²³"}
)
# Forbidden in Windows file names (same page), plus '#' and '!' which break conda and
# `conda activate` (conda's `validate_prefix`/`ensure_name_or_prefix` refuse '/', ' ', ':', '#').
_FORBIDDEN: Final = frozenset('<>:"/\\|?*#!')
_CONDA_FORBIDDEN: Final = frozenset(" /:#")


class EnvNameError(ValueError):
    """The name cannot be used (one line, for exit code 2)."""


def check_env_name(name: str, *, manager: str = "venv") -> str:
    r"""Return ``name`` if it is a safe environment name for ``manager``, else raise.

    Spaces are allowed for venv environments (their folder is quoted everywhere the wizard
    writes it), not for conda, which refuses them.

    Raises:
        EnvNameError: Empty, too long, path-like, reserved on Windows, or with a forbidden,
            control, invisible formatting (bidirectional, zero-width) or non-text character.

    >>> check_env_name("torch-2.13 cu126")
    'torch-2.13 cu126'
    >>> for bad in ("", "../x", "con", "LPT1.txt", "a/b", "demo."):
    ...     try:
    ...         check_env_name(bad)
    ...     except EnvNameError as error:
    ...         print(error)
    the environment name is empty
    '../x' is not a plain name: it must not contain / \ or start with a dot
    'con' is a device name Windows reserves in every folder (CON, PRN, AUX, NUL, COM1-9, LPT1-9)
    'LPT1.txt' is a device name Windows reserves in every folder (CON, PRN, AUX, NUL, COM1-9, LPT1-9)
    'a/b' is not a plain name: it must not contain / \ or start with a dot
    'demo.' must not end with a dot or a space (Windows drops them)
    """
    if not name or not name.strip():
        raise EnvNameError("the environment name is empty")
    if "/" in name or "\\" in name or name.startswith(".") or name in {".", ".."}:
        raise EnvNameError(f"{name!r} is not a plain name: it must not contain / \\ or start with a dot")
    if len(name) > NAME_MAX_CHARS:
        raise EnvNameError(f"the environment name is longer than {NAME_MAX_CHARS} characters")
    # Category Cc covers C1 controls too (U+0085 NEXT LINE is also whitespace to str.strip).
    if any(unicodedata.category(char) == "Cc" for char in name):
        raise EnvNameError(f"{name!r} contains a control character")
    # Lone surrogates (Cs): argv bytes that are not UTF-8 arrive so on Linux (PEP 383), and no
    # file name, log or JSON can be written with them.
    if any(unicodedata.category(char) == "Cs" for char in name):
        raise EnvNameError(f"{name!r} is not valid text (bytes that are not UTF-8)")
    _check_file_name_size(name)
    # Format characters (Cf): bidirectional overrides, embeddings, isolates and marks, zero-width
    # spaces and joiners, the byte order mark. Invisible, they make a name look like another or
    # reorder what is shown around it (Unicode TR #36, "Unicode Security Considerations";
    # CVE-2021-42574, "Trojan Source").
    hidden = sorted({f"U+{ord(char):04X}" for char in name if unicodedata.category(char) == "Cf"})
    if hidden:
        raise EnvNameError(
            f"{name!r} contains invisible formatting characters ({', '.join(hidden)}) that disguise names"
        )
    if name != name.lstrip():
        raise EnvNameError(f"{name!r} must not start with a space")
    if name.endswith(".") or name != name.rstrip():
        raise EnvNameError(f"{name!r} must not end with a dot or a space (Windows drops them)")
    bad = sorted(set(name) & _FORBIDDEN)
    if bad:
        raise EnvNameError(f"{name!r} contains {' '.join(bad)}, which file names on Windows or conda refuse")
    if name.split(".", 1)[0].rstrip().lower() in _WINDOWS_RESERVED:
        raise EnvNameError(
            f"{name!r} is a device name Windows reserves in every folder (CON, PRN, AUX, NUL, COM1-9, LPT1-9)"
        )
    if manager == "conda" and set(name) & _CONDA_FORBIDDEN:
        raise EnvNameError(f"{name!r}: conda environment names cannot contain spaces")
    if not re.search(r"\w", name):
        raise EnvNameError(f"{name!r} has no letter or digit")
    return name


def _check_file_name_size(name: str) -> None:
    """Refuse a name whose folder, or a name the wizard makes from it, would not fit a file name.

    >>> try:
    ...     _check_file_name_size("\U0001d400" * 64)  # 64 letters of 4 bytes each
    ... except EnvNameError as error:
    ...     print(error)
    the environment name is 256 bytes long in UTF-8; at most 255 fit (it names a folder)
    """
    size = len(name.encode("utf-8"))
    if size > NAME_MAX_BYTES:
        raise EnvNameError(
            f"the environment name is {size} bytes long in UTF-8; at most {NAME_MAX_BYTES} fit (it names a folder)"
        )
    # HFS+ counts UTF-16 units of the decomposed name: a letter with two accents is three.
    units = len(unicodedata.normalize("NFD", name).encode("utf-16-le")) // 2
    if units > NAME_MAX_BYTES:
        raise EnvNameError(
            f"the environment name is {units} UTF-16 units long decomposed, as macOS stores file names; "
            f"at most {NAME_MAX_BYTES} fit (it names a folder)"
        )
