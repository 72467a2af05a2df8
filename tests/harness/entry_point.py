"""Not a fake: the real ``gpuwizard`` entry point of the test venv, run as a person or a script runs it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ENTRY_POINT = shutil.which("gpuwizard", path=str(Path(sys.executable).parent)) or "gpuwizard"


def gpuwizard(
    *args: str, env: dict[str, str] | None = None, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    """Run ``gpuwizard ARGS`` with this process's environment plus ``env``; never raises on failure."""
    return subprocess.run(
        [ENTRY_POINT, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
        check=False,
    )
