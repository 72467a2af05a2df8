"""Fake ``create_env`` steps written as recorded event streams, typed as the real step sends and returns them."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any

from gpuwizard.core.envs.events import ENV_CREATE_EVENTS
from gpuwizard.core.envs.result import EnvResult, env_result_from_json
from gpuwizard.core.events import Event, EventSink

Sink = Callable[[Any], None]
RecordedStep = Callable[[Any, Any, Any, Sink, threading.Event], dict[str, Any]]


def typed(step: RecordedStep) -> Callable[[Any, Any, Any, EventSink, threading.Event], EnvResult]:
    """``step`` sends events as JSON and returns its ``result`` event as JSON; as a step, all are typed.

    An event ``step`` sends is read as ``env create --json``'s lines are read back
    (:data:`~gpuwizard.core.envs.events.ENV_CREATE_EVENTS`); one already typed goes on as it is.
    """

    def run(
        report: Any, recommendation: Any, request: Any, on_event: EventSink, cancel: threading.Event
    ) -> EnvResult:
        def send(event: Mapping[str, Any] | Event) -> None:
            on_event(event if isinstance(event, Event) else ENV_CREATE_EVENTS.read(event))

        return env_result_from_json(step(report, recommendation, request, send, cancel))

    run.__wrapped__ = step  # type: ignore[attr-defined]
    return run
