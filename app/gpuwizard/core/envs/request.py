"""What a person asks the wizard to set up: one request type for ``env create``, the wizard and ``apply``.

The command line builds it from its options (:meth:`SetupRequest.checked`), the Choose page from
its inputs, an answer file (:mod:`gpuwizard.core.fleet.answers`) from its keys; the same workflow
(:mod:`gpuwizard.workflow.envs.setup`) then plans and makes the environment from it. What the
recommender needs of it is its :attr:`SetupRequest.wish`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final

from gpuwizard.core.compat.plan import Wish, WishError, parse_wish
from gpuwizard.core.envs.names import EnvNameError, check_env_name
from gpuwizard.core.envs.variables import GpuSelectionError, check_gpu_selection
from gpuwizard.core.machine.conda_engines import CONDA_ENGINES

#: The tools that make venvs.
VENV_TOOLS: Final = ("uv", "pip")
#: Every tool that makes environments (``--tool``, an answer file's ``tool``, the parsers of
#: their output): the venv tools, the conda family, and py-rattler inside the wizard (issue 23).
ENV_TOOLS: Final = (*VENV_TOOLS, *CONDA_ENGINES)
#: The manager each tool makes environments with.
TOOL_MANAGERS: Final = {**dict.fromkeys(VENV_TOOLS, "venv"), **dict.fromkeys(CONDA_ENGINES, "conda")}


class SetupRequestError(ValueError):
    """The request cannot be understood or carried out as asked (one line, exit code 2)."""


@dataclass(frozen=True)
class SetupRequest:
    """An environment with a framework, as asked for.

    Attributes:
        framework: ``pytorch`` or ``tensorflow``.
        version: A framework release (``2.10`` or ``2.10.1``); None for the recommended one.
        python: The preferred Python minor version; the recommender may choose another.
        manager: ``venv`` or ``conda``; None takes the tool's, else the plan's.
        name: The environment's name (also its folder's name, unless ``prefix`` is given).
        tool: ``uv``, ``pip``, ``conda``, ``mamba``, ``micromamba`` or ``rattler``; None picks the
            best one found (for conda: conda, mamba or micromamba when installed, else rattler).
        prefix: The environment's folder; None puts it where the wizard puts environments.
        find_links: A folder of wheels to install from.
        channels: Conda channels used instead of the plan's (local channel folders or their
            ``file://`` URLs, the conda counterpart of ``find_links``; ``https://`` mirrors).
        offline: Use only ``find_links``; fetch nothing.
        jupyter: Register a Jupyter kernel (installs ipykernel).
        gpus: ``CUDA_VISIBLE_DEVICES`` for the environment (``0,1``); None: every GPU.
        replace: Replace an environment of the same name (put back if the new one fails).
        extra_requirements: More packages for pip (``numpy``).
        requested_name: The framework's name as given (``tensorflow-gpu`` is kept to explain it).
    """

    framework: str
    version: str | None = None
    python: str | None = None
    manager: str | None = None
    name: str = "gpu"
    tool: str | None = None
    prefix: Path | None = None
    find_links: Path | None = None
    channels: tuple[str, ...] = ()
    offline: bool = False
    jupyter: bool = False
    gpus: str | None = None
    replace: bool = False
    extra_requirements: tuple[str, ...] = ()
    requested_name: str = ""

    @property
    def wanted_manager(self) -> str | None:
        """The manager asked for, or the one the tool makes (None: the plan's)."""
        return self.manager or (TOOL_MANAGERS.get(self.tool) if self.tool else None)

    @property
    def wish(self) -> Wish:
        """What the recommender is asked: framework, release, Python and manager."""
        return Wish(
            framework=self.framework,
            version=self.version,
            python=self.python,
            manager=self.wanted_manager,
            requested_name=self.requested_name or self.framework,
        )

    @classmethod
    def checked(
        cls,
        *,
        framework: str,
        version: str | None = None,
        python: str | None = None,
        manager: str | None = None,
        name: str = "gpu",
        tool: str | None = None,
        prefix: Path | None = None,
        find_links: Path | None = None,
        channels: tuple[str, ...] = (),
        offline: bool = False,
        jupyter: bool = False,
        gpus: str | None = None,
        replace: bool = False,
        extra_requirements: tuple[str, ...] = (),
    ) -> SetupRequest:
        """A request from text as people type it, checked as a whole before anything is looked at.

        Raises:
            SetupRequestError: The first problem found, in one line.

        >>> SetupRequest.checked(framework="tensorflow-gpu", version="2.10", name="tf").wish.framework
        'tensorflow'
        >>> try:
        ...     SetupRequest.checked(framework="pytorch", tool="mamba", manager="venv")
        ... except SetupRequestError as error:
        ...     print(error)
        tool 'mamba' does not make venv environments
        """
        if tool is not None and tool not in TOOL_MANAGERS:
            raise SetupRequestError(
                f"unknown tool {tool!r} (choose uv, pip, conda, mamba, micromamba or rattler)"
            )
        if tool is not None and manager is not None and TOOL_MANAGERS[tool] != manager:
            raise SetupRequestError(f"tool {tool!r} does not make {manager} environments")
        try:
            wish = parse_wish(framework, version, python, manager or (TOOL_MANAGERS[tool] if tool else None))
            check_env_name(name, manager=wish.manager or "venv")
            selection = check_gpu_selection(gpus) if gpus is not None else None
        except (WishError, EnvNameError, GpuSelectionError) as error:
            raise SetupRequestError(str(error)) from None
        if offline and find_links is None:
            raise SetupRequestError("--offline needs --find-links DIR: the folder of wheels to install from")
        if channels and wish.manager == "venv":
            raise SetupRequestError(
                "--channel is for conda environments (a folder of wheels is --find-links)"
            )
        return cls(
            framework=wish.framework,
            version=wish.version,
            python=wish.python,
            manager=manager,
            name=name,
            tool=tool,
            prefix=prefix,
            find_links=find_links,
            channels=channels,
            offline=offline,
            jupyter=jupyter,
            gpus=selection,
            replace=replace,
            extra_requirements=extra_requirements,
            requested_name=wish.requested_name,
        )
