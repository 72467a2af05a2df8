"""Recorded runs of the wizard's long steps, replayed with the steps' own signatures.

``gpuwizard screenshots`` shows the Install, Test and Verify pages as they look after a real
run without running anything: the events come from ``resources/samples/runs/*.jsonl``, each
recorded from the real command on a real machine (``resources/samples/runs/README.md`` says
which and how). Nothing is created, trained or changed.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from importlib import resources
from typing import Any

from gpuwizard.core.compat.plan import Recommendation
from gpuwizard.core.envs.request import SetupRequest
from gpuwizard.core.envs.result import EnvResult, env_result_from_json
from gpuwizard.core.health.checks import HealthReport, health_from_json
from gpuwizard.core.livetest.events import LiveTestResult, event_from_json
from gpuwizard.core.machine.system_report import SystemReport
from gpuwizard.workflow.livetest.run import LiveTestTarget, TestEvents
from gpuwizard.workflow.wizard.steps import EventSink

Event = dict[str, Any]


class ReplayError(ValueError):
    """A recording is missing or has no ``result`` event."""


def recorded_events(name: str) -> list[Event]:
    """The events of ``resources/samples/runs/NAME.jsonl``, in order.

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


def _replay(events: list[Event], on_event: EventSink) -> Event:
    for event in events:
        on_event(dict(event))
    return dict(events[-1])


def replay_env_create(
    name: str,
) -> Callable[[SystemReport, Recommendation, SetupRequest, EventSink, threading.Event], EnvResult]:
    """A ``create_env`` step that replays the recording ``name`` (its events as recorded, its result typed)."""
    events = recorded_events(name)
    result = env_result_from_json(events[-1])

    def step(
        _report: SystemReport,
        _recommendation: Recommendation,
        _request: SetupRequest,
        on_event: EventSink,
        _cancel: threading.Event,
    ) -> EnvResult:
        for event in events:
            on_event(dict(event))
        return result

    return step


def replay_test(
    name: str,
) -> Callable[[SystemReport, LiveTestTarget, TestEvents, threading.Event], LiveTestResult]:
    """A ``run_test`` step that replays the recording ``name`` (its events, typed as they are read)."""
    events = [event_from_json(event) for event in recorded_events(name)]
    result = events[-1]
    if not isinstance(result, LiveTestResult):  # pragma: no cover - recorded_events checks the last event
        raise ReplayError(f"the recorded run {name!r} does not end in a result event")

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
    events = recorded_events(name)

    def step(
        _detect: Callable[[], SystemReport], _store: object, on_event: EventSink, _cancel: threading.Event
    ) -> HealthReport:
        return health_from_json(_replay(events, on_event))

    return step
