"""A wheel folder with the real CPU build of torch and everything it needs, for offline installs.

Where it comes from: this machine's pip configuration points at local wheels. The environment
sets ``PIP_FIND_LINKS=/opt/wheels`` and the pip configuration has ``global.find-links =
/opt/wheels`` plus ``extra-index-url = file:///opt/pypi/simple file:///opt/pypi-more/simple``;
``/opt/wheels`` holds ``torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl`` (about 190 MB).
pip prefers that file for ``torch==2.13.0`` because ``2.13.0+cpu`` matches the pin and its local
version label sorts above a plain ``2.13.0``. torch's dependencies (filelock, typing-extensions,
setuptools, sympy, networkx, jinja2, fsspec, mpmath, markupsafe) come from the local indexes or,
where PyPI is reachable and holds a newer release, from PyPI; they are small.

On a machine without that local file, pip would pick torch from PyPI: a CUDA build of several
GB plus the nvidia-* wheels. The helper asks pip first which file it would take
(``pip install --dry-run --no-deps --report -``) and gives up, returning None, unless that is a
``file:`` URL; it also returns None, never raising, when pip fails (no such wheel, no network).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from builders.wheels import bundled_pip_wheel

TORCH_VERSION = "2.13.0"
TORCH_REQUIREMENT = f"torch=={TORCH_VERSION}"
MARKER = "marker"

# pip's own network patience, kept short so an offline machine fails in seconds, not minutes; the
# process limit is a backstop (copying 190 MB and a few small downloads take well under a minute).
_PIP_NETWORK = ("--retries", "1", "--timeout", "30")
_PROCESS_LIMIT_S = 900


def _pip(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m pip ARGS`` with the running interpreter, output captured."""
    return subprocess.run(
        [sys.executable, "-m", "pip", *args],
        capture_output=True,
        text=True,
        timeout=_PROCESS_LIMIT_S,
        check=False,
    )


def _chosen_torch_url() -> str | None:
    """The URL pip would install ``torch==2.13.0`` from (a binary wheel), or None when it finds none."""
    done = _pip(
        "install",
        "--dry-run",
        "--ignore-installed",
        "--no-deps",
        "--only-binary=:all:",
        "--quiet",
        *_PIP_NETWORK,
        "--report",
        "-",
        TORCH_REQUIREMENT,
    )
    if done.returncode != 0:
        return None
    report = json.loads(done.stdout)
    for item in report.get("install", []):
        if item["metadata"]["name"].lower() == "torch":
            return str(item["download_info"]["url"])
    return None


def _marker_text(extra: Sequence[str]) -> str:
    return "".join(f"{requirement}\n" for requirement in extra)


def _is_filled(folder: Path, extra: Sequence[str]) -> bool:
    marker = folder / MARKER
    return (
        any(folder.glob(f"torch-{TORCH_VERSION}*.whl"))
        and marker.is_file()
        and marker.read_text(encoding="utf-8") == _marker_text(extra)
    )


def real_cpu_torch_folder(folder: Path, extra: Sequence[str] = ()) -> Path | None:
    """Fill ``folder`` with the real CPU torch 2.13.0 wheel, its dependencies and pip; None if impossible.

    Afterwards ``pip install --no-index --find-links FOLDER torch==2.13.0`` (and the ``extra``
    requirements) works with networking off, for the running interpreter's Python version and
    platform. The folder holds:

    * the torch wheel pip chooses for ``torch==2.13.0`` (here the local
      ``/opt/wheels/torch-2.13.0+cpu-...whl``) and every wheel torch depends on, fetched together
      with the ``extra`` requirements (for example ``"numpy"``) in one resolution by
      ``python -m pip download --dest FOLDER --only-binary=:all:``;
    * the pip wheel bundled with this interpreter's ``ensurepip``, for environments made
      ``--without-pip``;
    * a file named ``marker`` listing the extras, one per line, written last.

    A folder that already holds a ``torch-2.13.0*.whl`` and a marker listing the same extras is
    returned at once, so a cached folder costs nothing.

    Before downloading, pip is asked (``install --dry-run --no-deps --report -``) which file it
    would take for torch; unless that is a local ``file:`` URL the helper returns None rather than
    download a CUDA build of several GB from PyPI. Everything that goes wrong (no torch 2.13.0 for
    this Python, no pip in this interpreter, no network for a dependency) also gives None; tests
    skip on None.

    Args:
        folder: The wheel folder, created when missing; may be shared between tests as a cache.
        extra: Further requirements to download with torch, in pip's requirement syntax.

    Returns:
        ``folder`` once filled, or None.
    """
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if _is_filled(folder, extra):
            return folder
        url = _chosen_torch_url()
        if url is None or not url.startswith("file:"):
            return None
        done = _pip(
            "download",
            "--dest",
            str(folder),
            "--only-binary=:all:",
            "--quiet",
            *_PIP_NETWORK,
            TORCH_REQUIREMENT,
            *extra,
        )
        if done.returncode != 0 or not any(folder.glob(f"torch-{TORCH_VERSION}*.whl")):
            return None
        pip_wheel = bundled_pip_wheel()
        shutil.copy2(pip_wheel, folder / pip_wheel.name)
        (folder / MARKER).write_text(_marker_text(extra), encoding="utf-8")
    except (OSError, subprocess.SubprocessError, ValueError, KeyError, TypeError):
        return None
    return folder
