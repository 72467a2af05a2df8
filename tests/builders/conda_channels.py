"""Real local conda channels, built from tiny packages, for the py-rattler tests (issue 23).

conda-forge is not reachable here, so the tests make their own channel: ``.tar.bz2`` conda
packages (a bzip2 tar holding ``info/index.json``, ``info/paths.json``, ``info/files`` and the
payload, docs.conda.io/projects/conda-build/en/latest/resources/package-spec.html), noarch
``generic`` so they install on any platform, placed in ``CHANNEL/noarch/`` and indexed by
py-rattler's own indexer (``rattler.index.index_fs``), which writes ``noarch/repodata.json``.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import json
import tarfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rattler.index import index_fs

# A fixed time stamp keeps the packages byte-for-byte reproducible.
_TIMESTAMP_MS = 1_700_000_000_000


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
    paths = {
        "paths": [
            {
                "_path": package.payload_path,
                "path_type": "hardlink",
                "sha256": hashlib.sha256(package.payload).hexdigest(),
                "size_in_bytes": len(package.payload),
            }
        ],
        "paths_version": 1,
    }
    members = {
        "info/index.json": json.dumps(index).encode(),
        "info/paths.json": json.dumps(paths).encode(),
        "info/files": f"{package.payload_path}\n".encode(),
        package.payload_path: package.payload,
    }
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / package.file_name
    with tarfile.open(target, "w:bz2") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o644
            archive.addfile(info, io.BytesIO(data))
    return target


def build_channel(root: Path, packages: Sequence[CondaPackage]) -> Path:
    """A channel at ``root`` with ``packages`` in ``noarch/``, indexed; returns ``root``.

    Only ``noarch/repodata.json`` is written (no .zst, no shards), so an HTTP server can serve
    the channel from a few fixed paths.
    """
    for package in packages:
        build_package(package, root / "noarch")
    asyncio.run(index_fs(root, write_zst=False, write_shards=False))
    return root
