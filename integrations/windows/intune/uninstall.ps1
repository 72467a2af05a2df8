# GPU Setup Wizard: uninstall command for an Intune Win32 app or an MECM deployment type
# (integrations/windows/intune/README.md).
#
#   powershell.exe -NoProfile -ExecutionPolicy Bypass -File uninstall.ps1 [-Scope user|system] [-UndoPath] [-RemoveData]
#
# Runs the installed uninstaller silently and waits until it has finished, so that the detection
# that follows sees the result. An NSIS uninstaller started plainly copies itself to the temporary
# folder, starts that copy and ends at once; with `_?=FOLDER` (last on the line, unquoted even
# with spaces: NSIS's documentation, 3.2.2) it runs in place and its exit code is its own, but
# cannot delete itself: this script removes uninstall.exe and the then empty folder afterwards.
#
# -UndoPath undoes the wizard's other PATH changes (/UNDOPATH); -RemoveData removes the
# environments the wizard made and its data (/REMOVEDATA). Without them both are kept, as the
# uninstaller does by default; its own PATH entry goes either way.
#
# Exit code: 0 removed (or nothing installed); the uninstaller's otherwise (32: the wizard is
# running; nothing changed).

param(
    [ValidateSet('user', 'system')]
    [string]$Scope = 'user',
    [switch]$UndoPath,
    [switch]$RemoveData
)

$ErrorActionPreference = 'Stop'
$UninstallKey = 'Software\Microsoft\Windows\CurrentVersion\Uninstall\gpuwizard'
$Uninstaller = 'uninstall.exe'

if ($Scope -eq 'system') {
    $hive = [Microsoft.Win32.RegistryHive]::LocalMachine
    $switches = '/S /ALLUSERS'
} else {
    $hive = [Microsoft.Win32.RegistryHive]::CurrentUser
    $switches = '/S'
}
if ($UndoPath) { $switches += ' /UNDOPATH' }
if ($RemoveData) { $switches += ' /REMOVEDATA' }

# The 64-bit registry view: HKLM\Software is redirected for 32-bit readers.
$base = [Microsoft.Win32.RegistryKey]::OpenBaseKey($hive, [Microsoft.Win32.RegistryView]::Registry64)
$key = $base.OpenSubKey($UninstallKey)
if ($null -eq $key) { exit 0 }
$folder = ([string]$key.GetValue('InstallLocation')).TrimEnd('\')
$key.Close()
$program = Join-Path $folder $Uninstaller
if (-not $folder -or -not (Test-Path -LiteralPath $program -PathType Leaf)) {
    [Console]::Error.WriteLine("gpuwizard: error: the uninstall entry names no $Uninstaller ($folder)")
    exit 1
}

$run = Start-Process -FilePath $program -ArgumentList "$switches _?=$folder" -PassThru
$null = $run.Handle  # keeps the exit code readable once the process has ended
$run.WaitForExit()
if ($run.ExitCode -ne 0) { exit $run.ExitCode }

Remove-Item -LiteralPath $program -Force
if (-not (Get-ChildItem -LiteralPath $folder -Force)) { Remove-Item -LiteralPath $folder -Force }
exit 0
