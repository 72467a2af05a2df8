"""What pressing Install will do, said before it is done: the download, its sources, the writes.

The wizard's step that changes the machine has a button of its own ("Install", issue 20 point 2),
and pressing it first shows this summary: about how much is downloaded and from where, how much
disk the environment takes, and what is written (the lines of
:func:`gpuwizard.core.envs.changes.plan_changes`, the ones the Choose page shows). No Qt here; the
dialog that shows it is :mod:`gpuwizard.ui.widgets.install_summary`.

The sizes are estimates from :mod:`gpuwizard.core.envs.space`: the download from the measured
wheel sizes of each framework's CPU and CUDA builds, the disk from the figure the disk-space
check before the install uses. With a folder of wheels and ``offline``, nothing is downloaded
and the folder's wheels give the figures.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final

from gpuwizard.core.compat.plan import Recommendation
from gpuwizard.core.envs.changes import Change, plan_changes
from gpuwizard.core.envs.package_sources import PYPI_SIMPLE, PlanSources
from gpuwizard.core.envs.python_download import ContactedHost, PythonDownload, contacted_hosts
from gpuwizard.core.envs.request import SetupRequest
from gpuwizard.core.envs.space import download_bytes, required_bytes

#: pip's and uv's default index when none is configured (core/envs/package_sources.py).
DEFAULT_INDEX: Final = PYPI_SIMPLE


@dataclass(frozen=True)
class InstallSummary:
    """What the install will download and write, for the question before it starts.

    Attributes:
        name: The environment's name.
        download_bytes: About how much is downloaded; None when nothing is (offline, from a folder).
        disk_bytes: About how much free disk the environment needs.
        wheel_folder: The folder the packages come from (offline), else None.
        wheel_bytes: The size of that folder's wheels, else None.
        sources: Where packages come from (index URLs, conda channels), in the order they are used;
            for an offline install, the folder alone.
        changes: What carrying the plan out changes on this machine, as the Choose page says it.
        python_download: The Python build uv downloads too, none of the plan's version being
            installed here (``core/envs/python_download.py``); None when none is.
        hosts: Every host the install contacts, with why: the indexes, then the Python's places.
    """

    name: str
    download_bytes: int | None
    disk_bytes: int
    wheel_folder: Path | None
    wheel_bytes: int | None
    sources: tuple[str, ...]
    changes: tuple[Change, ...]
    python_download: PythonDownload | None = None
    hosts: tuple[ContactedHost, ...] = ()

    @property
    def downloads(self) -> bool:
        """True when the install fetches packages from the network."""
        return self.download_bytes is not None


def wheel_sizes(folder: Path) -> list[int]:
    """The sizes of the wheels in ``folder`` (pip's ``--find-links`` reads the folder itself, not below it)."""
    try:
        return [wheel.stat().st_size for wheel in folder.glob("*.whl") if wheel.is_file()]
    except OSError:
        return []


def install_summary(
    rec: Recommendation,
    request: SetupRequest,
    *,
    envs_folder: str,
    sources: PlanSources | None = None,
    python_download: PythonDownload | None = None,
) -> InstallSummary:
    """The summary of installing ``rec`` for ``request``.

    Args:
        rec: The recommendation whose plan is installed.
        request: What the person chose (name, wheel folder, Jupyter...).
        envs_folder: Where venv environments go (the wizard's home).
        sources: The package indexes the install contacts, with the person's mirrors, as the
            Choose page shows them (``ui/widgets/source_check.py``); None: the plan's own (its
            index, or the default one).
        python_download: The Python build uv downloads for the environment
            (``workflow/envs/prepare.py``, ``planned_python_download``); None when none is.
    """
    plan = rec.plan
    changes = plan_changes(rec, request, envs_folder=envs_folder)
    folder = request.find_links if request.offline else None
    if folder is not None:
        sizes = wheel_sizes(folder)
        return InstallSummary(
            name=request.name,
            download_bytes=None,
            disk_bytes=required_bytes(plan.framework, plan.cpu_build, sizes),
            wheel_folder=folder,
            wheel_bytes=sum(sizes),
            sources=(str(folder),),
            changes=changes,
        )
    disk = required_bytes(plan.framework, plan.cpu_build)
    if sources is not None and sources.indexes:
        indexes = tuple(index.shown for index in sources.indexes)  # logins hidden
    else:
        indexes = (plan.index_url,) if plan.index_url else (DEFAULT_INDEX,)
    channels = tuple(plan.conda_channels) if plan.manager == "conda" else ()
    return InstallSummary(
        name=request.name,
        download_bytes=download_bytes(plan.framework, plan.cpu_build),
        disk_bytes=disk,
        wheel_folder=None,
        wheel_bytes=None,
        sources=tuple(dict.fromkeys((*channels, *indexes))),
        changes=changes,
        python_download=python_download,
        hosts=contacted_hosts(sources, python_download),
    )
