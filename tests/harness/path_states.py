"""A machine with something for ``verify`` to check, without an environment: a PATH folder the wizard added.

The verify tests of the metrics and of the cluster gate share it: ``gpuwizard path add`` on a
registry snapshot records the change in the journal, so ``verify --registry`` checks it (and the
first healthy run records the last good state).
"""

from __future__ import annotations

import json
from pathlib import Path

from harness.entry_point import gpuwizard

USER = "HKCU\\Environment"
CUDA_BIN = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.6\\bin"


def registry_with_a_folder_the_wizard_added(folder: Path) -> Path:
    """A registry snapshot whose user PATH got ``CUDA_BIN`` from ``gpuwizard path add``: something to verify."""
    registry = folder / "registry.json"
    registry.write_text(
        json.dumps({USER: {"Path": {"type": "REG_EXPAND_SZ", "value": "%USERPROFILE%\\bin"}}})
    )
    added = gpuwizard("path", "add", CUDA_BIN, "--scope", "user", "--registry", str(registry), timeout=60)
    assert added.returncode == 0, added.stderr
    return registry
