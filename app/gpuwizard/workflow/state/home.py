"""The wizard's home folder: PATH journal, last good snapshot, caches, logs.

What lives there, and which module owns each file: docs/architecture.md, "State under GPUWIZARD_HOME".
"""

from __future__ import annotations

import os
from pathlib import Path


def wizard_home() -> Path:
    r"""The home folder: ``GPUWIZARD_HOME`` if set, else the platform's user data folder.

    That is ``%LOCALAPPDATA%\gpuwizard`` on Windows and ``~/.local/share/gpuwizard`` on Linux.
    """
    configured = os.environ.get("GPUWIZARD_HOME")
    if configured:
        return Path(configured)
    import platformdirs  # noqa: PLC0415 - only when no GPUWIZARD_HOME is set

    return Path(platformdirs.user_data_dir("gpuwizard", appauthor=False))
