"""``kit.py prepare``: the small offline wheel folder the GPU machine installs the wizard from.

The GPU machine has no network and carries at most 64 MiB of extra files (the device tool's
limit), so the folder holds only what the headless commands import, for every CPython the
machine's PyTorch may run on.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from kit_common import (
    EXIT_FAILED,
    EXIT_OK,
    MANIFEST_NAME,
    MANIFEST_SCHEMA,
    MIB,
    REQUIREMENTS_NAME,
    ROOT,
    UsageError,
    folder_bytes,
    now_iso,
    sha256_of,
)

#: What the GPU machine can carry: "at most 64 MiB of extra files" (the device tool's notes).
LIMIT_MIB: Final = 64.0
#: CPython versions a preinstalled PyTorch may run on (the wizard needs >= 3.10: pyproject).
PYTHON_VERSIONS: Final = ("3.10", "3.11", "3.12", "3.13")
#: manylinux2014 is glibc 2.17 (PEP 599); pip also takes the older manylinux tags for it
#: (https://pip.pypa.io/en/stable/cli/pip_download/, ``--platform``), so one tag covers the
#: wheels every package here publishes for Linux x86_64.
PLATFORM: Final = "manylinux2014_x86_64"

#: pyproject's [project] dependencies that `detect`, `recommend`, `test`, `verify` and `report`
#: import (grep of app/gpuwizard/cli, workflow, adapters, core), in pip's syntax; pip resolves
#: their own dependencies (jsonschema's referencing and rpds-py, Jinja2's MarkupSafe, ...).
#: Left out on purpose: PySide6-Essentials (the GUI only, ui/), uv (only `env create` makes
#: environments with it), py-rattler (only conda environments: adapters/envs/rattler_engine.py),
#: cryptography (only verifying or signing refreshed compatibility data,
#: workflow/compat/signing.py, imported late; a fresh GPUWIZARD_HOME has no cached bundle) and
#: tomli (only `apply` reads answer files: workflow/fleet/answers_file.py).
HEADLESS_REQUIREMENTS: Final = (
    # NVML: `detect` (adapters/nvml.py), the live test's GPU samples, nvml_record.py.
    "nvidia-ml-py>=11.450",
    # Version comparisons in the compatibility tables and the health checks (core/compat, core/health).
    "packaging>=23",
    # Where GPUWIZARD_HOME defaults to (workflow/state/home.py, imported by every state file).
    "platformdirs>=3",
    # The compatibility data and saved reports are checked against their schemas
    # (workflow/compat/data.py, workflow/machine/system_file.py).
    "jsonschema>=4.17",
    # Asking package indexes (adapters/http.py, imported late): `recommend` asks PyPI for a
    # version beyond the bundled data; offline that is a one-line finding, not an ImportError.
    "requests>=2.28",
    # The support report's templates (core/support/html.py), `report --out FILE.html`.
    "Jinja2>=3.1",
    # Locks on the state files (adapters/file_locks.py): every test and verify records state.
    "filelock>=3.12",
    # The findings' signatures are found with Aho-Corasick (core/findings/signature.py): the
    # live test and verify diagnose what failed.
    "pyahocorasick>=2.1",
)
#: Bootstraps pip in the kit's venv where the machine's Python lacks ensurepip.
PIP_REQUIREMENT: Final = "pip"


@dataclass(frozen=True)
class PrepareRequest:
    """What ``prepare`` was asked for, checked."""

    out: Path
    python_versions: tuple[str, ...]
    limit_mib: float


def checked_request(out: Path, python_versions: str, limit_mib: float) -> PrepareRequest:
    """The arguments, or UsageError naming the first bad one."""
    versions = tuple(part.strip() for part in python_versions.split(",") if part.strip())
    if not versions:
        raise UsageError("--python-versions is empty: give e.g. 3.10,3.11")
    for version in versions:
        if not re.fullmatch(r"3\.[0-9]{1,2}", version):
            raise UsageError(f"--python-versions: {version!r} is not a CPython version such as 3.12")
    if not limit_mib > 0:
        raise UsageError("--limit-mib must be a positive number")
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out}: is a file, not a folder")
    return PrepareRequest(out, versions, limit_mib)


class PrepareFailed(Exception):
    """One step of ``prepare`` failed; the message is the line to print."""


def _deps_key(request: PrepareRequest) -> dict[str, Any]:
    return {
        "requirements": [*HEADLESS_REQUIREMENTS, PIP_REQUIREMENT],
        "python_versions": list(request.python_versions),
        "platform": PLATFORM,
    }


def _pip(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pip", *args, "--disable-pip-version-check"],
        capture_output=True,
        text=True,
        check=False,
    )


def _last_lines(done: subprocess.CompletedProcess[str]) -> str:
    lines = [line.strip() for line in (done.stderr or done.stdout or "").splitlines() if line.strip()]
    return lines[-1] if lines else f"exit status {done.returncode}"


def build_wizard_wheel(out: Path) -> Path:
    """The wizard's wheel, built from a copy of the checkout's sources into ``out``.

    A copy, because setuptools builds in a ``build/`` folder beside pyproject.toml and takes
    whatever it finds there, files since deleted included; the copy has only the sources.
    """
    for old in out.glob("gpuwizard-*.whl"):
        old.unlink()
    with tempfile.TemporaryDirectory(prefix="gpu-proof-build-") as scratch:
        source = Path(scratch) / "src"
        source.mkdir()
        for name in ("pyproject.toml", "README.md"):
            shutil.copy2(ROOT / name, source / name)
        skip = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
        for name in ("app", "resources"):
            shutil.copytree(ROOT / name, source / name, ignore=skip)
        done = _pip("wheel", "--no-deps", "--wheel-dir", str(out), str(source))
    if done.returncode != 0:
        raise PrepareFailed(f"building the wizard's wheel failed: {_last_lines(done)}")
    built = sorted(out.glob("gpuwizard-*.whl"))
    if len(built) != 1:
        raise PrepareFailed(f"building the wizard's wheel left {len(built)} gpuwizard wheels in {out}")
    return built[0]


def _reusable(out: Path, key: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The dependency files of an earlier ``prepare`` into ``out`` when they are still right."""
    try:
        manifest = json.loads((out / MANIFEST_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(manifest, dict) or manifest.get("dependencies_key") != key:
        return None
    files = [item for item in manifest.get("files", []) if item.get("kind") in {"dependency", "pip"}]
    for item in files:
        path = out / str(item.get("file"))
        if (
            not path.is_file()
            or path.stat().st_size != item.get("size")
            or sha256_of(path) != item.get("sha256")
        ):
            return None
    return files


def download_dependencies(request: PrepareRequest) -> tuple[int, bool]:
    """Fill the folder with the headless dependencies; (how many wheels, whether reused)."""
    out = request.out
    key = _deps_key(request)
    reused = _reusable(out, key)
    if reused:
        return len(reused), True
    for stale in out.glob("*.whl"):
        if not stale.name.startswith("gpuwizard-"):
            stale.unlink()
    requirements = out / REQUIREMENTS_NAME
    requirements.write_text("".join(f"{line}\n" for line in HEADLESS_REQUIREMENTS), encoding="utf-8")
    for version in request.python_versions:
        done = _pip(
            "download",
            "--dest", str(out),
            "--only-binary=:all:",
            "--platform", PLATFORM,
            "--implementation", "cp",
            "--python-version", version,
            "--requirement", str(requirements),
        )  # fmt: skip
        if done.returncode != 0:
            raise PrepareFailed(f"downloading for CPython {version} failed: {_last_lines(done)}")
    done = _pip("download", "--dest", str(out), "--only-binary=:all:", "--no-deps", PIP_REQUIREMENT)
    if done.returncode != 0:
        raise PrepareFailed(f"downloading pip's wheel failed: {_last_lines(done)}")
    return sum(1 for path in out.glob("*.whl") if not path.name.startswith("gpuwizard-")), False


def _check_size(out: Path, limit_mib: float, stage: str) -> int:
    size = folder_bytes(out)
    if size > limit_mib * MIB:
        raise PrepareFailed(
            f"the wheel folder {out} is {size / MIB:.1f} MiB {stage}, over the limit of {limit_mib:g} MiB "
            "(the GPU machine carries no more): leave a dependency out of HEADLESS_REQUIREMENTS "
            "or fewer --python-versions"
        )
    return size


def _kind(path: Path) -> str:
    if path.name.startswith("gpuwizard-"):
        return "wizard"
    if re.match(r"pip-[0-9]", path.name):
        return "pip"
    return "dependency" if path.suffix == ".whl" else "requirements"


def write_manifest(request: PrepareRequest, wizard: Path) -> dict[str, Any]:
    """``manifest.json``: every file with its size and sha256, and what the folder is for."""
    out = request.out
    files: list[dict[str, Any]] = [
        {"file": path.name, "kind": _kind(path), "size": path.stat().st_size, "sha256": sha256_of(path)}
        for path in sorted(out.iterdir())
        if path.is_file() and path.name != MANIFEST_NAME
    ]
    manifest = {
        "schema": MANIFEST_SCHEMA,
        "created": now_iso(),
        "wizard_wheel": wizard.name,
        "requirements_file": REQUIREMENTS_NAME,
        "dependencies_key": _deps_key(request),
        "limit_mib": request.limit_mib,
        "total_bytes": sum(int(item["size"]) for item in files),
        "files": files,
    }
    (out / MANIFEST_NAME).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return manifest


def prepare(request: PrepareRequest) -> int:
    """Build, download, check the size, write the manifest; 0 done, 1 failed (one line on stderr)."""
    out = request.out
    try:
        out.mkdir(parents=True, exist_ok=True)
        wizard = build_wizard_wheel(out)
        print(f"built {wizard.name}")
        # Before downloading anything: a wizard wheel alone over the limit needs no download to know.
        _check_size(out, request.limit_mib, "with the wizard's wheel alone")
        count, reused = download_dependencies(request)
        versions = ", ".join(request.python_versions)
        print(
            f"{'reused' if reused else 'downloaded'} {count} dependency wheels (CPython {versions}, {PLATFORM})"
        )
        size = _check_size(out, request.limit_mib, "")
        manifest = write_manifest(request, wizard)
    except PrepareFailed as failure:
        (out / MANIFEST_NAME).unlink(missing_ok=True)  # no manifest: `run` refuses the folder
        print(f"kit.py prepare: {failure}", file=sys.stderr)
        return EXIT_FAILED
    except OSError as error:
        (out / MANIFEST_NAME).unlink(missing_ok=True)
        print(f"kit.py prepare: {error.filename or out}: {error.strerror or error}", file=sys.stderr)
        return EXIT_FAILED
    print(
        f"wheel folder {out}: {len(manifest['files'])} files, {size / MIB:.1f} MiB "
        f"({size} bytes; limit {request.limit_mib:g} MiB)"
    )
    return EXIT_OK
