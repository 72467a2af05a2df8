"""The wizard's home folder: PATH journal, last good snapshot, caches, logs.

What lives there, and which module owns each file: docs/architecture.md, "State under GPUWIZARD_HOME".
"""

from __future__ import annotations

import errno
import logging
import os
from pathlib import Path
from typing import Final

#: What a write says when its disk is full or read-only, whatever file it names: a full disk's
#: ``write`` names none (ENOSPC, EDQUOT over a quota, EFBIG past a size limit; EROFS read-only).
_CANNOT_STORE: Final = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS})
#: Warnings about the state (the command line prints each as one ``gpuwizard: warning:`` line).
STATE_LOG: Final = logging.getLogger("gpuwizard.state")
#: The last good state's file in the home (``workflow/health/good_state.py``). Named here, where
#: little is imported, so that the PATH commands can look for it without loading the health checks.
SNAPSHOT_NAME: Final = "last-good.json"


def wizard_home() -> Path:
    r"""The home folder: ``GPUWIZARD_HOME`` if set, else the platform's user data folder.

    That is ``%LOCALAPPDATA%\gpuwizard`` on Windows and ``~/.local/share/gpuwizard`` on Linux.
    """
    configured = os.environ.get("GPUWIZARD_HOME")
    if configured:
        return Path(configured)
    import platformdirs  # noqa: PLC0415 - only when no GPUWIZARD_HOME is set

    return Path(platformdirs.user_data_dir("gpuwizard", appauthor=False))


def state_unwritable(error: OSError) -> str | None:
    """One line saying that the wizard's state could not be written, when ``error`` is about it.

    ``error`` is about it when it names a file under the home folder (read-only: EROFS, EACCES;
    a file where a folder should be: ENOTDIR; full: ENOSPC), or names none and says a disk is
    full or read-only. None otherwise: then it is about something else.
    """
    home = wizard_home()
    named = [
        os.fsdecode(name) for name in (error.filename, error.filename2) if isinstance(name, (str, bytes))
    ]
    if named and not any(_inside(Path(name), home) for name in named):
        return None
    if not named and error.errno not in _CANNOT_STORE:
        return None
    reason = error.strerror or type(error).__name__
    fix = "free some space there or make it writable, or set GPUWIZARD_HOME to a folder that is"
    if not named:
        # A write that names no file: the disk may be the state's or another the command wrote to.
        return f"a disk is full or read-only ({reason}), perhaps the one of the wizard's state, {home}; {fix}"
    return f"the wizard's state cannot be written in {home} ({reason}: {named[0]}); {fix}"


def _inside(path: Path, folder: Path) -> bool:
    try:
        return path.resolve().is_relative_to(folder.resolve())
    except (OSError, RuntimeError, ValueError):
        return path.is_relative_to(folder)
