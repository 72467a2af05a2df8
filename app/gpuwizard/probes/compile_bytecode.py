"""Compile an environment's installed Python files to bytecode, in parallel; one JSON line at the end.

Run by the environment's own interpreter (``python -I compile_bytecode.py --last torch``):
stdlib only, Python 3.7 syntax, never imports gpuwizard and imports nothing it compiles. uv
installs without compiling (docs.astral.sh/uv/reference/settings/#compile-bytecode), so
without this every first import compiles, and a run that cannot write (a read-only
environment, another user, ``PYTHONDONTWRITEBYTECODE``) compiles again each time: 1.5 s of
``import torch`` and 3 s of its first training step on a 2-core machine (issue 41, point 13).

Every ``.py`` under the environment's site-packages (but its packages' test suites) whose ``__pycache__`` file is missing or
stale is compiled as ``import`` would write it (timestamp-checked, for this interpreter), by
one worker process per core. The packages named with ``--last`` come last: the import check
running meanwhile compiles what it imports itself, and those files are then up to date and
skipped rather than compiled twice. A file this Python cannot compile (a module written for a
newer Python, kept for its tests) is counted, not fatal.

Prints ``{"probe": "compile_bytecode", "files": N, "compiled": N, "failed": N, "workers": N,
"seconds": S}`` and exits 0.
"""

import json
import os
import py_compile
import sys
import sysconfig
import time
from concurrent.futures import ProcessPoolExecutor
from importlib.util import MAGIC_NUMBER, cache_from_source
from pathlib import Path

# Folders never imported when the environment runs: the test suites packages ship (sympy's and
# networkx's are 1,000 files, 38% of a CPU torch environment's source) and the caches.
_SKIPPED = frozenset({"__pycache__", "tests", "test"})
# Files per task handed to a worker: large enough that handing them over costs little.
_CHUNK = 48


def _roots() -> "list[Path]":
    """The environment's site-packages (purelib and platlib, once each)."""
    found = []  # type: list[Path]
    for key in ("purelib", "platlib"):
        path = Path(sysconfig.get_paths()[key]).resolve()
        if path.is_dir() and path not in found:
            found.append(path)
    return found


def _sources(root: Path) -> "list[str]":
    found = []  # type: list[str]
    for folder, subfolders, files in os.walk(str(root)):
        subfolders[:] = sorted(name for name in subfolders if name not in _SKIPPED)
        found.extend(str(Path(folder, name)) for name in sorted(files) if name.endswith(".py"))
    return found


def _is_current(source: str) -> bool:
    """Whether the cached file is the one ``import`` would accept (magic, timestamp, size)."""
    try:
        stat = Path(source).stat()
        with Path(cache_from_source(source)).open("rb") as cached:
            head = cached.read(16)
    except OSError:
        return False
    return (
        len(head) == 16
        and head[:4] == MAGIC_NUMBER
        and int.from_bytes(head[4:8], "little") == 0
        and int.from_bytes(head[8:12], "little") == int(stat.st_mtime) & 0xFFFFFFFF
        and int.from_bytes(head[12:16], "little") == stat.st_size & 0xFFFFFFFF
    )


def _compile(sources: "list[str]") -> "tuple[int, int]":
    """Compile the stale ones of ``sources``; (compiled, failed)."""
    compiled = failed = 0
    for source in sources:
        if _is_current(source):
            continue
        try:
            # TIMESTAMP as import writes it: py_compile's default turns to hash-checked files
            # when SOURCE_DATE_EPOCH is set, which every later import would have to hash.
            py_compile.compile(
                source,
                cfile=cache_from_source(source),
                doraise=True,
                invalidation_mode=py_compile.PycInvalidationMode.TIMESTAMP,
            )
            compiled += 1
        except Exception:  # noqa: BLE001 - a newer Python's syntax, an unreadable file: counted
            failed += 1
    return compiled, failed


def _is_under(source: str, root: Path, names: "list[str]") -> bool:
    top = Path(source).relative_to(root).parts[0]
    return top in names or (top.endswith(".py") and top[:-3] in names)


def main(argv: "list[str]") -> int:
    """Compile the environment's site-packages; ``--last NAME`` (repeatable) orders NAME's files last."""
    started = time.perf_counter()
    last = [argv[index + 1] for index, word in enumerate(argv[:-1]) if word == "--last"]
    first, later = [], []  # type: list[str], list[str]
    for root in _roots():
        for source in _sources(root):
            (later if _is_under(source, root, last) else first).append(source)
    sources = first + later
    chunks = [sources[start : start + _CHUNK] for start in range(0, len(sources), _CHUNK)]
    workers = min(os.cpu_count() or 1, max(len(chunks), 1))
    compiled = failed = 0
    results = None
    if workers > 1:
        try:
            with ProcessPoolExecutor(max_workers=workers) as pool:
                results = list(pool.map(_compile, chunks))
        except (ImportError, NotImplementedError, OSError, RuntimeError):  # no process pool here: one process
            results = None
    if results is None:
        workers = 1
        results = [_compile(chunk) for chunk in chunks]
    for done, bad in results:
        compiled += done
        failed += bad
    report = {
        "probe": "compile_bytecode",
        "files": len(sources),
        "compiled": compiled,
        "failed": failed,
        "workers": workers,
        "seconds": round(time.perf_counter() - started, 2),
    }
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
