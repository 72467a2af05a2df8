"""Reading a file the wizard is handed (or keeps): whole, but never more than a limit.

A name on the command line can be anything: a folder, a device such as ``/dev/zero`` that never
ends, a multi-gigabyte file given by mistake. :func:`read_input` reads at most ``limit`` bytes
and refuses the rest with one line, so a bad name is exit code 2, never a traceback, a hang or
the machine's memory filled (docs/architecture.md, "The command-line and JSON contract").
Parsing is :mod:`gpuwizard.core.json_input`'s.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Final, Literal

#: A saved system report (``detect --json``) is a few kilobytes (the samples and fixtures: 3 KB
#: at most; one saved with its plan and live test, a few more); 16 MiB is thousands of times that.
SYSTEM_REPORT_LIMIT: Final = 16 * 2**20
#: A registry snapshot holds the two Environment keys; Windows caps one environment variable
#: at 32,767 characters (learn.microsoft.com, "SetEnvironmentVariable"), so even hundreds of
#: values at the cap stay under 16 MiB.
REGISTRY_SNAPSHOT_LIMIT: Final = 16 * 2**20
#: An answer file is one flat table of a dozen keys (``docs/fleet/answers.toml``: 1.6 KB).
ANSWERS_LIMIT: Final = 1 * 2**20
#: A log to diagnose: build and install logs reach tens of megabytes; beyond that, its end is
#: where the error is (``tail -c 50M build.log | gpuwizard diagnose``).
LOG_LIMIT: Final = 64 * 2**20
#: The wizard's own files under GPUWIZARD_HOME (environments, the last good state, last tests,
#: the PATH journal, the compatibility cache). They grow with use: the journal keeps both PATH
#: values of every change (a few kilobytes each, 64 KiB at Windows' cap), so 256 MiB is
#: thousands of changes at the cap; larger is damage.
STATE_FILE_LIMIT: Final = 256 * 2**20


Reason = Literal["missing", "folder", "unreadable", "too_large"]


class InputFileError(ValueError):
    """The file cannot be read (missing, a folder, unreadable, too large); one line naming it."""

    def __init__(self, message: str, reason: Reason) -> None:
        super().__init__(message)
        self.reason: Reason = reason


def read_input(path: Path, *, limit: int, what: str) -> bytes:
    """The bytes of ``path``, at most ``limit`` of them.

    Args:
        path: The file.
        limit: The largest size accepted, in bytes.
        what: What the file should be, for the message (``a system report``, ``an answer file``).

    Raises:
        InputFileError: Missing, a folder, unreadable, or larger than ``limit`` (refused from its
            size before reading when the system knows it, else after ``limit`` bytes).
    """
    try:
        with path.open("rb") as stream:
            info = os.fstat(stream.fileno())
            if stat.S_ISDIR(info.st_mode):
                raise InputFileError(f"{path}: is a folder, not {what}", "folder")
            if stat.S_ISREG(info.st_mode) and info.st_size > limit:
                raise _too_large(path, limit)
            data = stream.read(limit + 1)
    except FileNotFoundError:
        raise InputFileError(f"{path}: no such file", "missing") from None
    except IsADirectoryError:
        raise InputFileError(f"{path}: is a folder, not {what}", "folder") from None
    except PermissionError as error:
        if path.is_dir():  # Windows opens no folder: "Permission denied"
            raise InputFileError(f"{path}: is a folder, not {what}", "folder") from None
        raise InputFileError(f"{path}: cannot be read ({error.strerror or error})", "unreadable") from None
    except OSError as error:
        raise InputFileError(f"{path}: cannot be read ({error.strerror or error})", "unreadable") from None
    except ValueError as error:  # a name with a NUL character
        if isinstance(error, InputFileError):
            raise
        raise InputFileError(f"{path!r}: not a file name ({error})", "unreadable") from None
    if len(data) > limit:
        raise _too_large(path, limit)
    return data


def _too_large(path: Path, limit: int) -> InputFileError:
    size = f"{limit // 2**20} MiB" if limit % 2**20 == 0 else f"{limit:,} bytes"
    return InputFileError(f"{path}: too large (over {size})", "too_large")
