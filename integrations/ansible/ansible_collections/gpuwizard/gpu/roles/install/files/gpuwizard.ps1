# An Ansible custom fact for Windows hosts: ansible.builtin.setup with fact_path set to this
# folder runs each .ps1 in it and gives the object it outputs as a fact named after the file.
# This one is the machine's report, `gpuwizard.exe detect --json`, parsed into an object, for
# hosts that should not run the gpuwizard.gpu modules.
$candidates = @(
    (Join-Path -Path $env:LOCALAPPDATA -ChildPath 'Programs\GPU Setup Wizard\gpuwizard.exe'),
    (Join-Path -Path $env:ProgramFiles -ChildPath 'GPU Setup Wizard\gpuwizard.exe')
)
foreach ($program in $candidates) {
    if (Test-Path -LiteralPath $program) {
        $lines = & $program detect --json
        if ($LASTEXITCODE -ne 0) {
            return @{ error = "gpuwizard.exe detect exited with $LASTEXITCODE" }
        }
        return ($lines -join "`n") | ConvertFrom-Json
    }
}
@{ error = 'gpuwizard.exe was not found in the per-user or the all-users install folder' }
