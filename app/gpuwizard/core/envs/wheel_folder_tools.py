"""Asking uv or pip whether a folder of wheels can install some requirements, and reading the answer.

The check of a wheel folder (:mod:`.wheel_folder`) runs a real resolution, offline, against
the folder alone, for the environment's Python and platform, and installs nothing:

* uv (the default: it ships with the wizard): ``uv pip compile`` with ``--offline --no-index
  --find-links DIR``, ``--no-build`` (an offline install cannot fetch build dependencies, and a
  check must not run build backends), ``--python-version`` and ``--python-platform``
  (docs.astral.sh/uv/reference/cli/#uv-pip-compile). It prints the pins on stdout, or "No
  solution found when resolving dependencies" and uv's reasons on stderr (exit status 1);
  status 2 is a usage or I/O error. A compile needs no environment, unlike ``uv pip install
  --dry-run``, which reports against the packages an environment already has.
* pip, when uv is absent: ``pip install --dry-run --ignore-installed --report -`` with
  ``--no-index --find-links DIR --only-binary=:all:`` and ``--python-version``,
  ``--implementation``, ``--abi``, ``--platform`` (pip.pypa.io/en/stable/cli/pip_install/;
  pip 23 refuses those target options without ``--target``, so a throw-away one is given).
  The report (pip.pypa.io/en/stable/reference/installation-report/) lists what would be
  installed; a failure is "Could not find a version that satisfies the requirement X".

The messages read here were recorded with uv 0.13.9 and pip 23.2.1
(tests/fixtures/recorded/envtools, tests/core/envs/test_wheel_folder.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from gpuwizard.core.envs.wheel_tags import WheelTarget
from gpuwizard.core.exit_status import status_text

# uv 0.13.9, `uv pip compile --help`: the manylinux levels its --python-platform knows.
_UV_MANYLINUX: Final = (17, 28, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40)

_UV_NOT_FOUND: Final = re.compile(
    r"\b(?P<name>[A-Za-z0-9][\w.-]*) was not found in the provided package locations"
)
_UV_NO_WHEELS: Final = re.compile(
    r"\b(?:all versions of )?(?P<name>[A-Za-z0-9][\w.-]*?)(?:[=<>!~]=?[^\s,]+)? "
    r"(?:has|have) no (?:usable wheels|wheels with a matching)"
)
_UV_PIN: Final = re.compile(r"^(?P<name>[A-Za-z0-9][\w.-]*)==(?P<version>[^\s;#]+)")
_PIP_NOT_SATISFIED: Final = re.compile(
    r"Could not find a version that satisfies the requirement (?P<requirement>\S+)"
    r"(?: \(from [^)]*\))? \(from versions: ?(?P<versions>[^)]*)\)"
)
_NAME: Final = re.compile(r"[A-Za-z0-9][\w.-]*?(?=[=<>!~;\[ ]|$)")


@dataclass(frozen=True)
class Resolution:
    """What the resolver answered.

    Attributes:
        tool: ``uv`` or ``pip``.
        resolved: ``(name, version)`` of every package the install would use (when it can).
        failed: The resolver found no way to install the requirements from the folder.
        unchecked: The tool gave no answer about the folder (it failed to run, a usage error).
        missing: Names the resolver found nothing usable of (no wheel at all, or none for the
            target); :func:`.wheel_folder.judge` tells which from the folder's files.
        message: The resolver's own reason, one line (or why there is no answer).
    """

    tool: str
    resolved: tuple[tuple[str, str], ...] = ()
    failed: bool = False
    unchecked: bool = False
    missing: tuple[str, ...] = ()
    message: str = ""


def uv_python_platform(platforms: Sequence[str]) -> str | None:
    """The ``--python-platform`` uv takes for the target's platform tags; None when uv has no such target.

    A glibc between the levels uv knows takes the next lower one (a manylinux_2_30 machine runs
    manylinux_2_28 wheels, PEP 600).

    >>> uv_python_platform(["linux_x86_64", "manylinux_2_36_x86_64", "manylinux_2_35_x86_64"])
    'x86_64-manylinux_2_36'
    >>> uv_python_platform(["manylinux_2_30_aarch64"]), uv_python_platform(["win_amd64"])
    ('aarch64-manylinux_2_28', 'x86_64-pc-windows-msvc')
    """
    for platform in platforms:
        if match := re.fullmatch(r"manylinux_2_(\d+)_(x86_64|aarch64)", platform):
            known = [level for level in _UV_MANYLINUX if level <= int(match.group(1))]
            return f"{match.group(2)}-manylinux_2_{known[-1]}" if known else None
        if match := re.fullmatch(r"musllinux_\d+_\d+_(x86_64|aarch64)", platform):
            return f"{match.group(1)}-unknown-linux-musl"
        windows = {
            "win_amd64": "x86_64-pc-windows-msvc",
            "win_arm64": "aarch64-pc-windows-msvc",
            "win32": "i686-pc-windows-msvc",
        }
        if platform in windows:
            return windows[platform]
        if match := re.fullmatch(r"macosx_\d+_\d+_(arm64|x86_64|universal2)", platform):
            return "x86_64-apple-darwin" if match.group(1) == "x86_64" else "aarch64-apple-darwin"
    return None


def uv_compile_argv(
    uv: str, folder: str, requirements_file: str, target: WheelTarget, interpreter: str | None
) -> list[str]:
    """``uv pip compile`` of ``requirements_file`` against ``folder`` alone, for ``target``.

    ``--no-config`` keeps a ``uv.toml`` or ``pyproject.toml`` from adding indexes; ``--python``
    names an interpreter for uv to start from (it needs one even when ``--python-version``
    sets the version resolved for).
    """
    argv = [uv, "pip", "compile", "--no-config", "--offline", "--no-index", "--no-build"]
    argv += ["--find-links", folder, "--python-version", target.python]
    platform = uv_python_platform(target.platforms)
    if platform is not None:
        argv += ["--python-platform", platform]
    if interpreter is not None:
        argv += ["--python", interpreter]
    return [*argv, "--no-header", "--no-annotate", "--quiet", requirements_file]


#: Variables for uv: no colours in what is parsed; never download a Python for a check
#: (docs.astral.sh/uv/reference/environment/, NO_COLOR and UV_PYTHON_DOWNLOADS).
UV_ENV: Final = {"NO_COLOR": "1", "UV_PYTHON_DOWNLOADS": "never"}


def pip_report_argv(
    python: str, folder: str, target_dir: str, target: WheelTarget, requirements: Sequence[str]
) -> list[str]:
    """``python -m pip install --dry-run --report -`` against ``folder`` alone, for ``target``."""
    argv = [python, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet"]
    argv += ["--target", target_dir, "--no-index", "--find-links", folder, "--only-binary=:all:"]
    argv += ["--python-version", target.python, "--implementation", "cp", "--abi", target.interpreter]
    for platform in target.platforms:
        argv += ["--platform", platform]
    return [*argv, "--report", "-", *requirements]


def _first_reason(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in lines:
        if line.startswith("cause:"):
            return line.removeprefix("cause:").strip()
    for line in lines:
        if line.startswith(("error:", "ERROR:")):
            return line.split(":", 1)[1].strip()
    return lines[0] if lines else ""


def read_uv_compile(returncode: int, stdout: str, stderr: str, *, windows: bool = False) -> Resolution:
    r"""The answer of :func:`uv_compile_argv`'s command (``windows``: it ran there; a crash's status reads so).

    >>> read_uv_compile(0, "filelock==3.16.1\ntorch==2.13.0+cpu\n", "").resolved
    (('filelock', '3.16.1'), ('torch', '2.13.0+cpu'))
    >>> err = ("error: No solution found when resolving dependencies\n"
    ...        "  cause: Because filelock was not found in the provided package locations and ...")
    >>> read_uv_compile(1, "", err).missing
    ('filelock',)
    """
    if returncode == 0:
        pins = [
            (match.group("name"), match.group("version"))
            for line in stdout.splitlines()
            if (match := _UV_PIN.match(line.strip()))
        ]
        return Resolution("uv", resolved=tuple(pins))
    if returncode == 1 and "No solution found" in stderr:
        names = [match.group("name") for match in _UV_NOT_FOUND.finditer(stderr)]
        names += [match.group("name") for match in _UV_NO_WHEELS.finditer(stderr)]
        return Resolution(
            "uv", failed=True, missing=tuple(dict.fromkeys(names)), message=_first_reason(stderr)
        )
    return Resolution(
        "uv",
        unchecked=True,
        message=_first_reason(stderr) or f"uv exited with {status_text(returncode, windows=windows)}",
    )


def read_pip_report(returncode: int, stdout: str, stderr: str, *, windows: bool = False) -> Resolution:
    """The answer of :func:`pip_report_argv`'s command (``windows``: it ran there; a crash's status reads so).

    >>> read_pip_report(1, "", "ERROR: Could not find a version that satisfies the requirement filelock "
    ...                 "(from torch) (from versions: none)").missing
    ('filelock',)
    """
    if returncode == 0:
        try:
            report = json.loads(stdout)
            pins = [
                (str(item["metadata"]["name"]), str(item["metadata"]["version"]))
                for item in report.get("install", [])
            ]
        except (ValueError, KeyError, TypeError, AttributeError):
            return Resolution("pip", unchecked=True, message="pip's report could not be read")
        return Resolution("pip", resolved=tuple(pins))
    found = list(_PIP_NOT_SATISFIED.finditer(stderr))
    if found:
        names = []
        for match in found:
            name = _NAME.match(match.group("requirement"))
            if name and match.group("versions").strip() in ("", "none"):
                names.append(name.group(0))
        return Resolution(
            "pip", failed=True, missing=tuple(dict.fromkeys(names)), message=_first_reason(stderr)
        )
    return Resolution(
        "pip",
        unchecked=True,
        message=_first_reason(stderr) or f"pip exited with {status_text(returncode, windows=windows)}",
    )
