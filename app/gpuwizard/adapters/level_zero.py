"""Intel's Level Zero libraries on Linux: the GPU driver ``libze_intel_gpu.so.*`` and the loader ``libze_loader.so.*``.

Intel's compute-runtime installs the driver as ``libze_intel_gpu.so.1.<minor>.<build>`` with a
``libze_intel_gpu.so.1`` link beside it; the full file name is the version ``sycl-ls`` shows
(``[1.14.37020]``). The loader (``libze1``/``level-zero`` packages) likewise.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gpuwizard.core.machine.gpu_kinds import level_zero_version

_DRIVER = "libze_intel_gpu.so."
_LOADER = "libze_loader.so."


@dataclass(frozen=True)
class LevelZeroFiles:
    """The Level Zero libraries found (first folder wins), each with its file name's version."""

    driver: Path | None = None
    driver_version: str | None = None
    loader: Path | None = None
    loader_version: str | None = None


def find_level_zero(folders: Sequence[Path]) -> LevelZeroFiles:
    """Look for the driver and the loader in ``folders`` (the loader's search folders)."""
    driver = loader = None
    for folder in folders:
        try:
            names = sorted(entry.name for entry in folder.iterdir())
        except OSError:
            continue
        driver = driver or _versioned(folder, names, _DRIVER)
        loader = loader or _versioned(folder, names, _LOADER)
    return LevelZeroFiles(
        driver=driver,
        driver_version=level_zero_version(driver.name) if driver else None,
        loader=loader,
        loader_version=level_zero_version(loader.name) if loader else None,
    )


def _versioned(folder: Path, names: Sequence[str], prefix: str) -> Path | None:
    """The file with the longest version in its name, else the ``.so.1`` link, else None."""
    found = [name for name in names if name.startswith(prefix)]
    with_version = [name for name in found if level_zero_version(name)]
    pick = max(with_version, key=len) if with_version else (found[0] if found else None)
    return folder / pick if pick else None
