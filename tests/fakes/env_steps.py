"""Fake ``create_env`` steps written as recorded event streams, typed as the real step returns them."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from gpuwizard.core.envs.result import EnvResult, env_result_from_json

Sink = Callable[[dict[str, Any]], None]
RecordedStep = Callable[[Any, Any, Any, Sink, threading.Event], dict[str, Any]]


def typed(step: RecordedStep) -> Callable[[Any, Any, Any, Sink, threading.Event], EnvResult]:
    """``step`` sends events and returns its ``result`` event as JSON; as a step, it returns the typed result."""

    def run(
        report: Any, recommendation: Any, request: Any, on_event: Sink, cancel: threading.Event
    ) -> EnvResult:
        return env_result_from_json(step(report, recommendation, request, on_event, cancel))

    run.__wrapped__ = step  # type: ignore[attr-defined]
    return run
