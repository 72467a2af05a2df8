"""The interface every environment backend offers, and what they share.

A backend turns "make an environment at this folder with this Python" and "install these
requirements from this source" into argv lists; the workflow runs them through the streaming
runner (so progress, cancel and logs work the same for every tool) and rolls back on failure.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from gpuwizard.core.envs.package_sources import INDEX_VARIABLES
from gpuwizard.core.secret_formats import url_has_secret

if TYPE_CHECKING:
    from gpuwizard.adapters.runner import Runner


@dataclass(frozen=True)
class PackageSource:
    """Where packages come from.

    Attributes:
        index_url: The plan's index (the PyTorch ``cuXXX`` index, or the person's mirror of it),
            None for the default one.
        find_links: A local folder of wheels, looked at first (or only, when offline).
        offline: Nothing is fetched from any index: only ``find_links`` is used.
        default_index_url: The person's mirror of PyPI (``core/envs/package_sources.py``), used
            where the default index would be; None: the tool's own default, PyPI.
    """

    index_url: str | None = None
    find_links: Path | None = None
    offline: bool = False
    default_index_url: str | None = None

    @property
    def index(self) -> str | None:
        """The one index the install is given: the plan's, else the PyPI mirror (None: PyPI)."""
        return self.index_url or self.default_index_url


@dataclass(frozen=True)
class Command:
    """One tool run: its argv, the variables it needs, and what it is for (a phase name).

    ``output`` names the parser of its output lines (``core/envs/tool_output.py`` TOOLS) when
    the program's name does not tell it: the py-rattler engine runs as ``python -m ...``.

    Nothing secret goes into ``argv``: every user of the machine can read a process's command
    line (``ps``, ``/proc/PID/cmdline``), while its environment (``/proc/PID/environ``) is
    readable only by its owner. An index or channel URL that carries a login or a token is
    handed over in ``env`` instead (:func:`pip_source_args`, the backends), and a log shows the
    command with :func:`~gpuwizard.core.envs.package_sources.masked_command`.
    """

    argv: tuple[str, ...]
    phase: str
    env: Mapping[str, str] = field(default_factory=dict)
    output: str | None = None


@dataclass(frozen=True)
class CondaSpec:
    """What a conda-family environment is created with (``python=3.10``, ``cudnn=8.1.0``...)."""

    packages: tuple[str, ...]
    channels: tuple[str, ...] = ()


class EnvBackend(Protocol):
    """Creates environments and installs into them, as argv lists for the runner."""

    #: ``venv`` or ``conda``: the contract's ``manager``.
    manager: str
    #: The tool that does the work: ``uv``, ``pip``, ``conda``, ``mamba``, ``micromamba`` or
    #: ``rattler`` (py-rattler, inside the wizard).
    tool: str
    #: Whether the folder is made and marked before the tool writes into it: a venv tool writes
    #: into a folder that exists, so a kill at any later instant leaves a folder that provably
    #: is this run's. conda, mamba, micromamba and py-rattler take only an absent or empty
    #: folder: theirs is marked once made (and, until then, is the run's by its locks).
    marks_folder_before_create: bool
    #: Whether pip has to be added once the environment is made (``uv venv`` makes none).
    needs_pip_seed: bool
    #: Whether its Python comes from its channels (conda-format) rather than an installed one.
    python_from_channels: bool
    #: Whether it fetches a Python of the plan's version when none is installed (uv does).
    fetches_python: bool

    def conda_channels(self, channels: Sequence[str], *, offline: bool) -> tuple[str, ...]:
        """The channels as this tool is given them (conda-format tools only).

        Raises:
            ChannelRefused: A channel this tool cannot take (or not privately, or not offline).
        """
        ...

    def envs_dir(self, runner: Runner) -> Path | None:
        """Where the tool puts named environments; None: the wizard's own folder."""
        ...

    def create_command(self, prefix: Path, python: str, source: PackageSource, conda: CondaSpec) -> Command:
        """The command that makes an empty environment at ``prefix``.

        ``python`` is an interpreter path (venv), or a version for the tool to fetch.
        """
        ...

    def install_command(
        self, prefix: Path, requirements: Sequence[str], source: PackageSource, constraints: Path | None
    ) -> Command:
        """The command that installs ``requirements`` into the environment at ``prefix``."""
        ...

    def interpreter(self, prefix: Path) -> Path:
        """The environment's Python."""
        ...

    def variables_command(self, prefix: Path, variables: dict[str, str]) -> Command | None:
        """The command that makes activation set ``variables``; None when files are written instead."""
        ...

    def write_variables(self, prefix: Path, variables: dict[str, str]) -> list[Path]:
        """Make activation set ``variables`` by writing files; the ones the log names.

        The variables' own scripts are not named; scripts of the wizard's that activate the
        environment where no conda does (py-rattler's) are.
        """
        ...


def env_interpreter(prefix: Path, *, windows: bool | None = None, conda: bool = False) -> Path:
    r"""Where an environment's Python lives.

    venv puts it in ``Scripts\\python.exe`` on Windows; conda puts it at the prefix's top.
    """
    windows = sys.platform == "win32" if windows is None else windows
    if windows:
        return prefix / "python.exe" if conda else prefix / "Scripts" / "python.exe"
    return prefix / "bin" / "python"


def pip_source_args(source: PackageSource) -> tuple[list[str], dict[str, str]]:
    """The pip options and variables for ``source``.

    Offline, the user's and the machine's pip configuration is skipped (PIP_CONFIG_FILE set to
    the null device, pip.pypa.io/en/stable/topics/configuration/#environment-variables) so a
    find-links or index from there cannot add a source; ``--no-index`` overrides any index
    variable, and ``PIP_FIND_LINKS`` is set to the folder so a machine-wide value is replaced.
    Online the index is named on the command line, the person's mirror included, so the
    command in the log is the command that ran; but an index URL that carries a login or a
    token goes in ``PIP_INDEX_URL`` instead, which pip reads as it reads ``--index-url`` (and
    before its configuration files: pip.pypa.io/en/stable/topics/configuration/#environment-variables),
    so that no other user of the machine reads it on pip's command line.
    """
    args: list[str] = []
    env: dict[str, str] = {}
    if source.offline:
        args += ["--no-index"]
        env["PIP_CONFIG_FILE"] = os.devnull
        env["PIP_NO_INDEX"] = "1"
    elif source.index and url_has_secret(source.index):
        env[INDEX_VARIABLES["pip"]] = source.index
    elif source.index:
        args += ["--index-url", source.index]
    if source.find_links is not None:
        args += ["--find-links", str(source.find_links)]
        env["PIP_FIND_LINKS"] = str(source.find_links)
    return args, env
