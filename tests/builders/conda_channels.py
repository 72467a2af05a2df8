"""Real local conda channels, built from tiny packages, for the py-rattler tests (issue 23).

conda-forge is not reachable here, so the tests make their own channel: ``.tar.bz2`` conda
packages (a bzip2 tar holding ``info/index.json``, ``info/paths.json``, ``info/files`` and the
payload, docs.conda.io/projects/conda-build/en/latest/resources/package-spec.html), noarch
``generic`` so they install on any platform, placed in ``CHANNEL/noarch/`` and indexed by
py-rattler's own indexer (``rattler.index.index_fs``), which writes ``noarch/repodata.json``.

:func:`python_channel` makes a channel whose environments actually run: a ``python`` package
for this platform that turns the prefix into a virtual environment of the interpreter running
the tests, and a ``pip`` package made from the pip wheel that interpreter bundles (see
:func:`python_package` and :func:`pip_package`). POSIX only: the prefix gets ``bin/python``.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import json
import os
import shutil
import sys
import tarfile
import tempfile
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import rattler
from rattler.index import index_fs

from builders.wheels import bundled_pip_wheel

# A fixed time stamp keeps the packages byte-for-byte reproducible.
_TIMESTAMP_MS = 1_700_000_000_000

#: The running interpreter's version, which the ``python`` package carries (``X.Y.Z``).
PYTHON_VERSION = "{}.{}.{}".format(*sys.version_info[:3])
#: ``python=X.Y`` for the running interpreter: the spec a test asks the channel for.
PYTHON_SPEC = "python={}.{}".format(*sys.version_info[:2])
# Bump when what the builders write changes, so a cached channel of the old kind is not reused.
_BUILDER_GENERATION = "1"


@dataclass(frozen=True)
class CondaPackage:
    """One package: ``name-version-build``, its dependencies and one payload file."""

    name: str
    version: str
    depends: tuple[str, ...] = ()
    build: str = "0"
    payload: bytes = b"made by the gpuwizard tests\n"

    @property
    def file_name(self) -> str:
        return f"{self.name}-{self.version}-{self.build}.tar.bz2"

    @property
    def payload_path(self) -> str:
        """Where the payload lands, relative to the environment's prefix."""
        return f"share/{self.name}/payload.txt"


@dataclass(frozen=True)
class _Entry:
    """One file of a package: its bytes, or for a symbolic link (``target``) nothing."""

    path: str
    data: bytes = b""
    target: str | None = None
    mode: int = 0o644


def _write_package(
    target: Path,
    index: Mapping[str, object],
    entries: Sequence[_Entry],
    link: Mapping[str, object] | None = None,
) -> Path:
    """Write the ``.tar.bz2`` package ``target``: ``info/`` first, then the entries.

    A symbolic link is a ``softlink`` entry of ``paths.json`` and a symlink member of the tar,
    which rattler re-creates in the prefix with the same target, absolute or relative
    (package-spec.html, "info/paths.json": path_type hardlink, softlink or directory).
    """
    paths: list[dict[str, object]] = []
    for entry in entries:
        if entry.target is not None:
            paths.append({"_path": entry.path, "path_type": "softlink"})
        else:
            paths.append(
                {
                    "_path": entry.path,
                    "path_type": "hardlink",
                    "sha256": hashlib.sha256(entry.data).hexdigest(),
                    "size_in_bytes": len(entry.data),
                }
            )
    info = {
        "info/index.json": json.dumps(index).encode(),
        "info/paths.json": json.dumps({"paths": paths, "paths_version": 1}).encode(),
        "info/files": "".join(f"{entry.path}\n" for entry in entries).encode(),
    }
    if link is not None:
        info["info/link.json"] = json.dumps(link).encode()
    target.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(target, "w:bz2") as archive:
        for name, data in info.items():
            archive.addfile(_member(name, len(data), 0o644), io.BytesIO(data))
        for entry in entries:
            member = _member(entry.path, len(entry.data), entry.mode)
            if entry.target is not None:
                member.type, member.linkname, member.size = tarfile.SYMTYPE, entry.target, 0
                archive.addfile(member)
            else:
                archive.addfile(member, io.BytesIO(entry.data))
    return target


def _member(name: str, size: int, mode: int) -> tarfile.TarInfo:
    member = tarfile.TarInfo(name)
    member.size = size
    member.mode = mode
    return member


def build_package(package: CondaPackage, folder: Path) -> Path:
    """Write ``package`` as ``folder/NAME-VERSION-BUILD.tar.bz2``."""
    index = {
        "name": package.name,
        "version": package.version,
        "build": package.build,
        "build_number": 0,
        "depends": list(package.depends),
        "subdir": "noarch",
        "noarch": "generic",
        "license": "MIT",
        "timestamp": _TIMESTAMP_MS,
    }
    return _write_package(folder / package.file_name, index, [_Entry(package.payload_path, package.payload)])


def build_channel(root: Path, packages: Sequence[CondaPackage]) -> Path:
    """A channel at ``root`` with ``packages`` in ``noarch/``, indexed; returns ``root``.

    Only ``noarch/repodata.json`` is written (no .zst, no shards), so an HTTP server can serve
    the channel from a few fixed paths.
    """
    for package in packages:
        build_package(package, root / "noarch")
    asyncio.run(index_fs(root, write_zst=False, write_shards=False))
    return root


# --- a channel that makes a working Python with pip -------------------------------------------


def _base_interpreter() -> Path:
    """The interpreter a venv made from this one would point at (venv uses ``sys._base_executable``).

    Inside a virtual environment (the project's ``.venv``) that is the installation's own
    binary, not the venv's link to it.
    """
    return Path(getattr(sys, "_base_executable", "") or sys.executable)


def _python_build() -> str:
    """The ``python`` package's build string: names the interpreter it points at.

    Two interpreters of the same version (pyenv's and the system's) make different packages;
    a distinct build string keeps rattler's package cache from handing one out for the other.
    """
    digest = hashlib.sha256(str(_base_interpreter()).encode()).hexdigest()[:8]
    return f"0_gpuwizard_test_{digest}"


def python_package(folder: Path) -> Path:
    """The running interpreter as a conda ``python`` package for this platform, in ``folder``.

    The payload makes the prefix a virtual environment of the interpreter (what ``python -m venv``
    writes, docs.python.org/3/library/venv.html, "How venvs work"): ``pyvenv.cfg`` whose ``home``
    is the base interpreter's folder, and ``bin/python`` a symbolic link to the base interpreter
    (``bin/python3``, ``bin/pythonX.Y`` link to it). "If a file named pyvenv.cfg exists one
    directory above sys.executable, sys.prefix and sys.exec_prefix are set to that directory"
    (docs.python.org/3/library/site.html), and ``sys.executable`` is the link, not its target, so
    ``PREFIX/bin/python`` has ``PREFIX/lib/pythonX.Y/site-packages`` as its site-packages, where
    rattler links noarch python packages. The package depends on nothing (conda-forge's python depends on its libraries;
    this one borrows the installation's), so no virtual package is needed to solve it.

    Returns:
        The ``python-X.Y.Z-0_gpuwizard_test_HASH.tar.bz2`` written in ``folder``.
    """
    base = _base_interpreter()
    platform = rattler.Subdir.current()
    short = "python{}.{}".format(*sys.version_info[:2])
    config = f"home = {base.parent}\ninclude-system-site-packages = false\nversion = {PYTHON_VERSION}\n"
    build = _python_build()
    index = {
        "name": "python",
        "version": PYTHON_VERSION,
        "build": build,
        "build_number": 0,
        "depends": [],
        "subdir": str(platform),
        "arch": str(platform.arch) if platform.arch is not None else None,
        "platform": platform.only_platform,
        "license": "PSF-2.0",
        "timestamp": _TIMESTAMP_MS,
    }
    entries = [
        _Entry("pyvenv.cfg", config.encode()),
        _Entry("bin/python", target=str(base)),
        _Entry("bin/python3", target="python"),
        _Entry(f"bin/{short}", target="python"),
    ]
    return _write_package(folder / f"python-{PYTHON_VERSION}-{build}.tar.bz2", index, entries)


def pip_package(folder: Path, wheel: Path | None = None) -> Path:
    """pip as a conda ``noarch: python`` package (as conda-forge ships it), in ``folder``.

    Made from ``wheel`` (default: the pip wheel this interpreter's ensurepip bundles): the
    wheel's files go under ``site-packages/``, which rattler links into the environment's
    ``lib/pythonX.Y/site-packages``, and ``info/link.json`` names the ``pip`` and ``pip3``
    entry points, which rattler writes as scripts in ``bin/`` (conda-build's noarch python
    packages, docs.conda.io/projects/conda-build/en/latest/resources/define-metadata.html,
    "noarch" and "entry_points").

    Returns:
        The ``pip-VERSION-py_0.tar.bz2`` written in ``folder``.
    """
    wheel = wheel or bundled_pip_wheel()
    version = wheel.name.split("-")[1]
    with zipfile.ZipFile(wheel) as archive:
        entries = [
            _Entry(f"site-packages/{name}", archive.read(name))
            for name in archive.namelist()
            if not name.endswith("/")
        ]
    index = {
        "name": "pip",
        "version": version,
        "build": "py_0",
        "build_number": 0,
        "depends": ["python >=3.7"],
        "subdir": "noarch",
        "noarch": "python",
        "license": "MIT",
        "timestamp": _TIMESTAMP_MS,
    }
    entry_points = ["pip = pip._internal.cli.main:main", "pip3 = pip._internal.cli.main:main"]
    link = {"noarch": {"type": "python", "entry_points": entry_points}, "package_metadata_version": 1}
    return _write_package(folder / f"pip-{version}-py_0.tar.bz2", index, entries, link)


def build_python_channel(root: Path, extra: Sequence[CondaPackage] = ()) -> Path:
    """A channel at ``root`` serving a working ``python`` and ``pip``, plus ``extra`` noarch packages.

    ``python`` is in this platform's subdir (``linux-64`` here), ``pip`` and ``extra`` in
    ``noarch/``; both subdirs get a ``repodata.json`` (no .zst, no shards). An environment made
    from it with :data:`PYTHON_SPEC` and ``pip`` runs ``PREFIX/bin/python -m pip install ...``.

    Returns:
        ``root``.
    """
    python_package(root / str(rattler.Subdir.current()))
    pip_package(root / "noarch")
    for package in extra:
        build_package(package, root / "noarch")
    asyncio.run(index_fs(root, write_zst=False, write_shards=False))
    return root


def cache_folder() -> Path:
    """Where :func:`python_channel` keeps its channels between runs (``XDG_CACHE_HOME`` first)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "gpuwizard-tests" / "conda-python-channel"


@cache
def python_channel() -> Path:
    """The channel of :func:`build_python_channel`, built once and kept in :func:`cache_folder`.

    Its URL is ``python_channel().as_uri()`` (``file:///.../conda-python-channel/KEY``), for
    ``--channel`` with or without ``--offline``. The folder's name is a digest of what the
    packages are made from (the base interpreter's path and version, the pip wheel), so another
    interpreter gets its own channel. It is built beside its final place and renamed into it,
    so parallel test workers never see half a channel: the first rename wins, the others use it.
    Treat it as read-only (a test that needs changes builds its own with
    :func:`build_python_channel`).
    """
    wheel = bundled_pip_wheel()
    key = "\n".join((_BUILDER_GENERATION, str(_base_interpreter()), PYTHON_VERSION, wheel.name))
    folder = cache_folder() / hashlib.sha256(key.encode()).hexdigest()[:16]
    if folder.is_dir():
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix=".building-", dir=folder.parent))
    try:
        build_python_channel(building)
        building.chmod(0o755)  # mkdtemp's folder is private (0o700); a channel is not
        building.rename(folder)
    except OSError:
        if not folder.is_dir():  # not another worker's channel that got there first
            raise
    finally:
        shutil.rmtree(building, ignore_errors=True)
    return folder
