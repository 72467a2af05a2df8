"""The wizard's state as a plain object: what the pages show and what the user chose.

Pages read and write this object; it knows nothing of Qt, so the same state drives the
headless commands and is easy to set up in tests.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from gpuwizard.adapters.registry import EnvironmentStore
from gpuwizard.adapters.runner import Runner, SubprocessRunner
from gpuwizard.core.compat.plan import Recommendation
from gpuwizard.core.compat.wsl_route import WslRoute
from gpuwizard.core.envs.request import SetupRequest
from gpuwizard.core.envs.result import EnvResult
from gpuwizard.core.events import EventSink
from gpuwizard.core.livetest.events import LiveTestResult, log_event
from gpuwizard.core.machine.system_report import SystemReport
from gpuwizard.workflow.envs.setup import recommend_for, setup_environment
from gpuwizard.workflow.envs.wsl_setup import WINDOWS_STEPS, not_ready_reason, run_windows_step_here
from gpuwizard.workflow.health.good_state import record_good_state, setup_to_verify
from gpuwizard.workflow.health.tested import GoodStateRecorder, TestRunner, run_test_and_record
from gpuwizard.workflow.livetest.run import LiveTestTarget, TestEvents, run_test
from gpuwizard.workflow.machine.detect import detect_system
from gpuwizard.workflow.pathedit.request import PathRequest
from gpuwizard.workflow.state.wsl_pending import WslStepRun
from gpuwizard.workflow.wizard import steps as wizard_steps

if TYPE_CHECKING:
    from gpuwizard.core.health.checks import HealthReport
    from gpuwizard.core.health.snapshot import Snapshot
    from gpuwizard.workflow.state.wsl_pending import WslStepRun

#: The wizard's long steps, swappable for fakes in tests (the real ones: workflow.envs.setup, workflow.livetest.run, workflow.health).
Recommender = Callable[[SystemReport, SetupRequest], Recommendation]
EnvCreator = Callable[[SystemReport, Recommendation, SetupRequest, EventSink, threading.Event], EnvResult]
#: Runs the WSL 2 route's Windows step (the person agreed): workflow.envs.wsl_setup.run_windows_step_here.
WslWindowsStep = Callable[[WslRoute], WslStepRun]
Verifier = Callable[
    [Callable[[], SystemReport], "EnvironmentStore | None", EventSink, threading.Event], "HealthReport"
]


@dataclass
class WizardSession:
    """State shared by the wizard's pages.

    Attributes:
        report: The machine as detected, or as loaded from ``system_file``.
        system_file: A saved report being shown; then every change is only a preview.
        detect: How to detect this machine (tests pass a fake).
        path_store: The registry whose PATH the PATH page edits (the live one, or a snapshot
            file); None: no PATH page, except in a preview, where the page shows the request.
        path_request: The folders the plan adds to PATH and the DLLs they must provide; the
            PATH page shows it, and may change its scope and what happens to other CUDA
            versions. None: no PATH page.
        runner: How to start processes (the DLL check, the list of running programs).
        choice: What the person asked for on the Choose page.
        recommendation: The recommendation for ``choice``.
        env_result: The outcome of the environment's creation.
        test_result: The result of the live test.
        recommend: How to recommend (tests pass a fake).
        create_env: How to create the environment (tests pass a fake).
        run_test: How to run the live test (tests pass a fake).
        verify: How to check the setup against the last good state (tests pass a fake).
        record_good: How to record a passed test as the last good state (tests pass a fake).
        previous_setup: The wizard set this machine up before (an environment it made, a PATH
            folder it added: something ``verify`` can check); it opens on the Verify page.
        health: The last verification's report.
        snapshot: The good state recorded after the live test passed.
    """

    report: SystemReport | None = None
    system_file: Path | None = None
    detect: Callable[[], SystemReport] = field(default=detect_system)
    path_store: EnvironmentStore | None = None
    path_request: PathRequest | None = None
    runner: Runner = field(default_factory=SubprocessRunner)
    choice: SetupRequest | None = None
    recommendation: Recommendation | None = None
    env_result: EnvResult | None = None
    test_result: LiveTestResult | None = None
    recommend: Recommender = field(default=recommend_for)
    create_env: EnvCreator = field(default=setup_environment)
    wsl_windows_step: WslWindowsStep = field(default=run_windows_step_here)
    run_test: TestRunner = field(default=run_test)
    verify: Verifier = field(default=wizard_steps.verify)
    record_good: GoodStateRecorder = field(default=record_good_state)
    previous_setup: bool = False
    health: HealthReport | None = None
    snapshot: Snapshot | None = None

    @property
    def preview(self) -> bool:
        """True when showing a saved report: nothing on this machine may change."""
        return self.system_file is not None

    @property
    def wants_path_page(self) -> bool:
        """True when there is a PATH change to show (see :meth:`path_page_follows`)."""
        return self.path_page_follows(self.path_request)

    def path_page_follows(self, request: PathRequest | None) -> bool:
        """True when the PATH page comes after Choose for ``request``.

        On this machine it needs a registry to change. In a preview it shows the change too,
        without one (a saved report holds no PATH values, and nothing is applied anyway), so
        that the Choose page's "the next page shows the change first" holds there as well.
        """
        return request is not None and (self.path_store is not None or self.preview)

    def wsl_step_needed(self, recommendation: Recommendation | None) -> WslRoute | None:
        """The route whose Windows step must run before ``recommendation``'s environment, if any."""
        plan = recommendation.plan if recommendation is not None else None
        if plan is None or plan.target != "wsl2" or plan.wsl is None or self.preview:
            return None
        return plan.wsl if plan.wsl.state in WINDOWS_STEPS else None

    def prepare_wsl_and_create(
        self, route: WslRoute, choice: SetupRequest, on_event: EventSink, cancel: threading.Event
    ) -> EnvResult:
        """Run the route's Windows step (the person agreed), look again, then make the environment.

        Runs on a worker. When the distribution is not ready after the step (Windows asks to
        restart, the distribution's first start is still to come), the result says what is left
        and the environment is made the next time (the step is recorded: ``wsl_pending``).
        """
        try:
            ran = self.wsl_windows_step(route)
        except Exception as error:  # noqa: BLE001 - declined, refused, failed: all said as the result
            result = EnvResult(status="failed", name=choice.name, error=str(error))
            on_event(result)
            return result
        on_event(log_event(f"{' '.join(route.windows_commands)}: exit status {ran.exit_code}"))
        report = self.detect()
        recommendation = self.recommend(report, choice)
        self.report, self.recommendation = report, recommendation
        still = recommendation.plan.wsl if recommendation.plan.target == "wsl2" else None
        if still is not None and still.state != "ready":
            result = EnvResult(status="failed", name=choice.name, error=not_ready_reason(still))
            on_event(result)
            return result
        return self.create_env(report, recommendation, choice, on_event, cancel)

    def test_and_record(
        self, report: SystemReport, target: LiveTestTarget, on_event: TestEvents, cancel: threading.Event
    ) -> LiveTestResult:
        """Run the live test; when it passed, record the setup as the last good state.

        Runs on a worker, through the one way every test records
        (:func:`gpuwizard.workflow.health.tested.run_test_and_record`): the state recorded here
        is the one ``gpuwizard test`` records. A saved report (a preview) never records anything.
        """
        tested = run_test_and_record(
            self.run_test,
            report,
            target,
            on_event,
            cancel,
            path_store=self.path_store,
            record_good=self.record_good,
            record=not self.preview,
        )
        if tested.error is not None:
            # The test's verdict stands; only the record of it failed (a full disk, say).
            on_event(log_event(f"the good state could not be recorded: {tested.error}"))
        if not self.preview:
            self.snapshot = tested.snapshot
        return tested.result

    def verify_and_detect(
        self, on_event: EventSink, cancel: threading.Event
    ) -> tuple[HealthReport, SystemReport | None]:
        """Verify the setup; also returns the machine as the verification detected it.

        Runs on a worker; the wizard shows that report on the Detect page, so a setup made
        again from the Verify page does not detect twice.
        """
        detected: list[SystemReport] = []

        def detect() -> SystemReport:
            report = self.detect()
            detected.append(report)
            return report

        health = self.verify(detect, self.path_store, on_event, cancel)
        return health, (detected[-1] if detected else None)


def session_for_this_machine(
    report: SystemReport | None = None, system_file: Path | None = None
) -> WizardSession:
    """The session the wizard opens with: this machine's registry and its earlier setup, if any.

    With a saved report (``system_file``) nothing of this machine is used: no registry, no
    earlier setup, so the wizard only previews.
    """
    if system_file is not None:
        return WizardSession(report=report, system_file=system_file)
    path_store: EnvironmentStore | None = None
    if os.name == "nt":
        from gpuwizard.workflow.pathedit.machine import open_store  # noqa: PLC0415 - Windows only

        path_store = open_store(None)
    # Verify first only when there is something of the wizard's to verify: an empty last good
    # state (an older version recorded one after verifying nothing) leads to Welcome.
    return WizardSession(report=report, path_store=path_store, previous_setup=setup_to_verify(path_store))
