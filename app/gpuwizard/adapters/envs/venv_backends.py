"""venv environments made by uv (the default: it ships as a wheel) or by ``venv`` + pip."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Final

from gpuwizard.adapters.envs.base import Command, CondaSpec, PackageSource, env_interpreter, pip_source_args
from gpuwizard.core.envs.package_sources import INDEX_VARIABLES
from gpuwizard.core.secret_formats import url_has_secret

# pip's output is a log, not a terminal: no progress bars redrawn with \r, no colour, and no
# "a new release of pip is available" notice (pip.pypa.io/en/stable/cli/pip/#general-options).
_PIP_QUIET_UI: Final = ("--progress-bar", "off", "--no-color", "--disable-pip-version-check")


class UvBackend:
    """uv: ``uv venv`` then ``uv pip install`` (docs.astral.sh/uv/pip/environments/)."""

    manager = "venv"
    tool = "uv"

    def __init__(self, uv: str) -> None:
        self.uv = uv

    def create_command(self, prefix: Path, python: str, source: PackageSource, conda: CondaSpec) -> Command:
        """``uv venv --python PYTHON PREFIX``; a version instead of a path lets uv fetch that Python.

        ``--no-config`` keeps a project's ``uv.toml`` from changing the result; offline, uv is
        forbidden to download a managed Python (UV_PYTHON_DOWNLOADS, docs.astral.sh/uv/reference/environment/).
        """
        _refuse_conda_packages(conda)
        # --allow-existing: the folder already holds the wizard's marker (workflow/envs/ownership.py),
        # written before anything else so a kill at any instant leaves a folder it can prove is its.
        argv = [self.uv, "venv", "--no-config", "--allow-existing", "--python", python, str(prefix)]
        env = {"NO_COLOR": "1"}
        if source.offline:
            argv.insert(2, "--offline")
            env["UV_PYTHON_DOWNLOADS"] = "never"
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

    def interpreter(self, prefix: Path) -> Path:
        """The environment's Python."""
        return env_interpreter(prefix)


class PipBackend:
    """The standard library's ``venv`` (with pip, from ensurepip, so it works offline) and pip."""

    manager = "venv"
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

    def interpreter(self, prefix: Path) -> Path:
        """The environment's Python."""
        return env_interpreter(prefix)


def pip_install_command(
    python: Path, requirements: Sequence[str], source: PackageSource, constraints: Path | None
) -> Command:
    """Install with pip run by the environment's own interpreter (so it installs there, whatever PATH says)."""
    args, env = pip_source_args(source)
    argv = [str(python), "-m", "pip", "install", *_PIP_QUIET_UI, *args]
    if constraints is not None:
        argv += ["--constraint", str(constraints)]
    return Command((*argv, *requirements), "install", env)


def _refuse_conda_packages(conda: CondaSpec) -> None:
    # Conda-only packages (cudatoolkit, cudnn from conda-forge) have no pip equivalent for
    # the old TensorFlow builds; a venv plan never carries them, so this is a caller's bug.
    if conda.packages and any(not package.startswith("python=") for package in conda.packages):
        raise ValueError(f"a venv cannot install conda packages: {', '.join(conda.packages)}")
