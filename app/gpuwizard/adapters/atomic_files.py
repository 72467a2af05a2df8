"""Replacing a file in one step: a temporary file in the same folder, renamed over the old one.

An interrupted write (a crash, a kill, a full disk, Ctrl+C) never leaves half a file: the old
file stays as it was, and the temporary one is removed. The new file keeps the old one's mode
(``mkstemp`` makes 0600) and reaches the disk before the rename. Every file the wizard
replaces goes through here: its state under ``GPUWIZARD_HOME``, a registry snapshot, exports.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def _current_umask() -> int:
    # os.umask can only be read by setting it; done once, at import, before any thread writes.
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _current_umask()


def write_bytes_atomically(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` in one step; the folder must exist.

    Raises:
        OSError: The folder cannot be written.
    """
    handle, temporary = tempfile.mkstemp(prefix=f".{path.stem}-", suffix=path.suffix, dir=path.parent)
    try:
        Path(temporary).chmod(_mode_for(path))
        with os.fdopen(handle, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        Path(temporary).replace(path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_text_atomically(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` (UTF-8) in one step; the folder must exist.

    Raises:
        OSError: The folder cannot be written.
    """
    write_bytes_atomically(path, text.encode("utf-8"))


def _mode_for(path: Path) -> int:
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        return 0o666 & ~_UMASK
