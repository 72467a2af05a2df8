"""The Intune / MECM kit (integrations/windows/intune): its scripts against the installer, its README against the exit codes.

PowerShell is not on the test machines, so what is checked is what the scripts say: the registry
key, the values, the programs, the switches and the folders they use are the ones
installer/gpuwizard.nsi writes and takes (read out of the NSIS script, not repeated here), the
detection script keeps to the detection rules (never a non-zero exit, never STDERR), and the
README's return-code table is the wizard's exit-code constants. Where ``pwsh`` is installed, the
scripts are also parsed by PowerShell's own parser.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from gpuwizard.cli import common
from gpuwizard.core.machine.display_devices import VENDORS
from gpuwizard.workflow.state.home import SNAPSHOT_NAME
from harness.nsis_script import NSIS_SCRIPT, nsis_defines

ROOT = Path(__file__).resolve().parents[2]
INTUNE = ROOT / "integrations" / "windows" / "intune"
SCRIPTS = ("detect.ps1", "requirement.ps1", "install.ps1", "uninstall.ps1")
#: Generous: one PowerShell start; the limit guards against a hang, it is no estimate.
LIMIT = 300


def text(name: str) -> str:
    return (INTUNE / name).read_text(encoding="utf-8")


def code(name: str) -> str:
    """The script without its comment lines."""
    return "\n".join(line for line in text(name).splitlines() if not line.lstrip().startswith("#"))


def assignment(script: str, variable: str) -> str:
    """The single-quoted value a script gives ``$variable`` (``$Name = 'value'``)."""
    found = re.findall(rf"^\${variable} = '([^']*)'$", text(script), re.MULTILINE)
    assert len(found) == 1, (script, variable, found)
    return found[0]


def windows_folder(nsis_path: str) -> str:
    """An NSIS folder as the environment variable Windows expands to the same place."""
    return nsis_path.replace("$LOCALAPPDATA", "%LOCALAPPDATA%").replace("$PROGRAMFILES64", "%ProgramFiles%")


def switches(script: str) -> set[str]:
    """Every ``/SWITCH`` a script passes to the installer or the uninstaller."""
    passed = re.findall(r"'(/[A-Z]+(?: /[A-Z]+)*)'", text(script))
    return {switch for group in passed for switch in group.split()}


def options_parsed(section: str) -> set[str]:
    """The ``/OPTIONS`` the NSIS function ``section`` (``.onInit``, ``un.onInit``) reads with GetOptions."""
    script = NSIS_SCRIPT.read_text()
    body = script.split(f"Function {section}\n", 1)[1].split("FunctionEnd", 1)[0]
    return set(re.findall(r'\$\{GetOptions\} \$R0 "(/[A-Z]+)"', body))


# --- the scripts use what the installer writes ---------------------------------------------


@pytest.mark.parametrize("script", ["detect.ps1", "install.ps1", "uninstall.ps1"])
def test_the_scripts_read_the_uninstall_key_the_installer_writes(script: str):
    assert assignment(script, "UninstallKey") == nsis_defines()["UNINSTALL_KEY"]


@pytest.mark.parametrize("script", ["detect.ps1", "install.ps1", "uninstall.ps1"])
def test_every_value_read_is_one_the_installer_writes(script: str):
    written = set(
        re.findall(r'WriteReg(?:Str|DWORD) SHCTX "\$\{UNINSTALL_KEY\}" "(\w+)"', NSIS_SCRIPT.read_text())
    )
    read = set(re.findall(r"GetValue\('(\w+)'\)", text(script)))
    assert read, script
    assert read <= written, read - written


@pytest.mark.parametrize(("script", "variable"), [("detect.ps1", "Program"), ("install.ps1", "Program")])
def test_the_program_looked_for_is_the_command_line_the_installer_puts_there(script: str, variable: str):
    program = assignment(script, variable)
    assert program == "gpuwizard.exe"
    assert f'Delete "$INSTDIR\\{program}"' in NSIS_SCRIPT.read_text()


def test_the_uninstall_script_runs_the_uninstaller_the_installer_writes():
    uninstaller = assignment("uninstall.ps1", "Uninstaller")
    assert f'WriteUninstaller "$INSTDIR\\{uninstaller}"' in NSIS_SCRIPT.read_text()
    # Run in place and waited for: `_?=` last on the line, the folder unquoted.
    assert '-ArgumentList "$switches _?=$folder"' in text("uninstall.ps1")


def test_detection_looks_for_the_last_good_state_where_the_wizard_keeps_it():
    defines = nsis_defines()
    detect = text("detect.ps1")
    assert assignment("detect.ps1", "LastGood") == SNAPSHOT_NAME
    # FIND_HOME: GPUWIZARD_HOME, else $LOCALAPPDATA\${APP_ID} (gpuwizard.workflow.state.home.wizard_home).
    assert 'ReadEnvStr $Home "GPUWIZARD_HOME"' in NSIS_SCRIPT.read_text()
    assert 'StrCpy $Home "$LOCALAPPDATA\\${APP_ID}"' in NSIS_SCRIPT.read_text()
    assert "$env:GPUWIZARD_HOME" in detect
    assert f"Join-Path $env:LOCALAPPDATA '{defines['APP_ID']}'" in detect


@pytest.mark.parametrize(
    ("script", "section"),
    [("install.ps1", ".onInit"), ("uninstall.ps1", "un.onInit")],
    ids=["install", "uninstall"],
)
def test_every_switch_passed_is_one_the_installer_takes(script: str, section: str):
    passed = switches(script)
    assert "/S" in passed  # NSIS's own silent switch
    assert passed - {"/S"} <= options_parsed(section), passed - options_parsed(section)
    assert "/ALLUSERS" in passed


def test_the_install_script_passes_the_readme_s_switches():
    readme = text("README.md")
    install = text("install.ps1")
    assert "$switches = '/S /ALLUSERS /ADDTOPATH'" in install and "$switches = '/S'" in install
    assert "| what the installer gets | `/S` | `/S /ALLUSERS /ADDTOPATH` |" in readme


def test_the_readme_names_the_folders_the_installer_installs_into():
    defines = nsis_defines()
    readme = text("README.md")
    for folder in (windows_folder(defines["PER_USER_DIR"]), windows_folder(defines["ALL_USERS_DIR"])):
        assert f"`{folder}`" in readme, folder
    assert f"`{defines['UNINSTALL_KEY']}`" in readme


# --- the detection and requirement rules ------------------------------------------------------


def test_detection_never_fails_and_never_writes_to_stderr():
    """Intune: detected = exit 0 and STDOUT; MECM: a non-zero exit or STDERR is "unknown"."""
    detect = code("detect.ps1")
    assert set(re.findall(r"\bexit\s+(\S+)", detect)) == {"0"}
    assert "$ErrorActionPreference = 'SilentlyContinue'" in detect
    for stderr in ("Write-Error", "Write-Warning", "[Console]::Error", "throw "):
        assert stderr not in detect, stderr
    # One line, written just before the one exit that says "detected".
    assert re.findall(r"Write-Output .*\n\s*exit 0", detect) and detect.count("Write-Output") == 1
    # Cheap: it starts no program.
    for starts in ("Start-Process", "& ", "verify"):
        assert starts not in detect.split("$ErrorActionPreference", 1)[1], starts


def test_the_requirement_script_prints_one_of_the_words_the_readme_gives():
    requirement = text("requirement.ps1")
    table = dict(re.findall(r"'VEN_([0-9A-F]{4})' = '(\w+)'", requirement))
    assert table, "no vendor table"
    for vendor, name in table.items():
        assert VENDORS[int(vendor, 16)] == name, vendor
    words = {*table.values(), "none"}
    for word in words:
        assert re.search(rf"^#\s+{word}\s", requirement, re.MULTILINE), word
    assert set(re.findall(r"\bexit\s+(\S+)", code("requirement.ps1"))) == {"0"}
    assert "Win32_VideoController" in requirement


# --- the return codes -------------------------------------------------------------------------


def return_code_rows() -> list[tuple[int, str, str]]:
    """(code, name, code type) of each row of the README's return-code table."""
    rows = re.findall(r"^\| (\d+) \| `(\w+)` \| ([A-Za-z ]+) \|", text("README.md"), re.MULTILINE)
    return [(int(code), name, kind.strip()) for code, name, kind in rows]


def test_the_return_code_table_is_the_wizard_s_exit_codes():
    rows = return_code_rows()
    constants = {name: value for name, value in vars(common).items() if name.startswith("EXIT_")}
    assert constants, "no EXIT_ constants in gpuwizard.cli.common"
    listed = {name: code for code, name, _ in rows if name.startswith("EXIT_")}
    assert listed == constants


def test_the_other_codes_in_the_table_are_the_installer_s_and_the_scripts():
    defines = nsis_defines()
    scripts = "\n".join(text(name) for name in SCRIPTS)
    for code, name, _ in return_code_rows():
        if name.startswith("EXIT_"):
            continue
        if name in defines:
            assert int(defines[name]) == code, name
        else:
            assert re.search(rf"\b{name}\b", scripts) and re.search(rf"= {code}\b", scripts), name


def test_only_success_is_success_and_only_the_running_wizard_is_worth_a_retry():
    kinds = {code: kind for code, _, kind in return_code_rows()}
    assert kinds[common.EXIT_OK] == "Success"
    assert {code for code, kind in kinds.items() if kind == "Success"} == {common.EXIT_OK}
    assert kinds[int(nsis_defines()["ERROR_SHARING_VIOLATION"])] == "Retry"
    assert set(kinds.values()) <= {"Success", "Failed", "Retry", "Soft reboot", "Hard reboot"}


def test_the_install_script_documents_the_codes_it_can_exit_with():
    install = text("install.ps1")
    assert f"$ExitUsage = {common.EXIT_USAGE}" in install
    header = install.split("param(", 1)[0]
    for code in (
        0,
        common.EXIT_PROBLEM,
        common.EXIT_USAGE,
        common.EXIT_ROLLED_BACK,
        common.EXIT_CANCELLED,
        32,
        1603,
    ):
        assert re.search(rf"\b{code}\b", header), code


def test_the_readme_cites_microsoft_s_rules():
    readme = text("README.md")
    for url in (
        "https://learn.microsoft.com/en-us/intune/intune-service/apps/apps-win32-add",
        "https://learn.microsoft.com/en-us/intune/intune-service/apps/apps-win32-prepare",
        "https://learn.microsoft.com/en-us/intune/configmgr/apps/deploy-use/create-applications",
    ):
        assert url in readme


# --- PowerShell's own parser, where PowerShell is -------------------------------------------

PWSH = shutil.which("pwsh")


@pytest.mark.skipif(PWSH is None, reason="PowerShell (pwsh) is not installed")
@pytest.mark.parametrize("script", SCRIPTS)
def test_powershell_parses_the_script(script: str):
    assert PWSH
    parse = (
        "$errors = $null; $tokens = $null; "
        "[void][System.Management.Automation.Language.Parser]::ParseFile($args[0], [ref]$tokens, [ref]$errors); "
        "$errors | ForEach-Object { $_.ToString() }; exit $errors.Count"
    )
    done = subprocess.run(
        [PWSH, "-NoProfile", "-NonInteractive", "-Command", parse, str(INTUNE / script)],
        capture_output=True, text=True, timeout=LIMIT, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_uninstall_commands_need_no_environment_variable_expanded():
    """Microsoft: "Environment variable expansion within the Uninstall command is not supported"."""
    rows = [line for line in text("README.md").splitlines() if line.startswith("| uninstall command")]
    assert len(rows) == 1
    commands = re.findall(r"`([^`]*powershell\.exe[^`]*)`", rows[0])
    assert len(commands) == 2, rows[0]
    for command in commands:
        assert "%" not in command, command
        assert command.startswith("C:\\Windows\\Sysnative\\WindowsPowerShell\\v1.0\\powershell.exe "), command


def test_the_readme_says_how_long_intune_waits_for_the_install():
    readme = text("README.md")
    assert "**Installation time required (mins)**" in readme
    assert "60 minutes by default" in readme and "1440" in readme
