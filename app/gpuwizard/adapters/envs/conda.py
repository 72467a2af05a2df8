"""conda, mamba and micromamba environments: the executable is driven with argv lists.

The environment is made with ``create -p PREFIX python=X.Y [cudatoolkit cudnn] pip`` and the
framework then comes from pip inside it, as both frameworks document: PyTorch stopped
publishing to its conda channel after 2.5 (github.com/pytorch/pytorch/issues/138506) and
TensorFlow has never published official conda packages (tensorflow.org/install/pip).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from gpuwizard.adapters.envs.base import Command, CondaSpec, PackageSource, env_interpreter
from gpuwizard.adapters.envs.env_files import variables_as_written, write_conda_variables
from gpuwizard.adapters.envs.venv_backends import pip_install_command
from gpuwizard.adapters.runner import Runner, RunnerError
from gpuwizard.core.envs.conda_channels import ChannelRefused, check_channels
from gpuwizard.core.envs.package_sources import display_url
from gpuwizard.core.machine.conda_engines import CONDA_TOOLS, DEFAULT_CONDA_CHANNELS
from gpuwizard.core.secret_formats import url_has_secret

_INFO_TIMEOUT_S: Final = 60.0


def check_private_channels(channels: Sequence[str], tool: str) -> None:
    """Refuse a channel with a login or a token for conda, mamba and micromamba.

    They take channels on their command line (``-c URL``; with ``--override-channels``, which
    keeps .condarc's channels out, only there), and every user of the machine can read a
    command line (``ps``). The wizard's own engine, py-rattler, is given them privately.

    Raises:
        ChannelRefused: In one line, the channel masked, with the ways forward.
    """
    for channel in channels:
        if url_has_secret(channel):
            raise ChannelRefused(
                f"the channel {display_url(channel)} carries a login or a token, which {tool} would show "
                "to every user of this machine on its command line: use --tool rattler, which is given it "
                "privately, or a channel without one"
            )


class CondaLayout:
    """What every conda-format environment shares, whichever engine made it: pip inside installs.

    The engines take only an absent or empty folder, so it is marked once made; the variables
    go into ``etc/conda/activate.d`` scripts, which conda's activation runs.
    """

    marks_folder_before_create = False
    needs_pip_seed = False
    python_from_channels = True
    fetches_python = False

    def envs_dir(self, runner: Runner) -> Path | None:
        """None: the wizard's own folder (a conda tool says its own: :meth:`CondaBackend.envs_dir`)."""
        del runner
        return None

    def install_command(
        self, prefix: Path, requirements: Sequence[str], source: PackageSource, constraints: Path | None
    ) -> Command:
        """Install with pip inside the environment (the frameworks' documented way, see the module notes)."""
        return pip_install_command(self.interpreter(prefix), requirements, source, constraints)

    def interpreter(self, prefix: Path) -> Path:
        """The environment's Python: ``bin/python``, or ``python.exe`` at the prefix's top on Windows."""
        return env_interpreter(prefix, conda=True)

    def variables_command(self, prefix: Path, variables: dict[str, str]) -> Command | None:
        """None: the variables go into activation scripts."""
        return None

    def write_variables(self, prefix: Path, variables: dict[str, str]) -> list[Path]:
        """The activate.d and deactivate.d scripts (none named in the log)."""
        write_conda_variables(prefix, variables)
        return []


class CondaBackend(CondaLayout):
    """One of conda, mamba, micromamba, named by ``tool``."""

    manager = "conda"

    def __init__(self, executable: str, tool: str) -> None:
        if tool not in CONDA_TOOLS:
            raise ValueError(f"not a conda-family tool: {tool}")
        self.executable = executable
        self.tool = tool

    def create_command(self, prefix: Path, python: str, source: PackageSource, conda: CondaSpec) -> Command:
        """``create --yes -p PREFIX --override-channels -c CH... python=X.Y PACKAGES... pip``.

        ``python`` is the version wanted (a ``python=`` package in ``conda`` wins). conda is
        asked for ``--json`` output, whose progress records the event parser reads; mamba 2
        and micromamba print only a final document with ``--json``, so their text is read.
        """
        channels = conda.channels or DEFAULT_CONDA_CHANNELS
        check_channels(channels)
        check_private_channels(channels, self.tool)
        packages = list(conda.packages)
        if not any(package.split("=")[0] == "python" for package in packages):
            packages.insert(0, f"python={python}")
        if "pip" not in packages:
            packages.append("pip")
        argv = [self.executable, "create", "--yes", "-p", str(prefix), "--override-channels"]
        for channel in channels:
            argv += ["-c", channel]
        if self.tool == "conda":
            argv.append("--json")
        if source.offline:
            # Only packages already in the package cache (docs.conda.io, `conda create --offline`).
            argv.append("--offline")
        return Command((*argv, *packages), "create", {"CONDA_YES": "true"})

    def conda_channels(self, channels: Sequence[str], *, offline: bool) -> tuple[str, ...]:
        """The channels as given, checked.

        conda, mamba and micromamba take channels only on their command line, which every user
        of the machine can read: a channel with a login or token is refused up front.
        """
        del offline  # their package cache serves offline
        check_channels(channels)
        check_private_channels(channels, self.tool)
        return tuple(channels)

    def variables_command(self, prefix: Path, variables: dict[str, str]) -> Command | None:
        """``conda env config vars set`` (conda >= 4.8); None for mamba and micromamba.

        mamba 2 and micromamba have no ``env config vars`` (github.com/mamba-org/mamba/issues/3683),
        so for them the variables go into activate.d scripts instead (:mod:`activation`).
        """
        if self.tool != "conda" or not variables:
            return None
        # UV_CONSTRAINT as uv reads it: a folder with a space is not two files (env_files.py).
        pairs = [f"{name}={value}" for name, value in variables_as_written(variables).items()]
        return Command(
            (self.executable, "env", "config", "vars", "set", "-p", str(prefix), *pairs), "variables"
        )

    def envs_dir(self, runner: Runner) -> Path | None:
        """The folder where named environments go (``conda info --json``), None if it cannot tell."""
        try:
            done = runner.run([self.executable, "info", "--json"], timeout=_INFO_TIMEOUT_S)
        except RunnerError:
            return None
        if not done.ok:
            return None
        try:
            info = json.loads(done.stdout)
        except ValueError:
            return None
        # conda says "envs_dirs"; micromamba and mamba 2 say "envs directories".
        dirs = info.get("envs_dirs") or info.get("envs directories") or []
        if isinstance(dirs, str):
            dirs = [dirs]
        return Path(dirs[0]) if dirs else None
