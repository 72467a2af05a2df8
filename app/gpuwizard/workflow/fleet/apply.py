"""Unattended setup from an answer file: detect -> plan -> PATH -> environment -> test.

``gpuwizard apply --answers FILE --yes`` runs the wizard's steps without a window, for fleets
(Ansible, Intune, SCCM). Everything that can be refused is refused before anything changes:
the answer file, the plan (``require_gpu`` on a machine whose GPU the framework cannot use),
the environment request (a name taken by an environment of another plan), and the PATH change
(planned against the value read now), and the package indexes the environment will be made
from (each asked whether it answers: an unreachable one ends the run with exit 2 and a
``sources`` stage that explains it). Then:

- the plan's PATH folders are added (Windows, or a registry snapshot file), journaled;
- the environment is made (kept as it is when one of that name already matches the plan and
  every other answer its record keeps, so a second run changes nothing; refused, unless
  ``replace = true``, when an answer changed, as ``gpus``: ``existing.py``; made again when
  it was damaged); if that fails or is
  cancelled, the PATH change of this run is undone: the machine is as it was (exit 3);
- the live test runs; a pass records the last good state (as ``gpuwizard test`` does), a fail
  keeps the setup for diagnosis and exits 1.

The events are those of ``core/fleet/events.py``: a stage event as each stage of this run
(``detect``, ``plan``, ``sources``, ``path``, ``environment``, ``test``) begins or ends, the
environment's and the test's own events wrapped with ``source`` ``environment`` or ``test``,
and last the :class:`~gpuwizard.core.fleet.events.ApplyResult` (schema ``gpuwizard.apply/1``),
which is also returned. It says how the run ended; the exit code that stands for that is the
command line's (``cli/apply.py``). Without ``confirmed`` the run stops after planning: a
preview, nothing changed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from gpuwizard.adapters.registry import EnvironmentStore, RegValue
from gpuwizard.adapters.runner import StreamingRunner, StreamingSubprocessRunner
from gpuwizard.adapters.wizard_program import wizard_command
from gpuwizard.core.compat.plan import Plan, Recommendation, plan_to_json
from gpuwizard.core.compat.presentation import plan_view
from gpuwizard.core.envs.changes import plan_changes
from gpuwizard.core.envs.package_sources import MirrorRefused, PlanSources, sources_to_json
from gpuwizard.core.envs.result import EnvResult
from gpuwizard.core.events import Event, EventSink, Wrapped
from gpuwizard.core.findings.model import Finding, make_finding
from gpuwizard.core.findings.no_gpu import as_asked_for_gpu
from gpuwizard.core.fleet.answers import Answers
from gpuwizard.core.fleet.events import (
    APPLY_SCHEMA,
    ApplyEnvironment,
    ApplyPathChange,
    ApplyResult,
    ApplyStage,
    ApplyStatus,
    DetectStage,
    EnvironmentKept,
    EnvironmentStage,
    LiveTestFacts,
    LiveTestStage,
    PathStage,
    PlanStage,
    SourcesStage,
)
from gpuwizard.core.frameworks import FRAMEWORKS
from gpuwizard.core.livetest.verdicts import on_gpu, passed
from gpuwizard.core.machine.readiness import machine_has_nvidia_gpu
from gpuwizard.core.machine.system_report import SystemReport, gpu_list
from gpuwizard.core.pathedit.pathlist import split_path_value
from gpuwizard.core.wizard_command import registry_option
from gpuwizard.workflow.envs.index_check import sources_for_request
from gpuwizard.workflow.envs.prepare import default_envs_dir
from gpuwizard.workflow.envs.setup import (
    Setup,
    SetupRefused,
    SourcesUnreachable,
    plan_setup,
    recommend_for,
    run_setup,
)
from gpuwizard.workflow.fleet.existing import same_plan, unmatched_answers
from gpuwizard.workflow.health.good_state import record_good_state
from gpuwizard.workflow.health.tested import GoodStateRecorder, TestRunner, run_test_and_record
from gpuwizard.workflow.livetest.run import LiveTestTarget, run_test
from gpuwizard.workflow.pathedit.changes import PathChange, history, plan_add
from gpuwizard.workflow.pathedit.machine import needs_elevation
from gpuwizard.workflow.pathedit.request import (
    PATH_ERRORS,
    PathRequest,
    apply_request,
    comparison_env,
    error_text,
    path_request_from_plan,
    undo_last,
)
from gpuwizard.workflow.state.env_registry import EnvRecord, find_record
from gpuwizard.workflow.state.home import wizard_home
from gpuwizard.workflow.state.path_journal import PathJournal, last_undoable

__all__ = ["APPLY_SCHEMA", "ApplySteps", "ApplyUsageError", "apply_answers"]

EnvMaker = Callable[[Setup, EventSink, threading.Event], EnvResult]


class ApplyUsageError(ValueError):
    """The answers cannot be carried out on this machine; nothing was changed (exit code 2)."""


@dataclass(frozen=True)
class ApplySteps:
    """How each step is done: the real ones by default, swappable in tests like the wizard's."""

    detect: Callable[[], SystemReport]
    create_env: EnvMaker = run_setup
    run_test: TestRunner = run_test
    record_good: GoodStateRecorder = record_good_state
    runner: StreamingRunner = field(default_factory=StreamingSubprocessRunner)


@dataclass
class _Made:
    """What this run changed, to undo it if a later step fails."""

    path_entry_id: str | None = None
    path_folders: tuple[str, ...] = ()
    environment: EnvResult | None = None


def apply_answers(
    answers: Answers,
    *,
    confirmed: bool,
    steps: ApplySteps,
    path_store: EnvironmentStore | None,
    on_event: EventSink,
    cancel: threading.Event,
) -> ApplyResult:
    """Carry out ``answers`` on this machine; returns the ``result`` event (also sent).

    Raises:
        ApplyUsageError: Refused before anything changed (the one line says why).
    """
    return _Apply(answers, steps, path_store, on_event, cancel).run(confirmed=confirmed)


class _Apply:
    def __init__(
        self,
        answers: Answers,
        steps: ApplySteps,
        path_store: EnvironmentStore | None,
        on_event: EventSink,
        cancel: threading.Event,
    ) -> None:
        self.answers = answers
        self.steps = steps
        self.store = path_store
        self.on_event = on_event
        self.cancel = cancel
        self.journal = PathJournal(wizard_home())
        self.made = _Made()
        self.mending = False

    # --- the run ---------------------------------------------------------------------------

    def run(self, *, confirmed: bool) -> ApplyResult:
        report = self.steps.detect()
        self.on_event(DetectStage(status="done", summary=_machine_summary(report)))
        if self.cancel.is_set():
            return self._result("cancelled", "cancelled before anything changed")
        recommendation = self._plan(report)
        plan = recommendation.plan
        if self.answers.require_gpu and plan.cpu_only:
            # Asked for the GPU: no NVIDIA GPU is then the error that stops the run, not a note.
            findings = as_asked_for_gpu(recommendation.findings)
            errors = [finding.message for finding in findings if finding.severity == "error"]
            return self._result(
                "problem",
                f"require_gpu: {plan.framework} cannot use a GPU on this machine"
                + (f" ({'; '.join(errors)})" if errors else "")
                + "; nothing was changed",
                plan=plan,
                findings=tuple(findings),
            )
        keep, setup = self._environment_request(report, recommendation)
        request, change = self._path_change(plan)
        if not confirmed:
            planned = change is not None and change.changed
            self.on_event(self._path_stage("planned" if planned else "skipped", request, change))
            self.on_event(self._env_stage("planned", keep, setup))
            return self._result("preview", "nothing was changed; add --yes to carry it out", plan=plan)
        return self._carry_out(report, plan, keep, setup, (request, change))

    def _carry_out(
        self,
        report: SystemReport,
        plan: Plan,
        keep: EnvRecord | None,
        setup: Setup | None,
        path: tuple[PathRequest | None, PathChange | None],
    ) -> ApplyResult:
        request, change = path
        if request is None or change is None:
            self.on_event(self._path_stage("skipped", request, change))
        else:
            failed = self._apply_path(request, change)
            if failed is not None:
                return self._result("rolled_back", failed, plan=plan, rolled_back=True)
        environment = self._make_environment(keep, setup)
        if not environment.ok:
            status: ApplyStatus = "cancelled" if environment.status == "cancelled" else "rolled_back"
            undone = self._undo_path()
            reason = environment.error or "cancelled"
            return self._result(
                status, f"the environment was not made ({reason}); {undone}", plan=plan, rolled_back=True
            )
        self.made.environment = environment
        if not self.answers.test:
            self.on_event(LiveTestStage(status="skipped", note="test = false"))
            return self._result("ok", f"{self.answers.request.name} is ready (not tested)", plan=plan)
        return self._test(report, plan, environment)

    # --- the steps -------------------------------------------------------------------------

    def _plan(self, report: SystemReport) -> Recommendation:
        try:
            recommendation = recommend_for(report, self.answers.request)
        except SetupRefused as error:
            raise ApplyUsageError(str(error)) from None
        plan = recommendation.plan
        sources = self._sources(report, plan)
        # The presentation the Choose page shows: the headline, what carrying it out changes, and
        # the install command as it will run (with the person's mirror or the offline folder).
        view = plan_view(
            recommendation,
            gpu_present=bool(report.compute_gpus),
            install_line=sources.install_line(plan.requirements),
        )
        changes = plan_changes(
            recommendation, self.answers.request, envs_folder=str(default_envs_dir()), sources=sources
        )
        self.on_event(
            PlanStage(
                status="done",
                summary=plan.summary,
                headline=str(view.headline),
                changes=tuple(change.plain() for change in changes),
                plan=plan_to_json(plan),
                install=view.pip_command,
                package_sources=sources_to_json(sources, plan.requirements),
            )
        )
        return recommendation

    def _sources(self, report: SystemReport, plan: Plan) -> PlanSources:
        """Where the environment's packages will come from (a mirror the person set is refused here if unusable)."""
        request = self.answers.request
        try:
            return sources_for_request(plan, request, report.managers)
        except MirrorRefused as error:
            raise ApplyUsageError(str(error)) from None

    def _environment_request(
        self, report: SystemReport, recommendation: Recommendation
    ) -> tuple[EnvRecord | None, Setup | None]:
        """The environment kept as it is (one of that name matches the plan), or the checked setup."""
        request, plan = self.answers.request, recommendation.plan
        existing = find_record(request.name)
        # The wizard's own environment of this very plan, damaged (the framework uninstalled, the
        # interpreter gone): made again in its place, so that running apply again mends a machine.
        mend = existing is not None and same_plan(existing, plan) and not _intact(existing)
        self.mending = mend
        if existing is not None and not request.replace and not mend:
            if not same_plan(existing, plan):
                raise ApplyUsageError(
                    f"an environment {request.name!r} made with {existing.framework} "
                    f"{existing.framework_version} exists; the plan is {plan.framework} {plan.framework_version} "
                    "(set replace = true to replace it, or choose another environment name)"
                )
            # Any other answer it does not match is a change as well (workflow/fleet/existing.py).
            changed = unmatched_answers(existing, plan, request)
            if not changed:
                return existing, None
            raise ApplyUsageError(
                f"the environment {request.name!r} exists but does not match the answers ({'; '.join(changed)}); "
                "set replace = true to make it again as they say, or choose another environment name"
            )
        try:
            setup = plan_setup(
                report,
                replace(request, replace=request.replace or mend),
                recommendation=recommendation,
                runner=self.steps.runner,
            )
        except SourcesUnreachable as error:
            # The explanation (each index, what failed, the ways forward) before the one-line refusal.
            self.on_event(SourcesStage.of("unreachable", error.check))
            raise ApplyUsageError(str(error)) from None
        except SetupRefused as error:
            raise ApplyUsageError(str(error)) from None
        if setup.sources_check is not None:
            self.on_event(SourcesStage.of("reached", setup.sources_check))
        return None, setup

    def _path_change(self, plan: Plan) -> tuple[PathRequest | None, PathChange | None]:
        """The PATH change to make, planned against the value as it is now (None: none to make)."""
        request = path_request_from_plan(plan)
        if request is None or self.answers.path_scope == "none" or self.store is None:
            return None, None
        request = replace(request, scope=self.answers.path_scope, other_cuda=self.answers.other_cuda)  # type: ignore[arg-type]
        try:
            change = plan_add(
                self.store,
                request.scope,
                request.folders,
                other_cuda=request.other_cuda,
                env=comparison_env(self.store),
            )
        except PATH_ERRORS as error:
            raise ApplyUsageError(f"PATH: {error_text(error)}") from None
        if change.changed and needs_elevation(self.store, change):
            # The wizard's elevated helper asks at a UAC prompt, and an unattended run has no one to ask.
            raise ApplyUsageError(
                "path_scope = system needs administrator rights and an unattended run asks no one: "
                'run apply elevated (as SYSTEM under SCCM or Intune), or use path_scope = "user"'
            )
        return request, change

    def _apply_path(self, request: PathRequest, change: PathChange) -> str | None:
        """Make the PATH change; the reason when it failed (then nothing was changed)."""
        if self.store is None or not change.changed:
            self.on_event(self._path_stage("unchanged", request, change))
            return None
        outcome = apply_request(self.store, self.journal, change, request, self.steps.runner)
        if outcome.error is not None or outcome.applied is None:
            self.on_event(replace(self._path_stage("failed", request, change), error=outcome.error))
            return f"PATH: {outcome.error}"
        entry = outcome.applied.entry
        self.made.path_entry_id = entry.id if entry is not None else None
        self.made.path_folders = request.folders
        done = self._path_stage("done", request, change)
        self.on_event(replace(done, journal_id=self.made.path_entry_id, restart=outcome.restart))
        return None

    def _undo_path(self) -> str:
        """Undo this run's PATH change, if it made one; says what became of PATH."""
        if self.made.path_entry_id is None or self.store is None:
            return "nothing else had been changed"
        try:
            last = last_undoable(history(self.store, self.journal))
        except PATH_ERRORS:
            last = None
        if last is None or last.id != self.made.path_entry_id:
            # Something else changed PATH since: undoing now would revert that instead.
            self.on_event(
                PathStage(
                    status="kept", journal_id=self.made.path_entry_id, note="PATH changed since; not undone"
                )
            )
            undo = wizard_command().line("path undo" + registry_option(self.store.identity))
            return f"PATH was changed by something else meanwhile, so the wizard's entry stays ({undo})"
        outcome = undo_last(self.store, self.journal, self.steps.runner)
        if outcome.error is not None:
            self.on_event(PathStage(status="kept", journal_id=self.made.path_entry_id, error=outcome.error))
            undo = wizard_command().line("path undo" + registry_option(self.store.identity))
            return f"the PATH change could not be undone ({outcome.error}); run `{undo}`"
        self.on_event(PathStage(status="undone", journal_id=self.made.path_entry_id))
        self.made.path_entry_id = None
        return "the PATH change was undone"

    def _make_environment(self, keep: EnvRecord | None, setup: Setup | None) -> EnvResult:
        if keep is not None:
            self.on_event(self._env_stage("kept", keep, None))
            return EnvResult(
                status="ok",
                name=keep.name,
                path=keep.path,
                python=keep.python,
                framework=keep.framework,
                framework_version=keep.framework_version,
                kept=True,
            )
        if setup is None:
            raise ApplyUsageError("nothing to make")  # pragma: no cover - run() never gets here
        self.on_event(self._env_stage("started", None, setup))
        try:
            result = self.steps.create_env(setup, self._forward("environment"), self.cancel)
        except SetupRefused as error:  # another gpuwizard is making the same name right now
            raise ApplyUsageError(str(error)) from None
        self.on_event(
            EnvironmentStage(status="done" if result.ok else result.status, name=setup.request.name)
        )
        return result

    def _test(self, report: SystemReport, plan: Plan, environment: EnvResult) -> ApplyResult:
        target = LiveTestTarget(
            python=str(environment.python), framework=plan.framework, env_name=self.answers.request.name
        )
        self.on_event(LiveTestStage(status="started", env=self.answers.request.name))
        # A pass is recorded as the last good state (as `gpuwizard test` records it); with
        # require_gpu, only one that trained on the GPU (else the run ends as a problem below).
        tested = run_test_and_record(
            self.steps.run_test,
            report,
            target,
            self._forward("test"),
            self.cancel,
            path_store=self.store,
            record_good=self.steps.record_good,
            require_gpu=self.answers.require_gpu,
        )
        result = tested.result
        verdict = result.verdict
        test_facts = LiveTestFacts.of(result)
        if self.cancel.is_set():
            return self._result(
                "cancelled", "cancelled during the live test; the setup was kept", plan=plan, test=test_facts
            )
        self.on_event(LiveTestStage.done(test_facts))
        findings: list[Finding] = list(result.findings)
        trained_on_gpu = on_gpu(verdict)
        if passed(
            verdict, machine_has_nvidia_gpu(report), gpu_expected=result.device_expected is not None
        ) and (trained_on_gpu or not self.answers.require_gpu):
            name = self.answers.request.name
            if tested.error is not None:
                # The setup works; only its record failed (a full or read-only disk).
                findings.append(make_finding("GOOD_STATE_NOT_RECORDED", env=name, error=tested.error))
            where = "the GPU" if trained_on_gpu else "the CPU"
            return self._result(
                "ok", f"{name} is ready and trains on {where} ({verdict})",
                plan=plan, test=test_facts, findings=tuple(findings),
            )  # fmt: skip
        return self._result(
            "problem",
            f"the live test did not pass ({verdict}); the setup was kept for diagnosis "
            f"(`{wizard_command().run('env', 'remove', self.answers.request.name)}` removes it)",
            plan=plan,
            test=test_facts,
            findings=tuple(findings),
        )

    # --- events ----------------------------------------------------------------------------

    def _forward(self, source: str) -> EventSink:
        """Where a nested step's events go: on to this run's stream, wrapped, saying ``source``."""

        def forward(event: Event) -> None:
            self.on_event(Wrapped(source=source, inner=event))

        return forward

    def _path_stage(self, status: str, request: PathRequest | None, change: PathChange | None) -> PathStage:
        """The PATH stage saying the change asked for (or why none is)."""
        if request is None:
            return PathStage(status=status, note=self._path_skip_reason())
        return PathStage(
            status=status,
            scope=request.scope,
            registry=self.store.identity if self.store is not None else None,
            folders=tuple(request.folders),
            changed=bool(change is not None and change.changed),
            entries_before=None if change is None else _entries(change.old),
            entries_after=None if change is None else _entries(change.new),
        )

    def _path_skip_reason(self) -> str:
        if self.answers.path_scope == "none":
            return "path_scope = none"
        if self.store is None:
            return "no registry: PATH is edited only on Windows"
        return "the plan adds nothing to PATH"

    def _env_stage(self, status: str, keep: EnvRecord | None, setup: Setup | None) -> ApplyStage:
        """The environment stage saying what is kept, or what will be made and by which tool."""
        if keep is not None:
            return EnvironmentKept(name=keep.name, path=keep.path)
        if setup is None:  # pragma: no cover - run() never gets here
            raise ApplyUsageError("nothing to make")
        prepared = setup.prepared
        return EnvironmentStage(
            status=status,
            note="this plan's environment was damaged: it is made again" if self.mending else None,
            name=prepared.request.name,
            path=str(prepared.prefix),
            tool=prepared.backend.tool,
            python=prepared.python,
            requirements=tuple(prepared.requirements),
            variables=dict(prepared.variables),
        )

    def _result(
        self,
        status: ApplyStatus,
        message: str,
        *,
        plan: Plan | None = None,
        test: LiveTestFacts | None = None,
        findings: tuple[Finding, ...] = (),
        rolled_back: bool = False,
    ) -> ApplyResult:
        environment = self.made.environment
        result = ApplyResult(
            status=status,
            message=message,
            changed=bool(
                self.made.path_entry_id is not None or (environment is not None and not environment.kept)
            ),
            framework=plan.framework if plan else self.answers.request.framework,
            framework_version=plan.framework_version if plan else None,
            cpu_only=plan.cpu_only if plan else None,
            environment=(
                ApplyEnvironment(
                    name=environment.name,
                    path=environment.path,
                    python=environment.python,
                    framework_version=environment.framework_version,
                )
                if environment is not None
                else None
            ),
            path=(
                ApplyPathChange(self.made.path_entry_id, tuple(self.made.path_folders))
                if self.made.path_entry_id
                else None
            ),
            test=test,
            findings=findings,
            rolled_back=rolled_back,
        )
        self.on_event(result)
        return result


def _intact(record: EnvRecord) -> bool:
    """Whether the environment still has its interpreter and an installed framework.

    Reads the installed distributions' metadata folders (as ``pip list`` does) rather than
    importing the framework, which takes seconds; the live test afterwards checks the rest.
    """
    if not Path(record.python).exists():
        return False
    known = FRAMEWORKS.get(record.framework)
    names = known.dist_info_prefixes() if known else ()
    root = Path(record.path)
    site_folders = [*root.glob("lib/python*/site-packages"), *root.glob("Lib/site-packages")]
    return any(next(folder.glob(f"{name}-*.dist-info"), None) for folder in site_folders for name in names)


def _machine_summary(report: SystemReport) -> str:
    gpus = report.nvidia_gpus
    others = [gpu for gpu in report.compute_gpus if gpu.vendor != "nvidia"]
    if not gpus and others:
        return gpu_list(others)  # AMD, Intel, Apple: the plan says what uses them
    if report.driver is None:
        return f"{_gpu_count(len(gpus))}, no NVIDIA driver answering" if gpus else "no NVIDIA GPU"
    names = ", ".join(sorted({gpu.name or "GPU" for gpu in gpus}))
    return (
        f"{_gpu_count(len(gpus))} ({names}), driver {report.driver.version} (CUDA {report.driver.cuda_max})"
    )


def _gpu_count(n: int) -> str:
    """The number of NVIDIA GPUs in English ("1 NVIDIA GPU", "2 NVIDIA GPUs"); the command line has no translation."""
    return "1 NVIDIA GPU" if n == 1 else f"{n} NVIDIA GPUs"


def _entries(value: RegValue | None) -> tuple[str, ...]:
    """A PATH value's entries as the registry holds them (``%VARIABLES%`` unexpanded)."""
    if value is None or not isinstance(value.value, str):
        return ()
    return tuple(split_path_value(value.value, windows=True))
