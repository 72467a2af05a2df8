r"""Build the Windows installer: ``python installer/build.py --out DIR`` writes ``DIR/gpuwizard-setup-VERSION.exe``.

The steps (each timed on the output):

1. the wizard's wheel, built from this checkout with pip; its version is the build's version
   (pyproject takes it from ``gpuwizard.__version__``). The wheel is unpacked into a stage
   folder, so the frozen program holds exactly what ``pip install`` would install;
2. the icon, rendered from ``resources/icons/gpuwizard.svg`` (``icon.py``);
3. PyInstaller (``gpuwizard.spec``): one folder with ``gpuwizard.exe`` (console) and
   ``gpuwizardw.exe`` (windowed). On Windows it runs in this Python, which must have
   PyInstaller and the wizard's dependencies installed; elsewhere in a Windows CPython under
   Wine (``wine_python.py``) with the pins of ``requirements-wine.txt``;
4. NSIS (``gpuwizard.nsi``, ``Target amd64-unicode``) packs that folder into the installer:
   ``makensis`` from PATH (Debian's package ``nsis``; on Windows also the default NSIS folder).

Options for quicker rebuilds (the tests use them): ``--reuse-app`` keeps the PyInstaller folder
of an earlier build in the same ``--work`` folder and runs only NSIS; ``--version`` stamps another
version on what is built (the installer, the programs' version resources and ``gpuwizard
--version``), e.g. an older one to test an upgrade over; ``--compression zlib`` packs in a
fraction of the time of the release's solid LZMA, into a larger installer.

Exit codes: 0 built; 1 a step failed (its log is named); 2 bad input or a missing tool, this
Python's missing packages included (one line on stderr, nothing built).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Final

try:
    from packaging.markers import Marker
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name, parse_wheel_filename
    from packaging.version import InvalidVersion, Version

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # Python 3.10: the same library under its earlier name
        import tomli as tomllib
except ImportError as _missing:  # a Python without the project's packages: said in one line by main()
    _IMPORT_PROBLEM: str | None = f"{_missing}"
else:
    _IMPORT_PROBLEM = None

sys.path.insert(0, str(Path(__file__).resolve().parent))  # this folder's modules, however run
from icon import QtMissing, qt_problem, write_bitmap, write_icon
from wine_python import WineBuildError, WineBuildPython, provision, to_windows

HERE: Final = Path(__file__).resolve().parent
REPO: Final = HERE.parent
SPEC: Final = HERE / "gpuwizard.spec"
NSIS_SCRIPT: Final = HERE / "gpuwizard.nsi"
WINE_REQUIREMENTS: Final = HERE / "requirements-wine.txt"
SVG_ICON: Final = REPO / "resources" / "icons" / "gpuwizard.svg"
#: Where the Wine build keeps what it downloads, unless --cache says otherwise.
CACHE_ENV: Final = "GPUWIZARD_BUILD_CACHE"
#: The marker environment of the Wine build's Python (PEP 508), to check the pins against.
WINE_MARKERS: Final = {
    "python_version": "3.11", "python_full_version": "3.11.9", "sys_platform": "win32",
    "platform_system": "Windows", "os_name": "nt", "platform_machine": "AMD64",
    "implementation_name": "cpython", "platform_python_implementation": "CPython",
}  # fmt: skip
_PYINSTALLER_LIMIT_S: Final = 1800
_NSIS_LIMIT_S: Final = 900
#: NSIS's compressors as ``SetCompressor`` takes them: the release's, and quick ones for tests
#: (``off`` is ``SetCompress off`` in gpuwizard.nsi: the files stored as they are).
#: Measured on the same PyInstaller folder (README, "Windows installer"): solid LZMA is the
#: smallest by far; zlib takes a fifth of its time for an installer about half as large again;
#: none packs in 2 s instead of zlib's 25 (here, 2 cores), into 165 MiB.
COMPRESSION: Final = {"lzma": "/SOLID lzma", "zlib": "zlib", "none": "off"}
#: What to tell someone whose Python lacks the build's packages.
_USE_THE_PROJECTS_PYTHON: Final = (
    "run build.py with the project's Python, e.g. `.venv/bin/python installer/build.py ...` "
    "(or `pip install . pyinstaller` into this one first)"
)


class UsageError(Exception):
    """Bad input or a missing tool: one line, exit 2, nothing built."""


class StepFailed(Exception):
    """A build step failed: one line naming its log, exit 1."""


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(prog="build.py", description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, type=Path, help="folder for gpuwizard-setup-VERSION.exe")
    parser.add_argument(
        "--work",
        type=Path,
        default=REPO / "build" / "installer",
        help="build folder (default: build/installer)",
    )
    parser.add_argument(
        "--cache", type=Path, help=f"the Wine build's downloads (default: ${CACHE_ENV} or ~/.cache)"
    )
    parser.add_argument(
        "--version",
        help="the version to stamp on the build (default: the package's, from the wheel; with "
        "--reuse-app only the installer gets it)",
    )
    parser.add_argument(
        "--reuse-app",
        action="store_true",
        help="keep the PyInstaller folder an earlier build left in --work; run only NSIS",
    )
    parser.add_argument(
        "--app-only",
        action="store_true",
        help="stop after PyInstaller (the programs to sign before --reuse-app packs them)",
    )
    parser.add_argument(
        "--sign-command",
        metavar="CMD",
        help='makensis signs the uninstaller and the installer with CMD, "%%1" being the file '
        "(-DSIGN_COMMAND; docs/signing.md)",
    )
    parser.add_argument(
        "--compression",
        choices=sorted(COMPRESSION),
        default="lzma",
        help="lzma: the release's (solid, smallest); zlib: much faster, larger; none: stored, "
        "the quickest to pack and unpack, the largest (test builds)",
    )
    return parser.parse_args(argv)


@contextmanager
def step(name: str) -> Iterator[None]:
    """Print how long the step ``name`` took."""
    started = time.perf_counter()
    print(f"build: {name} ...", flush=True)
    yield
    print(f"build: {name}: {time.perf_counter() - started:.1f} s", flush=True)


def default_cache() -> Path:
    """Where the Wine build's downloads are kept between builds."""
    given = os.environ.get(CACHE_ENV)
    if given:
        return Path(given)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "gpuwizard-build"


def find_makensis() -> str:
    """The NSIS compiler: on PATH, or in NSIS's default folder on Windows."""
    found = shutil.which("makensis")
    if found is None and os.name == "nt":
        for base in (os.environ.get("PROGRAMFILES(X86)"), os.environ.get("PROGRAMFILES")):
            candidate = Path(base or "C:\\") / "NSIS" / "makensis.exe"
            if candidate.is_file():
                return str(candidate)
    if found is None:
        raise UsageError(
            "makensis (NSIS) is not installed: Debian `apt-get install nsis`, Windows `choco install nsis`"
        )
    return found


def check_out_folder(out: Path) -> Path:
    """``--out`` as an absolute path; it is created only once everything else was checked."""
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out}: exists and is not a folder")
    return out.resolve()


def check_wine_pins(requirements: Path, pyproject: Path) -> None:
    """Every runtime dependency of pyproject that applies on Windows is pinned in ``requirements``."""
    pins: dict[str, Version] = {}
    for line in requirements.read_text(encoding="utf-8").splitlines():
        text = line.split("#", 1)[0].strip()
        if text:
            name, _, version = text.partition("==")
            pins[canonicalize_name(name)] = Version(version)
    dependencies = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["dependencies"]
    for dependency in dependencies:
        wanted = Requirement(dependency)
        if wanted.marker is not None and not Marker(str(wanted.marker)).evaluate(WINE_MARKERS):
            continue
        pinned = pins.get(canonicalize_name(wanted.name))
        if pinned is None or not wanted.specifier.contains(pinned, prereleases=True):
            have = f"pins {pinned}" if pinned is not None else "does not pin it"
            raise UsageError(f"{requirements.name} {have}, but pyproject asks for {dependency!r}")


def run_logged(argv: Sequence[str], log: Path, *, timeout: float, cwd: Path | None = None) -> int:
    """Run ``argv`` with its output (a pipe) saved to ``log``; returns the exit code."""
    done = subprocess.run(
        list(argv), cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, timeout=timeout, check=False,
    )  # fmt: skip
    log.write_bytes(done.stdout)
    return done.returncode


def _failed(what: str, log: Path) -> StepFailed:
    tail = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-30:]
    print("\n".join(tail), file=sys.stderr)
    return StepFailed(f"{what} failed; its output is in {log}")


def build_wheel(work: Path) -> Path:
    """The wizard's wheel, built from this checkout into ``work``."""
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    log = work.parent / "wheel.log"
    argv = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--wheel-dir", str(work), str(REPO)]
    if run_logged(argv, log, timeout=600) != 0:
        raise _failed("building the wheel", log)
    (wheel,) = work.glob("gpuwizard-*.whl")
    return wheel


def stage_wheel(wheel: Path, stage: Path, version: str | None = None) -> str:
    """Unpack ``wheel`` into ``stage``; returns its version, or ``version`` stamped on it instead."""
    shutil.rmtree(stage, ignore_errors=True)
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(stage)
    if version is None:
        return str(parse_wheel_filename(wheel.name)[1])
    stamp_version(stage / "gpuwizard" / "__init__.py", version)
    return version


#: The line of gpuwizard/__init__.py that pyproject reads the version from.
_VERSION_LINE: Final = "__version__ = "


def stamp_version(init: Path, version: str) -> None:
    """Make the staged package say ``version`` (``gpuwizard --version``, and what the build is named)."""
    lines = init.read_text(encoding="utf-8").splitlines(keepends=True)
    at = [number for number, line in enumerate(lines) if line.startswith(_VERSION_LINE)]
    if len(at) != 1:
        raise UsageError(f"{init}: no single `{_VERSION_LINE}...` line to stamp --version on")
    lines[at[0]] = f"{_VERSION_LINE}{version!r}\n"
    init.write_text("".join(lines), encoding="utf-8")


def staged_version(stage: Path) -> str:
    """The version of the package staged by an earlier build (for ``--reuse-app``)."""
    for line in (stage / "gpuwizard" / "__init__.py").read_text(encoding="utf-8").splitlines():
        if line.startswith(_VERSION_LINE):
            return line.removeprefix(_VERSION_LINE).strip().strip("\"'")
    raise UsageError(f"{stage}: no staged package version")


def check_version(version: str) -> str:
    """``--version`` if it is a version Python packaging accepts (the resource needs its numbers)."""
    try:
        return str(Version(version))
    except InvalidVersion:
        raise UsageError(f"--version {version}: not a version (e.g. 0.1.0)") from None


def pyinstaller_args(
    dist: Path, work: Path, stage: Path, version: str, icon: Path, *, wine: bool
) -> list[str]:
    """The arguments of ``python -m PyInstaller`` (paths in Windows spelling under Wine)."""
    spell = to_windows if wine else str
    return [
        "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN",
        "--distpath", spell(dist), "--workpath", spell(work), spell(SPEC),
        "--", "--stage", spell(stage), "--version", version, "--icon", spell(icon),
    ]  # fmt: skip


def run_pyinstaller(args: list[str], work: Path, cache: Path) -> None:
    """PyInstaller here (Windows) or in the Windows Python under Wine (elsewhere)."""
    log = work / "pyinstaller.log"
    if os.name == "nt":
        if shutil.which("pyinstaller") is None and not _has_module("PyInstaller"):
            raise UsageError("PyInstaller is not installed in this Python: pip install pyinstaller")
        code = run_logged([sys.executable, *args], log, timeout=_PYINSTALLER_LIMIT_S)
    else:
        python: WineBuildPython | None = None
        try:
            python = provision(work / "wine", cache, WINE_REQUIREMENTS)
            code = python.run(args, log, timeout=_PYINSTALLER_LIMIT_S)
            if code != 0:
                # Once in CI (a loaded 2-core machine, a fresh prefix) PyInstaller's isolated child
                # under Wine could not import PySide6.QtWidgets for its hook, where the same build
                # passed before and after; the cause is not known (the hook logs it only at DEBUG).
                # A second try in the same prefix, with the first one's log kept and its warnings
                # shown, tells a passing hiccup from a real failure, which fails again.
                first = log.with_name("pyinstaller-first-try.log")
                log.replace(first)
                _show_warnings(first)
                print(f"build: PyInstaller under Wine failed (log: {first}); trying once more", flush=True)
                code = python.run(_at_log_level(args, "DEBUG"), log, timeout=_PYINSTALLER_LIMIT_S)
        except WineBuildError as error:
            raise UsageError(str(error)) from None
        finally:
            if python is not None:
                python.close()
    if code != 0:
        raise _failed("PyInstaller", log)


def _at_log_level(args: list[str], level: str) -> list[str]:
    """PyInstaller's ``args`` with ``--log-level`` set to ``level``."""
    at = args.index("--log-level")
    return [*args[: at + 1], level, *args[at + 2 :]]


def _show_warnings(log: Path) -> None:
    """The warnings and errors PyInstaller logged in ``log`` (its tail alone may miss the cause)."""
    lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
    said = [line for line in lines if " WARNING: " in line or " ERROR: " in line]
    for line in said[:20]:
        print(f"build: {line}", file=sys.stderr)


def _has_module(name: str) -> bool:
    import importlib.util  # noqa: PLC0415

    return importlib.util.find_spec(name) is not None


def version_quad(version: str) -> str:
    """The four numbers a Windows version resource holds (``0.1.0rc1`` -> ``0.1.0.0``)."""
    numbers = [*Version(version).release, 0, 0, 0][:4]
    return ".".join(str(n) for n in numbers)


def makensis_args(
    makensis: str,
    app: Path,
    *,
    version: str,
    icon: Path,
    bitmap: Path,
    setup: Path,
    compression: str,
    sign_command: str | None = None,
) -> list[str]:
    """The command line of makensis that packs the PyInstaller folder ``app`` into ``setup``.

    ``sign_command`` becomes ``-DSIGN_COMMAND``, one argument as given: the script runs it on the
    uninstaller and on the finished installer (``!uninstfinalize``, ``!finalize``).
    """
    signing = [] if sign_command is None else [f"-DSIGN_COMMAND={sign_command}"]
    return [
        makensis, "-V2", "-WX", "-INPUTCHARSET", "UTF8",
        f"-DVERSION={version}", f"-DVI_VERSION={version_quad(version)}",
        f"-DAPP_DIR={app}", f"-DICON={icon}", f"-DBITMAP={bitmap}", f"-DOUT_FILE={setup}",
        f"-DCOMPRESSION={COMPRESSION[compression]}", *signing,
        str(NSIS_SCRIPT),
    ]  # fmt: skip


def run_makensis(argv: list[str], setup: Path, work: Path) -> None:
    """Run makensis (``makensis_args``); its output goes to ``work/makensis.log``."""
    log = work / "makensis.log"
    setup.unlink(missing_ok=True)  # an earlier build's installer is no proof that this one was made
    if run_logged(argv, log, timeout=_NSIS_LIMIT_S) != 0 or not setup.is_file():
        raise _failed("makensis", log)


def check_python() -> None:
    """This Python has what the build imports (packaging, PySide6 to draw the images), or UsageError."""
    if _IMPORT_PROBLEM is not None:
        raise UsageError(
            f"this Python lacks a package the build needs ({_IMPORT_PROBLEM}): {_USE_THE_PROJECTS_PYTHON}"
        )
    problem = qt_problem()
    if problem is not None:
        raise UsageError(problem)


def build(
    out: Path,
    work: Path,
    cache: Path,
    *,
    version: str | None = None,
    reuse_app: bool = False,
    app_only: bool = False,
    compression: str = "lzma",
    sign_command: str | None = None,
) -> Path:
    """Every step; returns the installer (with ``app_only``, the PyInstaller folder).

    ``reuse_app`` runs only NSIS, on the folder an earlier build left; ``app_only`` stops before it.
    """
    check_python()
    if reuse_app and app_only:
        raise UsageError("--reuse-app packs an earlier --app-only build; give one of them")
    out = check_out_folder(out)
    if version is not None:
        version = check_version(version)
    work = work.resolve()
    dist = work / "dist"
    if reuse_app and not (dist / "gpuwizard" / "gpuwizard.exe").is_file():
        raise UsageError(f"--reuse-app: {work} holds no earlier build's PyInstaller folder (dist/gpuwizard)")
    makensis = find_makensis()
    if os.name != "nt" and not reuse_app:
        check_wine_pins(WINE_REQUIREMENTS, REPO / "pyproject.toml")
    out.mkdir(parents=True, exist_ok=True)
    work.mkdir(parents=True, exist_ok=True)
    if reuse_app:
        version = version or staged_version(work / "stage")
    else:
        with step("wheel"):
            version = stage_wheel(build_wheel(work / "wheel"), work / "stage", version)
    with step("icon and bitmap"):
        icon = write_icon(SVG_ICON, work / "gpuwizard.ico")
        bitmap = write_bitmap(SVG_ICON, work / "wizard-side.bmp")
    if not reuse_app:
        with step("pyinstaller" + ("" if os.name == "nt" else " (Windows Python under Wine)")):
            args = pyinstaller_args(
                dist, work / "pyinstaller", work / "stage", version, icon, wine=os.name != "nt"
            )
            run_pyinstaller(args, work, cache)
    if app_only:
        print(f"build: wrote {dist / 'gpuwizard'}", flush=True)
        return dist / "gpuwizard"
    setup = out / f"gpuwizard-setup-{version}.exe"
    with step(f"makensis ({compression})"):
        argv = makensis_args(
            makensis, dist / "gpuwizard", version=version, icon=icon, bitmap=bitmap, setup=setup,
            compression=compression, sign_command=sign_command,
        )  # fmt: skip
        run_makensis(argv, setup, work)
    print(f"build: wrote {setup} ({setup.stat().st_size / 2**20:.1f} MiB)", flush=True)
    return setup


def main(argv: Sequence[str] | None = None) -> int:
    """Run the build; returns the exit code."""
    args = parse_args(argv)
    try:
        build(
            args.out,
            args.work,
            args.cache or default_cache(),
            version=args.version,
            reuse_app=args.reuse_app,
            app_only=args.app_only,
            compression=args.compression,
            sign_command=args.sign_command,
        )
    except (UsageError, QtMissing) as error:
        print(f"build.py: error: {error}", file=sys.stderr)
        return 2
    except StepFailed as error:
        print(f"build.py: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
