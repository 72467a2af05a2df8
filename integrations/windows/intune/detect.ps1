# GPU Setup Wizard: detection script for an Intune Win32 app or an MECM deployment type
# (integrations/windows/intune/README.md).
#
# Detected: one line on stdout and exit 0. Not detected: nothing on stdout and exit 0. Intune
# reads "exit 0 and something on STDOUT" as detected and anything else as not; MECM reads exit 0
# with an empty STDOUT as "not installed" and a non-zero exit as "unknown", so this script never
# fails and never writes to STDERR.
#
# Cheap on purpose: it reads the uninstall entry the installer writes (installer/gpuwizard.nsi,
# UNINSTALL_KEY), checks that the program it names is there, and optionally the wizard's last good
# state. It starts no program: no `gpuwizard verify`, no live test.
#
# Run it as a 64-bit process (Intune: "Run script as 32-bit process on 64-bit clients: No", the
# default); it reads the 64-bit registry view either way.

# Settings: edit these two lines for the deployment.
# Older installs are "not detected", so that Intune or MECM installs this version over them ('' = any).
$MinimumVersion = ''
# $true: detected only once `gpuwizard apply` (or a passed test) recorded the last good state for
# the account this script runs as: the wizard's home is %LOCALAPPDATA%\gpuwizard or GPUWIZARD_HOME.
$RequireLastGood = $false

$ErrorActionPreference = 'SilentlyContinue'
$UninstallKey = 'Software\Microsoft\Windows\CurrentVersion\Uninstall\gpuwizard'
$Program = 'gpuwizard.exe'
$LastGood = 'last-good.json'

function Get-WizardEntry([Microsoft.Win32.RegistryHive]$Hive) {
    # The 64-bit view: the installer is a 64-bit program, and HKLM\Software is redirected for
    # 32-bit readers.
    $base = [Microsoft.Win32.RegistryKey]::OpenBaseKey($Hive, [Microsoft.Win32.RegistryView]::Registry64)
    if ($null -eq $base) { return $null }
    $key = $base.OpenSubKey($UninstallKey)
    if ($null -eq $key) { $base.Close(); return $null }
    $entry = [pscustomobject]@{
        Version = [string]$key.GetValue('DisplayVersion')
        Folder  = [string]$key.GetValue('InstallLocation')
    }
    $key.Close()
    $base.Close()
    return $entry
}

foreach ($hive in @([Microsoft.Win32.RegistryHive]::LocalMachine, [Microsoft.Win32.RegistryHive]::CurrentUser)) {
    $entry = Get-WizardEntry $hive
    if ($null -eq $entry -or -not $entry.Version -or -not $entry.Folder) { continue }
    if (-not (Test-Path -LiteralPath (Join-Path $entry.Folder $Program) -PathType Leaf)) { continue }
    if ($MinimumVersion) {
        $installed = $null
        $wanted = $null
        if (-not [version]::TryParse($entry.Version, [ref]$installed)) { continue }
        if (-not [version]::TryParse($MinimumVersion, [ref]$wanted)) { continue }
        if ($installed -lt $wanted) { continue }
    }
    if ($RequireLastGood) {
        $wizardHome = $env:GPUWIZARD_HOME
        if (-not $wizardHome) { $wizardHome = Join-Path $env:LOCALAPPDATA 'gpuwizard' }
        if (-not (Test-Path -LiteralPath (Join-Path $wizardHome $LastGood) -PathType Leaf)) { continue }
    }
    Write-Output ('GPU Setup Wizard {0} in {1}' -f $entry.Version, $entry.Folder)
    exit 0
}
exit 0
