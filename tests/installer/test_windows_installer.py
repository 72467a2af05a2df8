r"""The double-click Windows installer (issue 9), built here and installed silently under Wine.

Built once per session by ``installer/build.py`` (see conftest.py); each scenario installs it
into a fresh Wine prefix and checks it by its effects: the files, the Start-menu shortcut, the
Add/Remove Programs entry, the installed programs answering ``--version`` and ``detect --json``,
an upgrade over an existing install keeping the user's data, and an uninstall that leaves
nothing behind (and undoes the wizard's PATH changes only when asked).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import jsonschema
import pefile
import pytest

from gpuwizard import __version__
from harness.wine_python import WineUnavailable, fetch_interpreter, to_windows, unavailable
from harness.wine_python import cache_folder as wine_python_cache

if TYPE_CHECKING:
    from conftest import WinePrefix  # tests/installer/conftest.py, which makes the fixtures

# With pytest-xdist (-n), the installer is built once, on one worker: its tests stay together.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("installer")]

APP = "GPU Setup Wizard"
USER_UNINSTALL = r"HKCU\Software\Microsoft\Windows\CurrentVersion\Uninstall\gpuwizard"
MACHINE_UNINSTALL = r"HKLM\Software\Microsoft\Windows\CurrentVersion\Uninstall\gpuwizard"
# PE constants (Microsoft Learn, "PE Format"): https://learn.microsoft.com/en-us/windows/win32/debug/pe-format
IMAGE_FILE_MACHINE_AMD64 = 0x8664
PE32_PLUS_MAGIC = 0x20B
SUBSYSTEM_WINDOWS_GUI = 2
SUBSYSTEM_WINDOWS_CUI = 3
REPO = Path(__file__).resolve().parents[2]
PROBES = sorted(p.name for p in (REPO / "app" / "gpuwizard" / "probes").glob("*.py"))
SYSTEM_SCHEMA = json.loads((REPO / "resources" / "schemas" / "system-1.schema.json").read_text("utf-8"))
CUDA_BIN = r"C:\tools\cuda\bin"


def version_strings(path: Path) -> dict[str, str]:
    """The StringFileInfo of a program's version resource."""
    pe = pefile.PE(str(path))
    strings: dict[str, str] = {}
    for info in getattr(pe, "FileInfo", []):
        for entry in info:
            for table in getattr(entry, "StringTable", []):
                strings.update({k.decode(): v.decode() for k, v in table.entries.items()})
    return strings


def test_the_installer_is_a_64_bit_windows_program_named_and_versioned_after_the_package(setup_exe: Path):
    assert setup_exe.name == f"gpuwizard-setup-{__version__}.exe"
    pe = pefile.PE(str(setup_exe), fast_load=True)
    assert pe.FILE_HEADER.Machine == IMAGE_FILE_MACHINE_AMD64
    assert pe.OPTIONAL_HEADER.Magic == PE32_PLUS_MAGIC
    assert pe.OPTIONAL_HEADER.Subsystem == SUBSYSTEM_WINDOWS_GUI
    assert version_strings(setup_exe)["ProductVersion"] == __version__


def install(prefix: WinePrefix, setup: Path, *options: str) -> float:
    """Run the installer silently; returns how long it took."""
    started = time.perf_counter()
    done = prefix.run(str(setup), "/S", *options, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return time.perf_counter() - started


def uninstall(prefix: WinePrefix, key: str, *options: str) -> float:
    """Run the QuietUninstallString that Add/Remove Programs holds, and wait until it is done.

    An NSIS uninstaller copies itself to the temporary folder, starts the copy and ends at
    once, so its end says nothing: the folder and the key going away do.
    """
    entry = prefix.reg_query(key)
    assert entry is not None
    command = entry["QuietUninstallString"][1]
    program, _, arguments = command.partition('" ')
    started = time.perf_counter()
    done = prefix.run(program.strip('"'), *arguments.split(), *options, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    folder = prefix.linux_path(entry["InstallLocation"][1])
    deadline = time.monotonic() + 120
    while (folder.exists() or prefix.reg_query(key) is not None) and time.monotonic() < deadline:
        time.sleep(0.2)
    return time.perf_counter() - started


def run_installed(prefix: WinePrefix, folder: str, *args: str) -> str:
    done = prefix.run(rf"{folder}\gpuwizard.exe", *args, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def check_installed(prefix: WinePrefix, folder: str, key: str, shortcut: Path) -> None:
    """The files, the shortcut, the uninstall entry, and the programs answering."""
    root = prefix.linux_path(folder)
    for name in ("gpuwizard.exe", "gpuwizardw.exe", "uv.exe", "uninstall.exe"):
        assert (root / name).is_file(), name
    # The CLI is a console program (its output can be piped); the shortcut's is windowed.
    console = pefile.PE(str(root / "gpuwizard.exe"), fast_load=True)
    windowed = pefile.PE(str(root / "gpuwizardw.exe"), fast_load=True)
    assert console.OPTIONAL_HEADER.Subsystem == SUBSYSTEM_WINDOWS_CUI
    assert windowed.OPTIONAL_HEADER.Subsystem == SUBSYSTEM_WINDOWS_GUI
    assert version_strings(root / "gpuwizard.exe")["FileVersion"] == __version__
    # The probes ship as scripts, for the interpreters of the environments the wizard makes.
    internal = root / "_internal" / "gpuwizard"
    assert sorted(p.name for p in (internal / "probes").glob("*.py")) == PROBES
    assert (internal / "resources" / "schemas" / "system-1.schema.json").is_file()

    assert shortcut.is_file()
    assert (
        "gpuwizardw.exe".encode("utf-16-le") in shortcut.read_bytes()
        or b"gpuwizardw.exe" in shortcut.read_bytes()
    )

    entry = prefix.reg_query(key)
    assert entry is not None
    assert entry["DisplayName"] == ("REG_SZ", APP)
    assert entry["DisplayVersion"] == ("REG_SZ", __version__)
    assert entry["Publisher"][1]
    assert entry["InstallLocation"] == ("REG_SZ", folder)
    assert entry["DisplayIcon"] == ("REG_SZ", rf"{folder}\gpuwizardw.exe,0")
    assert entry["UninstallString"][1].startswith(rf'"{folder}\uninstall.exe"')
    assert entry["QuietUninstallString"][1].startswith(rf'"{folder}\uninstall.exe" /S')
    assert entry["EstimatedSize"][0] == "REG_DWORD" and int(entry["EstimatedSize"][1], 16) > 10_000

    assert run_installed(prefix, folder, "--version").strip() == f"gpuwizard {__version__}"
    report = json.loads(run_installed(prefix, folder, "detect", "--json"))
    jsonschema.validate(report, SYSTEM_SCHEMA)
    assert report["schema"] == "gpuwizard.system/1"
    assert report["os"]["family"] == "windows"
    # The uv that comes with the wizard is found beside it.
    assert report["managers"]["uv"].lower() == rf"{folder}\uv.exe".lower()


def check_probes_run_in_another_python(prefix: WinePrefix, folder: str) -> None:
    """The frozen wizard starts its probe scripts, from the install folder, in another Python.

    That Python is the Windows CPython the Wine tests use (tests/harness/wine_python.py), without
    any framework: the probe runs and reports the framework missing, which is the point here.
    """
    try:
        python = fetch_interpreter(wine_python_cache()) / "python.exe"
    except WineUnavailable as why:
        unavailable(str(why))
    done = prefix.run(
        rf"{folder}\gpuwizard.exe", "test", "--python", to_windows(python), "--framework", "pytorch", "--json",
        timeout=300,
    )  # fmt: skip
    events = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    assert events, done.stderr
    assert events[-1]["event"] == "result"
    assert events[-1]["verdict"] == "broken"
    assert [f["code"] for f in events[-1]["findings"]] == ["FRAMEWORK_NOT_IMPORTABLE"]
    errors = [e for e in events if e["event"] == "error"]
    assert errors and rf"{folder}\_internal\gpuwizard\probes".lower() in errors[0]["traceback"].lower()


def check_every_page_renders(prefix: WinePrefix, folder: str, shots: Path) -> None:
    """The frozen wizard (Qt 6.4 under Wine, its own platform plugin) draws each page of the wizard.

    Install, Test and Verify replay recorded runs, so this runs every page's code on the
    Windows build without changing anything: what `gpuwizard screenshots` is for.
    """
    sample = REPO / "resources" / "samples" / "windows-rtx2080super-two-cuda.json"
    shots.mkdir()
    written = run_installed(
        prefix, folder, "screenshots", to_windows(shots), "--system", to_windows(sample), "--lang", "es"
    )
    names = sorted(
        Path(line.strip().replace("\\", "/")).name for line in written.splitlines() if line.strip()
    )
    assert names == sorted(p.name for p in shots.glob("*.png"))
    assert len(names) == 8, written
    for png in shots.glob("*.png"):
        data = png.read_bytes()
        assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 10_000, png.name  # a page, not a blank


def user_path(prefix: WinePrefix) -> tuple[str, str] | None:
    values = prefix.reg_query(r"HKCU\Environment", "Path")
    return None if values is None else values.get("Path")


def test_per_user_install_upgrade_and_uninstall(
    say: Callable[[str], None], setup_exe: Path, wine_prefix: WinePrefix, tmp_path: Path
):
    prefix = wine_prefix
    folder = prefix.expand(rf"%LOCALAPPDATA%\Programs\{APP}")
    shortcut = prefix.linux_path(prefix.expand(rf"%APPDATA%\Microsoft\Windows\Start Menu\Programs\{APP}.lnk"))
    data = prefix.linux_path(prefix.expand(r"%LOCALAPPDATA%\gpuwizard"))

    seconds = install(prefix, setup_exe)
    say(f"\nper-user silent install: {seconds:.1f} s")
    check_installed(prefix, folder, USER_UNINSTALL, shortcut)
    assert prefix.reg_query(MACHINE_UNINSTALL) is None  # no administrator rights used
    check_probes_run_in_another_python(prefix, folder)
    started = time.perf_counter()
    check_every_page_renders(prefix, folder, tmp_path / "pages")
    say(f"every page rendered by the installed wizard: {time.perf_counter() - started:.1f} s")

    # The user's data, as the installed wizard writes it: a PATH change (journal) and a snapshot.
    assert user_path(prefix) is None  # a new prefix's user has no PATH of their own
    run_installed(prefix, folder, "path", "add", CUDA_BIN)
    assert user_path(prefix) == ("REG_EXPAND_SZ", CUDA_BIN)
    (data / "last-good.json").write_text('{"schema": "kept across upgrades"}', encoding="utf-8")
    kept = {p.name: p.read_bytes() for p in data.iterdir() if p.is_file()}
    assert {"path-journal.json", "last-good.json"} <= set(kept)

    # Installing over it (an upgrade): what only the earlier version had goes; the data stays.
    stale = prefix.linux_path(folder) / "_internal" / "from-the-earlier-version.dll"
    stale.write_bytes(b"MZ")
    seconds = install(prefix, setup_exe)
    say(f"install over it (upgrade): {seconds:.1f} s")
    assert not stale.exists()
    check_installed(prefix, folder, USER_UNINSTALL, shortcut)
    assert {p.name: p.read_bytes() for p in data.iterdir() if p.is_file()} == kept

    # A silent uninstall without /UNDOPATH leaves PATH as it is, and the user's data too.
    seconds = uninstall(prefix, USER_UNINSTALL)
    say(f"silent uninstall: {seconds:.1f} s")
    assert not prefix.linux_path(folder).exists()
    assert not shortcut.exists()
    assert prefix.reg_query(USER_UNINSTALL) is None
    assert user_path(prefix) == ("REG_EXPAND_SZ", CUDA_BIN)
    assert {p.name: p.read_bytes() for p in data.iterdir() if p.is_file()} == kept


def test_all_users_install_and_an_uninstall_that_undoes_the_path_changes(
    setup_exe: Path, wine_prefix: WinePrefix
):
    prefix = wine_prefix
    folder = prefix.expand(rf"%ProgramW6432%\{APP}")
    shortcut = prefix.linux_path(
        prefix.expand(rf"%ProgramData%\Microsoft\Windows\Start Menu\Programs\{APP}.lnk")
    )

    install(prefix, setup_exe, "/ALLUSERS")
    check_installed(prefix, folder, MACHINE_UNINSTALL, shortcut)
    assert prefix.reg_query(USER_UNINSTALL) is None
    assert prefix.reg_query(MACHINE_UNINSTALL)["UninstallString"][1].endswith("/ALLUSERS")

    before = user_path(prefix)
    run_installed(prefix, folder, "path", "add", CUDA_BIN)
    run_installed(prefix, folder, "path", "add", r"C:\tools\second")
    assert user_path(prefix) != before

    uninstall(prefix, MACHINE_UNINSTALL, "/UNDOPATH")
    assert user_path(prefix) == before  # both changes undone, type included
    assert not prefix.linux_path(folder).exists()
    assert not shortcut.exists()
    assert prefix.reg_query(MACHINE_UNINSTALL) is None
