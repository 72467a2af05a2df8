"""Ask pip what an install of some requirements would bring, without installing anything.

``pip install --dry-run --report FILE`` resolves the requirements as a real install would (same
indexes, same configuration, the newest releases in range today) and writes what it would
install as JSON (pip.pypa.io/en/stable/reference/installation-report/, pip 22.2 and later).
``--python-version`` and ``--platform`` make it resolve for the target rather than for the
wizard's own interpreter; pip allows them only with ``--only-binary=:all:`` and ``--target`` or
``--dry-run`` (pip.pypa.io/en/stable/cli/pip_install/, "--platform").

Two limits of pip's, which the caller should know:

- pip evaluates environment markers (``; platform_system == "Linux"``, ``; python_version <
  "3.12"``) against the interpreter that runs it, not against ``--platform`` and
  ``--python-version`` (the report's ``environment`` says which). A framework whose CUDA
  libraries hang on such markers (torch's ``nvidia-*`` requirements) resolves right only on the
  target's own system; ``interpreter`` can name the target's Python to get its Python markers.
- pip does not widen a ``manylinux_2_X`` tag to older glibc levels (only the legacy
  ``manylinux2014``/``manylinux2010`` aliases), so every level is listed here
  (:func:`platform_tags`): without ``manylinux_2_27`` pip would skip every cuDNN after 9.5
  (its wheels are ``manylinux_2_27_x86_64``) and answer a release nobody gets.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from gpuwizard.adapters.input_files import InputFileError, read_input
from gpuwizard.adapters.runner import CommandTimedOut, CompletedRun, Runner, RunnerError
from gpuwizard.core.compat.resolution import PLATFORMS, Resolution, ResolutionFailed, read_pip_report
from gpuwizard.core.envs.package_sources import hide_logins
from gpuwizard.core.exit_status import status_text
from gpuwizard.core.json_input import JsonInputError, decode_utf8, parse_json
from gpuwizard.core.secret_formats import url_has_secret

#: The glibc a Linux target is taken to have unless told: RHEL 8 and Debian 10's (2.28), which
#: every distribution CUDA 12 supports has or passes (docs.nvidia.com/cuda/cuda-installation-guide-linux,
#: "System Requirements"); torch's wheels need it (``manylinux_2_28_x86_64``).
DEFAULT_GLIBC: Final = "2.28"
#: The macOS a Mac target is taken to have: pip widens it down to 11.0 (and universal2 wheels
#: down to 10.4) itself; tensorflow 2.20 ships ``macosx_12_0_arm64`` only, so 11.0 would miss it.
MACOS_TAG: Final = "macosx_14_0_arm64"
#: The oldest glibc level a manylinux tag names (PEP 600: ``manylinux1`` is glibc 2.5).
_OLDEST_GLIBC_MINOR: Final = 5
#: PEP 599/571/513 aliases of PEP 600 levels: a wheel may carry only the old name.
_LEGACY_MANYLINUX: Final = {17: "manylinux2014", 12: "manylinux2010", 5: "manylinux1"}
#: How much of pip's error line a message keeps ("from versions: ..." lists every release).
_MESSAGE_CHARS: Final = 400
#: The report is small (a few hundred kB for tensorflow with its CUDA libraries); refuse a giant.
_REPORT_LIMIT: Final = 64 * 2**20


def platform_tags(platform: str, *, glibc: str = DEFAULT_GLIBC) -> tuple[str, ...]:
    """The ``--platform`` tags for a target (x86-64 Linux and Windows, Apple-silicon macOS).

    >>> platform_tags("linux", glibc="2.17")[:3]
    ('manylinux_2_17_x86_64', 'manylinux2014_x86_64', 'manylinux_2_16_x86_64')
    >>> platform_tags("windows")
    ('win_amd64',)

    Raises:
        ValueError: An unknown platform or a glibc that is not ``2.N``.
    """
    if platform == "windows":
        return ("win_amd64",)
    if platform == "darwin":
        return (MACOS_TAG,)
    if platform != "linux":
        raise ValueError(f"unknown platform {platform!r} (expected one of {', '.join(PLATFORMS)})")
    major, _, minor = glibc.partition(".")
    if major != "2" or not minor.isdigit():
        raise ValueError(f"glibc {glibc!r} is not of the form 2.N")
    tags: list[str] = []
    # Newest first, each level with its legacy alias, as packaging.tags lists a system's own.
    for level in range(int(minor), _OLDEST_GLIBC_MINOR - 1, -1):
        tags.append(f"manylinux_2_{level}_x86_64")
        if level in _LEGACY_MANYLINUX:
            tags.append(f"{_LEGACY_MANYLINUX[level]}_x86_64")
    # A private index may serve plain linux wheels, which pip on the system itself accepts.
    tags.append("linux_x86_64")
    return tuple(tags)


def dry_resolve(
    requirements: Sequence[str],
    *,
    python: str,
    platform: str,
    index_url: str | None = None,
    extra_index_urls: Sequence[str] = (),
    find_links: Sequence[str] = (),
    no_index: bool = False,
    runner: Runner,
    timeout_s: float,
    today: str,
    glibc: str = DEFAULT_GLIBC,
    interpreter: str | None = None,
) -> Resolution:
    """What ``pip install requirements`` would install for ``platform`` and Python ``python``.

    Nothing is installed or downloaded beyond what resolving needs (metadata, and for a wheel
    without separate metadata the wheel itself, into pip's cache).

    Args:
        requirements: Requirement strings (``tensorflow[and-cuda]==2.21.0``).
        python: The target's Python, ``3.12``.
        platform: ``linux``, ``windows`` or ``darwin`` (:func:`platform_tags`).
        index_url: Replaces pip's index (else pip's own configuration decides).
        extra_index_urls: More indexes.
        find_links: Folders or pages of wheels (``--find-links``).
        no_index: Use no index, only ``find_links`` (offline, and tests).
        runner: Runs pip.
        timeout_s: How long pip may take.
        today: The day, ISO, recorded as ``resolved_on``.
        glibc: A Linux target's glibc (its wheels' manylinux levels up to it).
        interpreter: The Python that runs pip (default: the wizard's own); a target's Python
            makes pip evaluate Python markers for it.

    A URL carrying a login (or another secret: ``core/secret_formats.py``) goes to pip in its
    environment variable, never on the command line where other users can read it.

    Raises:
        ResolutionFailed: pip could not be run, ran too long, failed (the message is its error
            line, secrets masked), or left no readable report.
        ValueError: An unknown platform or a malformed glibc.
    """
    tags = platform_tags(platform, glibc=glibc)
    index_options, env = _index_options(index_url, extra_index_urls, find_links, no_index=no_index)
    env.update({"PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INPUT": "1"})
    with tempfile.TemporaryDirectory(prefix="gpuwizard-resolve-") as scratch:
        report_path = Path(scratch) / "report.json"
        argv = [
            interpreter or sys.executable, "-m", "pip", "install",
            "--dry-run", "--quiet", "--ignore-installed", "--only-binary=:all:",
            "--report", str(report_path),
            "--python-version", python,
            *(option for tag in tags for option in ("--platform", tag)),
            "--target", str(Path(scratch) / "target"),
            *index_options,
            *requirements,
        ]  # fmt: skip
        try:
            done = runner.run(argv, timeout=timeout_s, env_overrides=env)
        except CommandTimedOut:
            raise ResolutionFailed(f"pip did not finish resolving within {timeout_s:g} s") from None
        except RunnerError as error:
            raise ResolutionFailed(f"pip could not be run: {hide_logins(error.reason)}") from None
        if not done.ok:
            status = status_text(done.returncode, windows=sys.platform == "win32")
            raise ResolutionFailed(f"pip exited with {status}: {_pip_error(done)}")
        report = _read_report(report_path)
    return Resolution(
        requirements=tuple(requirements),
        platform=platform,
        python=python,
        versions=read_pip_report(report),
        resolved_on=today,
        source="pip",
    )


def _index_options(
    index_url: str | None,
    extra_index_urls: Sequence[str],
    find_links: Sequence[str],
    *,
    no_index: bool,
) -> tuple[list[str], dict[str, str]]:
    """The index options for pip, and the variables that carry the ones with a secret.

    A variable holds one value, or several separated by spaces (pip.pypa.io/en/stable/topics/
    configuration/, "Environment Variables"); URLs hold no spaces. When one extra index has a
    secret, all extras go in the variable, so that their order stays as given.
    """
    options: list[str] = ["--no-index"] if no_index else []
    env: dict[str, str] = {}
    if index_url is not None:
        if url_has_secret(index_url):
            env["PIP_INDEX_URL"] = index_url
        else:
            options += ["--index-url", index_url]
    for option, variable, urls in (
        ("--extra-index-url", "PIP_EXTRA_INDEX_URL", extra_index_urls),
        ("--find-links", "PIP_FIND_LINKS", find_links),
    ):
        if any(url_has_secret(url) for url in urls):
            env[variable] = " ".join(urls)
        else:
            options += [part for url in urls for part in (option, url)]
    return options, env


def _pip_error(done: CompletedRun) -> str:
    """What pip said went wrong, in one line, logins masked.

    pip's first ``ERROR:`` line says what failed ("Could not find a version that satisfies the
    requirement ...", "Cannot install a and b because these package versions have conflicting
    dependencies."); its last one is often only "ResolutionImpossible: for help visit ...".
    Without one, the last line it wrote.
    """
    lines = [line.strip() for line in (done.stderr + "\n" + done.stdout).splitlines() if line.strip()]
    errors = [line.removeprefix("ERROR:").strip() for line in lines if line.startswith("ERROR:")]
    said = errors[0] if errors else (lines[-1] if lines else "no message")
    said = hide_logins(" ".join(said.split()))
    return said if len(said) <= _MESSAGE_CHARS else said[: _MESSAGE_CHARS - 1] + "…"


def _read_report(path: Path) -> dict[str, object]:
    """The report pip wrote at ``path`` (a JSON object)."""
    try:
        data = parse_json(
            decode_utf8(read_input(path, limit=_REPORT_LIMIT, what="pip's report"), source=path.name),
            source=path.name,
        )
    except InputFileError as error:
        raise ResolutionFailed(f"pip succeeded but its report cannot be read: {error}") from None
    except JsonInputError as error:
        raise ResolutionFailed(f"pip succeeded but its report is not JSON: {error}") from None
    if not isinstance(data, dict):
        raise ResolutionFailed("pip succeeded but its report is not a JSON object")
    return data
