r"""Fill the winget manifest from a built installer: its version, its download URL and its SHA-256.

    python integrations/windows/winget/update_manifest.py dist/gpuwizard-setup-0.2.0.exe

reads the newest manifest under ``manifests/`` beside this script (``--template DIR`` for another)
and writes ``manifests/g/GPUWizard/GPUSetupWizard/0.2.0/`` (under ``--out DIR`` instead of this
folder, when given): the same three files (version, installer, default locale) with the version,
the installer's URL on the release (``https://github.com/OWNER/NAME/releases/download/vX.Y.Z/``
plus the file's name) and its SHA-256 filled in. The hash must be that of the very file the
release carries: run this on the installer downloaded from the release, or on the one the release
workflow uploaded, never on a local rebuild (builds are not byte-for-byte reproducible).

The version comes from the file's name (``gpuwizard-setup-X.Y.Z.exe``, the name installer/build.py
and the release workflow give it) or from ``--version``. Exit codes: 0 written (the folder on
stdout); 2 bad input, one line on stderr, nothing written.

Needs PyYAML only; the tests validate what it writes against winget's schemas
(tests/integrations/test_winget_manifest.py).
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import re
import sys
from pathlib import Path
from typing import Any, Final

import yaml

HERE: Final = Path(__file__).resolve().parent
PACKAGE_IDENTIFIER: Final = "GPUWizard.GPUSetupWizard"
#: winget-pkgs' layout: manifests / first letter of the publisher / publisher / package / version.
PACKAGE_FOLDER: Final = Path("manifests", "g", "GPUWizard", "GPUSetupWizard")
#: installer/build.py's name for the installer; the release workflow adds ``-unsigned`` to a build
#: it could not sign (.github/workflows/windows-installer.yml).
INSTALLER_NAME: Final = re.compile(r"gpuwizard-setup-(?P<version>\d+\.\d+\.\d+)(?P<unsigned>-unsigned)?\.exe")
VERSION: Final = re.compile(r"\d+\.\d+\.\d+")
#: The repository whose releases carry the installer. Derived from the project's GitHub Pages
#: address (gpuwizard.github.io/gpuwizard, app/gpuwizard/workflow/compat/bundle.py): Pages serves
#: OWNER.github.io/NAME. ``--repository`` names another (a fork).
DEFAULT_REPOSITORY: Final = "gpuwizard/gpuwizard"
REPOSITORY: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+")
#: The first line of each file, as winget-pkgs writes it: editors validate the file against it.
SCHEMA_HEADER: Final = (
    "# yaml-language-server: $schema=https://aka.ms/winget-manifest.{kind}.{version}.schema.json\n"
)
EXIT_USAGE: Final = 2


class BadInput(Exception):
    """Input that cannot be used; its message is the one line the command prints."""


def file_names(locale: str) -> dict[str, str]:
    """The three files of a multi-file manifest, by ManifestType."""
    return {
        "version": f"{PACKAGE_IDENTIFIER}.yaml",
        "installer": f"{PACKAGE_IDENTIFIER}.installer.yaml",
        "defaultLocale": f"{PACKAGE_IDENTIFIER}.locale.{locale}.yaml",
    }


def sha256_of(path: Path) -> str:
    """The file's SHA-256 in upper-case hex, as ``winget hash`` prints it."""
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for chunk in iter(lambda: stream.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest().upper()


def newest_version_folder(root: Path) -> Path:
    """The folder of the highest version under ``root`` (the package's folder)."""
    versions = [child for child in root.iterdir() if child.is_dir() and VERSION.fullmatch(child.name)]
    if not versions:
        raise BadInput(f"no manifest version folder (X.Y.Z) in {root}")
    return max(versions, key=lambda child: tuple(int(part) for part in child.name.split(".")))


def read_manifest(folder: Path) -> dict[str, dict[str, Any]]:
    """The version, installer and default-locale manifests in ``folder``, by ManifestType."""
    version_file = folder / file_names("")["version"]
    if not version_file.is_file():
        raise BadInput(f"{version_file} is missing: {folder} holds no manifest of {PACKAGE_IDENTIFIER}")
    manifests = {"version": _load(version_file)}
    for kind, name in file_names(str(manifests["version"]["DefaultLocale"])).items():
        if kind != "version":
            manifests[kind] = _load(folder / name)
    for kind, manifest in manifests.items():
        if manifest.get("ManifestType") != kind:
            raise BadInput(
                f"{folder}: the {kind} manifest says ManifestType {manifest.get('ManifestType')!r}"
            )
    return manifests


def _load(path: Path) -> dict[str, Any]:
    try:
        loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as error:
        raise BadInput(f"{path}: {error}".replace("\n", " ")) from error
    if not isinstance(loaded, dict):
        raise BadInput(f"{path}: not a YAML mapping")
    return loaded


def filled(
    manifests: dict[str, dict[str, Any]], *, version: str, url: str, sha256: str, repository: str
) -> dict[str, dict[str, Any]]:
    """A copy of ``manifests`` for the release ``version`` of the installer at ``url``."""
    result = copy.deepcopy(manifests)
    for manifest in result.values():
        manifest["PackageVersion"] = version
    installers = result["installer"].get("Installers") or []
    if not installers:
        raise BadInput("the installer manifest lists no installers")
    for installer in installers:
        installer["InstallerUrl"] = url
        installer["InstallerSha256"] = sha256
    locale = result["defaultLocale"]
    home = f"https://github.com/{repository}"
    locale["PublisherUrl"] = home
    locale["PackageUrl"] = home
    locale["ReleaseNotesUrl"] = f"{home}/releases/tag/v{version}"
    return result


def write_manifest(manifests: dict[str, dict[str, Any]], folder: Path) -> None:
    """Write the three files into ``folder``, each under its schema line, keys in their order."""
    folder.mkdir(parents=True, exist_ok=True)
    names = file_names(str(manifests["version"]["DefaultLocale"]))
    for kind, manifest in manifests.items():
        header = SCHEMA_HEADER.format(kind=kind, version=manifest["ManifestVersion"])
        text = yaml.safe_dump(manifest, sort_keys=False, allow_unicode=True, width=110)
        (folder / names[kind]).write_text(header + text, encoding="utf-8", newline="\n")


def main(argv: list[str] | None = None) -> int:
    """The command line; returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("installer", type=Path, help="the released gpuwizard-setup-X.Y.Z.exe")
    parser.add_argument("--version", help="the version (default: from the installer's file name)")
    parser.add_argument(
        "--repository",
        default=DEFAULT_REPOSITORY,
        help=f"OWNER/NAME on GitHub (default {DEFAULT_REPOSITORY})",
    )
    parser.add_argument("--template", type=Path, help="a manifest folder to start from (default: the newest)")
    parser.add_argument(
        "--out", type=Path, default=HERE, help="the folder that holds manifests/ (default: here)"
    )
    options = parser.parse_args(argv)
    try:
        folder = update(options)
    except BadInput as why:
        print(f"update_manifest: error: {why}", file=sys.stderr)
        return EXIT_USAGE
    print(folder)
    return 0


def update(options: argparse.Namespace) -> Path:
    """Check the input, then write the new manifest; returns its folder."""
    installer: Path = options.installer
    if not installer.is_file():
        raise BadInput(f"{installer} is not a file")
    named = INSTALLER_NAME.fullmatch(installer.name)
    version = options.version or (named["version"] if named else None)
    if not version:
        raise BadInput(f"{installer.name} is not named gpuwizard-setup-X.Y.Z.exe: give --version")
    if not VERSION.fullmatch(version):
        raise BadInput(f"version {version!r} is not X.Y.Z")
    if named and named["version"] != version:
        raise BadInput(f"{installer.name} is version {named['version']}, not {version}")
    if not REPOSITORY.fullmatch(options.repository):
        raise BadInput(f"--repository {options.repository!r} is not OWNER/NAME")
    if named and named["unsigned"]:
        print(f"update_manifest: warning: {installer.name} is unsigned (docs/signing.md)", file=sys.stderr)
    template = options.template or newest_version_folder(HERE / PACKAGE_FOLDER)
    url = f"https://github.com/{options.repository}/releases/download/v{version}/{installer.name}"
    manifests = filled(
        read_manifest(template),
        version=version,
        url=url,
        sha256=sha256_of(installer),
        repository=options.repository,
    )
    target = options.out / PACKAGE_FOLDER / version
    write_manifest(manifests, target)
    return target


if __name__ == "__main__":
    sys.exit(main())
