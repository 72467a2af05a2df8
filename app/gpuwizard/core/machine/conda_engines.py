"""Which engine makes a conda environment on a machine: a conda-family tool found there, else py-rattler.

conda, mamba and micromamba are used when detection found one, in that order (the order the
environment backends take them: ``adapters/envs/conda.py``); everywhere else the wizard makes
the environment itself with py-rattler, which it ships (issue 23). py-rattler solves and
installs conda packages without any conda installed (prefix.dev, "py-rattler":
https://conda.github.io/rattler/py-rattler/).

>>> conda_engine(ManagerFacts(mamba="/opt/mamba/bin/mamba", micromamba="/usr/bin/micromamba"))
'mamba'
>>> conda_engine(ManagerFacts(uv="/usr/bin/uv"))
'rattler'
>>> engine_title("rattler"), engine_title("micromamba")
('py-rattler', 'micromamba')
"""

from __future__ import annotations

from typing import Final

from gpuwizard.core.machine.system_report import ManagerFacts

#: The conda-family tools, in the order the wizard prefers them when several are installed.
CONDA_TOOLS: Final = ("conda", "mamba", "micromamba")
#: The engine built into the wizard (py-rattler): it needs no conda on the machine.
RATTLER_ENGINE: Final = "rattler"
CONDA_ENGINES: Final = (*CONDA_TOOLS, RATTLER_ENGINE)
#: Where conda packages come from when a plan names no channel, whichever engine makes the
#: environment. Anaconda's `defaults` channels need an accepted Terms of Service since July 2025
#: and make a non-interactive `create` fail (conda-anaconda-tos, CondaToSNonInteractiveError);
#: conda-forge is free of that and carries cudatoolkit/cudnn for the old TensorFlow builds.
DEFAULT_CONDA_CHANNELS: Final = ("conda-forge",)


def found_conda_tool(managers: ManagerFacts) -> str | None:
    """The first of conda, mamba and micromamba that detection found; None when none is installed."""
    return next((tool for tool in CONDA_TOOLS if getattr(managers, tool)), None)


def conda_engine(managers: ManagerFacts) -> str:
    """The engine that would make a conda environment here: a found tool, else ``rattler``."""
    return found_conda_tool(managers) or RATTLER_ENGINE


def engine_title(engine: str) -> str:
    """The engine as people know it: ``py-rattler`` for the built-in one, else the tool's name."""
    return "py-rattler" if engine == RATTLER_ENGINE else engine
