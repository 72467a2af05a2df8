r"""The Windows installer, built once per session, and fresh Wine prefixes to install it into.

``setup_exe`` runs ``installer/build.py`` (PyInstaller in a Windows CPython under Wine, then
Debian's makensis storing the files uncompressed: 2 s, where zlib takes 25 and the release's
solid LZMA minutes); what it downloads is kept under ``~/.cache/gpuwizard-tests/installer``
(``$XDG_CACHE_HOME`` honoured), so later sessions build without the network.
``previous_setup_exe`` packs the same programs again as an older version (``--reuse-app
--version``, makensis only), to upgrade from.

``wine_prefix`` is a new ``WINEPREFIX`` per test, with Wine's null graphics driver (no display
needed): a copy of one made once a session (a prefix's first start, wineboot, takes 9 s and
more here; a copy, a fraction of one), and a *keeper*: a Windows program (notepad) started
first with its output sent to /dev/null, which holds the prefix's server up, so that each
command starts in a fraction of a second. Wine's background processes (wineserver, services, the desktop) inherit the output of
the program that starts them and outlive it; :meth:`WinePrefix.run` therefore reads a program's
pipes until the program ends, not until the pipes close. Output is always read through pipes:
Wine 8 aborts a Windows program whose standard output or error is a file.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path, PureWindowsPath
from typing import IO

import pytest

from harness.wine_python import unavailable

REPO = Path(__file__).resolve().parents[2]
BUILD = REPO / "installer" / "build.py"
#: The build takes 2 to 5 minutes here (2 shared cores); the limit leaves room for a slow CI machine.
BUILD_LIMIT_S = 2400
#: The version ``previous_setup_exe`` says it is: older than any this package will have.
PREVIOUS_VERSION = "0.0.1"
_KEEPER_LIFETIME_S = 3600  # the keeper ends by itself even if the test run is killed
#: How many times a registry write, or a new prefix's first start, is tried (WinePrefix.reg_add).
_WINE_ATTEMPTS = 3
#: What Wine's start says when it could not start a program at all (programs/start/start.c:
#: "Application could not be started, or no application associated with the specified file.",
#: then "ShellExecuteEx failed: ..."): nothing of the program ran.
_NOT_STARTED = re.compile(r"^Application could not be started|^ShellExecuteEx failed", re.MULTILINE)


def cache_folder() -> Path:
    """Where the build's downloads are kept between sessions."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "gpuwizard-tests" / "installer"


def _say(request: pytest.FixtureRequest, line: str) -> None:
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    if reporter is None or capture is None:
        return
    with capture.global_and_fixture_disabled():  # the terminal itself, not the captured output
        reporter.write_line(line)


@pytest.fixture
def say(request: pytest.FixtureRequest) -> Callable[[str], None]:
    """Prints a line on the terminal even while pytest captures output (the timings)."""
    return lambda line: _say(request, line)


@pytest.fixture(scope="session")
def setup_exe(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``gpuwizard-setup-VERSION.exe``, built by ``installer/build.py`` once per session."""
    for tool, package in (("wine", "wine"), ("wineserver", "wine"), ("makensis", "nsis")):
        if shutil.which(tool) is None:
            unavailable(
                f"`{tool}` is not installed (Debian package `{package}`): the installer cannot be built"
            )
    root = tmp_path_factory.mktemp("installer-build")
    _build(request, "installer build", "--out", str(root / "out"), "--work", str(root / "work"),
           "--cache", str(cache_folder()))  # fmt: skip
    (setup,) = (root / "out").glob("gpuwizard-setup-*.exe")
    return setup


@pytest.fixture(scope="session")
def previous_setup_exe(request: pytest.FixtureRequest, setup_exe: Path) -> Path:
    """The same programs packed as ``PREVIOUS_VERSION``: an earlier install to upgrade from (NSIS only)."""
    root = setup_exe.parents[1]  # ROOT/out/setup.exe; the build's folder is ROOT/work
    _build(request, "previous version's installer", "--out", str(root / "previous"), "--work",
           str(root / "work"), "--reuse-app", "--version", PREVIOUS_VERSION)  # fmt: skip
    return root / "previous" / f"gpuwizard-setup-{PREVIOUS_VERSION}.exe"


def _build(request: pytest.FixtureRequest, what: str, *args: str) -> None:
    """``installer/build.py ARGS`` with the tests' quick compression; its timings are printed."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, str(BUILD), *args, "--compression", "none"],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=BUILD_LIMIT_S, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    _say(request, f"\n{what}: {time.perf_counter() - started:.0f} s")
    for line in done.stdout.splitlines():
        _say(request, f"  {line}")


class WinePrefix:
    """A fresh Wine prefix, kept up by a keeper (module docstring); made by the fixture below."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.prefix = root / "prefix"
        self._keeper: subprocess.Popen[bytes] | None = None

    @property
    def env(self) -> dict[str, str]:
        """This prefix, quiet, headless; the wizard's data in its default place (no GPUWIZARD_HOME)."""
        dropped = {"DISPLAY", "WAYLAND_DISPLAY", "GPUWIZARD_HOME"}
        env = {k: v for k, v in os.environ.items() if k not in dropped}
        env.update(
            WINEPREFIX=str(self.prefix),
            WINEARCH="win64",
            WINEDEBUG="-all",
            WINEDLLOVERRIDES="mscoree,mshtml=",
        )
        return env

    def run(self, *argv: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        """``wine ARGV``, its output read through pipes until the program ends.

        Not until the pipes close: a Wine background process that the program started (the
        desktop, a service) may hold them open long after it (module docstring). What the
        program wrote is all there once it has ended, since the pipes are read all along.

        When Wine says it could not start the program at all ("Application could not be
        started ... ShellExecuteEx failed: Internal error.", seen once under load in a
        fresh-clone CI run, the prefix's desktop still starting), nothing of it ran: it is
        started again, up to :data:`_WINE_ATTEMPTS` times.
        """
        done = self._run_once(argv, timeout)
        for _ in range(_WINE_ATTEMPTS - 1):
            if not _NOT_STARTED.search(done.stdout + done.stderr):
                break
            done = self._run_once(argv, timeout)
        return done

    def _run_once(self, argv: tuple[str, ...], timeout: float) -> subprocess.CompletedProcess[str]:
        process = subprocess.Popen(
            ["wine", *argv],
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        chunks: dict[str, list[bytes]] = {"stdout": [], "stderr": []}
        readers = [
            threading.Thread(target=_drain, args=(stream, chunks[name]), daemon=True)
            for name, stream in (("stdout", process.stdout), ("stderr", process.stderr))
        ]
        for reader in readers:
            reader.start()
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            raise
        for reader in readers:
            reader.join(timeout=2)  # not a guess: the process has ended, its pipes are closed
        text = {k: b"".join(v).decode("utf-8", errors="replace") for k, v in chunks.items()}
        return subprocess.CompletedProcess(process.args, process.returncode, text["stdout"], text["stderr"])

    def start(self) -> None:
        """Create the prefix with the null graphics driver, then start the keeper.

        The first start is tried again from nothing (its wineserver stopped, the half-made prefix
        removed) when it fails: see :meth:`reg_add` for how Wine fails here now and then.
        """
        quiet = {"stdin": subprocess.DEVNULL, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
        failures: list[int] = []
        while len(failures) < _WINE_ATTEMPTS:
            made = subprocess.run(
                ["wine", "reg", "add", r"HKCU\Software\Wine\Drivers", "/v", "Graphics", "/d", "null", "/f"],
                env=self.env, timeout=300, check=False, **quiet,
            )  # fmt: skip
            if made.returncode == 0:
                break
            failures.append(made.returncode)
            subprocess.run(["wineserver", "--kill"], env=self.env, timeout=120, check=False, **quiet)
            shutil.rmtree(self.prefix, ignore_errors=True)
        else:
            unavailable(f"Wine cannot create a prefix here (exits {failures})")
        # The driver is read when the desktop starts: let this first server end, then start anew.
        subprocess.run(["wineserver", "--wait"], env=self.env, timeout=300, check=False, **quiet)
        self.keep_up()

    def keep_up(self) -> None:
        """Start the prefix's server with its keeper, and wait until a program runs."""
        quiet = {"stdin": subprocess.DEVNULL, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
        self._keeper = subprocess.Popen(
            ["timeout", str(_KEEPER_LIFETIME_S), "wine", "notepad.exe"], env=self.env, **quiet
        )
        echo = self.run("cmd.exe", "/c", "echo", "ready")
        assert echo.stdout.strip() == "ready", echo.stderr

    def reg_add(self, key: str, name: str, kind: str, data: str) -> None:
        r"""Write one registry value (``reg add ... /f``), tried again when Wine fails to run it.

        Under load, ``wine reg add`` now and then exits non-zero (1 or 53) with nothing printed,
        on a new prefix and on one already running (3 of 9 fresh-clone CI runs); the same
        command succeeds when run again. A write with ``/f`` is the same however often it is
        made, so a second try changes nothing a first one would not have.
        """
        failures: list[str] = []
        while len(failures) < _WINE_ATTEMPTS:
            done = self.run("reg", "add", key, "/v", name, "/t", kind, "/d", data, "/f")
            if done.returncode == 0:
                return
            said = (done.stdout + done.stderr).strip() or "nothing printed"
            failures.append(f"exit {done.returncode}, {said}")
        pytest.fail(f"wine reg add {key} /v {name} failed {len(failures)} times: {'; '.join(failures)}")

    def close(self) -> None:
        """Stop every Wine process of this prefix, the keeper included."""
        subprocess.run(["wineserver", "--kill"], env=self.env, stdin=subprocess.DEVNULL,
                       capture_output=True, timeout=60, check=False)  # fmt: skip
        if self._keeper is not None:
            try:
                self._keeper.wait(timeout=30)  # not a guess: killed after it
            except subprocess.TimeoutExpired:
                self._keeper.kill()
                self._keeper.wait()

    def expand(self, text: str) -> str:
        r"""``text`` with its ``%VARIABLES%`` expanded by the prefix's ``cmd.exe``."""
        done = self.run("cmd.exe", "/c", "echo", text)
        assert done.returncode == 0, done.stderr
        # Wine quotes an argument with spaces on the command line it builds; echo repeats them.
        return done.stdout.strip().strip('"')

    def linux_path(self, windows: str) -> Path:
        r"""The Linux path of a ``C:\`` path of this prefix."""
        path = PureWindowsPath(windows)
        assert path.drive.upper() == "C:", windows
        return self.prefix.joinpath("drive_c", *path.parts[1:])

    def reg_query(self, key: str, value: str | None = None) -> dict[str, tuple[str, str]] | None:
        r"""The values of ``key`` (name -> (type, data)), or None when the key (or value) is missing."""
        done = self.run("reg", "query", key, *(("/v", value) if value else ()))
        if done.returncode != 0:
            return None
        values: dict[str, tuple[str, str]] = {}
        for line in done.stdout.splitlines():
            parts = line.strip().split("    ")
            if len(parts) >= 2 and parts[1].startswith("REG_"):
                values[parts[0]] = (parts[1], parts[2] if len(parts) > 2 else "")
        return values


def _drain(stream: IO[bytes] | None, sink: list[bytes]) -> None:
    assert stream is not None
    for chunk in iter(lambda: stream.read1(1 << 16), b""):  # type: ignore[attr-defined]
        sink.append(chunk)


@pytest.fixture(scope="session")
def _new_prefix(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A prefix as :meth:`WinePrefix.start` makes it, its server stopped: copied for each test."""
    made = WinePrefix(tmp_path_factory.mktemp("wine-prefix"))
    try:
        made.start()
    finally:
        made.close()
    return made.prefix


@pytest.fixture
def wine_prefix(tmp_path: Path, _new_prefix: Path) -> Iterator[WinePrefix]:
    """A new Wine prefix for one test; its Wine processes are stopped afterwards."""
    made = WinePrefix(tmp_path)
    try:
        # Symbolic links as they are: the drives (dosdevices/c: is ../drive_c, z: is /).
        shutil.copytree(_new_prefix, made.prefix, symlinks=True)
        made.keep_up()
        yield made
    finally:
        made.close()
        shutil.rmtree(made.prefix, ignore_errors=True)
