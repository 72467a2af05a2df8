"""The typed events of making an environment, and the words for its phases.

``env create --json``, the creation's log file, the wizard's Install page and ``apply`` see the
same stream (docs/architecture.md, "The command-line and JSON contract"): ``sources`` (the
package indexes asked, before anything is made), ``start`` (what will be made, from what),
then ``phase`` (a step begins), ``log`` (a line a tool printed, or the wizard wrote) and
``progress`` (what a tool's line says it did), and last the ``result``
(:class:`~gpuwizard.core.envs.result.EnvResult`). Their JSON is derived from the fields
(:mod:`gpuwizard.core.events`), in the order they are declared here.

The phases are :data:`EnvPhaseName`; :data:`PHASE_WORDS` says each in a few words, marked for
translation (context :data:`PHASE_CONTEXT`): the Install page shows them translated, the raw
name never.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar, Final, Literal

from gpuwizard.core.envs.index_reach import EnvSources
from gpuwizard.core.envs.result import EnvResult
from gpuwizard.core.envs.tool_progress import ToolProgress
from gpuwizard.core.events import Event, EventKinds, json_field
from gpuwizard.core.texts import QT_TRANSLATE_NOOP

__all__ = [
    "ENV_CREATE_EVENTS",
    "PHASE_CONTEXT",
    "PHASE_WORDS",
    "EnvLog",
    "EnvPhase",
    "EnvPhaseName",
    "EnvProgress",
    "EnvResult",
    "EnvSources",
    "EnvStart",
    "phase_words",
]

#: The steps of a creation, in the order they can run. ``check`` is before the first step
#: (an interrupted creation settled, the folder checked again); ``dlls`` only on Windows with
#: NVIDIA's CUDA wheels; ``rollback`` after a failure or a cancel.
EnvPhaseName = Literal[
    "check",
    "replace",
    "create",
    "pip",
    "install",
    "dlls",
    "verify",
    "constraints",
    "variables",
    "kernel",
    "register",
    "rollback",
]

#: The translation context of :data:`PHASE_WORDS`.
PHASE_CONTEXT: Final = "env_phases"

#: Each phase in a few words. ``{module}`` is the framework's module (``torch``).
PHASE_WORDS: Final[Mapping[EnvPhaseName, str]] = MappingProxyType(
    {
        "check": QT_TRANSLATE_NOOP("env_phases", "Checking the environment's folder…"),
        "replace": QT_TRANSLATE_NOOP("env_phases", "Moving the existing environment aside…"),
        "create": QT_TRANSLATE_NOOP("env_phases", "Creating the environment…"),
        "pip": QT_TRANSLATE_NOOP("env_phases", "Adding pip…"),
        "install": QT_TRANSLATE_NOOP("env_phases", "Installing the packages…"),
        "dlls": QT_TRANSLATE_NOOP("env_phases", "Making the NVIDIA wheels' DLL folders visible…"),
        "verify": QT_TRANSLATE_NOOP("env_phases", "Checking that {module} imports in the new environment…"),
        "constraints": QT_TRANSLATE_NOOP(
            "env_phases", "Pinning the build so later installs cannot replace it…"
        ),
        "variables": QT_TRANSLATE_NOOP("env_phases", "Setting the environment's variables…"),
        "kernel": QT_TRANSLATE_NOOP("env_phases", "Registering the Jupyter kernel…"),
        "register": QT_TRANSLATE_NOOP("env_phases", "Recording the environment…"),
        "rollback": QT_TRANSLATE_NOOP("env_phases", "Something went wrong: removing what was made…"),
    }
)


def phase_words(phase: str) -> str | None:
    """The English words for ``phase`` (a template with ``{module}``); None for a phase not known here.

    >>> phase_words("install"), phase_words("newer")
    ('Installing the packages…', None)
    """
    return PHASE_WORDS.get(phase)  # type: ignore[call-overload]  # any name may come from a recording


@dataclass(frozen=True, kw_only=True)
class EnvStart(Event):
    """What will be made, from what: the first event of a creation.

    Attributes:
        name, path: The environment and its folder.
        manager, tool: ``venv``/``uv``, ``conda``/``rattler``...
        framework, framework_version, python_version: The plan's.
        requirements: What the install step installs.
        index_url: The index really used (the plan's, or the person's mirror of it; login
            hidden); None offline or without one.
        find_links: A folder of wheels, if any.
        offline: Nothing is fetched.
        conda_channels: Where a conda environment's packages come from (logins hidden).
        log: The run's log file.
        package_sources: Every index contacted and why, and the install command as it runs
            (:func:`gpuwizard.core.envs.package_sources.sources_to_json`); not written when unknown.
        python_download: The Python build uv downloads for the environment, none of the plan's
            version being installed here (:func:`gpuwizard.core.envs.python_download.download_to_json`);
            not written when none is downloaded.
        hosts: Every host the install contacts, with why (``host``, ``why``, ``url``); not
            written when it contacts none (offline).
    """

    KIND: ClassVar[str] = "start"

    name: str
    path: str
    manager: str
    tool: str
    framework: str
    framework_version: str
    python_version: str
    requirements: tuple[str, ...] = ()
    index_url: str | None = None
    find_links: str | None = None
    offline: bool = False
    conda_channels: tuple[str, ...] = ()
    log: str = ""
    package_sources: Mapping[str, Any] | None = json_field(default=None, omit_none=True)
    python_download: Mapping[str, Any] | None = json_field(default=None, omit_none=True)
    hosts: tuple[Mapping[str, Any], ...] = json_field(default=(), when=lambda event: bool(event.hosts))


@dataclass(frozen=True, kw_only=True)
class EnvPhase(Event):
    """A step begins: its name (:data:`EnvPhaseName`, or a newer one read back) and what it does."""

    KIND: ClassVar[str] = "phase"

    phase: str
    message: str = ""


def _has_details(event: EnvLog) -> bool:
    return bool(event.details)


@dataclass(frozen=True, kw_only=True)
class EnvLog(Event):
    """One line of the creation's log.

    Attributes:
        phase: The step it came in.
        tool: Who printed it: ``uv``, ``pip``, ``conda``..., ``probe`` (the import check),
            ``gpuwizard`` (a line the wizard wrote).
        line: What the log shows.
        details: The raw lines this one stands for, when it is not one of them
            (:mod:`gpuwizard.core.envs.probe_output`); written only when there are some.
        report: The import check's answer, when this line is it.
    """

    KIND: ClassVar[str] = "log"

    phase: str
    tool: str
    line: str
    details: tuple[str, ...] = json_field(default=(), when=_has_details)
    report: Mapping[str, Any] | None = json_field(default=None, omit_none=True, compare=False)


@dataclass(frozen=True, kw_only=True)
class EnvProgress(Event):
    """What a tool's output line says it did (:class:`~gpuwizard.core.envs.tool_progress.ToolProgress`), in a phase.

    Every field is written; the unknown ones are None (null in JSON).
    """

    KIND: ClassVar[str] = "progress"

    phase: str
    action: str
    package: str | None = None
    version: str | None = None
    count: int | None = None
    bytes_done: int | None = None
    bytes_total: int | None = None
    percent: float | None = None
    message: str = ""

    @classmethod
    def of(cls, progress: ToolProgress, phase: str) -> EnvProgress:
        """The event for one record a tool's line gave, in ``phase``."""
        return cls(
            phase=phase,
            action=progress.action,
            package=progress.package,
            version=progress.version,
            count=progress.count,
            bytes_done=progress.bytes_done,
            bytes_total=progress.bytes_total,
            percent=progress.percent,
            message=progress.message,
        )


#: The kinds of a creation's stream (``env create --json``, its log, a recorded run).
ENV_CREATE_EVENTS: Final = EventKinds(
    "env_create", [EnvSources, EnvStart, EnvPhase, EnvLog, EnvProgress, EnvResult]
)
