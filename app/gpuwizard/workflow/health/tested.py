"""Run the live test, then record the setup as the last good state when it passed: the one way.

``gpuwizard test``, the wizard's Test page and ``apply`` each test an environment the wizard
made and, when the test passed on this machine, record it as the last good state
(:func:`gpuwizard.workflow.health.good_state.record_good_state`), which ``verify`` compares with
later. They differ only in what they ask: the wizard records nothing in a preview of a saved
report (``record=False``), ``apply`` records only a test that trained on the GPU when its
answers require one (``require_gpu``); and in what they do with a record that failed (a full
or read-only disk): the command line reports it as its error, the wizard as a log line, apply as
a ``GOOD_STATE_NOT_RECORDED`` finding. So the failure comes back (:attr:`Tested.error`), the
test's verdict standing whatever happened to its record.

Nothing is recorded for a test that was cancelled (no verdict) or did not pass (the rule of
:func:`gpuwizard.core.livetest.verdicts.passed`), nor for an interpreter the wizard did not make
(``--python``: no ``env_name``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpuwizard.core.events import EventSink
from gpuwizard.core.livetest.events import LiveTestResult
from gpuwizard.core.livetest.verdicts import on_gpu, passed
from gpuwizard.core.machine.readiness import machine_has_nvidia_gpu
from gpuwizard.core.machine.system_report import SystemReport
from gpuwizard.workflow.health.good_state import record_good_state
from gpuwizard.workflow.livetest.run import LiveTestTarget

if TYPE_CHECKING:
    from gpuwizard.adapters.registry import EnvironmentStore
    from gpuwizard.core.health.snapshot import Snapshot

#: How a live test is run (:func:`gpuwizard.workflow.livetest.run.run_test`; tests pass a fake).
TestRunner = Callable[[SystemReport, LiveTestTarget, EventSink, threading.Event], LiveTestResult]
#: How a passed test is recorded (:func:`~gpuwizard.workflow.health.good_state.record_good_state`).
GoodStateRecorder = Callable[
    [SystemReport, str, LiveTestResult, "EnvironmentStore | None"], "Snapshot | None"
]


@dataclass(frozen=True)
class Tested:
    """A live test and what became of its record.

    Attributes:
        result: The test's result (also the last event its sink got).
        snapshot: The last good state as recorded now; None when nothing was recorded.
        error: Why recording failed (the disk refused it); None when it did not fail.
    """

    __test__ = False  # a result, not a test class, whatever pytest makes of its name

    result: LiveTestResult
    snapshot: Snapshot | None = None
    error: OSError | ValueError | None = None


def run_test_and_record(
    run_test: TestRunner,
    report: SystemReport,
    target: LiveTestTarget,
    on_event: EventSink,
    cancel: threading.Event,
    *,
    path_store: EnvironmentStore | None,
    record_good: GoodStateRecorder = record_good_state,
    record: bool = True,
    require_gpu: bool = False,
) -> Tested:
    """Run the live test of ``target`` on this machine (``report``); record it when it passed.

    Args:
        run_test: Runs the test (:func:`gpuwizard.workflow.livetest.run.run_test`).
        report: This machine, as detected now.
        target: The interpreter and framework to test, and the environment they are (if any).
        on_event: Where the test's events go, as they come, the result last.
        cancel: Set to stop the test: it ends ``cancelled``, and nothing is recorded.
        path_store: The registry whose PATH the wizard edits (the live one on Windows), whose
            folders the record keeps; None where it edits none.
        record_good: Records the state.
        record: False: record nothing whatever the verdict (a preview).
        require_gpu: Record only a test that trained on the GPU (``apply``'s ``require_gpu``).
    """
    result = run_test(report, target, on_event, cancel)
    if (
        not record
        or target.env_name is None
        or cancel.is_set()
        or result.cancelled
        or not passed(
            result.verdict, machine_has_nvidia_gpu(report), gpu_expected=result.device_expected is not None
        )
        or (require_gpu and not on_gpu(result.verdict))
    ):
        return Tested(result)
    try:
        snapshot = record_good(report, target.env_name, result, path_store)
    except (OSError, ValueError) as error:
        return Tested(result, error=error)
    return Tested(result, snapshot=snapshot)
