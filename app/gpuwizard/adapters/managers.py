"""Environment managers on this machine: uv, conda, mamba, micromamba.

Looked for on PATH, through the variables their installers set (``CONDA_EXE``,
``MAMBA_EXE``), and in their default install folders, because conda is often installed
without being put on PATH (the Miniconda installer's recommended default on Windows).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final

from gpuwizard.adapters.executables import find_executable
from gpuwizard.core.machine.system_report import ManagerFacts

#: Folder names conda distributions install into by default.
_CONDA_ROOTS: Final = ("miniconda3", "anaconda3", "miniforge3", "mambaforge", "micromamba")


def find_managers(
    family: str, env: Mapping[str, str], path_dirs: Sequence[str], home: Path, scripts_dir: Path
) -> ManagerFacts:
    """Where each manager's executable is, or None.

    ``scripts_dir`` is the wizard's own environment's scripts folder, where the ``uv`` wheel
    installs its binary; that uv is used when none is on PATH.
    """
    windows = family == "windows"
    roots = _conda_roots(windows, env, home)
    bin_dirs = [root / ("Scripts" if windows else "bin") for root in roots]
    bin_dirs += [root / "condabin" for root in roots]
    user_bins = [home / ".local" / "bin", home / ".cargo" / "bin"]
    if windows and env.get("LOCALAPPDATA"):
        user_bins.append(Path(env["LOCALAPPDATA"]) / "micromamba")

    def first(name: str, *extra: Sequence[Path], named_by: str | None = None) -> str | None:
        if named_by and env.get(named_by) and Path(env[named_by]).is_file():
            named = Path(env[named_by])
            if named.stem.lower() == name:
                return str(named)
        found = find_executable(name, [*path_dirs, *(p for group in extra for p in group)], windows=windows)
        return str(found) if found else None

    return ManagerFacts(
        uv=first("uv", user_bins) or _bundled_uv(scripts_dir, windows),
        conda=first("conda", bin_dirs, named_by="CONDA_EXE"),
        mamba=first("mamba", bin_dirs),
        micromamba=first("micromamba", user_bins, bin_dirs, named_by="MAMBA_EXE"),
    )


def _conda_roots(windows: bool, env: Mapping[str, str], home: Path) -> list[Path]:
    parents = [home]
    if windows:
        parents += [Path(env[name]) for name in ("ProgramData", "LOCALAPPDATA") if env.get(name)]
    else:
        parents += [Path("/opt")]
    roots = [parent / name for parent in parents for name in _CONDA_ROOTS]
    if not windows:
        roots.append(Path("/opt/conda"))
    return roots


def _bundled_uv(scripts_dir: Path, windows: bool) -> str | None:
    """The uv binary the ``uv`` wheel installs in the scripts folder, when it is installed.

    Looking there spares importing the package (its ``find_uv_bin`` costs about 20 ms of
    start-up).
    """
    candidate = scripts_dir / ("uv.exe" if windows else "uv")
    return str(candidate) if candidate.is_file() else None
