"""The install commands verify's fixes print, as the person runs them in the environment's folder.

An environment made by uv has no pip unless pip's wheel was at hand (docs.astral.sh/uv/pip/
environments/), and one made offline from a folder of wheels cannot reach an index: a fix that
says ``python -m pip install … --index-url …`` fails there. :func:`install_command` installs
with the tool that can (the wizard's uv for an environment uv made, else the environment's own
pip), from the folder it was made from, and names no index where it was made offline. Paths
are quoted for the person's shell (POSIX, or cmd and PowerShell).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from packaging.requirements import InvalidRequirement, Requirement

from gpuwizard.core.wizard_command import shell_command


@dataclass(frozen=True)
class EnvSource:
    """What installs into an environment now, and from where its packages came when it was made.

    Attributes:
        uv: The uv to install with (``uv pip install --python ENV_PYTHON``): where the environment
            was made by uv, which leaves it without pip unless pip's wheel was at hand
            (docs.astral.sh/uv/pip/environments/). None: the environment's own pip.
        find_links: The folder of wheels it was made from (``env create --find-links``); None: none.
        offline: It was made from that folder alone (``--offline``): the fixes name no index,
            which an offline machine cannot reach.
    """

    uv: str | None = None
    find_links: str | None = None
    offline: bool = False


#: An environment its own pip installs into, from the indexes (what older records tell).
OWN_PIP: Final = EnvSource()


def install_command(
    python: str,
    pins: Sequence[str],
    *,
    source: EnvSource,
    windows: bool,
    index_url: str | None = None,
    force: bool = False,
) -> str:
    """Install ``pins`` into the environment of ``python``, as one line to run.

    ``force``: reinstall even what counts as installed (a package whose folder was deleted by hand
    keeps its metadata, and a plain install then changes nothing: "already satisfied").

    >>> install_command("/e/demo/bin/python", ["torch==2.13.0+cpu"], source=EnvSource(), windows=False,
    ...                 index_url="https://download.pytorch.org/whl/cpu", force=True)
    '/e/demo/bin/python -m pip install torch==2.13.0+cpu --force-reinstall --index-url https://download.pytorch.org/whl/cpu'
    >>> made = EnvSource(uv="/opt/wizard/bin/uv", find_links="/srv/my wheels", offline=True)
    >>> install_command("/e/demo/bin/python", ["nvidia-cudnn-cu11==8.9.5.29"], source=made, windows=False)
    "/opt/wizard/bin/uv pip install --python /e/demo/bin/python nvidia-cudnn-cu11==8.9.5.29 --find-links '/srv/my wheels' --offline --no-index"
    """
    folder = ["--find-links", source.find_links] if source.find_links else []
    if source.uv:
        argv = [source.uv, "pip", "install", "--python", python, *pins]
        if force:
            argv += [arg for pin in pins for arg in ("--reinstall-package", distribution(pin))]
        # Both, as the wizard's own offline install (adapters/envs/venv_backends.py): no network,
        # and no index looked at, not even in uv's cache (docs.astral.sh/uv/reference/cli/#uv-pip-install).
        offline_flags = ["--offline", "--no-index"]
    else:
        # pip has no per-package reinstall: --force-reinstall takes the dependencies too (one of
        # them may be what broke).
        argv = [python, "-m", "pip", "install", *pins, *(["--force-reinstall"] if force else [])]
        offline_flags = ["--no-index"]  # pip.pypa.io/en/stable/cli/pip_install/#install-no-index
    argv += folder
    if folder and source.offline:
        argv += offline_flags
    elif index_url:
        argv += ["--index-url", index_url]
    # A quoted program is no command in PowerShell without "&": both forms where they differ.
    return shell_command(argv, windows=windows)


def distribution(pin: str) -> str:
    """The distribution a pin names (``torch`` of ``torch==2.13.0+cpu``)."""
    try:
        return Requirement(pin).name
    except InvalidRequirement:
        return pin.partition("==")[0].strip()
