"""The wizard's state as a plain object: what the pages show and what the user chose.

Pages read and write this object; it knows nothing of Qt, so the same state drives the
headless commands and is easy to set up in tests.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpuwizard.adapters.registry import EnvironmentStore
from gpuwizard.adapters.runner import Runner, SubprocessRunner
from gpuwizard.core.plan import Recommendation
from gpuwizard.core.system_report import SystemReport
from gpuwizard.workflow import wizard_steps
from gpuwizard.workflow.detect import detect_system
from gpuwizard.workflow.live_test import LiveTestTarget
from gpuwizard.workflow.path_request import PathRequest
from gpuwizard.workflow.wizard_steps import Choice, EventSink

#: The wizard's long steps, swappable for fakes in tests (see :mod:`wizard_steps`).
Recommender = Callable[[SystemReport, Choice], Recommendation]
EnvCreator = Callable[[SystemReport, Recommendation, Choice, EventSink, threading.Event], dict[str, Any]]
TestRunner = Callable[[SystemReport, LiveTestTarget, EventSink, threading.Event], dict[str, Any]]


@dataclass
class WizardSession:
    """State shared by the wizard's pages.

    Attributes:
        report: The machine as detected, or as loaded from ``system_file``.
        system_file: A saved report being shown; then every change is only a preview.
        detect: How to detect this machine (tests pass a fake).
        path_store: The registry whose PATH the PATH page edits (the live one, or a snapshot
            file); None: no PATH page.
        path_request: The folders the plan adds to PATH and the DLLs they must provide; the
            PATH page shows it, and may change its scope and what happens to other CUDA
            versions. None: no PATH page.
        runner: How to start processes (the DLL check, the list of running programs).
        choice: What the person chose on the Choose page.
        recommendation: The recommendation for ``choice``.
        env_result: The ``result`` event of the environment's creation.
        test_result: The ``result`` event of the live test.
        recommend: How to recommend (tests pass a fake).
        create_env: How to create the environment (tests pass a fake).
        run_test: How to run the live test (tests pass a fake).
    """

    report: SystemReport | None = None
    system_file: Path | None = None
    detect: Callable[[], SystemReport] = field(default=detect_system)
    path_store: EnvironmentStore | None = None
    path_request: PathRequest | None = None
    runner: Runner = field(default_factory=SubprocessRunner)
    choice: Choice | None = None
    recommendation: Recommendation | None = None
    env_result: dict[str, Any] | None = None
    test_result: dict[str, Any] | None = None
    recommend: Recommender = field(default=wizard_steps.recommend_for)
    create_env: EnvCreator = field(default=wizard_steps.create_env)
    run_test: TestRunner = field(default=wizard_steps.run_test)

    @property
    def preview(self) -> bool:
        """True when showing a saved report: nothing on this machine may change."""
        return self.system_file is not None

    @property
    def wants_path_page(self) -> bool:
        """True when there is a PATH change to show: a registry and a request."""
        return self.path_store is not None and self.path_request is not None
