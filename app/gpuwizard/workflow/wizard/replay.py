"""Recorded runs of the wizard's long steps, replayed with the steps' own signatures.

``gpuwizard screenshots`` shows the Install, Test and Verify pages as they look after a real
run without running anything: the events come from ``resources/samples/runs/*.jsonl``, each
recorded from the real command on a real machine (``resources/samples/runs/README.md`` says
which and how). Nothing is created, trained or changed.

A recording is read here, once, with its stream's kinds (:class:`~gpuwizard.core.events.EventKinds`):
the steps replay typed events, as the real ones send them.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from importlib import resources
from typing import Any, TypeVar

from gpuwizard.core.compat.plan import Recommendation
from gpuwizard.core.envs.events import ENV_CREATE_EVENTS
from gpuwizard.core.envs.request import SetupRequest
from gpuwizard.core.envs.result import EnvResult
from gpuwizard.core.events import Event, EventKinds, EventSink
from gpuwizard.core.health.checks import HealthReport
from gpuwizard.core.health.events import VERIFY_EVENTS, VerifyResult
from gpuwizard.core.livetest.events import LIVE_TEST_EVENTS, LiveTestResult
from gpuwizard.core.machine.system_report import SystemReport
from gpuwizard.workflow.livetest.run import LiveTestTarget, TestEvents

_Result = TypeVar("_Result", bound=Event)


class ReplayError(ValueError):
    """A recording is missing or has no ``result`` event."""


def recorded_events(name: str) -> list[dict[str, Any]]:
    """The events of ``resources/samples/runs/NAME.jsonl`` as recorded (JSON objects), in order.

    Raises:
        ReplayError: No such recording, or one without a ``result`` event.
    """
    source = resources.files("gpuwizard.resources").joinpath(f"samples/runs/{name}.jsonl")
    try:
        text = source.read_text(encoding="utf-8")
    except (FileNotFoundError, OSError) as error:
        raise ReplayError(f"no recorded run {name!r}: {error}") from None
    events = [json.loads(line) for line in text.splitlines() if line.strip()]
    if not events or events[-1].get("event") != "result":
        raise ReplayError(f"the recorded run {name!r} does not end in a result event")
    return events


def recorded_run(name: str, kinds: EventKinds, result: type[_Result]) -> tuple[list[Event], _Result]:
    """The events of the recording ``name``, read with its stream's ``kinds``, and its ``result``.

    Raises:
        ReplayError: No such recording, or one that does not end in such a result.
    """
    events = [kinds.read(event) for event in recorded_events(name)]
    last = events[-1]
    if not isinstance(last, result):
        raise ReplayError(f"the recorded run {name!r} does not end in a {kinds.name} result")
    return events, last


def replay_env_create(
    name: str,
) -> Callable[[SystemReport, Recommendation, SetupRequest, EventSink, threading.Event], EnvResult]:
    """A ``create_env`` step that replays the recording ``name`` (its events and its result, typed)."""
    events, result = recorded_run(name, ENV_CREATE_EVENTS, EnvResult)

    def step(
        _report: SystemReport,
        _recommendation: Recommendation,
        _request: SetupRequest,
        on_event: EventSink,
        _cancel: threading.Event,
    ) -> EnvResult:
        for event in events:
            on_event(event)
        return result

    return step


def replay_test(
    name: str,
) -> Callable[[SystemReport, LiveTestTarget, TestEvents, threading.Event], LiveTestResult]:
    """A ``run_test`` step that replays the recording ``name`` (its events and its result, typed)."""
    events, result = recorded_run(name, LIVE_TEST_EVENTS, LiveTestResult)

    def step(
        _report: SystemReport, _target: LiveTestTarget, on_event: TestEvents, _cancel: threading.Event
    ) -> LiveTestResult:
        for event in events:
            on_event(event)
        return result

    return step


def replay_verify(
    name: str,
) -> Callable[[Callable[[], SystemReport], object, EventSink, threading.Event], HealthReport]:
    """A ``verify`` step that replays the recording ``name`` (and detects nothing)."""
    events, result = recorded_run(name, VERIFY_EVENTS, VerifyResult)

    def step(
        _detect: Callable[[], SystemReport], _store: object, on_event: EventSink, _cancel: threading.Event
    ) -> HealthReport:
        for event in events:
            on_event(event)
        return result.report

    return step
