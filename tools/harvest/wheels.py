"""What one wheel says, read by Range requests and cached by the wheel's sha256.

A torch wheel: ``torch/version.py`` (its ``__version__`` with the variant suffix, its ``cuda``),
METADATA (Requires-Python, the classifiers, the ``nvidia-*`` pins) and, for a CUDA build, the
NVCC flags compiled into the CUDA library (``-gencode;arch=compute_75,code=sm_75;...``).
A TensorFlow wheel: ``build_info.py`` and METADATA (the ``and-cuda`` extra's pins).

The record keeps the raw texts; turning them into facts is the callers' business (so a cached
record stays good when that changes).
"""

from __future__ import annotations

import ast
import contextlib
import json
import os
import re
import tempfile
from dataclasses import asdict, dataclass, field
from email.parser import HeaderParser
from pathlib import Path
from typing import Any, Final

from packaging.requirements import InvalidRequirement, Requirement

from harvest.listings import WheelFile
from harvest.net import Fetcher, FetchError
from harvest.remotezip import RemoteZip, ZipError

CACHE_FORMAT: Final = "gpuwizard-harvest/1"
#: Where the NVCC flags live: the CUDA library of each torch layout (1.13 split it into _cpp/_cu).
TORCH_CUDA_LIBRARIES: Final = {
    "linux": (
        "torch/lib/libtorch_cuda.so",
        "torch/lib/libtorch_cuda_cpp.so",
        "torch/lib/libtorch_cuda_cu.so",
    ),
    "windows": ("torch/lib/torch_cuda.dll", "torch/lib/torch_cuda_cpp.dll", "torch/lib/torch_cuda_cu.dll"),
}
TF_BUILD_INFO: Final = (
    "tensorflow/python/platform/build_info.py",
    "tensorflow_core/python/platform/build_info.py",
)
GENCODE: Final = re.compile(rb"-gencode[; ]arch=compute_\d+[af]?,code=[^\x00\"'\n]{0,4000}")
_FLAG: Final = re.compile(r"arch=compute_(\d+)[af]?,code=(\[[^\]]*\]|[a-z]+_\d+[af]?)")
_CODE: Final = re.compile(r"(sm|compute)_(\d+)[af]?")
_MIB: Final = 1 << 20


@dataclass
class Scan:
    """The search for the NVCC flags in a CUDA library."""

    member: str | None = None
    flags: str | None = None
    compressed_read: int = 0
    limit: int = 0
    complete: bool = False


@dataclass
class WheelRecord:
    """The raw texts a wheel gave, and how they were got."""

    filename: str
    sha256: str | None
    texts: dict[str, str] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    metadata_from: str = ""
    scan: Scan | None = None
    from_cache: bool = False
    problem: str | None = None

    def seen(self) -> str:
        """What was read, for a source's ``seen``."""
        parts = [
            "METADATA (PEP 658)" if name == "METADATA" and self.metadata_from == "PEP 658" else name
            for name in self.texts
        ]
        if self.scan and self.scan.member:
            library = Path(self.scan.member).name
            if self.scan.flags:
                parts.append(f"{library} -gencode flags")
            else:
                parts.append(f"{library} (no -gencode flags in {self.scan.compressed_read // _MIB} MiB)")
        return ", ".join(parts)


def _metadata_member(archive: RemoteZip) -> str | None:
    found = [name for name in archive.members if re.fullmatch(r"[^/]+\.dist-info/METADATA", name)]
    return found[0] if found else None


class WheelReader:
    """Reads wheels, through the cache when it has them."""

    def __init__(self, fetcher: Fetcher, cache: Path | None, scan_limit: int) -> None:
        self.fetcher = fetcher
        self.cache = cache
        self.scan_limit = scan_limit
        self.read_count = 0
        self.cached_count = 0

    def _cache_file(self, wheel: WheelFile) -> Path | None:
        if self.cache is None or not wheel.sha256:
            return None
        return self.cache / f"{wheel.sha256}.json"

    def _load(self, wheel: WheelFile) -> WheelRecord | None:
        path = self._cache_file(wheel)
        if path is None or not path.is_file():
            return None
        try:
            stored = json.loads(path.read_text("utf-8"))
            if stored.get("format") != CACHE_FORMAT or stored.get("sha256") != wheel.sha256:
                return None
            scan = Scan(**stored["scan"]) if stored.get("scan") else None
            return WheelRecord(
                filename=stored["filename"],
                sha256=stored["sha256"],
                texts=dict(stored["texts"]),
                missing=list(stored["missing"]),
                metadata_from=stored["metadata_from"],
                scan=scan,
                from_cache=True,
            )
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def _store(self, wheel: WheelFile, record: WheelRecord) -> None:
        path = self._cache_file(wheel)
        if path is None or record.problem:
            return
        stored: dict[str, Any] = {"format": CACHE_FORMAT, **asdict(record)}
        del stored["from_cache"], stored["problem"]
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump(stored, out)
            Path(temporary).replace(path)
        except OSError:
            with contextlib.suppress(OSError):
                Path(temporary).unlink()

    def read(
        self, wheel: WheelFile, members: tuple[str, ...], libraries: tuple[str, ...] = ()
    ) -> WheelRecord:
        """The first of each group of ``members`` that exists, METADATA, and a search of ``libraries``.

        ``members``: names of small text members, the first that exists is read; ``libraries``:
        the CUDA libraries to search for the NVCC flags, in order, until found. The search is
        skipped when the wheel's ``torch/version.py`` names no CUDA.
        """
        record = self._load(wheel)
        wants_scan = bool(libraries)
        if record is not None:
            stale = wants_scan and _rescan_needed(record, self.scan_limit)
            if not stale:
                self.cached_count += 1
                return record
        self.read_count += 1
        record = WheelRecord(wheel.filename, wheel.sha256)
        try:
            archive = RemoteZip(self.fetcher, wheel.url)
            member = archive.find(*members)
            if member is None:
                record.missing.append(" or ".join(members))
            else:
                record.texts[member.name] = archive.read(member.name).decode("utf-8", errors="replace")
            self._read_metadata(wheel, archive, record)
            version_py = record.texts.get("torch/version.py")
            if wants_scan and (version_py is None or version_fields(version_py).get("cuda")):
                record.scan = self._scan(archive, libraries)
        except (FetchError, ZipError, UnicodeError) as error:
            record.problem = str(error)
            return record
        self._store(wheel, record)
        return record

    def _read_metadata(self, wheel: WheelFile, archive: RemoteZip, record: WheelRecord) -> None:
        if wheel.metadata_url:
            try:
                record.texts["METADATA"] = self.fetcher.get(wheel.metadata_url).decode(
                    "utf-8", errors="replace"
                )
                record.metadata_from = "PEP 658"
                return
            except FetchError:
                pass  # read it from the wheel instead
        name = _metadata_member(archive)
        if name is None:
            record.missing.append("METADATA")
            return
        record.texts["METADATA"] = archive.read(name).decode("utf-8", errors="replace")
        record.metadata_from = "wheel"

    def _scan(self, archive: RemoteZip, libraries: tuple[str, ...]) -> Scan:
        scan = Scan(limit=self.scan_limit)
        present = [name for name in libraries if name in archive.members]
        if not present:
            return scan
        for name in present:
            result = archive.scan(name, GENCODE, self.scan_limit)
            scan.member = name
            scan.compressed_read += result.compressed_read
            scan.complete = result.complete
            if result.match:
                scan.flags = result.match.decode("ascii", errors="replace")
                return scan
        scan.member = present[0] if len(present) == 1 else ", ".join(present)
        return scan


def _rescan_needed(record: WheelRecord, limit: int) -> bool:
    """A cached search that stopped at a lower cap without finding the flags is done again."""
    scan = record.scan
    return scan is not None and not scan.flags and not scan.complete and scan.limit < limit


# --- the texts, parsed ------------------------------------------------------------------------


def version_fields(text: str) -> dict[str, str | None]:
    """``__version__`` and ``cuda`` of a ``torch/version.py`` (parsed, never run)."""
    found: dict[str, str | None] = {}
    for node in ast.parse(text).body:
        target, value = None, None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        if isinstance(target, ast.Name) and isinstance(value, ast.Constant):
            constant = value.value
            if constant is None or isinstance(constant, str):
                found[target.id] = constant
    return found


def build_info(text: str) -> dict[str, Any]:
    """TensorFlow's ``build_info.py`` as a dict (parsed, never run).

    2.3 onwards: ``build_info = {...}`` or ``collections.OrderedDict([(key, value), ...])``;
    2.0-2.2: module-level names (``is_cuda_build``, ``cuda_version_number``).
    """
    found: dict[str, Any] = {}
    for node in ast.parse(text).body:
        if not (
            isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
        ):
            continue
        name, value = node.targets[0].id, node.value
        if name == "build_info":
            if isinstance(value, ast.Call) and value.args:
                value = value.args[0]
            try:
                literal = ast.literal_eval(value)
            except ValueError:
                continue
            found.update(dict(literal))
        else:
            with contextlib.suppress(ValueError):
                found[name] = ast.literal_eval(value)
    if "cuda_version" not in found and "cuda_version_number" in found:
        found["cuda_version"] = found["cuda_version_number"]
    if "cudnn_version" not in found and "cudnn_version_number" in found:
        found["cudnn_version"] = found["cudnn_version_number"]
    return found


@dataclass(frozen=True)
class Metadata:
    """What METADATA says that the harvester uses."""

    requires_python: str | None
    classifier_pythons: tuple[str, ...]
    requirements: tuple[Requirement, ...]
    extras: tuple[str, ...]


def metadata(text: str) -> Metadata:
    """Parse a METADATA file (RFC 822 headers; the body is the description)."""
    headers = HeaderParser().parsestr(text, headersonly=True)
    pythons = []
    for classifier in headers.get_all("Classifier") or []:
        found = re.fullmatch(r"Programming Language :: Python :: (\d+\.\d+)", classifier.strip())
        if found:
            pythons.append(found.group(1))
    requirements = []
    for line in headers.get_all("Requires-Dist") or []:
        with contextlib.suppress(InvalidRequirement):
            requirements.append(Requirement(line))
    return Metadata(
        requires_python=headers.get("Requires-Python"),
        classifier_pythons=tuple(pythons),
        requirements=tuple(requirements),
        extras=tuple(headers.get_all("Provides-Extra") or ()),
    )


def cc(digits: str) -> str:
    """``"75"`` -> ``"7.5"``, ``"120"`` -> ``"12.0"`` (the last digit is the minor)."""
    return f"{int(digits[:-1])}.{digits[-1]}"


def gencode_archs(flags: str) -> tuple[list[str], list[str]]:
    """The SASS and PTX compute capabilities of NVCC ``-gencode`` flags, each sorted.

    ``code=sm_XY`` is machine code for X.Y, ``code=compute_XY`` PTX for X.Y; ``code=[sm_XY,compute_XY]``
    both. Architecture-specific suffixes (``sm_100a``) count as their compute capability.
    """
    sass: set[str] = set()
    ptx: set[str] = set()
    for _, code in _FLAG.findall(flags):
        for kind, digits in _CODE.findall(code):
            (sass if kind == "sm" else ptx).add(cc(digits))
    return sorted(sass, key=cc_key), sorted(ptx, key=cc_key)


def cc_key(value: str) -> tuple[int, ...]:
    """Sort key of a dotted version or compute capability."""
    return tuple(int(part) for part in value.split(".") if part.isdigit())
