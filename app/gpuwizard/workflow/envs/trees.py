"""Removing what the wizard made: an environment's folder or a kernel, whatever Windows says first."""

from __future__ import annotations

import os
import shutil
import stat
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def remove_tree(path: Path) -> list[str]:
    """Remove ``path`` completely; returns what could not be removed (empty when all went)."""
    if not path.exists() and not path.is_symlink():
        return []
    if path.is_symlink() or path.is_file():
        path.unlink()
        return []
    mounted = mount_inside(path)
    if mounted is not None:
        # rmtree descends into mount points: a person's bind mount (a data set mounted into the
        # environment) would lose every file. The whole folder is kept instead, and said.
        return [f"{path} is kept: a file system is mounted at {mounted} (unmount it, then try again)"]

    def clear_read_only(function: Callable[..., Any], name: str, *_: object) -> None:
        # Windows refuses to delete read-only files (pip's cached .pyc, conda's pkgs).
        Path(name).chmod(stat.S_IWRITE)
        function(name)

    for attempt in range(5):
        try:
            if sys.version_info >= (3, 12):
                shutil.rmtree(path, onexc=clear_read_only)
            else:
                shutil.rmtree(path, onerror=clear_read_only)
            return []
        except OSError as error:
            # A killed process's files can stay locked for a moment on Windows.
            if attempt == 4:
                return [f"could not remove {path}: {error}"]
            time.sleep(0.2 * (attempt + 1))
    return []


def mount_inside(path: Path) -> str | None:
    """The first mount point at or below ``path`` (links not followed), or None."""
    if os.path.ismount(path):
        return str(path)
    for root, folders, _files in os.walk(path, followlinks=False):
        for folder in folders:
            candidate = os.path.join(root, folder)  # noqa: PTH118 - os.walk's strings, many of them
            if os.path.ismount(candidate):
                return candidate
    return None
