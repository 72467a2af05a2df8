# GPU Setup Wizard: install command for an Intune Win32 app or an MECM deployment type
# (integrations/windows/intune/README.md, where the return codes are listed).
#
#   powershell.exe -NoProfile -ExecutionPolicy Bypass -File install.ps1 [-Scope user|system] [-Answers FILE]
#
# Installs the gpuwizard-setup-*.exe that lies beside this script silently (user: /S, into
# %LOCALAPPDATA%\Programs\GPU Setup Wizard; system: /S /ALLUSERS /ADDTOPATH, into Program Files),
# then, given an answer file (-Answers, else answers.toml or answers.json beside this script),
# runs `gpuwizard apply --answers FILE --yes --json` by its full path, read from the uninstall
# entry the installer wrote (its PATH entry reaches only processes started after it, and a 32-bit
# host's %ProgramFiles% is the x86 folder). Its JSON lines go to %TEMP%\gpuwizard-apply.jsonl.
#
# Exit code: the installer's when it fails (32: the wizard is running; nothing changed), else
# apply's (0 set up and tested; 1 a check failed; 2 bad answers; 3 rolled back; 130 cancelled), or
# 0 without an answer file; 2 when there is not exactly one installer beside this script; 1603 when
# the installer ended with 0 but wrote no uninstall entry.

param(
    [ValidateSet('user', 'system')]
    [string]$Scope = 'user',
    [string]$Answers = ''
)

$ErrorActionPreference = 'Stop'
$UninstallKey = 'Software\Microsoft\Windows\CurrentVersion\Uninstall\gpuwizard'
$Program = 'gpuwizard.exe'
$ExitUsage = 2
# ERROR_INSTALL_FAILURE (winerror.h): the installer said it succeeded, yet wrote no uninstall entry.
$ExitNoEntry = 1603

function Stop-WithError([string]$Message, [int]$Code) {
    [Console]::Error.WriteLine("gpuwizard: error: $Message")
    exit $Code
}

$setups = @(Get-ChildItem -LiteralPath $PSScriptRoot -Filter 'gpuwizard-setup-*.exe' -File)
if ($setups.Count -ne 1) {
    Stop-WithError "expected one gpuwizard-setup-*.exe beside install.ps1 in $PSScriptRoot, found $($setups.Count)" $ExitUsage
}
if ($Scope -eq 'system') {
    $switches = '/S /ALLUSERS /ADDTOPATH'
    $hive = [Microsoft.Win32.RegistryHive]::LocalMachine
} else {
    $switches = '/S'
    $hive = [Microsoft.Win32.RegistryHive]::CurrentUser
}

# The installer is a GUI program: Start-Process, and wait for it (the call operator would not).
$setup = Start-Process -FilePath $setups[0].FullName -ArgumentList $switches -PassThru
$null = $setup.Handle  # keeps the exit code readable once the process has ended
$setup.WaitForExit()
if ($setup.ExitCode -ne 0) { exit $setup.ExitCode }

if (-not $Answers) {
    foreach ($name in @('answers.toml', 'answers.json')) {
        $candidate = Join-Path $PSScriptRoot $name
        if (Test-Path -LiteralPath $candidate -PathType Leaf) { $Answers = $candidate; break }
    }
}
if (-not $Answers) { exit 0 }
if (-not (Test-Path -LiteralPath $Answers -PathType Leaf)) {
    Stop-WithError "the answer file $Answers does not exist" $ExitUsage
}

# The 64-bit registry view: HKLM\Software is redirected for 32-bit readers.
$base = [Microsoft.Win32.RegistryKey]::OpenBaseKey($hive, [Microsoft.Win32.RegistryView]::Registry64)
$key = $base.OpenSubKey($UninstallKey)
if ($null -eq $key) { Stop-WithError "the installer wrote no uninstall entry ($UninstallKey)" $ExitNoEntry }
$wizard = Join-Path ([string]$key.GetValue('InstallLocation')) $Program
$key.Close()

$log = Join-Path $env:TEMP 'gpuwizard-apply.jsonl'
$ErrorActionPreference = 'Continue'  # the wizard's own stderr lines are not PowerShell errors
& $wizard apply --answers $Answers --yes --json | Out-File -LiteralPath $log -Encoding utf8
exit $LASTEXITCODE
