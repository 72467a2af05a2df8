"""A copy of a wheel folder whose wheels carry their Python files' bytecode, for the suite's speed.

Why: a new environment's first ``import torch`` compiles about 2,400 of torch's files and the
wizard's warm start (``probes/framework_import.py --warm``) about 800 more of sympy's and torch's
lazy modules: 5 to 6 s of a 2-core machine's CPU in each of the dozens of environments the suite
makes, the same work every time. Here each wheel gets, beside every ``.py`` file, the bytecode
Python would write (``__pycache__/NAME.cpython-311.pyc``), compiled once per machine and cached.

What it is: a valid wheel still. The binary distribution format allows any files in the archive;
each ``.pyc`` is listed in ``RECORD`` with its sha256 and size, so pip and uv install and uninstall
it as one of the wheel's files. The bytecode is PEP 552's *unchecked hash* form (as Debian's and
conda's packages ship it): the interpreter loads it without comparing the source's time stamp,
which a wheel install does not keep. An interpreter of another Python version ignores it (the file
name holds the version tag) and compiles as usual.

The cache holds one folder per wheel's sha256 (``precompiled-wheels/TAG-FORMAT/DIGEST``): a
new folder only when a wheel changes (torch's 760 MB, once per torch release); remove the
folder to reclaim the space.

What it is not for: tests and benchmarks of what compiling costs or of the warm start
(``tests/cli/test_live_test_cli.py``'s "nothing compiled" check, ``bench_env_create.py``) keep the
wheels as PyPI ships them, from ``real_cpu_torch_folder`` directly.
"""

from __future__ import annotations

import compileall
import hashlib
import os
import py_compile
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path

from filelock import FileLock

from builders.wheels import record_hash

#: Changed whenever what this module writes changes, so that older cached wheels are not used.
_FORMAT = "1"


def cache_folder() -> Path:
    """Where the compiled wheels are kept between sessions, per interpreter (its bytecode tag)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "gpuwizard-tests" / "precompiled-wheels" / f"{sys.implementation.cache_tag}-{_FORMAT}"


def _compiled(source: Path, target: Path) -> None:
    """Write ``source`` again as ``target`` with every ``.py`` member's bytecode added and recorded."""
    with tempfile.TemporaryDirectory(dir=target.parent) as scratch, zipfile.ZipFile(source) as wheel:
        unpacked = Path(scratch) / "unpacked"
        wheel.extractall(unpacked)
        compileall.compile_dir(
            unpacked,
            quiet=2,
            workers=0,  # every core: the suite is waiting
            invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
        )
        record = next(name for name in wheel.namelist() if name.endswith(".dist-info/RECORD"))
        added = sorted(path.relative_to(unpacked).as_posix() for path in unpacked.rglob("*.pyc"))
        lines = [line for line in (unpacked / record).read_text(encoding="utf-8").splitlines() if line]
        for name in added:
            data = (unpacked / name).read_bytes()
            lines.append(f"{name},{record_hash(data)},{len(data)}")
        partial = Path(scratch) / target.name
        # Stored, not compressed: the tests unpack it, never ship it, and compressing torch's
        # 700 MB again took longer than compiling it.
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_STORED) as out:
            for info in wheel.infolist():
                if info.filename != record:
                    out.writestr(info, wheel.read(info), zipfile.ZIP_STORED)
            for name in added:
                out.write(unpacked / name, name)
            out.writestr(record, "\n".join(lines) + "\n")  # last, as the format recommends
        partial.replace(target)


def _digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:  # hashlib.file_digest is Python 3.11's; the project runs on 3.10
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def precompiled_wheel(source: Path) -> Path:
    """The cached compiled copy of the wheel ``source`` (made first if missing), named as ``source``."""
    cache = cache_folder() / _digest(source)[:32]
    cache.mkdir(parents=True, exist_ok=True)
    target = cache / source.name
    with FileLock(cache / "lock"):  # two test workers compile a wheel once, not twice
        if not target.is_file():
            _compiled(source, target)
    return target


def precompiled_folder(source: Path, folder: Path) -> Path:
    """Fill ``folder`` with ``source``'s files, each wheel replaced by its compiled copy; returns it."""
    folder.mkdir(parents=True, exist_ok=True)
    for path in sorted(source.iterdir()):
        if path.suffix != ".whl":
            shutil.copy2(path, folder / path.name)
            continue
        compiled = precompiled_wheel(path)
        try:
            os.link(compiled, folder / path.name)  # the same file system: no copy of 240 MB
        except OSError:
            shutil.copy2(compiled, folder / path.name)
    return folder
