r"""Signing for real (issue 37, point 10): installer/verify_signatures.py, gpuwizard.nsi's SIGN_COMMAND
and the release workflow's verification step, with osslsigncode, makensis and 7-Zip on Linux.

A test CA and a code-signing certificate under it ("GPU Setup Wizard test") are made here with
``cryptography``; programs are small PE files makensis writes from a three-line script, signed with
``osslsigncode sign``. The installer is the real ``installer/gpuwizard.nsi``, compiled as
``installer/build.py`` compiles it but around those small programs, with ``-DSIGN_COMMAND`` an
osslsigncode command: what the Windows workflow does with Artifact Signing.

Skipped where osslsigncode, makensis or 7-Zip is missing (Debian: ``osslsigncode``, ``nsis``,
``p7zip-full``, as .ci/run installs them); in CI (``CI=true``) a missing tool fails instead.
"""

from __future__ import annotations

import datetime
import hashlib
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "installer" / "verify_signatures.py"
NSIS_SCRIPT = REPO / "installer" / "gpuwizard.nsi"
WORKFLOW = REPO / ".github" / "workflows" / "windows-installer.yml"
MICROSOFT_ROOT = REPO / "installer" / "certs" / "microsoft-identity-verification-root-2020.pem"
#: Microsoft Identity Verification Root Certificate Authority 2020, as the Microsoft PKI Services
#: repository lists it (SHA-1 F40042E2E5F7E8EF8189FED15519AECE42C3BFA2).
MICROSOFT_ROOT_SHA256 = "5367f20c7ade0e2bca790915056d086b720c33c1fa2a2661acf787e3292e1270"
PUBLISHER = "GPU Setup Wizard test"
PROGRAMS = ("gpuwizard.exe", "gpuwizardw.exe", "uv.exe")
SYSTEM_CAS = Path("/etc/ssl/certs/ca-certificates.crt")


def need(tool: str, package: str) -> str:
    found = shutil.which(tool)
    if found is None:
        reason = f"`{tool}` is not installed (Debian package `{package}`)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"required in CI: {reason}")
        pytest.skip(reason)
    return found


@dataclass(frozen=True)
class Pki:
    ca: Path  # the test root, as a CA file
    certificate: Path  # "GPU Setup Wizard test", code signing, issued by the root
    key: Path


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    folder = tmp_path_factory.mktemp("pki")
    now = datetime.datetime.now(datetime.timezone.utc)
    valid = (now - datetime.timedelta(days=1), now + datetime.timedelta(days=30))
    root_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    root = (
        x509.CertificateBuilder()
        .subject_name(_name("GPU Setup Wizard test root"))
        .issuer_name(_name("GPU Setup Wizard test root"))
        .public_key(root_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(valid[0])
        .not_valid_after(valid[1])
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True
        )
        .sign(root_key, hashes.SHA256())
    )
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(_name(PUBLISHER))
        .issuer_name(root.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(valid[0])
        .not_valid_after(valid[1])
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(True, False, False, False, False, False, False, False, False), critical=True
        )
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CODE_SIGNING]), critical=False)
        .sign(root_key, hashes.SHA256())
    )
    made = Pki(folder / "ca.pem", folder / "certificate.pem", folder / "key.pem")
    made.ca.write_bytes(root.public_bytes(serialization.Encoding.PEM))
    made.certificate.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    made.key.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return made


def sign_command(pki: Pki) -> str:
    """A SIGN_COMMAND for makensis: signs "%1" in place (makensis runs it through the shell)."""
    return (
        f'osslsigncode sign -certs "{pki.certificate}" -key "{pki.key}" -h sha256 '
        f'-in "%1" -out "%1.signed" >/dev/null && mv -f "%1.signed" "%1"'
    )


def sign(program: Path, pki: Pki) -> None:
    signed = program.with_name(program.name + ".signed")
    subprocess.run(
        [need("osslsigncode", "osslsigncode"), "sign", "-certs", str(pki.certificate), "-key", str(pki.key),
         "-h", "sha256", "-in", str(program), "-out", str(signed)],
        capture_output=True, check=True, timeout=60,
    )  # fmt: skip
    signed.replace(program)


def makensis(*argv: str) -> None:
    done = subprocess.run(
        [need("makensis", "nsis"), "-V2", "-WX", *argv],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture(scope="module")
def small_program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small, unsigned Windows program: makensis's output for a three-line script."""
    folder = tmp_path_factory.mktemp("program")
    script = folder / "small.nsi"
    script.write_text(f'OutFile "{folder / "small.exe"}"\nSection\nSectionEnd\n', encoding="utf-8")
    makensis(str(script))
    return folder / "small.exe"


def verify_signatures(*argv: str | Path) -> subprocess.CompletedProcess[str]:
    need("osslsigncode", "osslsigncode")
    return subprocess.run(
        [sys.executable, str(SCRIPT), *map(str, argv)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def programs_folder(root: Path, small_program: Path, pki: Pki, *, unsigned: tuple[str, ...] = ()) -> Path:
    """The folder makensis packs: the three programs, signed unless named in ``unsigned``."""
    folder = root / "app"
    folder.mkdir(parents=True)
    for name in PROGRAMS:
        shutil.copyfile(small_program, folder / name)
        if name not in unsigned:
            sign(folder / name, pki)
    (folder / "_internal").mkdir()
    (folder / "_internal" / "data.txt").write_text("not a program\n", encoding="utf-8")
    return folder


def build_installer(app: Path, out: Path, *, sign_with: str | None) -> Path:
    """installer/gpuwizard.nsi compiled around ``app`` with build.py's defines, and SIGN_COMMAND."""
    hdrinfo = subprocess.run(
        [need("makensis", "nsis"), "-HDRINFO"], capture_output=True, text=True, timeout=60, check=False
    )
    nsisdir = re.search(r"NSISDIR=([^,\s]+)", hdrinfo.stdout + hdrinfo.stderr)
    assert nsisdir is not None, hdrinfo.stdout
    graphics = Path(nsisdir.group(1)) / "Contrib" / "Graphics"
    icon, bitmap = graphics / "Icons" / "modern-install.ico", graphics / "Wizard" / "win.bmp"
    setup = out / "gpuwizard-setup-0.1.0.exe"
    out.mkdir(parents=True, exist_ok=True)
    defines = [
        "-INPUTCHARSET", "UTF8", "-DVERSION=0.1.0", "-DVI_VERSION=0.1.0.0", f"-DAPP_DIR={app}",
        f"-DICON={icon}", f"-DBITMAP={bitmap}", f"-DOUT_FILE={setup}", "-DCOMPRESSION=zlib",
    ]  # fmt: skip
    if sign_with is not None:
        defines.append(f"-DSIGN_COMMAND={sign_with}")
    makensis(*defines, str(NSIS_SCRIPT))
    return setup


def extract(setup: Path, into: Path, *names: str) -> None:
    """Files out of the NSIS installer, as 7-Zip reads them (the uninstaller too)."""
    done = subprocess.run(
        [need("7z", "p7zip-full"), "x", "-y", str(setup), f"-o{into}", *names],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_signed_program_passes_and_an_unsigned_one_fails(small_program, pki, tmp_path):
    program = tmp_path / "gpuwizard.exe"
    shutil.copyfile(small_program, program)
    unsigned = verify_signatures("--ca-file", pki.ca, program)
    assert unsigned.returncode == 1
    assert f"UNSIGNED  {program}: no Authenticode signature" in unsigned.stdout

    sign(program, pki)
    signed = verify_signatures("--ca-file", pki.ca, "--publisher", PUBLISHER, program)
    assert signed.returncode == 0, signed.stdout
    assert f"signed    {program}: signed by /CN={PUBLISHER}" in signed.stdout
    assert "all 1 program(s) signed and verified" in signed.stdout


def test_a_program_changed_after_signing_fails(small_program, pki, tmp_path):
    program = tmp_path / "uv.exe"
    shutil.copyfile(small_program, program)
    sign(program, pki)
    data = bytearray(program.read_bytes())
    data[len(data) // 3] ^= 0xFF  # one byte of the signed content
    program.write_bytes(bytes(data))
    done = verify_signatures("--ca-file", pki.ca, program)
    assert done.returncode == 1
    assert "INVALID" in done.stdout and "MISMATCH" in done.stdout


def test_a_signature_from_an_unknown_root_or_another_publisher_fails(small_program, pki, tmp_path):
    program = tmp_path / "gpuwizardw.exe"
    shutil.copyfile(small_program, program)
    sign(program, pki)
    # Trusting only Microsoft's root: the test root is unknown.
    untrusted = verify_signatures("--ca-file", MICROSOFT_ROOT, program)
    assert untrusted.returncode == 1
    assert "INVALID" in untrusted.stdout and "unable to get local issuer certificate" in untrusted.stdout
    other = verify_signatures("--ca-file", pki.ca, "--publisher", "Someone Else", program)
    assert other.returncode == 1
    assert f"PUBLISHER {program}: signed by /CN={PUBLISHER}, not CN=Someone Else" in other.stdout


def test_a_required_program_that_was_not_checked_fails(small_program, pki, tmp_path):
    folder = tmp_path / "payload"
    folder.mkdir()
    shutil.copyfile(small_program, folder / "gpuwizard.exe")
    sign(folder / "gpuwizard.exe", pki)
    done = verify_signatures("--ca-file", pki.ca, "--require", "gpuwizard.exe", "--require", "uv.exe", folder)
    assert done.returncode == 1
    assert "MISSING   no program named uv.exe was checked" in done.stdout
    assert verify_signatures("--ca-file", pki.ca, tmp_path / "absent").returncode == 2
    (tmp_path / "empty").mkdir()
    assert verify_signatures(tmp_path / "empty").returncode == 2


def test_the_installer_signs_its_uninstaller_and_itself_with_sign_command(small_program, pki, tmp_path):
    app = programs_folder(tmp_path, small_program, pki)
    setup = build_installer(app, tmp_path / "signed", sign_with=sign_command(pki))
    extract(setup, tmp_path / "payload")
    checked = verify_signatures(
        "--ca-file", pki.ca, "--publisher", PUBLISHER,
        "--require", "gpuwizard-setup-0.1.0.exe", "--require", "uninstall.exe",
        "--require", "gpuwizard.exe", "--require", "gpuwizardw.exe", "--require", "uv.exe",
        setup, tmp_path / "payload",
    )  # fmt: skip
    assert checked.returncode == 0, checked.stdout

    # Without SIGN_COMMAND neither the uninstaller nor the installer is signed.
    plain = build_installer(app, tmp_path / "plain", sign_with=None)
    extract(plain, tmp_path / "plain-payload", "uninstall.exe")
    done = verify_signatures("--ca-file", pki.ca, plain, tmp_path / "plain-payload" / "uninstall.exe")
    assert done.returncode == 1
    assert done.stdout.count("UNSIGNED") == 2


def _verification_step() -> dict[str, Any]:
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    (step,) = (
        s
        for job in workflow["jobs"].values()
        for s in job["steps"]
        if "installer/verify_signatures.py" in s.get("run", "")
    )
    return step


def _run_verification_step(
    tmp_path: Path, setup: Path, installed: Path, ca: Path
) -> subprocess.CompletedProcess[str]:
    """The workflow's verification step as the signatures job runs it (``bash -e``).

    In a copy of the layout it expects: installer/ with the script, the test root standing in for
    Microsoft's (where the step reads it), dist/ (the downloaded installer), installed/ (the
    programs the smoke install wrote).
    """
    if not SYSTEM_CAS.is_file():
        pytest.skip(f"{SYSTEM_CAS} is missing (Debian package `ca-certificates`)")
    need("7z", "p7zip-full")
    work = tmp_path / "job"
    (work / "installer" / "certs").mkdir(parents=True)
    shutil.copyfile(SCRIPT, work / "installer" / SCRIPT.name)
    shutil.copyfile(ca, work / "installer" / "certs" / MICROSOFT_ROOT.name)
    (work / "dist").mkdir()
    shutil.copyfile(setup, work / "dist" / setup.name)
    shutil.copytree(installed, work / "installed")
    script = tmp_path / "step.sh"
    script.write_text(_verification_step()["run"], encoding="utf-8")
    env = {**os.environ, "PUBLISHER": PUBLISHER}
    return subprocess.run(
        ["bash", "-e", str(script)],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def _install(setup: Path, into: Path) -> Path:
    """The programs a silent install would write, read out of the installer by 7-Zip."""
    extract(setup, into, *PROGRAMS, "uninstall.exe")
    return into


def test_the_workflow_step_passes_a_signed_installer_and_fails_an_unsigned_program(
    small_program, pki, tmp_path
):
    need("osslsigncode", "osslsigncode")
    signed_app = programs_folder(tmp_path / "signed", small_program, pki)
    setup = build_installer(signed_app, tmp_path / "signed" / "out", sign_with=sign_command(pki))
    installed = _install(setup, tmp_path / "signed" / "installed")
    passed = _run_verification_step(tmp_path / "pass", setup, installed, pki.ca)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert passed.stdout.count("signed and verified") == 2  # installer and installed, then payload

    # uv.exe as its wheel brings it, not signed by this project: the step fails on it.
    mixed_app = programs_folder(tmp_path / "mixed", small_program, pki, unsigned=("uv.exe",))
    setup = build_installer(mixed_app, tmp_path / "mixed" / "out", sign_with=sign_command(pki))
    installed = _install(setup, tmp_path / "mixed" / "installed")
    failed = _run_verification_step(tmp_path / "fail", setup, installed, pki.ca)
    assert failed.returncode != 0
    assert re.search(r"UNSIGNED  installed/uv\.exe: no Authenticode signature", failed.stdout), failed.stdout


def test_the_microsoft_root_is_the_one_artifact_signing_chains_to():
    pem = MICROSOFT_ROOT.read_bytes()
    root = x509.load_pem_x509_certificate(pem[pem.index(b"-----BEGIN CERTIFICATE-----") :])
    assert root.fingerprint(hashes.SHA256()).hex() == MICROSOFT_ROOT_SHA256
    assert hashlib.sha1(root.public_bytes(serialization.Encoding.DER)).hexdigest() == (  # noqa: S324
        "f40042e2e5f7e8ef8189fed15519aece42c3bfa2"
    )
    assert root.subject.rfc4514_string() == (
        "CN=Microsoft Identity Verification Root Certificate Authority 2020,O=Microsoft Corporation,C=US"
    )


def _artifact_signed_program() -> Path | None:
    """A program signed through Artifact Signing that the tests' caches hold: uv's Windows build."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "gpuwizard-tests"
    return next(iter(sorted(base.glob("wine-python/uv-*-win/uv.exe"))), None)


def test_an_artifact_signing_signature_verifies_with_the_microsoft_root_only():
    program = _artifact_signed_program()
    if program is None:
        pytest.skip("no Artifact-Signing-signed program cached (uv.exe of the Wine tests)")
    version = subprocess.run(
        [need("osslsigncode", "osslsigncode"), "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    found = re.search(r"osslsigncode (\d+)\.(\d+)", version.stdout + version.stderr)
    if found is None or (int(found.group(1)), int(found.group(2))) < (2, 9):
        pytest.skip("osslsigncode older than 2.9 has no -ignore-crl: it would fetch CRLs over the network")
    if not SYSTEM_CAS.is_file():
        pytest.skip(f"{SYSTEM_CAS} is missing (Debian package `ca-certificates`)")
    trusted = verify_signatures(
        "--ca-file", SYSTEM_CAS, "--ca-file", MICROSOFT_ROOT, "--no-crl-download", program
    )  # fmt: skip
    assert trusted.returncode == 0, trusted.stdout
    assert "signed by" in trusted.stdout
    # Linux CA bundles do not hold the root: without the pinned file, the same signature fails.
    bundle_only = verify_signatures("--ca-file", SYSTEM_CAS, "--no-crl-download", program)
    assert bundle_only.returncode == 1
    assert "INVALID" in bundle_only.stdout
