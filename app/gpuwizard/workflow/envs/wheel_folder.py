"""Checking a folder of wheels against a plan before anything is made.

An offline install takes everything from one folder; when the folder lacks the plan's build or
one of its dependencies, uv fails part-way with "No solution found when resolving
dependencies". :func:`check_wheel_folder` asks the resolver first (uv, else pip; through the
runner, installing nothing: :mod:`gpuwizard.core.envs.wheel_folder_tools`), reads what the
folder holds, and returns the verdict (:class:`~gpuwizard.core.envs.wheel_folder.WheelFolderCheck`).

* The Choose page runs :func:`check_choice_folder` on a worker when a folder is picked or the
  plan changes, and shows the verdict under the folder (with the release it holds, to pick);
* :func:`refuse_unusable_folder` is the same check in :func:`gpuwizard.workflow.envs.setup.plan_setup`:
  ``env create --find-links DIR --offline``, ``apply`` with an offline folder and the Install
  page refuse a folder that lacks something before anything is created (exit code 2), with
  :class:`FolderRefused`. When the folder holds another release of the framework that the
  compatibility table knows, and the plan for that release would take its wheel, the refusal
  offers it (``--version 2.13``): a person with a folder of 2.13 need not guess (issue 41,
  point 8).
"""

from __future__ import annotations

import email.parser
import sys
import tempfile
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Final

from packaging.tags import platform_tags
from packaging.version import InvalidVersion, Version

from gpuwizard.adapters.envs.base import PackageSource, pip_source_args
from gpuwizard.adapters.runner import Runner, RunnerError, SubprocessRunner
from gpuwizard.core.compat.plan import Plan
from gpuwizard.core.compat.tables import minor_of
from gpuwizard.core.envs.wheel_folder import WheelFolderCheck, judge, plan_wants, unchecked
from gpuwizard.core.envs.wheel_folder_tools import (
    UV_ENV,
    Resolution,
    pip_report_argv,
    read_pip_report,
    read_uv_compile,
    uv_compile_argv,
)
from gpuwizard.core.envs.wheel_tags import (
    FolderWheel,
    WheelTarget,
    folder_wheels,
    generic_platforms,
    missing_in_closure,
)
from gpuwizard.core.machine.system_report import PythonFacts, SystemReport
from gpuwizard.workflow.envs.prepare import EnvTools, PreparedEnv, SetupRefused

# A resolution against a local folder takes well under a second (uv 0.13.9, torch's 190 MB
# wheel and its dependencies, this project's build machine); a minute means it hangs.
_CHECK_TIMEOUT_S: Final = 60.0
# METADATA files are a few kB (torch 2.13.0's: 9 kB); more is not a wheel's metadata.
_METADATA_LIMIT: Final = 1024 * 1024


#: The plan for another release of the same request (``2.13`` or ``2.13.0``), or None when there is none.
ReleasePlan = Callable[[str], Plan | None]


class FolderRefused(SetupRefused):
    """The offline folder cannot install the plan; nothing was changed (exit code 2).

    Its text is :meth:`WheelFolderCheck.reason`, one line; :attr:`check` holds the parts, so a
    command line can show the ways forward one command per line.
    """

    def __init__(self, check: WheelFolderCheck) -> None:
        super().__init__(check.reason())
        self.check = check


@dataclass(frozen=True)
class FolderCheckTools:
    """What the check runs: the runner, uv (when found) and interpreters for pip or for uv to start from."""

    runner: Runner = field(default_factory=SubprocessRunner)
    uv: str | None = None
    pythons: Sequence[str] = ()


def machine_platforms(report: SystemReport | None = None) -> tuple[str, ...]:
    """The platform tags an environment on this machine accepts, preferred first.

    From :func:`packaging.tags.platform_tags` (the glibc, macOS release and architecture this
    process runs on); for a saved report of another kind of machine (a preview), the common
    tags of its OS and architecture.
    """
    here = {"win32": "windows", "darwin": "darwin"}.get(sys.platform, "linux")
    if report is not None and report.os.family != here:
        return generic_platforms(report.os.family, report.os.arch)
    return tuple(platform_tags())


def folder_listing(folder: Path) -> list[tuple[str, int]]:
    """``(file name, size)`` of each ``.whl`` file in ``folder`` (pip and uv do not look in subfolders)."""
    return [
        (entry.name, entry.stat().st_size)
        for entry in folder.iterdir()
        if entry.name.endswith(".whl") and entry.is_file()
    ]


def wheel_requirements(folder: Path) -> Callable[[FolderWheel], list[str]]:
    """A reader of a wheel's ``Requires-Dist`` lines, from its ``*.dist-info/METADATA``.

    The core metadata is an RFC 822 header block (packaging.python.org, "Core metadata
    specifications"); a wheel that cannot be read counts as needing nothing (the resolver
    still judges it).
    """

    def read(wheel: FolderWheel) -> list[str]:
        try:
            with zipfile.ZipFile(folder / wheel.filename) as archive:
                names = [
                    name
                    for name in archive.namelist()
                    if name.count("/") == 1 and name.endswith(".dist-info/METADATA")
                ]
                if not names:
                    return []
                with archive.open(names[0]) as member:
                    text = member.read(_METADATA_LIMIT).decode("utf-8", errors="replace")
        except (OSError, zipfile.BadZipFile, RuntimeError, ValueError):
            return []
        return [
            str(value) for value in email.parser.HeaderParser().parsestr(text).get_all("Requires-Dist") or []
        ]

    return read


def check_wheel_folder(
    folder: Path,
    plan: Plan,
    extras: Sequence[str],
    tools: FolderCheckTools,
    platforms: Sequence[str] | None = None,
) -> WheelFolderCheck:
    """Whether ``folder`` alone can install ``plan`` (and ``extras``) for its Python on this platform.

    Installs nothing and changes nothing; a check that cannot run comes back ``unchecked``.

    Args:
        folder: The folder of wheels.
        plan: The plan; its ``python`` and ``requirements`` are checked.
        extras: What the request adds (``ipykernel`` for a Jupyter kernel, ``--with`` packages).
        tools: The runner, uv and interpreters to check with.
        platforms: The target's platform tags (default: this machine's).
    """
    target = WheelTarget(plan.python, tuple(platforms if platforms is not None else machine_platforms()))
    wants = plan_wants(plan, extras)
    try:
        wheels = folder_wheels(folder_listing(folder))
    except OSError as error:
        return unchecked(str(folder), target, wants, error.strerror or str(error))
    # Options in a requirement file would change the sources (-f, --index-url): never passed.
    requirements = [text for text in wants.requirements if not text.lstrip().startswith("-")]
    with tempfile.TemporaryDirectory(prefix="gpuwizard-wheel-check-") as scratch:
        resolution = _resolve(folder, requirements, target, tools, Path(scratch))
    missing = (
        missing_in_closure(requirements, wheels, target, wheel_requirements(folder))
        if resolution.failed
        else []
    )
    return judge(str(folder), target, wants, wheels=wheels, resolution=resolution, missing_names=missing)


def _resolve(
    folder: Path, requirements: Sequence[str], target: WheelTarget, tools: FolderCheckTools, scratch: Path
) -> Resolution:
    """The answer of uv when it can give one, else of pip (with the first interpreter that has pip)."""
    answer = Resolution("uv", unchecked=True, message="no uv and no Python with pip to check with")
    if tools.uv:
        requirements_file = scratch / "requirements.in"
        requirements_file.write_text("".join(f"{line}\n" for line in requirements), encoding="utf-8")
        interpreter = tools.pythons[0] if tools.pythons else None
        argv = uv_compile_argv(tools.uv, str(folder), str(requirements_file), target, interpreter)
        try:
            done = tools.runner.run(argv, timeout=_CHECK_TIMEOUT_S, env_overrides=UV_ENV)
        except RunnerError as error:
            answer = Resolution("uv", unchecked=True, message=str(error))
        else:
            answer = read_uv_compile(
                done.returncode, done.stdout, done.stderr, windows=sys.platform == "win32"
            )
            if not answer.unchecked:
                return answer
    # Offline pip reads no configuration file and no index (as the install itself runs it).
    _args, pip_env = pip_source_args(PackageSource(find_links=folder, offline=True))
    for python in tools.pythons:
        argv = pip_report_argv(python, str(folder), str(scratch / "target"), target, requirements)
        try:
            done = tools.runner.run(argv, timeout=_CHECK_TIMEOUT_S, env_overrides=pip_env)
        except RunnerError as error:
            answer = Resolution("pip", unchecked=True, message=str(error))
            continue
        if "No module named pip" in done.stderr:
            continue
        answer = read_pip_report(done.returncode, done.stdout, done.stderr, windows=sys.platform == "win32")
        if not answer.unchecked:
            return answer
    return answer


def _interpreters(plan: Plan, interpreters: Sequence[PythonFacts], first: str | None = None) -> list[str]:
    """Interpreters to check with: the environment's own first, then the plan's version, then any (64-bit)."""
    usable = [python for python in interpreters if python.bits != 32]
    usable.sort(key=lambda python: ".".join(python.version.split(".")[:2]) != plan.python)
    paths = [python.executable for python in usable]
    if first is not None and Path(first).is_absolute():
        paths.insert(0, first)
    return list(dict.fromkeys(paths))


def check_choice_folder(
    report: SystemReport,
    plan: Plan,
    folder: Path,
    *,
    jupyter: bool = False,
    extras: Sequence[str] = (),
    release_plan: ReleasePlan | None = None,
) -> WheelFolderCheck:
    """The Choose page's check: ``folder`` against ``plan`` on the machine ``report`` describes.

    A folder that cannot install the plan but holds another release the table plans is offered
    that release (``offer_version``), as ``env create`` offers it, when ``release_plan`` is given.
    """
    tools = FolderCheckTools(uv=report.managers.uv, pythons=_interpreters(plan, report.interpreters))
    added = (*extras, *(("ipykernel",) if jupyter else ()))
    check = check_wheel_folder(folder, plan, added, tools, machine_platforms(report))
    if check.blocks and check.found and release_plan is not None:
        check = replace(check, offer_version=release_offer(check, plan, release_plan))
    return check


def release_offer(check: WheelFolderCheck, plan: Plan, release_plan: ReleasePlan) -> str | None:
    """The ``--version`` that plans a release the folder holds instead of ``plan``'s, or None.

    The release as its minor version (``2.13``) when that plans exactly it, else in full
    (``2.12.0`` where the table's newest 2.12 is 2.12.1); only when that plan is for the same
    Python (the folder's wheels were matched to it) and takes the wheel (a CPU wheel for a GPU
    plan is no offer).
    """
    for found in check.found:
        try:
            version = Version(found)
        except InvalidVersion:
            continue
        for asked in dict.fromkeys((minor_of(version.public), version.public)):
            other = release_plan(asked)
            if (
                other is not None
                and other.python == plan.python
                and Version(other.framework_version) == Version(version.public)
                and plan_wants(other).accepts(version)
            ):
                return asked
    return None


def refuse_unusable_folder(
    prepared: PreparedEnv, tools: EnvTools, release_plan: ReleasePlan | None = None
) -> WheelFolderCheck | None:
    """Refuse an offline request whose folder cannot install the plan; None when nothing was checked.

    Only venv installs from a folder alone are checked (conda takes its packages from channels).

    Args:
        prepared: The checked request.
        tools: What the check runs with.
        release_plan: The plan for another release of the request, to offer the one the folder
            holds (None: nothing is offered).

    Raises:
        FolderRefused: The folder lacks the plan's build or a dependency, with what and how to fetch it.
    """
    source = prepared.source
    if not source.offline or source.find_links is None or prepared.backend.manager != "venv":
        return None
    extras = prepared.requirements[len(prepared.plan.requirements) :]
    check_tools = FolderCheckTools(
        runner=tools.runner,
        uv=tools.managers.uv,
        pythons=_interpreters(prepared.plan, tools.interpreters, first=prepared.python),
    )
    check = check_wheel_folder(source.find_links, prepared.plan, extras, check_tools)
    if check.blocks:
        if release_plan is not None and check.found:
            check = replace(check, offer_version=release_offer(check, prepared.plan, release_plan))
        raise FolderRefused(check)
    return check
