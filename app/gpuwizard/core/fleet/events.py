"""The typed events of ``apply``, and the words for its stages.

``gpuwizard apply --json`` streams them (docs/architecture.md, "The command-line and JSON
contract"): a ``stage`` event as each stage of the run begins or ends (:data:`ApplyStageName`:
``detect``, ``plan``, ``sources``, ``path``, ``environment``, ``test``), the environment's and
the live test's own events wrapped with ``source`` ``environment`` or ``test``
(:class:`~gpuwizard.core.events.Wrapped`), and last the :class:`ApplyResult` (schema
``gpuwizard.apply/1``). Their JSON is derived from the fields (:mod:`gpuwizard.core.events`), in
the order they are declared here; a fact of one status only is written for it (``when``).

Each stage has a class of its own, so a reader takes its facts by name; they all are ``stage``
events, and :meth:`ApplyStage.from_json` reads one back as its stage's class (an unknown stage
as :class:`ApplyStage`, its facts kept in ``extra``).

The result says what the run did; the exit code that stands for it is the command line's
(``cli/apply.py``), which writes it into the result's ``exit_code`` as the result leaves.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar, Final, Literal

from gpuwizard.core.envs.events import ENV_CREATE_EVENTS, EnvSources
from gpuwizard.core.envs.index_reach import SourcesCheck
from gpuwizard.core.events import Event, EventKinds, json_field, value_from_json
from gpuwizard.core.findings.model import Finding, finding_from_json
from gpuwizard.core.fleet.answers import ANSWERS_SCHEMA
from gpuwizard.core.livetest.events import LIVE_TEST_EVENTS, LiveTestResult
from gpuwizard.core.texts import QT_TRANSLATE_NOOP

__all__ = [
    "APPLY_EVENTS",
    "APPLY_SCHEMA",
    "STAGE_CONTEXT",
    "STAGE_WORDS",
    "ApplyEnvironment",
    "ApplyPathChange",
    "ApplyResult",
    "ApplyStage",
    "ApplyStageName",
    "ApplyStatus",
    "DetectStage",
    "EnvironmentKept",
    "EnvironmentStage",
    "LiveTestFacts",
    "LiveTestStage",
    "PathStage",
    "PlanStage",
    "SourcesStage",
]

APPLY_SCHEMA: Final = "gpuwizard.apply/1"

#: The stages of a run, in their order.
ApplyStageName = Literal["detect", "plan", "sources", "path", "environment", "test"]

#: How a run ended: set up (``ok``), shown without changing anything (``preview``), the check
#: failed (``problem``), a step failed and this run's changes were undone (``rolled_back``),
#: or stopped by the person (``cancelled``).
ApplyStatus = Literal["ok", "preview", "problem", "rolled_back", "cancelled"]

#: The translation context of :data:`STAGE_WORDS`.
STAGE_CONTEXT: Final = "apply_stages"

#: Each stage in a few words.
STAGE_WORDS: Final[Mapping[ApplyStageName, str]] = MappingProxyType(
    {
        "detect": QT_TRANSLATE_NOOP("apply_stages", "Detecting this machine"),
        "plan": QT_TRANSLATE_NOOP("apply_stages", "Planning the setup"),
        "sources": QT_TRANSLATE_NOOP("apply_stages", "Asking the package indexes"),
        "path": QT_TRANSLATE_NOOP("apply_stages", "Changing PATH"),
        "environment": QT_TRANSLATE_NOOP("apply_stages", "Making the environment"),
        "test": QT_TRANSLATE_NOOP("apply_stages", "Running the live test"),
    }
)


def findings_from_json(value: object) -> tuple[Finding, ...]:
    """A list of findings read back, each tolerant of gaps; anything else is none."""
    items = value if isinstance(value, list) else []
    return tuple(finding_from_json(item) for item in items if isinstance(item, Mapping))


# --- the stages ------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class ApplyStage(Event):
    """A stage of the run began or ended (``status``); each stage's class adds its facts.

    Read back, a stage this version does not know is one of these, its facts in ``extra``.
    """

    KIND: ClassVar[str] = "stage"

    stage: str
    status: str

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ApplyStage:
        """A ``stage`` event read back as its stage's class."""
        stage, status = data.get("stage"), data.get("status")
        if stage == "environment" and status == "kept":
            return value_from_json(EnvironmentKept, data)
        return value_from_json(_STAGES.get(str(stage), ApplyStage), data)


@dataclass(frozen=True, kw_only=True)
class DetectStage(ApplyStage):
    """The machine was detected: one line on its GPUs and driver."""

    stage: str = "detect"
    summary: str


@dataclass(frozen=True, kw_only=True)
class PlanStage(ApplyStage):
    """The plan: its line, the Choose page's headline and changes, and the install as it will run.

    ``plan`` and ``package_sources`` are the documents ``recommend --json`` writes.
    """

    stage: str = "plan"
    summary: str
    headline: str
    changes: tuple[str, ...] = ()
    plan: Mapping[str, Any]
    install: str
    package_sources: Mapping[str, Any]


@dataclass(frozen=True, kw_only=True)
class SourcesStage(ApplyStage):
    """The package indexes asked before anything is made (``reached`` or ``unreachable``).

    The facts are those of ``env create``'s ``sources`` event
    (:class:`~gpuwizard.core.envs.index_reach.EnvSources`), written in the stage itself: each
    index with its answer, and the findings, the ways forward among them.
    """

    stage: str = "sources"
    sources: EnvSources = json_field(inline=True)

    @classmethod
    def of(cls, status: str, check: SourcesCheck) -> SourcesStage:
        """The stage for ``check``, with the facts its ``sources`` event has."""
        return cls(status=status, sources=EnvSources.of(check))


def _finding(value: object) -> Finding | None:
    return finding_from_json(value) if isinstance(value, Mapping) else None


def _path_written(stage: PathStage) -> bool:
    # The journal entry of this run's change: said when it was made, kept or undone.
    return stage.status in ("done", "kept", "undone")


def _path_done(stage: PathStage) -> bool:
    return stage.status == "done"


def _path_requested(stage: PathStage) -> bool:
    return stage.scope is not None


@dataclass(frozen=True, kw_only=True)
class PathStage(ApplyStage):
    """The plan's PATH change: ``planned``, ``skipped``, ``unchanged``, ``done``, ``failed``, ``kept``, ``undone``.

    Attributes:
        journal_id: The journal entry of this run's change (done, kept, undone).
        error: Why it failed, or why it could not be undone.
        restart: What must restart to see the new PATH (done; None: nothing).
        note: Why there is no change to make, or why it was not undone.
        scope, registry, folders, changed: The change asked for: the scope, the registry it is
            made in, the folders added, and whether that changes PATH (None: none was asked for).
        entries_before, entries_after: That scope's PATH entries now and after the change, in
            order (None where no change was planned): a diff of the whole value, moves made by
            ``other_cuda`` included, for a reader such as Ansible's ``--diff``.
    """

    stage: str = "path"
    journal_id: str | None = json_field(default=None, when=_path_written)
    error: str | None = json_field(default=None, omit_none=True)
    restart: Finding | None = json_field(default=None, when=_path_done, read=_finding)
    note: str | None = json_field(default=None, omit_none=True)
    scope: str | None = json_field(default=None, when=_path_requested)
    registry: str | None = json_field(default=None, when=_path_requested)
    folders: tuple[str, ...] = json_field(default=(), when=_path_requested)
    changed: bool = json_field(default=False, when=_path_requested)
    entries_before: tuple[str, ...] | None = json_field(default=None, omit_none=True)
    entries_after: tuple[str, ...] | None = json_field(default=None, omit_none=True)


@dataclass(frozen=True, kw_only=True)
class EnvironmentStage(ApplyStage):
    """The environment: ``planned`` or ``started`` (what will be made, by which tool), then how it ended.

    ``note`` says when it is made again because this plan's environment was damaged; when it
    ended, only its ``name`` is said (the ``environment`` source's ``result`` says the rest).
    """

    stage: str = "environment"
    note: str | None = json_field(default=None, omit_none=True)
    name: str
    path: str | None = json_field(default=None, omit_none=True)
    tool: str | None = json_field(default=None, omit_none=True)
    python: str | None = json_field(default=None, omit_none=True)
    requirements: tuple[str, ...] | None = json_field(default=None, omit_none=True)
    #: The variables set while the environment is active (``TF_FORCE_GPU_ALLOW_GROWTH``,
    #: ``CUDA_VISIBLE_DEVICES``...); None where not planned here.
    variables: Mapping[str, str] | None = json_field(default=None, omit_none=True)


@dataclass(frozen=True, kw_only=True)
class EnvironmentKept(ApplyStage):
    """An environment of this plan exists and is kept as it is (status ``kept``)."""

    stage: str = "environment"
    status: str = "kept"
    name: str
    path: str
    note: str = "an environment of this plan exists; kept as it is"


@dataclass(frozen=True)
class LiveTestFacts:
    """What the live test found, as the result and the ``test`` stage say it."""

    verdict: str
    device: str | None = None
    samples_per_s_gpu: float | None = json_field(default=None, at=("samples_per_s", "gpu"))
    samples_per_s_cpu: float | None = json_field(default=None, at=("samples_per_s", "cpu"))
    speedup: float | None = None
    seconds: float | None = None

    @classmethod
    def of(cls, result: LiveTestResult) -> LiveTestFacts:
        """The facts of ``result``."""
        return cls(
            verdict=result.verdict,
            device=result.device,
            samples_per_s_gpu=result.samples_per_s_gpu,
            samples_per_s_cpu=result.samples_per_s_cpu,
            speedup=result.speedup,
            seconds=result.seconds,
        )


@dataclass(frozen=True, kw_only=True)
class LiveTestStage(ApplyStage):
    """The live test: ``skipped`` (``note``), ``started`` (in ``env``), ``done`` (what it found: ``facts``)."""

    stage: str = "test"
    note: str | None = json_field(default=None, omit_none=True)
    env: str | None = json_field(default=None, omit_none=True)
    facts: LiveTestFacts | None = json_field(default=None, inline=True)

    @classmethod
    def done(cls, facts: LiveTestFacts) -> LiveTestStage:
        """The stage that says what the test found."""
        return cls(status="done", facts=facts)


_STAGES: Final[Mapping[str, type[ApplyStage]]] = MappingProxyType(
    {
        "detect": DetectStage,
        "plan": PlanStage,
        "sources": SourcesStage,
        "path": PathStage,
        "environment": EnvironmentStage,
        "test": LiveTestStage,
    }
)


# --- the result ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ApplyEnvironment:
    """The environment the run made or kept."""

    name: str
    path: str | None
    python: str | None
    framework_version: str | None


@dataclass(frozen=True)
class ApplyPathChange:
    """The PATH change this run made (and did not undo)."""

    journal_id: str | None
    folders: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class ApplyResult(Event):
    """The last event of a run: how it ended, what it changed, what the test found.

    Attributes:
        schema, answers_schema: ``gpuwizard.apply/1`` and the answer file's schema.
        status: :data:`ApplyStatus`.
        exit_code: The command's exit code; the command line writes it as the result leaves
            (``cli/apply.py``), None until then (and then not written).
        message: What happened, in one line.
        changed: The run changed this machine (PATH, or an environment made).
        framework, framework_version, cpu_only: The plan's (the answers' framework before one).
        environment: The environment made or kept; None when there is none.
        path: This run's PATH change; None when it made none (or undid it).
        test: What the live test found; None when it did not run to the end.
        findings: The plan's, when it was refused; the test's, and a last good state not recorded.
        rolled_back: What this run changed was undone because a step failed or was cancelled
            part-way (never written: the status and exit code say it).
    """

    KIND: ClassVar[str] = "result"

    schema: str = APPLY_SCHEMA
    answers_schema: str = ANSWERS_SCHEMA
    status: str  # an ApplyStatus, or a newer one read back
    exit_code: int | None = json_field(default=None, omit_none=True)
    message: str
    changed: bool = False
    framework: str | None = None
    framework_version: str | None = None
    cpu_only: bool | None = None
    environment: ApplyEnvironment | None = None
    path: ApplyPathChange | None = None
    test: LiveTestFacts | None = None
    findings: tuple[Finding, ...] = json_field(default=(), read=findings_from_json)
    rolled_back: bool = json_field(default=False, skip=True)


#: The kinds of an apply stream; the environment's and the live test's events are carried under
#: their ``source``.
APPLY_EVENTS: Final = EventKinds(
    "apply",
    [ApplyStage, ApplyResult],
    nested={"environment": ENV_CREATE_EVENTS, "test": LIVE_TEST_EVENTS},
)
