"""Finding executables by name in a list of folders, for either OS family.

``shutil.which`` follows the running OS's rules; detection also scans Windows-shaped trees on
Linux in tests, so the rules are spelled out here: on Windows a name matches with the
``PATHEXT`` endings, elsewhere it must be an executable file.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable, Mapping, Sequence
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


def find_nvidia_smi(family: str, env: Mapping[str, str]) -> str | None:
    r"""Where nvidia-smi is: PATH first, then where drivers put it.

    DCH drivers on Windows install it in System32, older ones in ``NVIDIA Corporation\NVSMI``
    (pytorch/pytorch#49021, wookayin/gpustat#86); WSL 2 passes it through in /usr/lib/wsl/lib.
    """
    found = shutil.which("nvidia-smi", path=env.get("PATH", os.defpath))
    if found:
        return found
    if family == "windows":
        candidates = [
            Path(env.get("SystemRoot", r"C:\Windows")) / "System32" / "nvidia-smi.exe",
            Path(env.get("ProgramFiles", r"C:\Program Files"))
            / "NVIDIA Corporation"
            / "NVSMI"
            / "nvidia-smi.exe",
        ]
    else:
        candidates = [Path("/usr/lib/wsl/lib/nvidia-smi"), Path("/usr/bin/nvidia-smi")]
    return next((str(path) for path in candidates if path.is_file()), None)


def is_program(path: str | Path | None) -> bool:
    """Whether ``path`` names a file this OS can run (on Windows any file: its ending decides)."""
    if not path:
        return False
    candidate = Path(path)
    return candidate.is_file() and (os.name == "nt" or os.access(candidate, os.X_OK))
