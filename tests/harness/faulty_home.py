"""Run the real entry point with its GPUWIZARD_HOME read-only or full, as root or not.

``chmod`` does not stop root (CI runs as root), so the fault is made by the kernel instead, in a
private mount namespace (``unshare --mount``; for a user who is not root, inside a user namespace,
``--map-root-user``), where nothing outside sees it and nothing needs undoing: *read-only* bind-
mounts the home onto itself and remounts it read-only (EROFS, as on a read-only share); *full*
mounts a small tmpfs over it, copies the home in and fills what is left (ENOSPC, as on a full
disk). Where no namespace can be made (a container without CAP_SYS_ADMIN, a system that forbids
user namespaces), a user who is not root gets *read-only* through ``chmod``, and the rest is
unavailable: :func:`unavailable` says why.

Run as a script, this file is the launcher: ``faulty_home.py KIND HOME -- COMMAND...`` makes the
fault inside the namespace ``unshare`` made and then becomes ``COMMAND``.
"""

from __future__ import annotations

import errno
import functools
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Final

KINDS: Final = ("read-only", "full")
#: The tmpfs of a full home: room for the state the tests keep there, then filled to the last byte.
_TMPFS_SIZE: Final = "1m"
_LAUNCHER: Final = Path(__file__)


def _unshare() -> list[str] | None:
    """The ``unshare`` command line that makes a private mount namespace here, or None."""
    found = shutil.which("unshare")
    if found is None or sys.platform != "linux":
        return None
    return [found, "--mount", *([] if os.geteuid() == 0 else ["--map-root-user"])]


@functools.cache
def _namespaces_work() -> bool:
    command = _unshare()
    if command is None:
        return False
    with tempfile.TemporaryDirectory() as folder:
        probe = [*command, "mount", "-t", "tmpfs", "-o", "size=4k", "gpuwizard-probe", folder]
        try:
            done = subprocess.run(probe, capture_output=True, timeout=60, check=False)
        except OSError:
            return False
        return done.returncode == 0


def unavailable(kind: str) -> str | None:
    """Why the fault ``kind`` cannot be made on this machine; None when it can."""
    if _namespaces_work():
        return None
    if kind == "read-only" and sys.platform != "win32" and os.geteuid() != 0:
        return None  # chmod, which binds a user who is not root
    return f"no private mount namespace here (unshare --mount failed), so no {kind} GPUWIZARD_HOME"


@contextmanager
def faulty(kind: str, home: Path) -> Iterator[list[str]]:
    """While inside: the argv prefix that runs a command with ``home`` made ``kind``."""
    if _namespaces_work():
        command = _unshare()
        assert command is not None
        yield [*command, sys.executable, str(_LAUNCHER), kind, str(home), "--"]
        return
    assert kind == "read-only", unavailable(kind)
    modes = {path: path.stat().st_mode for path in [home, *home.rglob("*")] if not path.is_symlink()}
    try:
        for path, mode in modes.items():
            path.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
        yield []
    finally:
        for path, mode in modes.items():
            path.chmod(mode)


def _run(argv: Sequence[str]) -> None:
    subprocess.run(argv, check=True)


def _fill(folder: Path) -> None:
    """Write into ``folder`` until its file system has no byte left."""
    with (folder / "filler").open("wb", buffering=0) as filler:
        block = b"\0" * 4096
        try:
            while True:
                filler.write(block)
        except OSError as error:
            if error.errno != errno.ENOSPC:
                raise
        # The last blocks a file system hands out one smaller piece at a time.
        for size in (1024, 256, 64, 16, 4, 1):
            try:
                while True:
                    filler.write(b"\0" * size)
            except OSError as error:
                if error.errno != errno.ENOSPC:
                    raise


def _launch(kind: str, home: Path, command: list[str]) -> None:
    if kind == "read-only":
        _run(["mount", "--bind", str(home), str(home)])
        _run(["mount", "-o", "remount,bind,ro", str(home)])
    elif kind == "full":
        stash = Path(tempfile.mkdtemp(prefix="gpuwizard-full-home-")) / "home"
        shutil.copytree(home, stash, symlinks=True)
        _run(["mount", "-t", "tmpfs", "-o", f"size={_TMPFS_SIZE}", "gpuwizard-full-home", str(home)])
        shutil.copytree(stash, home, symlinks=True, dirs_exist_ok=True)
        shutil.rmtree(stash.parent)
        _fill(home)
    else:
        raise SystemExit(f"unknown fault {kind!r}")
    os.execv(command[0], command)  # noqa: S606 - becomes the command, argv as given


if __name__ == "__main__":
    _kind, _home, _separator, *_command = sys.argv[1:]
    assert _separator == "--", sys.argv
    _launch(_kind, Path(_home), _command)
