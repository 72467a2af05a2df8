"""The GitHub Actions workflow that builds the release installer on Windows (issues 9 and 37).

It cannot run here; it is read as YAML and checked for what the issues ask of it: windows-latest,
once per published release (and by hand) with no second trigger racing the first, a tag that must
be the package's version, the installer built by ``installer/build.py`` with the current PySide6
(not the Wine build's pins), every program it carries signed through Artifact Signing when that is
configured (the programs between PyInstaller and makensis, the uninstaller and the installer by
makensis itself), an unsigned build named as such, the signatures checked with osslsigncode on
Linux, and only then the installer attached to the release. The step that checks the tag is run
here, as the workflow runs it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

# With pytest-xdist (-n), the installer is built once, on one worker: its tests stay together.
pytestmark = pytest.mark.xdist_group("installer")

REPO = Path(__file__).resolve().parents[2]
WORKFLOW = REPO / ".github" / "workflows" / "windows-installer.yml"
NSIS_SCRIPT = REPO / "installer" / "gpuwizard.nsi"
SIGN_SCRIPT = REPO / "installer" / "sign.ps1"
MICROSOFT_ROOT = REPO / "installer" / "certs" / "microsoft-identity-verification-root-2020.pem"
#: The programs the installer carries and writes (issue 37, point 10).
PROGRAMS = ("gpuwizard.exe", "gpuwizardw.exe", "uv.exe", "uninstall.exe")


@pytest.fixture(scope="module")
def workflow() -> dict[Any, Any]:
    data = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def job_with(workflow: dict[Any, Any], text: str) -> dict[str, Any]:
    """The one job with a step that runs or uses ``text``."""
    found = [
        job
        for job in workflow["jobs"].values()
        if any(text in s.get("run", "") or text in s.get("uses", "") for s in job["steps"])
    ]
    assert len(found) == 1, f"no single job runs {text!r}"
    return found[0]


def step_with(workflow: dict[Any, Any], text: str) -> dict[str, Any]:
    """The one step, in any job, that runs or uses ``text``."""
    found = [
        s
        for job in workflow["jobs"].values()
        for s in job["steps"]
        if text in s.get("run", "") or text in s.get("uses", "")
    ]
    assert len(found) == 1, f"no single step runs {text!r}"
    return found[0]


def name_of(workflow: dict[Any, Any], job: dict[str, Any]) -> str:
    (name,) = (key for key, value in workflow["jobs"].items() if value is job)
    return name


def needs(workflow: dict[Any, Any], job: dict[str, Any]) -> set[str]:
    """Every job that ``job`` waits for, directly or not."""
    direct = job.get("needs", [])
    found = {direct} if isinstance(direct, str) else set(direct)
    for name in list(found):
        found |= needs(workflow, workflow["jobs"][name])
    return found


def package_version() -> str:
    match = re.search(
        r'^__version__ = "([^"]+)"', (REPO / "app" / "gpuwizard" / "__init__.py").read_text(), re.M
    )
    assert match is not None
    return match.group(1)


def test_it_builds_on_windows_once_per_published_release_and_by_hand(workflow):
    # YAML 1.1 reads the key `on` as True.
    triggers = workflow.get("on", workflow.get(True))
    # A tag push besides the release started two runs for one tag, racing to upload.
    assert set(triggers) == {"release", "workflow_dispatch"}
    assert triggers["release"]["types"] == ["published"]
    assert job_with(workflow, "installer/build.py")["runs-on"] == "windows-latest"


def test_runs_for_the_same_ref_wait_for_each_other(workflow):
    concurrency = workflow["concurrency"]
    assert "${{ github.ref }}" in concurrency["group"]
    assert concurrency["cancel-in-progress"] is False  # an upload is never cut off halfway


def _run_tag_check(
    step: dict[str, Any], tmp_path: Path, tag: str, configured: tuple[str, ...] = ()
) -> tuple[int, str, str]:
    """The step's script, run as GitHub runs a `shell: python` step, in the repository.

    ``configured``: the variables and secrets set (the step sees only ``HAS_<name>=true``).
    """
    script = tmp_path / "plan.py"
    script.write_text(step["run"], encoding="utf-8")
    outputs = tmp_path / "outputs"
    outputs.write_text("", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("HAS_")}
    env.update(TAG=tag, GITHUB_OUTPUT=str(outputs), **{f"HAS_{name}": "true" for name in configured})
    done = subprocess.run(
        [sys.executable, str(script)], cwd=REPO, env=env, capture_output=True, text=True, timeout=60,
        check=False,
    )  # fmt: skip
    return done.returncode, done.stdout, outputs.read_text(encoding="utf-8")


def test_a_tag_that_is_not_the_package_version_stops_the_run_before_the_build(workflow, tmp_path):
    check = step_with(workflow, "__version__")
    assert check["shell"] == "python"
    assert "github.event.release.tag_name" in check["env"]["TAG"]
    version = package_version()

    code, said, _ = _run_tag_check(check, tmp_path, "v999.0.0")
    assert code == 1
    assert f"v999.0.0 does not match the package version {version}" in said
    code, _, outputs = _run_tag_check(check, tmp_path, f"v{version}")
    assert code == 0
    assert f"version={version}" in outputs and f"tag=v{version}" in outputs
    code, _, outputs = _run_tag_check(check, tmp_path, "")  # by hand, on a branch: nothing to match
    assert code == 0 and "tag=\n" in outputs

    plan = job_with(workflow, "__version__")
    assert name_of(workflow, plan) in needs(workflow, job_with(workflow, "installer/build.py"))


def test_signing_is_configured_completely_or_not_at_all(workflow, tmp_path):
    check = step_with(workflow, "__version__")
    version = f"v{package_version()}"
    account = (
        "ARTIFACT_SIGNING_ENDPOINT",
        "ARTIFACT_SIGNING_ACCOUNT",
        "ARTIFACT_SIGNING_PROFILE",
        "AZURE_TENANT_ID",
        "AZURE_CLIENT_ID",
    )
    code, said, outputs = _run_tag_check(check, tmp_path, version)
    assert code == 0 and "signed=false" in outputs and "UNSIGNED" in said
    code, _, outputs = _run_tag_check(check, tmp_path, version, (*account, "AZURE_SUBSCRIPTION_ID"))
    assert code == 0 and "signed=true" in outputs and "oidc=true" in outputs
    code, _, outputs = _run_tag_check(check, tmp_path, version, (*account, "AZURE_CLIENT_SECRET"))
    assert code == 0 and "signed=true" in outputs and "oidc=false" in outputs
    code, said, _ = _run_tag_check(check, tmp_path, version, account)  # no credential
    assert code == 1 and "AZURE_SUBSCRIPTION_ID" in said
    code, said, _ = _run_tag_check(check, tmp_path, version, ("ARTIFACT_SIGNING_ACCOUNT",))
    assert code == 1 and "ARTIFACT_SIGNING_PROFILE" in said
    # Each flag the script reads is one the step sets, from a variable or secret of that name.
    for name in (*account, "AZURE_CLIENT_SECRET", "AZURE_SUBSCRIPTION_ID"):
        assert f"{name} != ''" in check["env"][f"HAS_{name}"]


def test_it_builds_with_build_py_and_the_current_pyside6(workflow):
    install = step_with(workflow, "pip install")
    assert "pyinstaller" in install["run"]
    assert "requirements-wine" not in install["run"]  # the Wine pins are for the Wine build only
    assert "PySide6" not in install["run"]  # the package's own dependency: the current release
    build = job_with(workflow, "installer/build.py")
    order = build["steps"]
    programs = step_with(workflow, "--app-only")
    package = step_with(workflow, "--reuse-app")
    assert order.index(install) < order.index(programs) < order.index(package)
    # The first pass makes only the programs (no installer); the second packs them into dist.
    assert "--reuse-app" not in programs["run"] and "--out dist" in package["run"]
    assert "--work build\\installer" in programs["run"] and "--work build\\installer" in package["run"]


def test_every_program_is_signed_between_pyinstaller_and_makensis(workflow):
    order = job_with(workflow, "installer/build.py")["steps"]
    programs = step_with(workflow, "--app-only")
    sign = step_with(workflow, "azure/artifact-signing-action@")
    package = step_with(workflow, "--reuse-app")
    assert order.index(programs) < order.index(sign) < order.index(package)
    assert sign["if"] == "needs.plan.outputs.signed == 'true'"
    # The folder makensis packs, every program in it (uv.exe too), timestamped.
    assert sign["with"]["files-folder"].endswith(r"build\installer\dist\gpuwizard")
    assert sign["with"]["files-folder-filter"] == "exe"
    assert sign["with"]["files-folder-recurse"] is True
    assert sign["with"]["timestamp-rfc3161"].startswith("http://timestamp.acs.microsoft.com")
    for key, name in (
        ("endpoint", "vars.ARTIFACT_SIGNING_ENDPOINT"),
        ("signing-account-name", "vars.ARTIFACT_SIGNING_ACCOUNT"),
        ("certificate-profile-name", "vars.ARTIFACT_SIGNING_PROFILE"),
        ("azure-tenant-id", "secrets.AZURE_TENANT_ID"),
        ("azure-client-id", "secrets.AZURE_CLIENT_ID"),
    ):
        assert name in sign["with"][key]
    # OpenID Connect when there is no client secret: azure/login, with the job's id-token.
    login = step_with(workflow, "azure/login@")
    assert "oidc == 'true'" in login["if"] and order.index(login) < order.index(sign)
    signing = job_with(workflow, "azure/login@")
    assert signing["permissions"]["id-token"] == "write"
    # One OIDC subject for every release (repo:OWNER/REPO:environment:NAME), not one per tag.
    assert signing["environment"] == "windows-signing"


def test_makensis_signs_the_uninstaller_and_the_installer_as_it_writes_them(workflow):
    package = step_with(workflow, "--reuse-app")
    assert "--sign-command" in package["run"] and "sign.ps1" in package["run"]
    assert '`"%1`"' in package["run"]  # NSIS puts the file in place of %1
    assert "$env:SIGNED -eq 'true'" in package["run"]
    for name in ("ARTIFACT_SIGNING_ENDPOINT", "ARTIFACT_SIGNING_ACCOUNT", "ARTIFACT_SIGNING_PROFILE"):
        assert package["env"][name] == f"${{{{ vars.{name} }}}}"
        assert f"$env:{name}" in SIGN_SCRIPT.read_text(encoding="utf-8")
    nsis = NSIS_SCRIPT.read_text(encoding="utf-8")
    block = re.search(r"^!ifdef SIGN_COMMAND\n(.*?)^!endif", nsis, re.M | re.S)
    assert block is not None
    assert "!uninstfinalize '${SIGN_COMMAND}' = 0" in block.group(1)
    assert "!finalize '${SIGN_COMMAND}' = 0" in block.group(1)
    script = SIGN_SCRIPT.read_text(encoding="utf-8")
    assert "Invoke-TrustedSigning @params" in script
    assert "Get-AuthenticodeSignature" in script  # what was signed is checked, not assumed


def test_no_pfx_remains(workflow):
    # New code-signing keys live in hardware since June 2023: no CA issues a .pfx to upload.
    text = WORKFLOW.read_text(encoding="utf-8")
    assert "WINDOWS_SIGNING_CERTIFICATE" not in text and "WINDOWS_SIGNING_PASSWORD" not in text
    assert "signtool" not in text.lower() and "/f $pfx" not in text


def test_an_unsigned_installer_says_so_in_its_name(workflow):
    label = step_with(workflow, "-unsigned.exe")
    assert label["if"] == "needs.plan.outputs.signed != 'true'"
    assert "::warning::" in label["run"] and "GITHUB_STEP_SUMMARY" in label["run"]
    order = job_with(workflow, "installer/build.py")["steps"]
    uploads = [s for s in order if s.get("uses", "").startswith("actions/upload-artifact@")]
    setup_upload = next(s for s in uploads if s["with"]["name"] == "gpuwizard-setup")
    assert order.index(step_with(workflow, "--reuse-app")) < order.index(label)
    assert order.index(label) < order.index(setup_upload)


def test_it_smoke_tests_the_installer_and_keeps_what_it_installed(workflow):
    smoke = step_with(workflow, "--version")
    assert "/S" in smoke["run"]
    assert "Get-AuthenticodeSignature" in smoke["run"]  # Windows' own verdict on each program
    assert "$env:SIGNED -eq 'true'" in smoke["run"]
    order = job_with(workflow, "--version")["steps"]
    uploads = {
        s["with"]["name"]: s for s in order if s.get("uses", "").startswith("actions/upload-artifact@")
    }
    assert uploads["gpuwizard-setup"]["with"]["path"] == "dist/gpuwizard-setup-*.exe"
    # uninstall.exe exists only once installed: the installed programs go to the signatures job.
    assert uploads["installed-programs"]["with"]["path"] == "installed/*.exe"
    assert order.index(smoke) < order.index(uploads["installed-programs"])


def test_osslsigncode_checks_every_program_before_the_release(workflow):
    verify = step_with(workflow, "installer/verify_signatures.py")
    checking = job_with(workflow, "installer/verify_signatures.py")
    assert checking["runs-on"] == "ubuntu-latest"
    assert name_of(workflow, job_with(workflow, "installer/build.py")) in needs(workflow, checking)
    install = step_with(workflow, "apt-get install")
    assert "osslsigncode" in install["run"] and "p7zip-full" in install["run"]
    assert checking["steps"].index(install) < checking["steps"].index(verify)
    assert verify["if"] == "needs.plan.outputs.signed == 'true'"
    run = verify["run"]
    assert "installer/certs/microsoft-identity-verification-root-2020.pem" in run
    assert MICROSOFT_ROOT.is_file()
    assert "/etc/ssl/certs/ca-certificates.crt" in run
    for program in PROGRAMS:
        assert f"--require {program}" in run
    assert '--require "gpuwizard-setup-*.exe"' in run
    assert "7z x dist/gpuwizard-setup-*.exe" in run  # the programs as the installer carries them
    assert "dist installed" in run and "payload" in run
    downloads = {
        s["with"]["name"]
        for s in checking["steps"]
        if s.get("uses", "").startswith("actions/download-artifact@")
    }
    assert downloads == {"gpuwizard-setup", "installed-programs"}
    # The release waits for the check.
    attach = step_with(workflow, "gh release upload")
    releasing = job_with(workflow, "gh release upload")
    assert name_of(workflow, checking) in needs(workflow, releasing)
    assert "--clobber" in attach["run"]
    assert releasing["if"] == "needs.plan.outputs.tag != ''"
    assert attach["env"]["GH_TOKEN"] and attach["env"]["TAG"] == "${{ needs.plan.outputs.tag }}"


def test_each_job_has_the_permissions_it_needs_and_no_more(workflow):
    assert workflow["permissions"] == {}
    writing = [
        name for name, job in workflow["jobs"].items() if job["permissions"].get("contents") == "write"
    ]
    assert writing == [name_of(workflow, job_with(workflow, "gh release upload"))]
    for name, job in workflow["jobs"].items():
        if "id-token" in job["permissions"]:
            assert job is job_with(workflow, "azure/login@"), name
