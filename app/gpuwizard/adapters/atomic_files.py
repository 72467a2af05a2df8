"""Replacing a file in one step: a temporary file in the same folder, renamed over the old one.

An interrupted write (a crash, a full disk, Ctrl+C) never leaves half a file: the old
file stays as it was, and the temporary one is removed. The new file keeps the old one's mode
(``mkstemp`` makes 0600) and reaches the disk before the rename. Every file the wizard
replaces goes through here: its state under ``GPUWIZARD_HOME``, a registry snapshot, exports.

A kill (SIGKILL, a power cut) between making the temporary file and the rename leaves it
behind: ``.NAME-XXXXXXXX.pidPID.SUFFIX`` beside ``NAME.SUFFIX``, named with the writer's
process id (older versions wrote ``.NAME-XXXXXXXX.SUFFIX``). :func:`remove_stale_temporaries`
removes those of one file whose writer is gone, for callers that hold that file's lock
(:mod:`.file_locks`), which every writer of it holds while its temporary file exists.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Final


def _current_umask() -> int:
    # os.umask can only be read by setting it; done once, at import, before any thread writes.
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _current_umask()
#: When this run began (as the file system dates files): a temporary file without a process id
#: that is older was made by an earlier run.
_STARTED: Final = time.time()
#: The random part ``tempfile.mkstemp`` puts in a name: 8 of these characters
#: (CPython, Lib/tempfile.py, ``_RandomNameSequence.characters``).
_RANDOM: Final = r"[a-z0-9_]{8}"


def _temporary_name_parts(path: Path, ending: str | None = None) -> tuple[str, str]:
    """The prefix and suffix of ``path``'s temporary files, as ``mkstemp`` takes them."""
    return f".{path.stem}-", f".pid{os.getpid()}{path.suffix if ending is None else ending}"


def write_bytes_atomically(path: Path, data: bytes, *, temporary_suffix: str | None = None) -> None:
    """Replace ``path`` with ``data`` in one step; the folder must exist.

    ``temporary_suffix`` ends the temporary file's name instead of ``path``'s suffix, where a
    reader of the folder takes every file of that suffix (a textfile collector reads each
    ``*.prom``); :func:`remove_stale_temporaries` does not know such names.

    Raises:
        OSError: The folder cannot be written.
    """
    prefix, suffix = _temporary_name_parts(path, temporary_suffix)
    handle, temporary = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=path.parent)
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


def write_text_atomically(path: Path, text: str, *, errors: str = "strict") -> None:
    r"""Replace ``path`` with ``text`` (UTF-8) in one step; the folder must exist.

    ``errors`` is the encoder's error handler (Python's codecs). JSON made with
    ``ensure_ascii=False`` passes ``"backslashreplace"``: the only text UTF-8 cannot encode
    is a lone surrogate (a registry value may hold one), which then becomes its JSON escape
    ``\udc80`` inside its string, read back as the same character.

    Raises:
        OSError: The folder cannot be written.
        UnicodeEncodeError: ``text`` holds a lone surrogate and ``errors`` is ``"strict"``.
    """
    write_bytes_atomically(path, text.encode("utf-8", errors=errors))


def remove_stale_temporaries(path: Path) -> list[Path]:
    """Remove the temporary files a killed writer of ``path`` left beside it; returns them.

    Only files named as this module names ``path``'s temporary files, and only when their
    writer is gone: its process id (in the name) runs no more, or, for a name without one (an
    older version's), the file is older than this run. The caller must hold ``path``'s lock
    (:func:`gpuwizard.adapters.file_locks.locked`), which each writer of ``path`` holds while
    its temporary file exists, so no living writer's file is taken. Nothing here ever fails
    the caller: a file that cannot be removed is left.
    """
    pattern = re.compile(
        rf"\.{re.escape(path.stem)}-{_RANDOM}(?:\.pid(?P<pid>[0-9]{{1,10}}))?{re.escape(path.suffix)}"
    )
    removed: list[Path] = []
    try:
        with os.scandir(path.parent) as listing:
            candidates = [(entry, match) for entry in listing if (match := pattern.fullmatch(entry.name))]
    except OSError:
        return removed
    for entry, match in candidates:
        with contextlib.suppress(OSError):
            if not entry.is_file(follow_symlinks=False):
                continue  # the wizard only ever makes plain files
            pid = match.group("pid")
            gone = not _running(int(pid)) if pid else entry.stat(follow_symlinks=False).st_mtime < _STARTED
            if gone:
                Path(entry.path).unlink()
                removed.append(Path(entry.path))
    return removed


def _running(pid: int) -> bool:
    """Whether process ``pid`` runs (this one always does; when unsure, it counts as running)."""
    if pid == os.getpid():
        return True
    if sys.platform == "win32":
        return _running_on_windows(pid)
    try:
        os.kill(pid, 0)  # signal 0: only asks (POSIX kill(2))
    except ProcessLookupError:
        return False
    except OSError:
        return True  # EPERM: it runs, as another user
    return True


def _running_on_windows(pid: int) -> bool:
    # os.kill(pid, 0) would terminate the process on Windows (it calls TerminateProcess), so ask
    # OpenProcess/GetExitCodeProcess instead (Microsoft Learn, "GetExitCodeProcess": STILL_ACTIVE).
    import ctypes  # noqa: PLC0415 - Windows only
    from ctypes import wintypes  # noqa: PLC0415

    query_limited_information, still_active, access_denied = 0x1000, 259, 5
    kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)  # type: ignore[attr-defined]
    kernel32.OpenProcess.argtypes = [wintypes.DWORD, wintypes.BOOL, wintypes.DWORD]
    kernel32.OpenProcess.restype = wintypes.HANDLE
    kernel32.GetExitCodeProcess.argtypes = [wintypes.HANDLE, ctypes.POINTER(wintypes.DWORD)]
    kernel32.CloseHandle.argtypes = [wintypes.HANDLE]
    handle = kernel32.OpenProcess(query_limited_information, False, pid)
    if not handle:
        # No such process: ERROR_INVALID_PARAMETER; one of another user: ERROR_ACCESS_DENIED.
        return ctypes.get_last_error() == access_denied  # type: ignore[attr-defined]
    try:
        code = wintypes.DWORD()
        if not kernel32.GetExitCodeProcess(handle, ctypes.byref(code)):
            return True
        return code.value == still_active
    finally:
        kernel32.CloseHandle(handle)


def _mode_for(path: Path) -> int:
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        return 0o666 & ~_UMASK
