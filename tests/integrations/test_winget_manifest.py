"""The winget manifest (integrations/windows/winget) against winget's published schemas and the installer.

Each file of the multi-file manifest, read with PyYAML, is validated against its schema as
microsoft/winget-cli publishes it (kept in the repository, draft-07); the installer entries are
checked against what installer/gpuwizard.nsi does (its uninstall key, folders, switches and exit
codes, read out of the script); update_manifest.py is run on a dummy installer.
"""

from __future__ import annotations

import copy
import hashlib
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonschema
import pytest
import yaml

from gpuwizard import __version__
from harness.nsis_script import NSIS_SCRIPT, nsis_defines

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
WINGET = ROOT / "integrations" / "windows" / "winget"
SCHEMAS = WINGET / "schemas"
PACKAGE = WINGET / "manifests" / "g" / "GPUWizard" / "GPUSetupWizard"
IDENTIFIER = "GPUWizard.GPUSetupWizard"
SCHEMA_VERSION = "1.10.0"
KINDS = ("version", "installer", "defaultLocale")
PLACEHOLDER = "0" * 64
#: Generous: one Python process; the limit guards against a hang, it is no estimate.
LIMIT = 300


def windows_folder(nsis_path: str) -> str:
    """An NSIS folder as the environment variable Windows expands to the same place."""
    return nsis_path.replace("$LOCALAPPDATA", "%LOCALAPPDATA%").replace("$PROGRAMFILES64", "%ProgramFiles%")


def schema(kind: str) -> dict[str, Any]:
    return json.loads((SCHEMAS / f"manifest.{kind}.{SCHEMA_VERSION}.json").read_text(encoding="utf-8"))


def validator(kind: str) -> jsonschema.protocols.Validator:
    """The validator of the draft the schema declares (draft-07), after checking the schema itself."""
    loaded = schema(kind)
    cls = jsonschema.validators.validator_for(loaded)
    assert cls is jsonschema.Draft7Validator, loaded.get("$schema")
    cls.check_schema(loaded)
    return cls(loaded)


def errors(kind: str, manifest: dict[str, Any]) -> list[str]:
    return [
        f"{'/'.join(map(str, error.path))}: {error.message}"
        for error in validator(kind).iter_errors(manifest)
    ]


def manifest_files(folder: Path) -> dict[str, Path]:
    return {
        "version": folder / f"{IDENTIFIER}.yaml",
        "installer": folder / f"{IDENTIFIER}.installer.yaml",
        "defaultLocale": folder / f"{IDENTIFIER}.locale.en-US.yaml",
    }


def read(folder: Path) -> dict[str, dict[str, Any]]:
    return {
        kind: yaml.safe_load(path.read_text(encoding="utf-8"))
        for kind, path in manifest_files(folder).items()
    }


COMMITTED = PACKAGE / __version__


def committed() -> dict[str, dict[str, Any]]:
    return read(COMMITTED)


def load_update_manifest() -> ModuleType:
    spec = importlib.util.spec_from_file_location("update_manifest", WINGET / "update_manifest.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --- the schemas are winget's own -----------------------------------------------------------


def test_the_schemas_are_the_files_sources_md_names():
    sources = (SCHEMAS / "SOURCES.md").read_text()
    listed = dict(re.findall(r"^\| `([^`]+\.json)` \| `([0-9a-f]{64})` \|", sources, re.MULTILINE))
    on_disk = {path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in SCHEMAS.glob("*.json")}
    assert listed == on_disk
    assert "github.com/microsoft/winget-cli/tree/fa3d9e511d1bd9bed2f1b72e9f0fa25323e7f3eb" in sources


@pytest.mark.parametrize("kind", KINDS)
def test_each_schema_is_draft_07_for_its_manifest_type(kind: str):
    loaded = schema(kind)
    assert loaded["$schema"] == "http://json-schema.org/draft-07/schema#"
    assert (
        loaded["$id"].lower() == f"https://aka.ms/winget-manifest.{kind.lower()}.{SCHEMA_VERSION}.schema.json"
    )
    assert loaded["properties"]["ManifestType"]["const"] == kind


# --- the manifest validates ------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_each_manifest_file_validates_against_its_schema(kind: str):
    manifest = committed()[kind]
    assert errors(kind, manifest) == []
    assert manifest["ManifestType"] == kind
    assert manifest["ManifestVersion"] == SCHEMA_VERSION


def unknown_keys(instance: Any, node: dict[str, Any], root: dict[str, Any], where: str = "") -> list[str]:
    """Keys of ``instance`` no ``properties`` of the schema names (the schemas allow any, winget does not)."""
    while "$ref" in node:
        node = root["definitions"][node["$ref"].rsplit("/", 1)[1]]
    found = []
    if isinstance(instance, dict):
        properties = node.get("properties", {})
        for key, value in instance.items():
            if key not in properties:
                found.append(f"{where}/{key}")
            else:
                found += unknown_keys(value, properties[key], root, f"{where}/{key}")
    elif isinstance(instance, list) and isinstance(node.get("items"), dict):
        for index, item in enumerate(instance):
            found += unknown_keys(item, node["items"], root, f"{where}/{index}")
    return found


@pytest.mark.parametrize("kind", KINDS)
def test_every_key_is_one_the_schema_defines(kind: str):
    manifest = committed()[kind]
    assert unknown_keys(manifest, schema(kind), schema(kind)) == []
    misspelt = {**manifest, "InstallerTyp": "nullsoft"}
    assert unknown_keys(misspelt, schema(kind), schema(kind)) == ["/InstallerTyp"]


BREAKAGES = {
    "an installer type winget does not know": ("installer", lambda m: m.update(InstallerType="nsis")),
    "a hash that is not SHA-256": (
        "installer",
        lambda m: m["Installers"][0].update(InstallerSha256="abc123"),
    ),
    "no download URL": ("installer", lambda m: m["Installers"][1].pop("InstallerUrl")),
    "a scope that does not exist": ("installer", lambda m: m["Installers"][0].update(Scope="everyone")),
    "an upgrade behaviour that does not exist": (
        "installer",
        lambda m: m.update(UpgradeBehavior="overwrite"),
    ),
    "a version that is a number": ("version", lambda m: m.update(PackageVersion=0.1)),
    "an identifier without a publisher": ("version", lambda m: m.update(PackageIdentifier="GPUSetupWizard")),
    "the wrong manifest type": ("defaultLocale", lambda m: m.update(ManifestType="locale")),
    "no license": ("defaultLocale", lambda m: m.pop("License")),
}


@pytest.mark.parametrize("breakage", sorted(BREAKAGES))
def test_a_broken_copy_fails_its_schema(breakage: str):
    kind, damage = BREAKAGES[breakage]
    broken = copy.deepcopy(committed()[kind])
    damage(broken)
    assert errors(kind, broken) != []


# --- it says what the installer does ---------------------------------------------------------


def test_the_manifest_is_the_package_version_s_and_laid_out_as_winget_pkgs_lays_it_out():
    manifests = committed()
    assert COMMITTED.is_dir(), f"no manifest for the package version {__version__} in {PACKAGE}"
    assert sorted(path.name for path in COMMITTED.iterdir()) == sorted(
        path.name for path in manifest_files(COMMITTED).values()
    )
    assert {manifest["PackageIdentifier"] for manifest in manifests.values()} == {IDENTIFIER}
    assert {manifest["PackageVersion"] for manifest in manifests.values()} == {__version__}
    assert manifests["version"]["DefaultLocale"] == manifests["defaultLocale"]["PackageLocale"] == "en-US"
    # manifests / first letter of the publisher, lower case / publisher / package / version
    publisher, package = IDENTIFIER.split(".")
    assert COMMITTED.relative_to(WINGET).parts == (
        "manifests",
        publisher[0].lower(),
        publisher,
        package,
        __version__,
    )


def test_the_installer_entries_match_the_nsis_script():
    defines = nsis_defines()
    script = NSIS_SCRIPT.read_text()
    manifest = committed()["installer"]
    assert defines["UNINSTALL_KEY"] == r"Software\Microsoft\Windows\CurrentVersion\Uninstall\gpuwizard"
    assert "Target amd64-unicode" in script
    assert manifest["InstallerType"] == "nullsoft"
    assert {installer["Architecture"] for installer in manifest["Installers"]} == {"x64"}
    # winget correlates an installed NSIS program by its uninstall key's name and values.
    assert manifest["ProductCode"] == defines["APP_ID"] == defines["UNINSTALL_KEY"].rsplit("\\", 1)[1]
    assert manifest["AppsAndFeaturesEntries"] == [
        {
            "DisplayName": defines["APP_NAME"],
            "Publisher": defines["PUBLISHER"],
            "ProductCode": defines["APP_ID"],
        }
    ]
    # DisplayVersion is written as ${VERSION}, the package version: winget asks to leave it out then.
    assert 'WriteRegStr SHCTX "${UNINSTALL_KEY}" "DisplayVersion" "${VERSION}"' in script
    # Installing over an earlier version goes into its folder (InstallLocation) and replaces it.
    assert manifest["UpgradeBehavior"] == "install"
    assert 'ReadRegStr $R4 SHCTX "${UNINSTALL_KEY}" "InstallLocation"' in script
    # The one exit code of its own a silent install has besides ERROR_ELEVATION_REQUIRED.
    assert manifest["ExpectedReturnCodes"] == [
        {"InstallerReturnCode": int(defines["ERROR_SHARING_VIOLATION"]), "ReturnResponse": "packageInUse"}
    ]


def test_user_scope_comes_first_and_machine_scope_passes_allusers():
    defines = nsis_defines()
    script = NSIS_SCRIPT.read_text()
    user, machine = committed()["installer"]["Installers"]
    assert (user["Scope"], machine["Scope"]) == ("user", "machine")
    assert "InstallerSwitches" not in user
    assert machine["InstallerSwitches"] == {"Custom": "/ALLUSERS"}
    assert '${GetOptions} $R0 "/ALLUSERS" $R1' in script
    assert "RequestExecutionLevel user" in script
    # An unelevated /ALLUSERS installer ends with ERROR_ELEVATION_REQUIRED whatever its elevated copy
    # did: winget must start it elevated (elevationRequired), not let it elevate itself.
    assert "SetErrorLevel ${ERROR_ELEVATION_REQUIRED}" in script
    assert machine["ElevationRequirement"] == "elevationRequired"
    assert "ElevationRequirement" not in user
    assert user["InstallationMetadata"]["DefaultInstallLocation"] == windows_folder(defines["PER_USER_DIR"])
    assert machine["InstallationMetadata"]["DefaultInstallLocation"] == windows_folder(
        defines["ALL_USERS_DIR"]
    )
    assert user["Commands"] == ["gpuwizard"]  # on the user PATH by default; /ADDTOPATH for the system one


def test_the_installer_url_is_the_release_asset_and_the_hash_a_placeholder_or_real():
    update_manifest = load_update_manifest()
    text = manifest_files(COMMITTED)["installer"].read_text()
    for installer in committed()["installer"]["Installers"]:
        name = installer["InstallerUrl"].rsplit("/", 1)[1]
        assert update_manifest.INSTALLER_NAME.fullmatch(name)
        assert installer["InstallerUrl"] == (
            f"https://github.com/{update_manifest.DEFAULT_REPOSITORY}/releases/download/v{__version__}/"
            f"gpuwizard-setup-{__version__}.exe"
        )
        assert re.fullmatch(r"[0-9A-F]{64}", installer["InstallerSha256"])
        if installer["InstallerSha256"] == PLACEHOLDER:
            assert "placeholder" in text
    # The name installer/build.py gives the installer.
    assert 'f"gpuwizard-setup-{' in (ROOT / "installer" / "build.py").read_text()


def test_the_locale_names_the_publisher_and_package_as_the_installer_does():
    defines = nsis_defines()
    locale = committed()["defaultLocale"]
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert locale["Publisher"] == defines["PUBLISHER"]
    assert locale["PackageName"] == defines["APP_NAME"]
    assert locale["License"] == project["license"]
    assert locale["ShortDescription"] == project["description"]
    assert locale["Moniker"] == "gpuwizard"


# --- update_manifest.py ----------------------------------------------------------------------


def dummy_installer(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    installer = folder / name
    installer.write_bytes(b"MZ" + bytes(range(256)) * 40 + name.encode())
    return installer


def test_update_manifest_fills_version_url_and_hash_from_an_installer(tmp_path: Path):
    update_manifest = load_update_manifest()
    installer = dummy_installer(tmp_path / "dist", "gpuwizard-setup-9.8.7.exe")
    assert update_manifest.main([str(installer), "--out", str(tmp_path / "out")]) == 0
    folder = tmp_path / "out" / "manifests" / "g" / "GPUWizard" / "GPUSetupWizard" / "9.8.7"
    written = read(folder)
    for kind in KINDS:
        assert errors(kind, written[kind]) == [], kind
        assert written[kind]["PackageVersion"] == "9.8.7"
        assert (
            manifest_files(folder)[kind]
            .read_text()
            .startswith(
                f"# yaml-language-server: $schema=https://aka.ms/winget-manifest.{kind}.{SCHEMA_VERSION}.schema.json\n"
            )
        )
    sha256 = hashlib.sha256(installer.read_bytes()).hexdigest().upper()
    url = "https://github.com/gpuwizard/gpuwizard/releases/download/v9.8.7/gpuwizard-setup-9.8.7.exe"
    assert [(i["InstallerUrl"], i["InstallerSha256"]) for i in written["installer"]["Installers"]] == [
        (url, sha256),
        (url, sha256),
    ]
    assert (
        written["defaultLocale"]["ReleaseNotesUrl"]
        == "https://github.com/gpuwizard/gpuwizard/releases/tag/v9.8.7"
    )
    # Everything else is the committed manifest's.
    expected = committed()
    for kind in KINDS:
        expected[kind]["PackageVersion"] = "9.8.7"
    for entry in expected["installer"]["Installers"]:
        entry.update(InstallerUrl=url, InstallerSha256=sha256)
    expected["defaultLocale"]["ReleaseNotesUrl"] = written["defaultLocale"]["ReleaseNotesUrl"]
    assert written == expected


def test_update_manifest_on_the_current_release_only_fills_the_hash(tmp_path: Path):
    update_manifest = load_update_manifest()
    installer = dummy_installer(tmp_path / "dist", f"gpuwizard-setup-{__version__}.exe")
    assert update_manifest.main([str(installer), "--out", str(tmp_path)]) == 0
    written = read(tmp_path / "manifests" / "g" / "GPUWizard" / "GPUSetupWizard" / __version__)
    expected = committed()
    for entry in expected["installer"]["Installers"]:
        entry["InstallerSha256"] = hashlib.sha256(installer.read_bytes()).hexdigest().upper()
    assert written == expected


def test_update_manifest_names_a_fork_and_an_unsigned_build(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    update_manifest = load_update_manifest()
    installer = dummy_installer(tmp_path / "dist", "gpuwizard-setup-1.2.3-unsigned.exe")
    assert update_manifest.main([str(installer), "--out", str(tmp_path), "--repository", "lab/wizard"]) == 0
    written = read(tmp_path / "manifests" / "g" / "GPUWizard" / "GPUSetupWizard" / "1.2.3")
    assert {i["InstallerUrl"] for i in written["installer"]["Installers"]} == {
        "https://github.com/lab/wizard/releases/download/v1.2.3/gpuwizard-setup-1.2.3-unsigned.exe"
    }
    assert written["defaultLocale"]["PackageUrl"] == "https://github.com/lab/wizard"
    assert "unsigned" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("name", "options", "said"),
    [
        (None, [], "is not a file"),
        ("setup.exe", [], "give --version"),
        ("gpuwizard-setup-1.2.3.exe", ["--version", "1.2.4"], "is version 1.2.3, not 1.2.4"),
        ("setup.exe", ["--version", "v1.2"], "is not X.Y.Z"),
        ("gpuwizard-setup-1.2.3.exe", ["--repository", "https://github.com/x/y"], "is not OWNER/NAME"),
    ],
    ids=["missing", "unnamed", "mismatch", "bad-version", "bad-repository"],
)
def test_update_manifest_refuses_bad_input_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str | None, options: list[str], said: str
):
    update_manifest = load_update_manifest()
    installer = dummy_installer(tmp_path / "dist", name) if name else tmp_path / "dist" / "absent.exe"
    assert update_manifest.main([str(installer), "--out", str(tmp_path / "out"), *options]) == 2
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_update_manifest_runs_as_a_command(tmp_path: Path):
    installer = dummy_installer(tmp_path / "dist", "gpuwizard-setup-4.5.6.exe")
    done = subprocess.run(
        [sys.executable, str(WINGET / "update_manifest.py"), str(installer), "--out", str(tmp_path / "out")],
        capture_output=True, text=True, timeout=LIMIT, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    folder = Path(done.stdout.strip())
    assert folder == tmp_path / "out" / "manifests" / "g" / "GPUWizard" / "GPUSetupWizard" / "4.5.6"
    assert all(errors(kind, manifest) == [] for kind, manifest in read(folder).items())
