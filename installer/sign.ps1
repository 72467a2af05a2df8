# Signs Windows programs in place with Artifact Signing (formerly Trusted Signing), then checks
# each signature: exit 0 only when every file carries a valid one (issue 37, point 10).
#
#     pwsh -NoProfile -NonInteractive -File installer\sign.ps1 FILE...
#
# The release workflow (.github/workflows/windows-installer.yml) gives it to makensis as
# SIGN_COMMAND (`installer/build.py --sign-command`), which runs it on the uninstaller and on the
# installer as it writes them (!uninstfinalize and !finalize in gpuwizard.nsi): those two files
# exist only inside makensis, so they cannot go through the signing action that signs the
# programs beforehand.
#
# It calls Invoke-TrustedSigning, from the TrustedSigning PowerShell module: what
# azure/artifact-signing-action installs and calls itself
# (https://github.com/Azure/artifact-signing-action/blob/main/action.yml), so it runs after that
# action in the same job. The account comes from the environment:
#   ARTIFACT_SIGNING_ENDPOINT  e.g. https://eus.codesigning.azure.net/ (the account's region)
#   ARTIFACT_SIGNING_ACCOUNT   the Artifact Signing account's name
#   ARTIFACT_SIGNING_PROFILE   its certificate profile's name
# and the credentials as DefaultAzureCredential finds them: AZURE_TENANT_ID, AZURE_CLIENT_ID and
# AZURE_CLIENT_SECRET (an app registration's secret), or the session of azure/login (OpenID
# Connect). The other credential types are left out: on a CI runner they only fail slowly.
# Setup, step by step: docs/signing.md.
param(
  [Parameter(Mandatory = $true, ValueFromRemainingArguments = $true)]
  [string[]] $Path
)
$ErrorActionPreference = 'Stop'

foreach ($name in 'ARTIFACT_SIGNING_ENDPOINT', 'ARTIFACT_SIGNING_ACCOUNT', 'ARTIFACT_SIGNING_PROFILE') {
  if (-not [Environment]::GetEnvironmentVariable($name)) {
    [Console]::Error.WriteLine("sign.ps1: $name is not set (docs/signing.md)")
    exit 2
  }
}
if (-not (Get-Command Invoke-TrustedSigning -ErrorAction SilentlyContinue)) {
  [Console]::Error.WriteLine('sign.ps1: Invoke-TrustedSigning is missing: run azure/artifact-signing-action first, or Install-Module TrustedSigning')
  exit 2
}

$files = @($Path | ForEach-Object { (Resolve-Path -LiteralPath $_).Path })
$params = @{
  Endpoint                           = $env:ARTIFACT_SIGNING_ENDPOINT
  CodeSigningAccountName             = $env:ARTIFACT_SIGNING_ACCOUNT
  CertificateProfileName             = $env:ARTIFACT_SIGNING_PROFILE
  Files                              = $files -join ','
  FileDigest                         = 'SHA256'
  # Microsoft's timestamp service: the signature stays valid after the certificate (valid for
  # three days) expires.
  TimestampRfc3161                   = 'http://timestamp.acs.microsoft.com'
  TimestampDigest                    = 'SHA256'
  ExcludeWorkloadIdentityCredential  = $true
  ExcludeManagedIdentityCredential   = $true
  ExcludeSharedTokenCacheCredential  = $true
  ExcludeVisualStudioCredential      = $true
  ExcludeVisualStudioCodeCredential  = $true
  ExcludeAzurePowerShellCredential   = $true
  ExcludeAzureDeveloperCliCredential = $true
  ExcludeInteractiveBrowserCredential = $true
}
Invoke-TrustedSigning @params

# Whatever the module reports, the files themselves say whether they were signed.
foreach ($file in $files) {
  $signature = Get-AuthenticodeSignature -LiteralPath $file
  if ($signature.Status -ne 'Valid') {
    [Console]::Error.WriteLine("sign.ps1: ${file}: $($signature.Status): $($signature.StatusMessage)")
    exit 1
  }
  Write-Output "sign.ps1: signed $file ($($signature.SignerCertificate.Subject))"
}
exit 0
