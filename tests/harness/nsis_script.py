"""What the Windows installer's NSIS script defines, read from the script itself.

The fleet kit (integrations/windows: the winget manifest, the Intune scripts) must name the
uninstall key, folders and exit codes the installer really uses; its tests read them here rather
than repeating them.
"""

from __future__ import annotations

import re
from pathlib import Path

NSIS_SCRIPT = Path(__file__).resolve().parents[2] / "installer" / "gpuwizard.nsi"


def nsis_defines() -> dict[str, str]:
    """The script's ``!define NAME value`` lines, ``${OTHER}`` references expanded."""
    defines: dict[str, str] = {}
    for match in re.finditer(
        r'^\s*!define\s+(\w+)\s+(?:"([^"]*)"|(\S+))', NSIS_SCRIPT.read_text(), re.MULTILINE
    ):
        name, quoted, bare = match.groups()
        value = quoted if quoted is not None else bare
        defines.setdefault(name, re.sub(r"\$\{(\w+)\}", lambda ref: defines.get(ref[1], ref[0]), value))
    return defines
