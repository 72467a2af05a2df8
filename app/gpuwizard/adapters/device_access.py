"""Whether this user can open a GPU's device file: ``/dev/kfd`` for ROCm, ``/dev/dri/renderD*`` for Level Zero.

Both are ``root:render`` mode 0660 on current distributions: a user outside the ``render``
group sees the GPU in every listing and still cannot run anything on it. Opening the file
read-write is the test the runtimes themselves make; it is closed at once.
"""

from __future__ import annotations

import errno
import os
import sys
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class DeviceAccess:
    """The outcome of opening one device file.

    Attributes:
        path: The device file.
        present: Whether it exists.
        usable: Whether it opened read-write.
        detail: Why not, in words, when it did not.
    """

    path: str
    present: bool
    usable: bool
    detail: str | None = None


def check_device(path: Path) -> DeviceAccess:
    """Open ``path`` read-write and close it; say why when that fails."""
    if not path.exists():
        return DeviceAccess(str(path), present=False, usable=False, detail=f"{path} does not exist")
    try:
        handle = os.open(path, os.O_RDWR | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        return DeviceAccess(str(path), present=True, usable=False, detail=_why(path, error))
    os.close(handle)
    return DeviceAccess(str(path), present=True, usable=True)


def _why(path: Path, error: OSError) -> str:
    if error.errno in (errno.EACCES, errno.EPERM) and sys.platform.startswith("linux"):
        group = _missing_group(path)
        if group:
            return f"the user is not in the {group} group"
    return f"{path} cannot be opened: {error.strerror or error}"


def _missing_group(path: Path) -> str | None:
    """The device's group when this process is not in it (the usual cause), else None."""
    import grp  # noqa: PLC0415 - POSIX only

    try:
        gid = path.stat().st_gid
        name = grp.getgrgid(gid).gr_name
    except (OSError, KeyError):
        return None
    return None if gid == os.getegid() or gid in os.getgroups() else name
