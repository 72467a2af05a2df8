"""Finding executables by name in a list of folders, for either OS family.

``shutil.which`` follows the running OS's rules; detection also scans Windows-shaped trees on
Linux in tests, so the rules are spelled out here: on Windows a name matches with the
``PATHEXT`` endings, elsewhere it must be an executable file.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Final

_WINDOWS_ENDINGS: Final = (".exe", ".bat", ".cmd", ".com")


def find_executable(name: str, folders: Iterable[str | Path], *, windows: bool) -> Path | None:
    """The first ``name`` in ``folders`` (in order), or None."""
    for folder in folders:
        for candidate in candidates(Path(folder), name, windows=windows):
            if candidate.is_file() and (windows or os.access(candidate, os.X_OK)):
                return candidate
    return None


def candidates(folder: Path, name: str, *, windows: bool) -> Sequence[Path]:
    """The file names ``name`` may have in ``folder``."""
    if not windows or Path(name).suffix.lower() in _WINDOWS_ENDINGS:
        return [folder / name]
    return [folder / f"{name}{ending}" for ending in _WINDOWS_ENDINGS]
