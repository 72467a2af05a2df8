"""Everything checked before an environment is made: name, folder, tool, interpreter, free space.

:func:`prepare_environment` decides how the plan's environment will be made on this machine
and changes nothing; what it refuses is bad input (exit code 2), said in one line.
:mod:`.create` then makes it.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final
from urllib.parse import urlsplit
from urllib.request import url2pathname

from gpuwizard.adapters.envs.base import CondaSpec, EnvBackend, PackageSource
from gpuwizard.adapters.envs.conda import CondaBackend
from gpuwizard.adapters.envs.rattler_backend import RattlerBackend
from gpuwizard.adapters.envs.venv_backends import PipBackend, UvBackend
from gpuwizard.adapters.index_check import IndexProbe, probe_download_from_environment, probe_from_environment
from gpuwizard.adapters.index_settings import read_index_settings
from gpuwizard.adapters.python_downloads import NoPythonBuild, find_python_download
from gpuwizard.adapters.runner import Runner, StreamingRunner, SubprocessRunner
from gpuwizard.adapters.wizard_program import wizard_command
from gpuwizard.core.compat.plan import Plan
from gpuwizard.core.envs.conda_channels import ChannelRefused, check_channels
from gpuwizard.core.envs.names import EnvNameError, check_env_name
from gpuwizard.core.envs.package_sources import IndexSettings, MirrorRefused, PlanSources
from gpuwizard.core.envs.python_download import PythonDownload, host_of, provide_python
from gpuwizard.core.envs.request import ENV_TOOLS, TOOL_MANAGERS, VENV_TOOLS, SetupRequest
from gpuwizard.core.envs.space import required_bytes, space_message
from gpuwizard.core.envs.variables import GpuSelectionError, activation_variables
from gpuwizard.core.machine.conda_engines import (
    DEFAULT_CONDA_CHANNELS,
    RATTLER_ENGINE,
    conda_engine,
)
from gpuwizard.core.machine.system_report import ManagerFacts, PythonFacts, SystemReport
from gpuwizard.workflow.envs.index_check import sources_for, this_family
from gpuwizard.workflow.envs.ownership import read_marker, same_folder
from gpuwizard.workflow.state.env_pending import being_made
from gpuwizard.workflow.state.env_registry import EnvRecord, find_record, find_record_by_id
from gpuwizard.workflow.state.home import wizard_home

#: py-rattler (issue 23): the conda engine inside the wizard, for machines without conda.
RATTLER: Final = RATTLER_ENGINE


class SetupRefused(ValueError):
    """The request cannot be carried out on this machine; nothing was changed (one line, exit code 2)."""


@dataclass(frozen=True)
class EnvTools:
    """What creation works with: the runner, what detection found, and how indexes are read and asked.

    Attributes:
        runner: Runs the tools.
        interpreters, managers: What detection found.
        disk_free: Free bytes at a folder.
        index_settings: The machine's index settings (mirrors: ``adapters/index_settings.py``).
        index_probe: Asks an index whether it answers (``adapters/index_check.py``; it asks
            nothing when ``GPUWIZARD_NO_INDEX_CHECK=1``, as in the tests).
        download_probe: Asks for a file as a download of it starts, its redirects followed (the
            Python build uv downloads; the same variable turns it off).
    """

    runner: StreamingRunner
    interpreters: Sequence[PythonFacts]
    managers: ManagerFacts
    disk_free: Callable[[Path], int] = field(default=lambda path: shutil.disk_usage(path).free)
    index_settings: Callable[[], IndexSettings] = field(default=read_index_settings)
    index_probe: IndexProbe = field(default=probe_from_environment)
    download_probe: IndexProbe = field(default=probe_download_from_environment)


@dataclass(frozen=True)
class PreparedEnv:
    """A checked request: everything :func:`create_environment` needs, decided."""

    request: SetupRequest
    plan: Plan
    backend: EnvBackend
    prefix: Path
    python: str
    python_note: str
    variables: Mapping[str, str]
    source: PackageSource
    requirements: tuple[str, ...]
    sources: PlanSources | None = None
    conda: CondaSpec = field(default_factory=lambda: CondaSpec(()))
    #: The Python build uv downloads for the environment (none of the plan's version is
    #: installed here); None when none is downloaded (``core/envs/python_download.py``).
    python_download: PythonDownload | None = None


def default_envs_dir() -> Path:
    """Where venv environments go when no ``--prefix`` is given."""
    return wizard_home() / "envs"


def prepare_environment(request: SetupRequest, plan: Plan, tools: EnvTools) -> PreparedEnv:
    """Check the request for ``plan`` and decide tool, folder and interpreter, changing nothing.

    Raises:
        SetupRefused: Anything that makes the request impossible on this machine, in one line.
    """
    manager = request.wanted_manager or plan.manager
    tool = request.tool
    if tool is not None and tool not in ENV_TOOLS:
        raise SetupRefused(f"unknown tool {tool!r} (choose {', '.join(ENV_TOOLS[:-1])} or {ENV_TOOLS[-1]})")
    if tool is not None:
        manager = TOOL_MANAGERS[tool]
    if request.channels and manager != "conda":
        raise SetupRefused("--channel is for conda environments: add --manager conda")
    try:
        check_env_name(request.name, manager=manager)
        variables = activation_variables(plan.framework, plan.cpu_only, request.gpus, plan.device)
        if manager == "conda":
            # A `channel::package` spec names its channel too (docs.conda.io match specifications).
            named = [package.split("::", 1)[0] for package in plan.conda_packages if "::" in package]
            check_channels([*plan.conda_channels, *named])
    except (EnvNameError, GpuSelectionError, ChannelRefused) as error:
        raise SetupRefused(str(error)) from None
    if request.offline and request.find_links is None:
        raise SetupRefused("--offline needs --find-links DIR: the folder of wheels to install from")
    if request.find_links is not None and not request.find_links.is_dir():
        raise SetupRefused(f"{request.find_links}: no such folder of wheels")
    backend = _backend(manager, tool, tools.managers)
    conda = _conda_spec(request, plan, backend) if manager == "conda" else CondaSpec(())
    prefix = _prefix(request, backend, tools)
    check_target(request, prefix)
    python, python_note, python_download = _interpreter(backend, plan.python, tools, request.offline, conda)
    find_links = request.find_links.resolve() if request.find_links else None
    try:
        sources = sources_for(
            plan,
            tool=backend.tool if backend.tool in VENV_TOOLS else "pip",
            find_links=find_links,
            offline=request.offline,
            settings=tools.index_settings(),
        )
    except MirrorRefused as error:
        raise SetupRefused(str(error)) from None
    # The indexes as they will be used: a mirror replaces PyTorch's index or PyPI.
    source = PackageSource(
        index_url=sources.pytorch_index or plan.index_url,
        find_links=find_links,
        offline=request.offline,
        default_index_url=sources.default_index,
    )
    requirements = (
        *plan.requirements,
        *request.extra_requirements,
        *(("ipykernel",) if request.jupyter else ()),
    )
    local = (
        [wheel.stat().st_size for wheel in source.find_links.glob("*.whl")]
        if source.offline and source.find_links
        else None
    )
    # A CUDA build used on the CPU (PyPI's Linux torch on a machine without a GPU) is as large as on a GPU.
    needed = required_bytes(plan.framework, plan.cpu_build, local)
    where = existing_parent(prefix)
    free = tools.disk_free(where)
    if free < needed:
        raise SetupRefused(space_message(needed, free, str(where)))
    return PreparedEnv(
        request=request,
        plan=plan,
        backend=backend,
        prefix=prefix,
        python=python,
        python_note=python_note,
        variables=variables,
        source=source,
        requirements=requirements,
        sources=sources,
        conda=conda,
        python_download=python_download,
    )


def _conda_spec(request: SetupRequest, plan: Plan, backend: EnvBackend) -> CondaSpec:
    """The plan's conda packages and the channels they come from.

    Channels the person gives replace the plan's, as ``conda create --override-channels -c``
    does (docs.conda.io, conda create): a local channel or a lab's mirror of conda-forge is
    used instead of conda-forge, not beside it (``--channel DIR --channel conda-forge`` for
    both). Offline, py-rattler needs them local: the counterpart of ``--no-index
    --find-links`` (conda, mamba and micromamba also have their package cache offline).
    """
    given = tuple(local_channel(channel) for channel in request.channels)
    if request.offline and not given and backend.tool == RATTLER:
        raise SetupRefused("--offline with conda needs --channel DIR: a local conda channel to install from")
    channels = given or plan.conda_channels or DEFAULT_CONDA_CHANNELS
    try:
        channels = backend.conda_channels(channels, offline=request.offline)
    except ChannelRefused as error:
        raise SetupRefused(str(error)) from None
    return CondaSpec(plan.conda_packages, tuple(dict.fromkeys(channels)))


def local_channel(channel: str) -> str:
    """A channel as given: a folder (made a ``file://`` URL), a URL, or ``conda-forge``.

    A local channel must be indexed: a conda channel always has ``noarch/repodata.json``
    (docs.conda.io, "Channels and generating an index"; ``conda index``, ``rattler-index``).

    Raises:
        SetupRefused: Not a folder, URL or conda-forge, or a folder that is not an indexed channel.
    """
    parts = urlsplit(channel)
    if len(parts.scheme) > 1 and parts.scheme != "file":  # one letter: a Windows drive, C:\...
        return channel
    if not parts.scheme and "/" not in channel and "\\" not in channel and not Path(channel).exists():
        return channel  # a channel's name (conda-forge); the engine or conda judges it
    folder = Path(url2pathname(parts.path)) if parts.scheme == "file" else Path(channel).expanduser()
    if not folder.is_dir():
        raise SetupRefused(f"{channel}: no such conda channel folder")
    if not (folder / "noarch" / "repodata.json").is_file():
        raise SetupRefused(
            f"{channel}: not an indexed conda channel (no noarch/repodata.json; index it with "
            "`conda index` or `rattler-index fs`)"
        )
    return folder.resolve().as_uri()


def _backend(manager: str, tool: str | None, managers: ManagerFacts) -> EnvBackend:
    if manager == "venv":
        if tool == "pip":
            return PipBackend()
        if managers.uv:
            return UvBackend(managers.uv)
        if tool == "uv":
            raise SetupRefused("uv was not found (it comes with the wizard: reinstall it, or use --tool pip)")
        return PipBackend()
    return _conda_backend(tool, managers)


def _conda_backend(tool: str | None, managers: ManagerFacts) -> EnvBackend:
    """The tool asked for, else the engine the plan named (core/machine/conda_engines.py).

    Without conda, mamba or micromamba, py-rattler inside the wizard makes the same
    conda-format environment; ``--tool rattler`` uses it even where conda is installed.
    """
    if tool is not None and tool != RATTLER and not getattr(managers, tool):
        raise SetupRefused(f"{tool} was not found on this machine (--tool rattler needs none)")
    engine = tool or conda_engine(managers)
    if engine == RATTLER:
        return RattlerBackend()
    return CondaBackend(getattr(managers, engine), engine)


def _prefix(request: SetupRequest, backend: EnvBackend, tools: EnvTools) -> Path:
    if request.prefix is not None:
        return request.prefix.expanduser().resolve()
    envs = backend.envs_dir(tools.runner)
    if envs is not None:
        return envs / request.name
    return (default_envs_dir() / request.name).resolve()


def check_target(request: SetupRequest, prefix: Path) -> None:
    """Refuse a folder that cannot take the environment (checked again under the creation's lock).

    Only a folder the wizard can prove it made for this very name (its marker, matching the id
    of the name's entry in ``environments.json``: ``ownership.py``) may be replaced; any other
    folder that holds files is refused with what it is, and ``--replace`` is never offered for it.

    Raises:
        SetupRefused: Not a folder, holds files the wizard did not make for this name, or holds
            this name's environment (or the name is taken) and ``--replace`` was not given.
    """
    if being_made(request.name):
        raise SetupRefused(
            f"the environment {request.name!r} is being made by another gpuwizard; wait for it to finish"
        )
    existing = find_record(request.name)
    if prefix.is_symlink() or (prefix.exists() and not prefix.is_dir()):
        raise SetupRefused(f"{prefix} exists and is not a folder; choose another --prefix")
    occupied = prefix.exists() and any(prefix.iterdir())
    if occupied:
        _check_replaceable(request.name, prefix, existing)
    if (occupied or existing is not None) and not request.replace:
        where = existing.path if existing is not None else str(prefix)
        raise SetupRefused(
            f"an environment {request.name!r} already exists at {where} (add --replace to replace it)"
        )


def _check_replaceable(name: str, prefix: Path, existing: EnvRecord | None) -> None:
    """Refuse an occupied folder unless it is the wizard's environment of this name."""
    marker = read_marker(prefix, "environment")
    owner = find_record_by_id(marker.id) if marker is not None else None
    # Made for this folder (not a marker copied from another) and under the entry's own name.
    if (
        marker is not None
        and owner is not None
        and same_folder(owner.path, prefix)
        and same_folder(marker.place, prefix)
        and marker.name == owner.name
    ):
        if owner.name != name:
            raise SetupRefused(
                f"{prefix} holds the wizard's environment {owner.name!r}; remove it first "
                f"({wizard_command().run('env', 'remove', owner.name)}) or choose another --prefix"
            )
        return
    if existing is not None and same_folder(existing.path, prefix) and not existing.id:
        raise SetupRefused(
            f"{prefix} was made by an earlier version of the wizard, without the marker that proves it: "
            "it is never deleted; remove the folder yourself if you no longer need it, or choose another --prefix"
        )
    raise SetupRefused(f"{prefix} {_what_it_holds(prefix)}; it is not replaced: choose another --prefix")


def _what_it_holds(prefix: Path) -> str:
    """What a folder the wizard did not make is, in the words of the refusal."""
    if (prefix / "conda-meta").is_dir():
        kind = "a conda installation" if (prefix / "envs").is_dir() else "a conda environment"
        return f"is {kind} the wizard did not make (conda-meta)"
    if (prefix / "pyvenv.cfg").is_file():
        return "is a Python environment the wizard did not make (pyvenv.cfg)"
    return "holds files that are not an environment the wizard made"


def _interpreter(
    backend: EnvBackend, version: str, tools: EnvTools, offline: bool, conda: CondaSpec
) -> tuple[str, str, PythonDownload | None]:
    """The Python for the environment: a found interpreter of the plan's minor version.

    A conda environment's comes from its channels (``conda``). Base interpreters come before
    ones inside other environments (a venv made from a venv breaks when the first one is
    removed); 32-bit and Microsoft Store builds are left out (findings PYTHON_32BIT,
    MS_STORE_PYTHON). With none, uv downloads one (online): which build, and from where, is
    asked of uv now, so that the preview names the host and the check asks it (issue 37, point 6).
    Returns the interpreter's path (or the version uv downloads), the note the log shows, and
    the download (None when none is).
    """
    if backend.python_from_channels:
        note = "; no conda needed" if backend.tool == RATTLER else ""
        return version, f"Python {version} from {', '.join(conda.channels)}{note}", None
    matching = usable_interpreters(tools.interpreters, version)
    if matching:
        chosen = matching[0]
        return chosen.executable, f"Python {chosen.version} at {chosen.executable}", None
    provide = provide_python(version, family=this_family(), uv=tools.managers.uv)
    if backend.fetches_python and isinstance(backend, UvBackend) and not offline:
        try:
            download = find_python_download(backend.uv, version, tools.runner)
        except NoPythonBuild:
            # `uv python install` has no such build either: only the other ways are said.
            others = provide_python(version, family=this_family(), uv=None)
            raise SetupRefused(
                f"no 64-bit Python {version} was found, and uv has no Python {version} build to download: "
                f"install it first ({others}), then run this again"
            ) from None
        return (
            version,
            f"uv downloads Python {version} from {host_of(download.url)}: none is installed",
            download,
        )
    if offline:
        raise SetupRefused(
            f"no 64-bit Python {version} was found, and --offline downloads none: install it first "
            f"({provide}), then run this again"
        )
    uv_instead = ", or leave out --tool pip: uv then downloads one" if tools.managers.uv else ""
    raise SetupRefused(f"no 64-bit Python {version} was found: install it first ({provide}){uv_instead}")


def planned_python_download(
    report: SystemReport, plan: Plan, request: SetupRequest, runner: Runner | None = None
) -> PythonDownload | None:
    """The Python build uv will download to carry out ``request`` for ``plan`` here (None: none).

    The decision :func:`prepare_environment` makes, without its other checks, for the question
    before the wizard's Install step, which names every place the install downloads from. None
    also where uv has no such build: the install then refuses, in its own words.
    """
    manager = TOOL_MANAGERS.get(request.tool or "", request.wanted_manager or plan.manager)
    uv = report.managers.uv
    if manager != "venv" or request.offline or request.tool == "pip" or not uv:
        return None
    if usable_interpreters(report.interpreters, plan.python):
        return None
    try:
        return find_python_download(uv, plan.python, runner if runner is not None else SubprocessRunner())
    except NoPythonBuild:
        return None


def usable_interpreters(interpreters: Sequence[PythonFacts], version: str) -> list[PythonFacts]:
    """The interpreters of ``version`` (``3.13``) an environment may be made from, the best first."""
    matching = [
        python
        for python in interpreters
        if ".".join(python.version.split(".")[:2]) == version and python.bits != 32 and not python.ms_store
    ]
    matching.sort(key=lambda python: _inside_venv(Path(python.executable)))
    return matching


def _inside_venv(executable: Path) -> bool:
    return (executable.parent.parent / "pyvenv.cfg").is_file()


def existing_parent(path: Path) -> Path:
    """The nearest folder of ``path`` that exists (where free space is measured)."""
    for candidate in (path, *path.parents):
        if candidate.exists():
            return candidate
    return Path(path.anchor) if path.anchor else Path.cwd()
