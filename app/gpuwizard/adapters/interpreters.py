"""Python interpreters on this machine, and what each one is.

The wizard's own, those on PATH, those the ``py`` launcher knows (Windows), and those pyenv
and uv installed. Each is asked its version, pointer size and real path by running it.
"""

from __future__ import annotations

import os
import re
import struct
import sys
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Final

from gpuwizard.adapters.executables import find_executable
from gpuwizard.adapters.runner import Runner, RunnerError
from gpuwizard.core.machine.python_facts import (
    PROBE_CODE,
    is_ms_store_python,
    parse_probe_output,
    parse_py_launcher_list,
    version_from_install_folder,
)
from gpuwizard.core.machine.system_report import PythonFacts
from gpuwizard.core.pathedit.pathlist import comparison_key

_PROBE_TIMEOUT_S: Final = 10.0
_POSIX_NAMES: Final = re.compile(r"^python(3(\.\d+)?)?$")


def own_python() -> PythonFacts:
    """The interpreter running the wizard."""
    info = sys.version_info
    return PythonFacts(
        version=f"{info.major}.{info.minor}.{info.micro}",
        executable=sys.executable,
        bits=struct.calcsize("P") * 8,
        ms_store=is_ms_store_python(sys.executable) or is_ms_store_python(sys.base_prefix),
        source="self",
    )


def find_interpreters(
    family: str, path_dirs: Sequence[str], runner: Runner, env: Mapping[str, str], home: Path | None = None
) -> list[PythonFacts]:
    """Every interpreter found, each once, in the order found (PATH order first).

    Candidates are asked in parallel; one that does not answer is left out. Launcher scripts
    such as pyenv shims are not run (each costs a shell start); the interpreters behind them
    are found in pyenv's own folder instead.
    """
    windows = family == "windows"
    home = home or Path.home()
    candidates: dict[str, tuple[str, str]] = {}
    for source, executable in _candidates(windows, path_dirs, runner, env, home):
        key = comparison_key(_real(executable), windows=windows)
        candidates.setdefault(key, (source, executable))
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda item: _describe(runner, *item), candidates.values()))
    unique: dict[str, PythonFacts] = {}
    for facts in results:
        if facts is not None:
            unique.setdefault(comparison_key(_real(facts.executable), windows=windows), facts)
    return list(unique.values())


def _candidates(
    windows: bool, path_dirs: Sequence[str], runner: Runner, env: Mapping[str, str], home: Path
) -> Iterator[tuple[str, str]]:
    if windows:
        yield from _launcher_candidates(path_dirs, runner, env)
        for folder in path_dirs:
            exe = find_executable("python", [folder], windows=True)
            if exe is not None:
                yield "path", str(exe)
    else:
        for folder in path_dirs:
            for exe in _posix_pythons(Path(folder)):
                yield "path", str(exe)
    yield from _managed_candidates(windows, env, home)


def _launcher_candidates(
    path_dirs: Sequence[str], runner: Runner, env: Mapping[str, str]
) -> Iterator[tuple[str, str]]:
    launcher = find_executable("py", [*path_dirs, Path(env.get("SystemRoot", r"C:\Windows"))], windows=True)
    if launcher is None:
        return
    try:
        listing = runner.run([str(launcher), "-0p"], timeout=_PROBE_TIMEOUT_S)
    except RunnerError:
        return
    if listing.ok:
        for entry in sorted(parse_py_launcher_list(listing.stdout), key=lambda e: not e.default):
            yield "py-launcher", entry.executable


def _managed_candidates(windows: bool, env: Mapping[str, str], home: Path) -> Iterator[tuple[str, str]]:
    """Interpreters pyenv and uv installed, which PATH may reach only through shims."""
    pyenv_root = Path(env.get("PYENV_ROOT") or home / ".pyenv")
    for version_dir in _children(pyenv_root / "versions"):
        exe = find_executable("python", [version_dir] if windows else [version_dir / "bin"], windows=windows)
        if exe is not None:
            yield "pyenv", str(exe)
    if env.get("UV_PYTHON_INSTALL_DIR"):
        uv_root = Path(env["UV_PYTHON_INSTALL_DIR"])
    elif windows:
        uv_root = Path(env.get("APPDATA", str(home))) / "uv" / "python"
    else:
        uv_root = Path(env.get("XDG_DATA_HOME") or home / ".local" / "share") / "uv" / "python"
    for install in _children(uv_root):
        exe = find_executable("python", [install] if windows else [install / "bin"], windows=windows)
        if exe is None and not windows:
            exe = find_executable("python3", [install / "bin"], windows=False)
        if exe is not None:
            yield "uv", str(exe)


def _posix_pythons(folder: Path) -> list[Path]:
    try:
        names = sorted(os.listdir(folder), key=_posix_name_order)  # noqa: PTH208 - /usr/bin is large
    except OSError:
        return []
    found = []
    for name in names:
        if _POSIX_NAMES.match(name):
            exe = find_executable(name, [folder], windows=False)
            if exe is not None and not _is_script(exe):
                found.append(exe)
    return found


def _is_script(path: Path) -> bool:
    """True for ``#!`` launchers (pyenv shims, wrappers): not interpreters themselves."""
    try:
        with Path(os.path.realpath(path)).open("rb") as handle:
            return handle.read(2) == b"#!"
    except OSError:
        return True


def _posix_name_order(name: str) -> tuple[int, str]:
    # python3 before python3.11 before python: the generic names are what people type.
    return ({"python3": 0, "python": 2}.get(name, 1), name)


def _describe(runner: Runner, source: str, executable: str) -> PythonFacts | None:
    """Facts about one interpreter, from its install folder's name when that tells them.

    Running every pyenv and uv install would cost about 10 ms each; those folders are named by
    version. Others are asked.
    """
    if source in ("pyenv", "uv"):
        folder = Path(executable).parent
        named = version_from_install_folder((folder.parent if folder.name == "bin" else folder).name)
        if named is not None:
            return PythonFacts(version=named[0], executable=executable, bits=named[1], source=source)
    return _probe(runner, source, executable)


def _probe(runner: Runner, source: str, executable: str) -> PythonFacts | None:
    try:
        done = runner.run([executable, "-I", "-S", "-c", PROBE_CODE], timeout=_PROBE_TIMEOUT_S)
    except RunnerError:
        return None
    parsed = parse_probe_output(done.stdout) if done.ok else None
    if parsed is None:
        return None
    version, bits, real_executable = parsed
    shown = real_executable or executable
    return PythonFacts(
        version=version,
        executable=shown,
        bits=bits,
        ms_store=is_ms_store_python(executable) or is_ms_store_python(shown),
        source=source,
    )


def _children(folder: Path) -> list[Path]:
    """The entries of ``folder`` in natural order (3.9 before 3.10), newest last."""
    try:
        return sorted(
            folder.iterdir(), key=lambda p: [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", p.name)]
        )
    except OSError:
        return []


def _real(path: str) -> str:
    try:
        return os.path.realpath(path)
    except OSError:
        return path
