r"""The double-click Windows installer (issue 9), built here and installed silently under Wine.

Built once per session by ``installer/build.py`` (see conftest.py); each scenario installs it
into a fresh Wine prefix and checks it by its effects: the files, the Start-menu shortcut, the
Add/Remove Programs entry, the installed programs answering ``--version`` and ``detect --json``,
``gpuwizard`` run by its name from a new ``cmd`` (the installer's PATH entry), an upgrade over an
existing install and over the previous version keeping the user's data, the refusal to replace
or remove the files of a running wizard, a crashed child's exit status told in words, and
uninstalls that keep or remove the user's data and leave nothing else behind (and undo the
wizard's PATH changes only when asked, its own PATH entry always).

Wine builds the environment of a Windows program started from Linux out of the registry, as a
new logon does (HKCU\Environment included), so ``wine cmd /c gpuwizard`` right after the install
is what a Command Prompt opened then sees; no restart of the prefix is needed.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jsonschema
import pefile
import pytest
from packaging.version import Version

from gpuwizard import __version__
from harness.wine_python import WineUnavailable, fetch_interpreter, to_windows, unavailable
from harness.wine_python import cache_folder as wine_python_cache

if TYPE_CHECKING:
    from conftest import WinePrefix  # tests/installer/conftest.py, which makes the fixtures

# With pytest-xdist (-n), the installer is built once, on one worker: its tests stay together.
pytestmark = [pytest.mark.slow, pytest.mark.heavy, pytest.mark.xdist_group("installer")]

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
SAMPLE = REPO / "resources" / "samples" / "windows-rtx2080super-two-cuda.json"
#: The installer's and uninstaller's exit code when the wizard runs (ERROR_SHARING_VIOLATION).
WIZARD_RUNNING = 32


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


def system_path(prefix: WinePrefix) -> tuple[str, str] | None:
    values = prefix.reg_query(r"HKLM\System\CurrentControlSet\Control\Session Manager\Environment", "Path")
    return None if values is None else values.get("Path")


def entries(value: tuple[str, str] | None) -> list[str]:
    """The folders of a PATH value as ``reg query`` shows it."""
    return [] if value is None else [part for part in value[1].split(";") if part]


def journal(data: Path) -> list[dict[str, Any]]:
    """The wizard's PATH journal in its data folder (``path-journal.json``)."""
    recorded: list[dict[str, Any]] = json.loads((data / "path-journal.json").read_text("utf-8"))["entries"]
    return recorded


def from_new_cmd(prefix: WinePrefix, *command: str) -> subprocess.CompletedProcess[str]:
    """``COMMAND`` typed into a Command Prompt opened now: found on PATH as cmd finds it."""
    return prefix.run("cmd.exe", "/c", *command, timeout=300)


def verify_events(prefix: WinePrefix, folder: str) -> list[dict[str, Any]]:
    """``gpuwizard verify`` of the live PATH, with the saved report of a Windows machine for the GPU."""
    done = prefix.run(
        rf"{folder}\gpuwizard.exe", "verify", "--no-test", "--system", to_windows(SAMPLE), "--json", timeout=300
    )  # fmt: skip
    events = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    assert events and events[-1]["event"] == "result", done.stdout + done.stderr
    return events


def path_checks(events: list[dict[str, Any]]) -> dict[str, str]:
    """Verify's PATH rows: the folder and its status."""
    return {e["subject"]: e["status"] for e in events if e["event"] == "check" and e["kind"] == "path"}


def test_per_user_install_upgrade_and_uninstall(
    say: Callable[[str], None], setup_exe: Path, wine_prefix: WinePrefix, tmp_path: Path
):
    prefix = wine_prefix
    folder = prefix.expand(rf"%LOCALAPPDATA%\Programs\{APP}")
    shortcut = prefix.linux_path(prefix.expand(rf"%APPDATA%\Microsoft\Windows\Start Menu\Programs\{APP}.lnk"))
    data = prefix.linux_path(prefix.expand(r"%LOCALAPPDATA%\gpuwizard"))
    assert user_path(prefix) is None  # a new prefix's user has no PATH of their own

    seconds = install(prefix, setup_exe)
    say(f"\nper-user silent install: {seconds:.1f} s")
    check_installed(prefix, folder, USER_UNINSTALL, shortcut)
    assert prefix.reg_query(MACHINE_UNINSTALL) is None  # no administrator rights used
    check_the_installers_path_entry(prefix, folder, data)
    check_probes_run_in_another_python(prefix, folder)
    started = time.perf_counter()
    check_every_page_renders(prefix, folder, tmp_path / "pages")
    say(f"every page rendered by the installed wizard: {time.perf_counter() - started:.1f} s")

    # The user's data, as the installed wizard writes it: a PATH change (journal) and a good state.
    run_installed(prefix, folder, "path", "add", CUDA_BIN)
    assert entries(user_path(prefix)) == [folder, CUDA_BIN]
    assert path_checks(verify_events(prefix, folder)) == {CUDA_BIN: "ok"}
    kept = {p.name: p.read_bytes() for p in data.iterdir() if p.is_file()}
    assert {"path-journal.json", "last-good.json"} <= set(kept)

    # Installing over it (an upgrade): what only the earlier version had goes; the data stays,
    # PATH too: the add is not made twice, and nothing new is journaled.
    stale = prefix.linux_path(folder) / "_internal" / "from-the-earlier-version.dll"
    stale.write_bytes(b"MZ")
    seconds = install(prefix, setup_exe)
    say(f"install over it (upgrade): {seconds:.1f} s")
    assert not stale.exists()
    check_installed(prefix, folder, USER_UNINSTALL, shortcut)
    assert {p.name: p.read_bytes() for p in data.iterdir() if p.is_file()} == kept
    assert entries(user_path(prefix)) == [folder, CUDA_BIN]

    # A silent uninstall without /UNDOPATH leaves the wizard's PATH changes, and the user's data;
    # the installer's own entry goes, through the journal.
    seconds = uninstall(prefix, USER_UNINSTALL)
    say(f"silent uninstall: {seconds:.1f} s")
    assert not prefix.linux_path(folder).exists()
    assert not shortcut.exists()
    assert prefix.reg_query(USER_UNINSTALL) is None
    assert user_path(prefix) == ("REG_EXPAND_SZ", CUDA_BIN)
    assert [(e["action"], e["folders"]) for e in journal(data)][-1] == ("remove", [folder])
    after = {p.name: p.read_bytes() for p in data.iterdir() if p.is_file()}
    assert {k: v for k, v in after.items() if k != "path-journal.json"} == {
        k: v for k, v in kept.items() if k != "path-journal.json"
    }

    check_reinstall_undo_and_remove(say, prefix, setup_exe, folder, data)


def check_the_installers_path_entry(prefix: WinePrefix, folder: str, data: Path) -> None:
    """The program folder on the user PATH, through the wizard's journal, recorded as the installer's."""
    assert user_path(prefix) == ("REG_EXPAND_SZ", folder)
    assert [(e["action"], e["folders"], e["scope"]) for e in journal(data)] == [("add", [folder], "user")]
    entry = prefix.reg_query(USER_UNINSTALL)
    assert entry is not None
    assert (entry["PathEntry"], entry["PathScope"]) == (("REG_SZ", folder), ("REG_SZ", "user"))
    assert entry["AddToPath"] == ("REG_DWORD", "0x1")
    # A Command Prompt opened after the install runs the wizard by its name.
    typed = from_new_cmd(prefix, "gpuwizard", "--version")
    assert (typed.returncode, typed.stdout.strip()) == (0, f"gpuwizard {__version__}"), typed.stderr
    # That entry is the installer's, not a setup of the wizard's: nothing to verify yet.
    assert path_checks(verify_events(prefix, folder)) == {}


def check_reinstall_undo_and_remove(
    say: Callable[[str], None], prefix: WinePrefix, setup_exe: Path, folder: str, data: Path
) -> None:
    """After an uninstall that kept the data and a PATH change: reinstall, undo, reinstall, remove all."""
    # Installed again: the good state finds everything as it was, the installer's entry unchecked.
    install(prefix, setup_exe)
    assert entries(user_path(prefix)) == [CUDA_BIN, folder]
    assert path_checks(verify_events(prefix, folder)) == {CUDA_BIN: "ok"}
    # The uninstaller's undo of every PATH change, data kept: PATH as before the first install,
    # and the next install's verify reports no drift of what the undo took away.
    seconds = uninstall(prefix, USER_UNINSTALL, "/UNDOPATH")
    say(f"silent uninstall undoing the PATH changes: {seconds:.1f} s")
    assert entries(user_path(prefix)) == []
    assert (data / "last-good.json").is_file()
    install(prefix, setup_exe)
    events = verify_events(prefix, folder)
    assert path_checks(events) == {}
    assert events[-1]["drifted"] == [] and CUDA_BIN not in json.dumps(events)

    # Removing the data too: every file the wizard made goes, and with them its folder.
    seconds = uninstall(prefix, USER_UNINSTALL, "/UNDOPATH", "/REMOVEDATA")
    say(f"silent uninstall removing the data: {seconds:.1f} s")
    assert not data.exists()
    assert entries(user_path(prefix)) == []


def test_all_users_install_and_an_uninstall_that_undoes_the_path_changes(
    setup_exe: Path, wine_prefix: WinePrefix
):
    prefix = wine_prefix
    folder = prefix.expand(rf"%ProgramW6432%\{APP}")
    shortcut = prefix.linux_path(
        prefix.expand(rf"%ProgramData%\Microsoft\Windows\Start Menu\Programs\{APP}.lnk")
    )
    system_before = system_path(prefix)

    install(prefix, setup_exe, "/ALLUSERS")
    check_installed(prefix, folder, MACHINE_UNINSTALL, shortcut)
    assert prefix.reg_query(USER_UNINSTALL) is None
    assert prefix.reg_query(MACHINE_UNINSTALL)["UninstallString"][1].endswith("/ALLUSERS")
    # For all users, PATH only when asked.
    assert system_path(prefix) == system_before
    assert "PathEntry" not in prefix.reg_query(MACHINE_UNINSTALL)

    # Asked (an upgrade with /ADDTOPATH): the system PATH, which that elevated install may write.
    install(prefix, setup_exe, "/ALLUSERS", "/ADDTOPATH")
    assert entries(system_path(prefix)) == [*entries(system_before), folder]
    assert prefix.reg_query(MACHINE_UNINSTALL)["PathScope"] == ("REG_SZ", "system")
    typed = from_new_cmd(prefix, "gpuwizard", "--version")
    assert (typed.returncode, typed.stdout.strip()) == (0, f"gpuwizard {__version__}"), typed.stderr

    before = user_path(prefix)
    run_installed(prefix, folder, "path", "add", CUDA_BIN)
    run_installed(prefix, folder, "path", "add", r"C:\tools\second")
    assert user_path(prefix) != before

    uninstall(prefix, MACHINE_UNINSTALL, "/UNDOPATH")
    assert user_path(prefix) == before  # both changes undone, type included
    assert system_path(prefix) == system_before  # the installer's entry too
    assert not prefix.linux_path(folder).exists()
    assert not shortcut.exists()
    assert prefix.reg_query(MACHINE_UNINSTALL) is None


@contextmanager
def wizard_running(prefix: WinePrefix, folder: str) -> Iterator[None]:
    """The installed wizard's window open (under Wine's null display driver) until the block ends.

    Ready once Windows refuses to open ``gpuwizardw.exe`` for writing, which it does for a
    running program (the test's own Windows Python asks); the refusal is what the installer
    goes by.
    """
    try:
        python = fetch_interpreter(wine_python_cache()) / "python.exe"
    except WineUnavailable as why:
        unavailable(str(why))
    window = subprocess.Popen(
        ["wine", rf"{folder}\gpuwizardw.exe"], env=prefix.env,
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        probe = rf"open(r'{folder}\gpuwizardw.exe', 'r+b').close()"
        # Until the refusal, or the wizard's end; a wizard that never starts is the test's
        # timeout (the mark on the test).
        while prefix.run(to_windows(python), "-c", probe).returncode == 0:
            assert window.poll() is None, "the wizard ended by itself"
        yield
    finally:
        prefix.run("taskkill.exe", "/F", "/IM", "gpuwizardw.exe")
        window.wait(timeout=60)  # not a guess: killed above


def check_the_uninstaller_waits_too(prefix: WinePrefix, folder: str) -> None:
    """The uninstaller, run while the wizard runs, stops with exit 32 and removes nothing."""
    # `_?=` runs the uninstaller where it is (no copy in TEMP), so that its exit code is its own.
    kept = prefix.run(rf"{folder}\uninstall.exe", "/S", rf"_?={folder}", timeout=300)
    assert kept.returncode == WIZARD_RUNNING, kept.stdout + kept.stderr
    assert (prefix.linux_path(folder) / "gpuwizard.exe").is_file()
    assert prefix.reg_query(USER_UNINSTALL) is not None


def check_a_crashed_child_is_told_in_words(prefix: WinePrefix, folder: str) -> None:
    """A child that crashes (a Python whose DLL is gone: STATUS_DLL_NOT_FOUND) is told in words."""
    try:
        python = fetch_interpreter(wine_python_cache())
    except WineUnavailable as why:
        unavailable(str(why))
    broken = prefix.linux_path(r"C:\broken-python")
    shutil.copytree(python, broken)
    for dll in broken.glob("python3??.dll"):
        dll.unlink()
    crashed = prefix.run(
        rf"{folder}\gpuwizard.exe", "test", "--python", r"C:\broken-python\python.exe", "--framework", "pytorch",
        timeout=300,
    )  # fmt: skip
    assert crashed.returncode == 1
    # 0xC0000135 = 3221225781, as Windows (and Wine) ends a program whose DLL is missing.
    assert "0xC0000135 STATUS_DLL_NOT_FOUND: a DLL the program needs was not found" in crashed.stdout


def plant_environments(prefix: WinePrefix, data: Path) -> dict[str, Path]:
    """Three recorded environments: two the wizard made (its marker inside), one a person's (no marker).

    Written as the wizard writes them (``environments.json``, ``gpuwizard-env.json``), since
    making real ones needs the network.
    """
    folders = {
        "demo": rf"{prefix.expand(r'%LOCALAPPDATA%')}\gpuwizard\envs\demo",
        "elsewhere": r"C:\work\envs\elsewhere",
        "theirs": r"C:\work\theirs",
    }
    records = []
    for number, (name, folder) in enumerate(folders.items(), 1):
        owner = f"{number:032x}"
        path = prefix.linux_path(folder)
        (path / "Scripts").mkdir(parents=True)
        (path / "Scripts" / "python.exe").write_bytes(b"MZ")
        (path / "pyvenv.cfg").write_text("home = C:\\Python311\n", encoding="utf-8")
        if name != "theirs":
            marker = {"schema": "gpuwizard.owner-marker/1", "kind": "environment", "id": owner,
                      "name": name, "place": folder, "given": False}  # fmt: skip
            (path / "gpuwizard-env.json").write_text(json.dumps(marker), encoding="utf-8")
        records.append({
            "name": name, "path": folder, "python": rf"{folder}\Scripts\python.exe", "manager": "venv",
            "framework": "pytorch", "framework_version": "2.13.0", "id": owner,
        })  # fmt: skip
    data.mkdir(parents=True, exist_ok=True)
    registry = {"schema": "gpuwizard.environments/1", "environments": records}
    (data / "environments.json").write_text(json.dumps(registry), encoding="utf-8")
    return {name: prefix.linux_path(folder) for name, folder in folders.items()}


@pytest.mark.timeout(3600)  # may build both installers (up to BUILD_LIMIT_S each), then installs 6 times
def test_upgrade_over_the_previous_version_a_running_wizard_a_crash_and_removing_the_data(
    say: Callable[[str], None], setup_exe: Path, previous_setup_exe: Path, wine_prefix: WinePrefix
):
    prefix = wine_prefix
    folder = r"C:\GPUWizard"  # /D: no spaces, so that `_?=` below needs no quotes
    data = prefix.linux_path(prefix.expand(r"%LOCALAPPDATA%\gpuwizard"))
    previous = previous_setup_exe.name.removeprefix("gpuwizard-setup-").removesuffix(".exe")
    assert Version(previous) < Version(__version__)

    install(prefix, previous_setup_exe, rf"/D={folder}")
    assert prefix.reg_query(USER_UNINSTALL)["DisplayVersion"] == ("REG_SZ", previous)
    assert entries(user_path(prefix)) == [folder]
    stale = prefix.linux_path(folder) / "_internal" / "from-the-previous-version.dll"
    stale.write_bytes(b"MZ")
    recorded = journal(data)

    # While the wizard runs, neither the installer nor the uninstaller touches a file: exit 32.
    with wizard_running(prefix, folder):
        refused = prefix.run(str(setup_exe), "/S", timeout=600)
        assert refused.returncode == WIZARD_RUNNING, refused.stdout + refused.stderr
        assert prefix.reg_query(USER_UNINSTALL)["DisplayVersion"] == ("REG_SZ", previous)
        assert stale.exists()
        check_the_uninstaller_waits_too(prefix, folder)

    # Closed, the upgrade goes through: into the earlier folder, nothing of the earlier version
    # left, PATH and its journal as they were.
    seconds = install(prefix, setup_exe)
    say(f"\nupgrade over {previous}: {seconds:.1f} s")
    entry = prefix.reg_query(USER_UNINSTALL)
    assert entry is not None
    assert (entry["DisplayVersion"], entry["InstallLocation"]) == (
        ("REG_SZ", __version__),
        ("REG_SZ", folder),
    )
    assert not stale.exists()
    assert entries(user_path(prefix)) == [folder]
    assert journal(data) == recorded
    assert from_new_cmd(prefix, "gpuwizard", "--version").stdout.strip() == f"gpuwizard {__version__}"
    # The option turned off on an upgrade (/NOPATH): the installer takes its entry away, and the
    # next upgrade keeps that choice; /ADDTOPATH turns it on again.
    install(prefix, setup_exe, "/NOPATH")
    assert entries(user_path(prefix)) == []
    entry = prefix.reg_query(USER_UNINSTALL)
    assert entry is not None and "PathEntry" not in entry and entry["AddToPath"] == ("REG_DWORD", "0x0")
    install(prefix, setup_exe)
    assert entries(user_path(prefix)) == []
    install(prefix, setup_exe, "/ADDTOPATH")
    assert entries(user_path(prefix)) == [folder]

    check_a_crashed_child_is_told_in_words(prefix, folder)

    # Uninstalled with /REMOVEDATA: the environments the wizard made go, wherever they are; a
    # folder it cannot prove it made stays, and so do a person's files in the data folder.
    folders = plant_environments(prefix, data)
    (data / "my-notes.txt").write_text("mine", encoding="utf-8")
    theirs = {p.name: p.read_bytes() for p in folders["theirs"].rglob("*") if p.is_file()}
    seconds = uninstall(prefix, USER_UNINSTALL, "/REMOVEDATA")
    say(f"silent uninstall removing environments and data: {seconds:.1f} s")
    assert not folders["demo"].exists() and not folders["elsewhere"].exists()
    assert {p.name: p.read_bytes() for p in folders["theirs"].rglob("*") if p.is_file()} == theirs
    assert sorted(p.name for p in data.iterdir()) == ["my-notes.txt"]
    assert entries(user_path(prefix)) == []
    assert not prefix.linux_path(folder).exists()
