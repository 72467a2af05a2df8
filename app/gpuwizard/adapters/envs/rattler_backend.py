"""Conda environments without conda: the py-rattler engine, started as a tool (issue 23).

The engine (:mod:`gpuwizard.adapters.envs.rattler_engine`) runs in its own process under the
wizard's own interpreter, through the streaming runner like uv or conda, so the log, cancel
(SIGTERM to its process group) and the rollback work the same; this module only builds its
argv and never imports rattler, so choosing a backend costs nothing. As with conda, the
framework then comes from pip inside the environment (see :mod:`conda`).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from gpuwizard.adapters.envs.base import Command, CondaSpec, PackageSource
from gpuwizard.adapters.envs.conda import CondaLayout
from gpuwizard.adapters.envs.conda_activation import write_activation_scripts
from gpuwizard.core.envs.package_sources import RATTLER_CHANNELS_VARIABLE
from gpuwizard.core.envs.rattler_channels import rattler_channels
from gpuwizard.core.machine.conda_engines import DEFAULT_CONDA_CHANNELS
from gpuwizard.core.secret_formats import url_has_secret

ENGINE_MODULE: Final = "gpuwizard.adapters.envs.rattler_engine"
#: The frozen wizard's way to start the engine: ``gpuwizard.exe --rattler-engine create ...``
#: (installer/entry.py). A PyInstaller program has no ``-m``: it runs its own entry script.
FROZEN_ENGINE_FLAG: Final = "--rattler-engine"


def engine_argv(python: str | None = None) -> list[str]:
    """The start of the engine's command line: ``PYTHON -m MODULE``, or the frozen wizard's flag.

    The frozen windowed program (``gpuwizardw.exe``) has no console streams, so the engine is
    started as the console program beside it (``gpuwizard.exe``; the runner starts children
    without a window on Windows).
    """
    if python is None and getattr(sys, "frozen", False):
        executable = Path(sys.executable)
        console = executable.with_name(executable.name.replace("gpuwizardw", "gpuwizard"))
        return [str(console if console.is_file() else executable), FROZEN_ENGINE_FLAG]
    return [python or sys.executable, "-m", ENGINE_MODULE]


class RattlerBackend(CondaLayout):
    """conda-format environments made by py-rattler: ``manager`` conda, ``tool`` rattler."""

    manager = "conda"
    tool = "rattler"

    def __init__(self, python: str | None = None, cache_dir: Path | None = None) -> None:
        """``python``: the interpreter that runs the engine (the wizard's own, or the frozen program).

        ``cache_dir``: where repodata and packages are cached; None: rattler's default
        (``~/.cache/rattler/cache``, shared with pixi).
        """
        self.python = python
        self.cache_dir = cache_dir

    def conda_channels(self, channels: Sequence[str], *, offline: bool) -> tuple[str, ...]:
        """The channels as the engine takes them (local ones as ``file://`` URLs; offline only those)."""
        return tuple(rattler_channels(channels, offline=offline))

    def create_command(self, prefix: Path, python: str, source: PackageSource, conda: CondaSpec) -> Command:
        """``PYTHON -m ...rattler_engine create --prefix P --channel CH... python=X.Y PACKAGES... pip``.

        The same packages as :class:`CondaBackend` asks for; the channels are checked here
        too (``ChannelRefused``) so a refused one stops the plan before anything runs.
        Offline, only ``file://`` channels are accepted. When a channel carries a login or a
        token (``https://user:pw@host/...``, ``.../t/<token>/...``), the channels go to the
        engine in ``GPUWIZARD_RATTLER_CHANNELS`` (a JSON list), which only this user can read,
        instead of ``--channel`` on its command line, which every user can.
        """
        channels = rattler_channels(conda.channels or DEFAULT_CONDA_CHANNELS, offline=source.offline)
        packages = list(conda.packages)
        if not any(package.split("=")[0].strip() == "python" for package in packages):
            packages.insert(0, f"python={python}")
        if "pip" not in packages:
            packages.append("pip")
        argv = [*engine_argv(self.python), "create", "--prefix", str(prefix)]
        env: dict[str, str] = {}
        if any(url_has_secret(channel) for channel in channels):
            env[RATTLER_CHANNELS_VARIABLE] = json.dumps(channels)
        else:
            for channel in channels:
                argv += ["--channel", channel]
        if source.offline:
            argv.append("--offline")
        if self.cache_dir is not None:
            argv += ["--cache-dir", str(self.cache_dir)]
        # The runner starts every child in UTF-8 (runner.child_environment), JSON lines included.
        return Command((*argv, *packages), "create", env, output="rattler")

    def write_variables(self, prefix: Path, variables: dict[str, str]) -> list[Path]:
        """The activate.d scripts, and activation scripts of its own, which the log names.

        No conda here to activate the environment: the wizard's own ``activate`` scripts run
        its activate.d scripts, the variables' among them (:mod:`.conda_activation`).
        """
        super().write_variables(prefix, variables)
        return write_activation_scripts(prefix)
