"""Verify: re-run detection, probe each environment, re-test, and compare with the last good state.

Used by ``gpuwizard verify`` and the wizard's Verify page. Each environment's checks come from
``core/health/env_drift.py`` and, where the last good state recorded NVIDIA wheels, the
``cuda_wheels`` check of ``core/health/wheel_drift.py``. The events are those of
``core/health/events.py``. Steps, each announced by a :class:`VerifyPhase` (``detect``, then
per environment ``environment`` and ``test``, then ``path``); each check is sent as a
:class:`VerifyCheck` as soon as it is decided, so a UI can show a line per check as it arrives.

The short live test's own events (``start``, ``device``, ``phase``, ``step``, ``finding``,
its ``result``...) are passed on wrapped, with ``source`` ``test`` and ``env`` NAME
(:class:`~gpuwizard.core.events.Wrapped`); verify's own events carry no ``source``. The last
event is verify's :class:`VerifyResult`: the ``gpuwizard.health/1`` report plus ``status``
(``complete``, ``cancelled`` or ``nothing_to_verify``) and ``saved`` (the last good state
written by this run, or null).

When the wizard set nothing up here (no environment it made, no PATH folder it added, no last
good state that records either), there is nothing to compare: nothing is detected, checked or
recorded, and the only event is a ``result`` with ``status`` ``nothing_to_verify``, no checks,
``healthy`` false (nothing was found working) and ``message`` saying so.

A healthy run (nothing broken; changed is fine) with ``record`` saves a new last good state,
so the next run compares with what works now. It is merged, under the file's lock, into the
state as it is on disk when the run ends, not as it was when the run began: an environment
whose entry another wizard recorded meanwhile (``gpuwizard test`` passed) keeps that entry,
and one made meanwhile is kept as well (docs/architecture.md, "Crashes and races").

Without the short test (``verify --no-test``, the cluster gate), an environment whose
fingerprint (its installed files, its interpreter, the variables that steer the framework, the
machine's driver and GPUs: ``env_fingerprint.py``) is the one recorded with the last good state
is not probed again: the probe answer recorded with it is judged instead, and each check made
from it says so in its ``note`` (``core/health/probe_reuse.py``). A full verify always probes.
Every probe that ran records the environment's fingerprint with its answer, unless the files
changed while it ran.

With ``metrics_file`` (``verify --prometheus FILE``), the metrics of the run are written to it
before the ``result`` is sent, which then names the file (``prometheus_file``) or says why it
could not be written (``prometheus_error``): ``workflow/health/metrics.py``.

An environment that another gpuwizard is making right now (``env create --replace`` has moved
the old one aside; ``workflow/state/env_pending.py``) is not probed: each of its checks is
``skipped`` with a note that says so, it is not counted as broken, its recorded state is kept,
and the next run checks it.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from gpuwizard import probes
from gpuwizard.adapters.envs.pin_reach import unread_pins
from gpuwizard.adapters.executables import is_program
from gpuwizard.adapters.registry import EnvironmentStore
from gpuwizard.adapters.runner import CommandCancelled, CommandNotFound, CommandTimedOut, StreamingRunner
from gpuwizard.adapters.wizard_program import wizard_command
from gpuwizard.core.events import EventSink, Wrapped
from gpuwizard.core.exit_status import status_text
from gpuwizard.core.health.checks import HealthCheck, HealthReport
from gpuwizard.core.health.env_drift import (
    EnvObservation,
    compare_environment,
    compare_test,
    env_fixes,
    observe_environment,
)
from gpuwizard.core.health.events import (
    NOTHING_TO_VERIFY,
    VerifyCheck,
    VerifyPhase,
    VerifyPhaseName,
    VerifyResult,
)
from gpuwizard.core.health.install_commands import EnvSource
from gpuwizard.core.health.machine_drift import DriverNeed, compare_driver, compare_gpus
from gpuwizard.core.health.path_drift import compare_path, path_entries_to_check
from gpuwizard.core.health.probe_reuse import noted_as_reused
from gpuwizard.core.health.snapshot import Snapshot, SnapshotEnv, cuda_of_build
from gpuwizard.core.health.wheel_drift import compare_cuda_wheels
from gpuwizard.core.json_lines import last_json_object
from gpuwizard.core.livetest.events import LiveTestResult
from gpuwizard.core.machine.readiness import machine_has_nvidia_gpu
from gpuwizard.core.machine.system_report import SystemReport
from gpuwizard.core.pathedit.algebra import entry_key
from gpuwizard.core.wizard_command import BY_NAME, WizardCommand
from gpuwizard.workflow.health.env_fingerprint import environment_fingerprint
from gpuwizard.workflow.health.good_state import (
    baseline_env,
    build_snapshot,
    holds_something_to_verify,
    journal_ownership,
    load_last_good,
    path_keys,
    read_constraints,
    refreshed_path_entries,
    something_to_verify,
    torch_index_template,
    update_last_good,
)
from gpuwizard.workflow.health.metrics import write_metrics
from gpuwizard.workflow.state.env_pending import being_made
from gpuwizard.workflow.state.env_registry import EnvRecord, load_records
from gpuwizard.workflow.state.home import STATE_LOG, state_unwritable

if TYPE_CHECKING:
    # The live test's module is imported only when a short test runs: with its diagnosis
    # signatures it costs a tenth of a second, which the cluster gate (`--no-test`) has not.
    from gpuwizard.workflow.envs.wsl_setup import TransportFactory
    from gpuwizard.workflow.livetest.run import ProbeRunner

#: The env probe, run by path with the environment's interpreter (it imports nothing of ours).
ENV_PROBE: Final = probes.script("env_report")
# A first `import tensorflow` on a slow disk takes tens of seconds; minutes means it hangs
# (the same limit as the import check of env create).
ENV_PROBE_TIMEOUT_S: Final = 600.0
#: The short live test: few steps, still enough for core.live_test.judge. The loss must fall
#: from the first step to the mean of the last five (probes/train_test.py LOSS_LAST_WINDOW):
#: ten CPU steps at batch 32 take it from 2.4 to about 0.4, in 4.5 s with the CPU build of
#: torch 2.13 on 2 cores (import included); twenty GPU steps at batch 256 measured 57x the
#: CPU on an H100 (gpu_ok needs 3x), 13 s in all. Smaller matmuls keep that phase short.
SHORT_TEST_ARGS: Final = (
    "--steps", "20", "--warmup", "2", "--cpu-steps", "10", "--cpu-batch", "32",
    "--cpu-warmup", "1", "--matmul-size", "2048",
)  # fmt: skip

#: The checks of an environment, in the order verify makes them (core/health/env_drift.py).
ENV_CHECK_KINDS: Final = ("interpreter", "import", "build", "constraints", "devices", "test")
#: The note of each check of an environment another gpuwizard is making.
BEING_MADE_NOTE: Final = "being made by another gpuwizard (env create); checked next time"


def nothing_to_verify_message(wizard: WizardCommand) -> str:
    """What a verify that found nothing of the wizard's to check says.

    The ``message`` of its ``result``; the wizard's Verify page says it in words of its own.
    """
    return (
        "Nothing to verify: the wizard has not set up anything on this machine yet "
        "(no environment it made, no PATH folder it added, no last good state). "
        f"Run `{wizard.line()}` to set up."
    )


class VerifyUsageError(ValueError):
    """Verify cannot run as asked (an unknown environment); one line, nothing was done."""


class VerifyCancelled(Exception):
    """The user cancelled; ``report`` holds the checks decided until then (nothing was saved)."""

    def __init__(self, report: HealthReport) -> None:
        super().__init__("cancelled by the user")
        self.report = report


class _Stop(Exception):
    """Cancel was seen between two steps."""


def verify_setup(
    *,
    detect: Callable[[], SystemReport],
    runner: StreamingRunner,
    on_event: EventSink,
    cancel: threading.Event,
    path_store: EnvironmentStore | None = None,
    short_test: bool = True,
    record: bool = True,
    env_names: Sequence[str] | None = None,
    wsl_transport: TransportFactory | None = None,
    metrics_file: Path | None = None,
) -> HealthReport:
    """Compare the machine and the wizard's environments with the last good state.

    Args:
        detect: Detects the machine (``workflow.detect.detect_system``, or a saved report).
        runner: Starts the probes (the only place processes are started).
        on_event: Receives the events described in the module docstring, in order.
        cancel: Set it to stop; the running probe is killed.
        path_store: The registry whose PATH the wizard edited; PATH checks only with it.
        short_test: Run the short live test in each environment that imports its framework.
        record: Save a new last good state when the result is healthy.
        env_names: Check only these environments (default: every one the wizard made).
        wsl_transport: How to reach the distribution of an environment inside WSL 2 (tests give
            a local one); by default ``wsl.exe``.
        metrics_file: Write the run's metrics there for Prometheus before the ``result`` is sent
            (checked beforehand: ``workflow.health.metrics.check_metrics_file``).

    Returns:
        The report (also sent in the ``result`` event); without checks when there was nothing
        to verify (then the ``result`` has ``status`` ``nothing_to_verify`` and nothing was
        recorded).

    Raises:
        VerifyUsageError: ``env_names`` names an environment the wizard did not make.
        VerifyCancelled: ``cancel`` was set; the last event was a ``result`` with status
            ``cancelled`` and ``healthy`` false.
    """
    started = time.monotonic()
    records = load_records()
    wizard = wizard_command()
    if env_names is not None:
        known = {item.name for item in records}
        unknown = [name for name in env_names if name not in known]
        if unknown:
            raise VerifyUsageError(
                f"no environment {unknown[0]!r} was made by the wizard (see `{wizard.line('env list')}`)"
            )
        records = [item for item in records if item.name in env_names]
    loaded = snapshot = load_last_good()
    if not holds_something_to_verify(snapshot):
        # Only a driver and GPUs (an older version recorded that after verifying a machine it
        # had not set up): no baseline, or "as before" would be said of things never set up.
        snapshot = None
    if not something_to_verify(records, snapshot, path_store):
        nothing = HealthReport(())
        result = VerifyResult.of(nothing, NOTHING_TO_VERIFY, message=nothing_to_verify_message(wizard))
        if metrics_file is not None:
            duration = time.monotonic() - started
            result = write_metrics(
                metrics_file, result, machine=None, last_good=None, tests={}, duration_s=duration
            )
        on_event(result)
        return nothing
    run = _Verify(
        runner=runner,
        on_event=on_event,
        cancel=cancel,
        path_store=path_store,
        snapshot=snapshot,
        records=records,
        loaded=loaded,
        wizard=wizard,
        wsl_transport=wsl_transport,
        metrics_file=metrics_file,
        started=started,
    )
    return run.execute(detect, short_test=short_test, record=record)


class _Verify:
    """One verify run: the checks so far and what was observed, for the new snapshot."""

    def __init__(
        self,
        *,
        runner: StreamingRunner,
        on_event: EventSink,
        cancel: threading.Event,
        path_store: EnvironmentStore | None,
        snapshot: Snapshot | None,
        records: Sequence[EnvRecord],
        loaded: Snapshot | None = None,
        wizard: WizardCommand = BY_NAME,
        wsl_transport: TransportFactory | None = None,
        metrics_file: Path | None = None,
        started: float | None = None,
    ) -> None:
        self.runner = runner
        self.wsl_transport = wsl_transport
        self.on_event = on_event
        self.cancel = cancel
        self.path_store = path_store
        self.snapshot = snapshot
        self.records = records
        self.checks: list[HealthCheck] = []
        self.observed: dict[str, EnvObservation] = {}
        self.tests: dict[str, LiveTestResult] = {}
        self.baselines: dict[str, SnapshotEnv] = {}
        #: The last good state as read when the run began: what another writer changed since
        #: is told from it when the new state is merged in (None: there was none).
        self.loaded = loaded
        #: Environments another gpuwizard is making: not checked, not recorded this time.
        self.making: set[str] = set()
        #: How the person starts the wizard here: the fixes name it (core/wizard_command.py).
        self.wizard = wizard
        #: The fingerprint of each environment whose probe answer this run may record with it.
        self.fingerprints: dict[str, str] = {}
        #: The environments judged from the answer recorded with the last good state (not probed).
        self.reused: set[str] = set()
        #: The machine as detected (None until then), for the new state and the metrics.
        self.machine: SystemReport | None = None
        self.metrics_file = metrics_file
        self.started = time.monotonic() if started is None else started

    # -- events ---------------------------------------------------------------------------------
    def step(self, phase: VerifyPhaseName, subject: str, message: str) -> None:
        if self.cancel.is_set():
            raise _Stop
        self.on_event(VerifyPhase(phase=phase, subject=subject, message=message))

    def decide(self, check: HealthCheck) -> None:
        self.checks.append(check)
        self.on_event(VerifyCheck.of(check))

    def report(self) -> HealthReport:
        return HealthReport(tuple(self.checks), self.snapshot.recorded if self.snapshot else None)

    # -- the run --------------------------------------------------------------------------------
    def execute(self, detect: Callable[[], SystemReport], *, short_test: bool, record: bool) -> HealthReport:
        try:
            machine = self._machine(detect)
            for env in self.records:
                self._environment(env, machine, short_test=short_test)
            self._path()
        except (_Stop, CommandCancelled):
            partial = self.report()
            self.on_event(self._finished(VerifyResult.of(partial, "cancelled"), self.snapshot))
            raise VerifyCancelled(partial) from None
        health = self.report()
        saved = None
        save_error = None
        recorded: list[Snapshot] = []

        def merged(current: Snapshot | None) -> Snapshot:
            recorded.append(self._new_snapshot(machine, current))
            return recorded[-1]

        # A run that checked nothing (every check skipped) found nothing working: it must not
        # become the state later runs call "as before" (issue 37, point 7).
        if record and health.healthy and health.checked_something:
            try:
                # Read again, merged and written under the lock: docs/architecture.md, "Crashes and races".
                saved = str(update_last_good(merged))
            except OSError as error:
                # A full or read-only GPUWIZARD_HOME (issue 33): what was checked still stands and
                # is reported; only the new last good state is lost, and the result says why.
                save_error = state_unwritable(error) or str(error)
                STATE_LOG.warning("the last good state was not saved: %s", save_error)
        result = VerifyResult.of(health, "complete", saved=saved, save_error=save_error)
        self.on_event(self._finished(result, recorded[-1] if saved is not None else self.snapshot))
        return health

    def _finished(self, result: VerifyResult, last_good: Snapshot | None) -> VerifyResult:
        """``result``, once the metrics are written when asked (it then says what became of them)."""
        if self.metrics_file is None:
            return result
        return write_metrics(
            self.metrics_file,
            result,
            machine=self.machine,
            last_good=last_good,
            tests=self.tests,
            duration_s=time.monotonic() - self.started,
        )

    def _machine(self, detect: Callable[[], SystemReport]) -> SystemReport:
        self.step("detect", "", "detecting the NVIDIA driver and GPUs")
        machine = self.machine = detect()
        template = torch_index_template()
        self.baselines = {
            env.name: baseline_env(env, self.snapshot, index_template=template) for env in self.records
        }
        self.decide(compare_driver(self.snapshot, machine, self._driver_needs(machine), wizard=self.wizard))
        self.decide(compare_gpus(self.snapshot, machine, wizard=self.wizard))
        return machine

    def _driver_needs(self, machine: SystemReport) -> list[DriverNeed]:
        from gpuwizard.workflow.compat.data import load_compat  # noqa: PLC0415 - only with a CUDA build

        # WSL 2 runs on the Windows driver, so Windows' minimums apply there (as in recommend).
        driver_os = "windows" if machine.os.family == "windows" or machine.os.wsl else "linux"
        builds = {
            name: env.cuda_build or cuda_of_build(env.framework_build)[1]
            for name, env in self.baselines.items()
            if env.built_with_cuda is not False and not self._being_made(name)
        }
        if not any(builds.values()):
            return []
        compat = load_compat()
        return [
            DriverNeed(name, cuda, compat.min_driver(cuda, driver_os))
            for name, cuda in builds.items()
            if cuda
        ]

    def _being_made(self, name: str) -> bool:
        """Whether another gpuwizard is making ``name`` (once seen, for the rest of the run)."""
        if name not in self.making and being_made(name):
            self.making.add(name)
        return name in self.making

    def _skip_being_made(self, env: EnvRecord) -> None:
        """Every check of ``env`` skipped: it is being made (replaced), so nothing can be said yet."""
        self.observed.pop(env.name, None)
        self.fingerprints.pop(env.name, None)
        for kind in ENV_CHECK_KINDS:
            self.decide(
                HealthCheck(f"env:{env.name}:{kind}", kind, env.name, "skipped", note=BEING_MADE_NOTE)
            )

    def _environment(self, env: EnvRecord, machine: SystemReport, *, short_test: bool) -> None:
        baseline = self.baselines[env.name]
        if self._being_made(env.name):
            self.step("environment", env.name, f"{env.name} is {BEING_MADE_NOTE}")
            self._skip_being_made(env)
            return
        self.step("environment", env.name, f"checking {env.name} ({env.path})")
        observed = self._observe(env, baseline, machine, reuse=not short_test)
        if (observed.interpreter_error or observed.import_error) and self._being_made(env.name):
            # The replacement began while it was probed: its old interpreter was moved aside.
            self._skip_being_made(env)
            return
        self.observed[env.name] = observed
        source = _env_source(env, machine)
        fixes = env_fixes(
            baseline, windows=os.name == "nt", prefix=_custom_prefix(env), wizard=self.wizard, source=source
        )
        reused = env.name in self.reused
        for check in compare_environment(baseline, observed, fixes=fixes):
            self.decide(noted_as_reused(check) if reused else check)
        # Only where the last good state recorded NVIDIA wheels (see core/health/wheel_drift.py).
        wheels = compare_cuda_wheels(
            baseline, observed, windows=os.name == "nt", recreate=fixes.recreate, source=source
        )
        if wheels is not None:
            self.decide(noted_as_reused(wheels) if reused else wheels)
        has_gpu = machine_has_nvidia_gpu(machine)
        if not short_test:
            skipped = compare_test(
                env.name, baseline.test_verdict, None, machine_has_nvidia_gpu=has_gpu, wizard=self.wizard
            )
            self.decide(replace(skipped, note="the short live test was not asked for"))
            return
        if observed.interpreter_error is not None or observed.import_error is not None:
            skipped = compare_test(
                env.name, baseline.test_verdict, None, machine_has_nvidia_gpu=has_gpu, wizard=self.wizard
            )
            self.decide(replace(skipped, note="the framework does not import"))
            return
        from gpuwizard.workflow.livetest.run import (  # noqa: PLC0415 - only with the short test
            DEFAULT_TIMEOUT_S,
            LiveTestTarget,
            run_live_test,
        )

        self.step("test", env.name, f"a short live training test in {env.name}")
        runner, in_distro = self._runner_for(env)
        if runner is None:  # not reached: the environment report above failed the same way
            return
        result = run_live_test(
            LiveTestTarget(python=env.python, framework=env.framework or "pytorch", env_name=env.name),
            runner=runner,
            in_distro=in_distro,
            on_event=lambda event: self.on_event(Wrapped(source="test", inner=event, env=env.name)),
            cancel=self.cancel,
            machine_has_nvidia_gpu=has_gpu,
            sampler=None,
            timeout_s=DEFAULT_TIMEOUT_S,
            probe_args=SHORT_TEST_ARGS,
            machine=machine,
        )
        if self.cancel.is_set():
            raise _Stop  # the test was killed: its "broken" says nothing about the environment
        self.tests[env.name] = result
        self.decide(
            compare_test(
                env.name, baseline.test_verdict, result, machine_has_nvidia_gpu=has_gpu, wizard=self.wizard
            )
        )

    def _observe(
        self, env: EnvRecord, baseline: SnapshotEnv, machine: SystemReport, *, reuse: bool
    ) -> EnvObservation:
        """What ``env`` is now: its probe's answer (or the recorded one, when ``reuse`` may and can) and pins.

        The fingerprint is taken before the probe and again after it: when the two differ, the
        files changed while it ran (an install meanwhile), and the answer vouches for neither.
        """
        framework = env.framework or "pytorch"
        fingerprint = environment_fingerprint(env, machine)
        recorded = (
            baseline.probe if fingerprint is not None and baseline.probe_fingerprint == fingerprint else None
        )
        probe: Mapping[str, Any] | None
        if reuse and recorded is not None:
            probe, failure = recorded, None
            self.reused.add(env.name)
        else:
            probe, failure = self._probe(env, framework)
            if (
                probe is not None
                and fingerprint is not None
                and environment_fingerprint(env, machine) != fingerprint
            ):
                fingerprint = None
        if probe is not None and fingerprint is not None:
            self.fingerprints[env.name] = fingerprint
        return observe_environment(
            env.name,
            framework,
            env.python,
            probe=probe,
            probe_failure=failure,
            constraints_path=env.constraints,
            constraints_text=read_constraints(env.constraints),
            # Whether pip and uv are still pointed at it (issue 33: a path with a space was not).
            constraints_unread=unread_pins(Path(env.path), Path(env.constraints)) if env.constraints else (),
        )

    def _probe(self, env: EnvRecord, framework: str) -> tuple[Mapping[str, Any] | None, str | None]:
        """Run the env probe in ``env``: its answer, else why there is none."""
        lines: list[str] = []
        failure: str | None = None
        status: int | None = None
        argv = [env.python, "-I", str(ENV_PROBE), "--framework", framework]
        runner, in_distro = self._runner_for(env)
        if runner is None:
            failure = f"{env.distro} cannot be reached: wsl.exe is not installed here"
        elif not in_distro and not is_program(env.python):
            failure = f"{env.python} does not exist"
        else:
            try:
                status = runner.stream(argv, lines.append, cancel=self.cancel, timeout=ENV_PROBE_TIMEOUT_S)
            except CommandNotFound as error:
                failure = error.reason
            except CommandTimedOut:
                failure = f"no answer within {ENV_PROBE_TIMEOUT_S:g} s"
        probe = last_json_object(lines, _is_env_report)
        if probe is None and failure is None:
            last = next((line.strip() for line in reversed(lines) if line.strip()), "")
            failure = f"exit {status_text(status, windows=sys.platform == 'win32')}" + (
                f": {last[:300]}" if last else ", printing nothing"
            )
        return probe, failure

    def _runner_for(self, env: EnvRecord) -> tuple[ProbeRunner | None, bool]:
        """What runs ``env``'s probes, and whether inside a WSL distribution (None: it cannot be reached).

        An environment inside WSL 2 is probed there (``livetest/in_wsl.py``): its interpreter
        and the probes' copies are paths in the distribution, reached through ``wsl.exe``.
        """
        if env.manager != "wsl":
            return self.runner, False
        from gpuwizard.adapters.wsl import distro_transport  # noqa: PLC0415 - WSL environments only
        from gpuwizard.workflow.livetest.in_wsl import DistroProbeRunner  # noqa: PLC0415

        try:
            transport = (self.wsl_transport or distro_transport)(env.distro)
            return DistroProbeRunner(transport, python=env.python, wsl_home=env.wsl_home), True
        except (CommandNotFound, ValueError):
            return None, True

    def _path(self) -> None:
        store = self.path_store
        if store is None:
            return
        # The folders the last good state records, and those the journal says the wizard added
        # since: a first verify after `path add` has no good state yet, and must check them
        # all the same (issue 37, point 7).
        ownership = journal_ownership(store)
        recorded = self.snapshot.path_entries if self.snapshot is not None else ()
        entries = path_entries_to_check(recorded, ownership.owned, store.identity)
        if not entries:
            return
        self.step("path", store.identity, "checking the PATH folders the wizard added")
        keys: dict[str, set[str]] = {}
        for entry in entries:
            key = entry_key(entry.folder)
            present = key in keys.setdefault(entry.scope, path_keys(store, entry.scope))
            dropped = (entry.scope, key) in ownership.dropped
            self.decide(compare_path(entry, present=present, removed_by_wizard=dropped, wizard=self.wizard))

    # -- the new last good state ----------------------------------------------------------------
    def _new_snapshot(self, machine: SystemReport, current: Snapshot | None) -> Snapshot:
        """The last good state to save: this run's findings merged into ``current``, read under the lock.

        ``current`` is the state on disk now; it differs from the one this run began with when
        another wizard recorded something meanwhile. An environment this run did not check
        (not asked for, being made, or made meanwhile) keeps its entry in ``current`` while the
        wizard still knows it; so does one whose entry changed since this run read it (a test
        recorded meanwhile: newer than what this run compared with).
        """
        recorded_entries = current.path_entries if current is not None else ()
        entries = (
            refreshed_path_entries(recorded_entries, self.path_store)
            if self.path_store is not None
            else recorded_entries
        )
        checked = [env for env in self.records if env.name not in self.making]
        fresh = build_snapshot(
            machine,
            checked,
            self.observed,
            self.tests,
            entries,
            previous=current,
            fingerprints=self.fingerprints,
        )
        registered = {env.name for env in load_records()}
        checked_names = {env.name for env in checked}
        kept = {
            env.name: env
            for env in (current.environments if current is not None else ())
            if env.name in registered
            and (env.name not in checked_names or env != self._loaded_environment(env.name))
        }
        # In the registry's order; what only ``current`` holds comes last.
        ours = [kept.pop(env.name, env) for env in fresh.environments if env.name in registered]
        return replace(fresh, environments=(*ours, *kept.values()))

    def _loaded_environment(self, name: str) -> SnapshotEnv | None:
        return self.loaded.environment(name) if self.loaded is not None else None


def _is_env_report(value: Mapping[str, Any]) -> bool:
    """Whether a JSON object among the probe's lines is its answer (warnings may come before it)."""
    return value.get("probe") == "env_report"


def _env_source(env: EnvRecord, machine: SystemReport) -> EnvSource:
    """What installs into ``env`` now (the wizard's uv where uv made it), and the folder it was made from.

    uv makes a venv without pip, and the wizard adds pip only where it can (offline, only from a
    pip wheel in the folder: ``workflow/envs/create.py``), so the fixes of one uv made install
    with the uv the wizard itself uses (the machine report's). A WSL environment's uv is inside
    its distribution, not this machine's: its fixes keep its own pip, as do those of an
    environment whose uv the report no longer names.
    """
    uv = machine.managers.uv if env.tool == "uv" and env.manager == "venv" else None
    return EnvSource(uv=uv, find_links=env.find_links, offline=env.offline)


def _custom_prefix(env: EnvRecord) -> str | None:
    """The folder to name in ``env create --prefix`` when the environment is not in the default place."""
    from gpuwizard.workflow.envs.prepare import default_envs_dir  # noqa: PLC0415

    folder = Path(env.path)
    if env.manager == "conda":
        # conda's own envs folder (conda config --show envs_dirs) is where `env create` puts it.
        return None if folder.parent.name == "envs" else env.path
    return None if folder.parent == default_envs_dir().resolve() else env.path
