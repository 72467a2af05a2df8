# GPU Setup Wizard: requirement script for an Intune Win32 app (integrations/windows/intune/README.md).
#
# Writes one word, the GPU maker the wizard would set this machine up for, and exits 0:
#   nvidia   an NVIDIA display adapter is present (it wins over any other, e.g. the Intel one of a laptop)
#   amd      an AMD one and no NVIDIA one
#   intel    an Intel one and nothing else
#   none     no display adapter of these makers (a virtual machine, a server without a GPU)
# Requirement rule: Script, output data type String, operator Equals, value nvidia (or amd, intel).
# Intune compares STDOUT only when the script exits 0; it always does.
#
# Reads Win32_VideoController, the display adapters Windows knows, driver installed or not (the
# PCI vendor id in PNPDeviceID, as in app/gpuwizard/core/machine/display_devices.py). Cheap: one
# CIM query, nothing started.

$ErrorActionPreference = 'SilentlyContinue'

# PCI vendor ids (PCI-SIG), first match wins.
$Vendors = [ordered]@{
    'VEN_10DE' = 'nvidia'
    'VEN_1002' = 'amd'
    'VEN_1022' = 'amd'
    'VEN_8086' = 'intel'
}

$ids = @(Get-CimInstance -ClassName Win32_VideoController | ForEach-Object { [string]$_.PNPDeviceID })
$found = 'none'
foreach ($vendor in $Vendors.Keys) {
    if ($ids | Where-Object { $_ -like "*$vendor*" }) {
        $found = $Vendors[$vendor]
        break
    }
}
Write-Output $found
exit 0
