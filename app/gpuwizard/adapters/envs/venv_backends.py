"""venv environments made by uv (the default: it ships as a wheel) or by ``venv`` + pip."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final

from gpuwizard.adapters.envs.base import Command, CondaSpec, PackageSource, env_interpreter, pip_source_args
from gpuwizard.adapters.envs.env_files import write_venv_variables
from gpuwizard.core.envs.conda_channels import ChannelRefused
from gpuwizard.core.envs.package_sources import INDEX_VARIABLES
from gpuwizard.core.secret_formats import url_has_secret

if TYPE_CHECKING:
    from gpuwizard.adapters.runner import Runner

# pip's output is a log, not a terminal: no progress bars redrawn with \r, no colour, and no
# "a new release of pip is available" notice (pip.pypa.io/en/stable/cli/pip/#general-options).
_PIP_QUIET_UI: Final = ("--progress-bar", "off", "--no-color", "--disable-pip-version-check")
#: A Python version as the plan names it (``3.13``), not a path.
_VERSION: Final = re.compile(r"\d+(\.\d+){0,2}")


class _VenvLayout:
    """What every venv shares, whichever tool made it: the folder first, variables in its scripts."""

    manager = "venv"
    marks_folder_before_create = True
    needs_pip_seed = False
    python_from_channels = False
    fetches_python = False

    def conda_channels(self, channels: Sequence[str], *, offline: bool) -> tuple[str, ...]:
        """None: a venv has no channels (it is never asked)."""
        del offline
        raise ChannelRefused(f"a venv takes no conda channels: {', '.join(channels)}")

    def envs_dir(self, runner: Runner) -> Path | None:
        """None: venvs go in the wizard's own folder."""
        del runner
        return None

    def interpreter(self, prefix: Path) -> Path:
        """The environment's Python."""
        return env_interpreter(prefix)

    def variables_command(self, prefix: Path, variables: dict[str, str]) -> Command | None:
        """None: the variables go into the venv's own activation scripts."""
        return None

    def write_variables(self, prefix: Path, variables: dict[str, str]) -> list[Path]:
        """Set them in every activation script the venv has (none named in the log)."""
        write_venv_variables(prefix, variables)
        return []


class UvBackend(_VenvLayout):
    """uv: ``uv venv`` then ``uv pip install`` (docs.astral.sh/uv/pip/environments/).

    ``uv venv`` makes environments without pip (docs.astral.sh/uv/pip/environments/), which
    people expect inside and which reads the constraints file: it is added afterwards.
    """

    tool = "uv"
    needs_pip_seed = True
    # uv fetches a managed CPython build when none is installed
    # (docs.astral.sh/uv/concepts/python-versions/#automatic-python-downloads).
    fetches_python = True

    def __init__(self, uv: str) -> None:
        self.uv = uv

    def create_command(self, prefix: Path, python: str, source: PackageSource, conda: CondaSpec) -> Command:
        """``uv venv --python PYTHON PREFIX``; a version instead of a path lets uv fetch that Python.

        ``--no-config`` keeps a project's ``uv.toml`` from changing the result. uv downloads a
        managed Python only where the wizard planned it, named it and asked its host first: for
        a version (none is installed here, ``workflow/envs/prepare.py``). Given an installed
        interpreter's path, or offline, it is forbidden to download any
        (``--no-python-downloads``, and UV_PYTHON_DOWNLOADS=never for a uv that reads only the
        variable: docs.astral.sh/uv/reference/environment/), so that it uses that interpreter or fails.
        """
        _refuse_conda_packages(conda)
        # --allow-existing: the folder already holds the wizard's marker (workflow/envs/ownership.py),
        # written before anything else so a kill at any instant leaves a folder it can prove is its.
        argv = [self.uv, "venv", "--no-config", "--allow-existing", "--python", python, str(prefix)]
        env = {"NO_COLOR": "1"}
        if source.offline or not is_python_version(python):
            argv.insert(2, "--no-python-downloads")
            env["UV_PYTHON_DOWNLOADS"] = "never"
        if source.offline:
            argv.insert(2, "--offline")
        return Command(tuple(argv), "create", env)

    def install_command(
        self, prefix: Path, requirements: Sequence[str], source: PackageSource, constraints: Path | None
    ) -> Command:
        """``uv pip install --python ENV_PYTHON ...`` with the plan's index or only the local folder.

        On the command line, uv's options win over its UV_* variables, so a machine-wide
        ``UV_INDEX_URL`` or ``UV_FIND_LINKS`` cannot add a source. The person's mirror (of
        PyTorch's index or of PyPI, ``core/envs/package_sources.py``) is named the same way:
        ``--no-config`` keeps uv from reading one from a uv.toml, so it comes as an option.
        An index URL with a login or a token comes as ``UV_DEFAULT_INDEX`` instead, out of the
        command line that every user can read (docs.astral.sh/uv/reference/environment/; uv
        reads it despite ``--no-config``, and prefers it to a machine-wide ``UV_INDEX_URL``).
        """
        argv = [self.uv, "pip", "install", "--no-config", "--python", str(self.interpreter(prefix))]
        env = {"NO_COLOR": "1"}
        if source.offline:
            argv += ["--offline", "--no-index"]
        elif source.index and url_has_secret(source.index):
            env[INDEX_VARIABLES["uv"]] = source.index
        elif source.index:
            argv += ["--index-url", source.index]
        if source.find_links is not None:
            argv += ["--find-links", str(source.find_links)]
        if constraints is not None:
            argv += ["--constraint", str(constraints)]
        return Command((*argv, *requirements), "install", env)


class PipBackend(_VenvLayout):
    """The standard library's ``venv`` (with pip, from ensurepip, so it works offline) and pip."""

    tool = "pip"

    def create_command(self, prefix: Path, python: str, source: PackageSource, conda: CondaSpec) -> Command:
        """``PYTHON -m venv PREFIX``: ``python`` must be an interpreter path here."""
        _refuse_conda_packages(conda)
        return Command((python, "-m", "venv", str(prefix)), "create")

    def install_command(
        self, prefix: Path, requirements: Sequence[str], source: PackageSource, constraints: Path | None
    ) -> Command:
        """``ENV_PYTHON -m pip install ...`` with the plan's index or only the local folder."""
        return pip_install_command(self.interpreter(prefix), requirements, source, constraints)


def pip_install_command(
    python: Path, requirements: Sequence[str], source: PackageSource, constraints: Path | None
) -> Command:
    """Install with pip run by the environment's own interpreter (so it installs there, whatever PATH says)."""
    args, env = pip_source_args(source)
    argv = [str(python), "-m", "pip", "install", *_PIP_QUIET_UI, *args]
    if constraints is not None:
        argv += ["--constraint", str(constraints)]
    return Command((*argv, *requirements), "install", env)


def is_python_version(python: str) -> bool:
    """Whether ``python`` is a version (``3.13``) for uv to find or fetch, rather than an interpreter's path.

    >>> is_python_version("3.13"), is_python_version("/usr/bin/python3.13")
    (True, False)
    """
    return _VERSION.fullmatch(python) is not None


def _refuse_conda_packages(conda: CondaSpec) -> None:
    # Conda-only packages (cudatoolkit, cudnn from conda-forge) have no pip equivalent for
    # the old TensorFlow builds; a venv plan never carries them, so this is a caller's bug.
    if conda.packages and any(not package.startswith("python=") for package in conda.packages):
        raise ValueError(f"a venv cannot install conda packages: {', '.join(conda.packages)}")
