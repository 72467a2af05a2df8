r"""Which CUDA toolkit PATH reaches first.

The CUDA installer puts ``<root>\bin`` and ``<root>\libnvvp`` on PATH (NVIDIA CUDA
Installation Guide for Microsoft Windows); a Linux toolkit puts ``<root>/bin`` there. The
first of them on PATH is what ``nvcc`` and DLL loading find, so when two versions are on PATH,
order decides (microsoft/onnxruntime#6433: with two toolkits installed, the first DLL folder
on PATH wins).

>>> ranks = toolkit_path_ranks(
...     ["C:\\CUDA\\v12.1", "C:\\CUDA\\v11.2"],
...     ["C:\\Windows", "c:/cuda/v11.2/bin", "C:\\CUDA\\v12.1\\bin\\"],
...     windows=True)
>>> ranks == {"C:\\CUDA\\v11.2": 0, "C:\\CUDA\\v12.1": 1}
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from gpuwizard.core.pathedit.pathlist import comparison_key

#: Toolkit subfolders that installers and guides put on PATH.
TOOLKIT_PATH_SUBFOLDERS: Final = ("bin", "libnvvp")


def toolkit_path_ranks(roots: Sequence[str], path_entries: Sequence[str], *, windows: bool) -> dict[str, int]:
    """Rank the toolkits that PATH reaches, 0 for the first; toolkits not on PATH are absent."""
    separator = "\\" if windows else "/"
    wanted: dict[str, str] = {}
    for root in roots:
        for sub in TOOLKIT_PATH_SUBFOLDERS:
            wanted[comparison_key(root.rstrip("\\/") + separator + sub, windows=windows)] = root
    first_seen: dict[str, int] = {}
    for position, entry in enumerate(path_entries):
        reached = wanted.get(comparison_key(entry, windows=windows))
        if reached is not None:
            first_seen.setdefault(reached, position)
    ordered = sorted(first_seen, key=first_seen.__getitem__)
    return {root: rank for rank, root in enumerate(ordered)}
