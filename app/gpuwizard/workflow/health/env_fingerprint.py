"""The fingerprint of a wizard-made environment, for ``verify --no-test`` to reuse its probe answer.

While an environment's fingerprint is the one recorded with the last good state, the env probe
would answer what it answered then (``core/health/probe_reuse.py``), so ``verify --no-test``
judges the recorded answer instead of importing the framework again: the cluster gate must
answer within a second, and ``import torch`` alone takes 1 to 4 s.

The fingerprint is a SHA-256 over:

- every file, link and folder under the environment's folder: its path, and for a file its
  size, modification time in nanoseconds and inode (a file replaced by another of the same
  size and time is a new inode where the file system has them). Installing, removing or
  upgrading any distribution, and editing any file in place, changes it; ``__pycache__``
  folders are left out, since importing writes them and Python checks a cached file against
  its source anyway. Walking the tree of a CPU torch (16,000 files) takes about 60 ms, far
  less than the import it saves;
- the interpreter the environment runs on, its link followed (a patch release of the base
  Python is a new file), and the probe scripts (a newer wizard may ask more of them);
- the variables that steer the framework (``probe_reuse.steering_variables``), and the
  machine facts the probe's answer depends on (``probe_reuse.machine_facts``: driver, GPUs,
  GPU runtimes, detection's findings).

No fingerprint (None, so the probe runs) for an environment inside WSL 2 (its files are in the
distribution), one that also sees the base interpreter's packages (``include-system-site-packages``:
files outside the folder), and whenever a file cannot be read. What it cannot see: a file
changed behind the environment's back with its size, time and inode forged, or a package
installed in development mode whose sources lie elsewhere; a full ``verify`` always probes.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Final

from gpuwizard import __version__, probes
from gpuwizard.core.health.probe_reuse import machine_facts, steering_variables
from gpuwizard.core.machine.system_report import SystemReport
from gpuwizard.workflow.state.env_registry import EnvRecord

#: Raised when the way of fingerprinting changes, so an older fingerprint matches nothing.
FINGERPRINT_VERSION: Final = 1
#: Written by importing, never by installing; left out of the walk.
_CACHE_FOLDER: Final = "__pycache__"


def environment_fingerprint(
    record: EnvRecord, machine: SystemReport, *, environ: Mapping[str, str] | None = None
) -> str | None:
    """``sha256:HEX`` of what the env probe's answer in ``record`` depends on; None when it cannot be had.

    Args:
        record: The environment, as the wizard's registry has it.
        machine: This machine, as verify detected it.
        environ: The variables the probe runs with (default: this process's).
    """
    if record.manager == "wsl":
        return None
    root = Path(record.path)
    try:
        if _sees_system_packages(root):
            return None
        digest = hashlib.sha256()
        header = {
            "version": FINGERPRINT_VERSION,
            "wizard": __version__,
            "environment": [
                record.name,
                record.path,
                record.python,
                record.framework,
                record.created,
                record.id,
            ],
            "interpreter": _file_facts(Path(record.python)),
            "probes": sorted(
                (path.name, *_file_facts(path)) for path in probes.FOLDER.iterdir() if path.suffix == ".py"
            ),
            "variables": steering_variables(
                os.environ if environ is None else environ, windows=os.name == "nt"
            ),
            "machine": machine_facts(machine),
        }
        digest.update(
            json.dumps(header, sort_keys=True, ensure_ascii=False).encode("utf-8", "backslashreplace")
        )
        for line in _tree(root):
            digest.update(line.encode("utf-8", "backslashreplace"))
    except OSError:
        return None
    return f"sha256:{digest.hexdigest()}"


def _file_facts(path: Path) -> tuple[str, int, int, int]:
    """Where ``path`` leads once its links are followed, and that file's size, time and inode."""
    info = path.stat()
    return str(path.resolve()), info.st_size, info.st_mtime_ns, info.st_ino


def _sees_system_packages(root: Path) -> bool:
    """Whether ``root`` is a venv made with ``--system-site-packages`` (its ``pyvenv.cfg`` says so)."""
    try:
        text = (root / "pyvenv.cfg").read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return False  # not a venv: a conda environment holds its packages itself
    for line in text.splitlines():
        key, _, value = line.partition("=")
        if key.strip().lower() == "include-system-site-packages":
            return value.strip().lower() == "true"
    return False


def _tree(root: Path) -> Iterator[str]:
    """A line per entry under ``root``, in a fixed order, without following links.

    Raises:
        OSError: A folder cannot be listed or an entry read (the fingerprint is then unknown).
    """
    start = str(root)
    skip = len(start) + 1
    folders = [start]
    while folders:
        folder = folders.pop()
        with os.scandir(folder) as listing:
            entries = sorted(listing, key=lambda entry: entry.name)
        for entry in entries:
            relative = entry.path[skip:]
            if entry.is_symlink():
                yield f"L\0{relative}\0{Path(entry.path).readlink()}\n"
            elif entry.is_dir(follow_symlinks=False):
                if entry.name != _CACHE_FOLDER:
                    yield f"D\0{relative}\n"
                    folders.append(entry.path)
            else:
                info = entry.stat(follow_symlinks=False)
                yield f"F\0{relative}\0{info.st_size}\0{info.st_mtime_ns}\0{info.st_ino}\n"
