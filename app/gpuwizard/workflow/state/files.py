"""Writing the wizard's JSON files atomically (through :mod:`gpuwizard.adapters.atomic_files`).

An interrupted write (a crash, a full disk, Ctrl+C) never leaves a half file behind: the old
file stays as it was, and the temporary one is removed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gpuwizard.adapters.atomic_files import write_text_atomically
from gpuwizard.core.compat.plan import Recommendation, recommendation_to_json
from gpuwizard.core.envs.result import EnvResult
from gpuwizard.core.livetest.events import LiveTestResult
from gpuwizard.core.machine.system_report import SystemReport, report_to_json

__all__ = ["save_system_report", "write_json_atomically", "write_text_atomically"]


def write_json_atomically(path: Path, data: Any) -> None:  # noqa: ANN401 - any JSON value
    """Replace ``path`` with ``data`` as indented JSON, creating its folder if needed.

    Raises:
        OSError: The folder cannot be made or written.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomically(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def save_system_report(
    report: SystemReport,
    path: Path,
    *,
    recommendation: Recommendation | None = None,
    environment: EnvResult | None = None,
    test: LiveTestResult | None = None,
) -> None:
    """Write ``report`` as ``gpuwizard.system/1`` JSON, atomically (no half-written file).

    What the wizard did goes under ``setup`` (the plan, the environment made, the live test's
    ``result``); readers of the system report ignore fields they do not know, so the file still
    opens with ``gpuwizard --system FILE``.

    Raises:
        OSError: The folder cannot be written.
    """
    data = report_to_json(report)
    setup = {
        "recommendation": recommendation_to_json(recommendation) if recommendation is not None else None,
        "environment": environment.to_json() if environment is not None else None,
        "test": test.to_json() if test is not None else None,
    }
    if any(value is not None for value in setup.values()):
        data["setup"] = setup
    write_text_atomically(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
