"""Writing the wizard's files atomically: a temporary file renamed over the old one.

An interrupted write (a crash, a full disk, Ctrl+C) never leaves a half file behind: the old
file stays as it was, and the temporary one is removed.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from gpuwizard.core.compat.plan import Recommendation, recommendation_to_json
from gpuwizard.core.envs.result import EnvResult
from gpuwizard.core.livetest.events import LiveTestResult
from gpuwizard.core.machine.system_report import SystemReport, report_to_json


def _current_umask() -> int:
    # os.umask can only be read by setting it; done once, at import, before any thread writes.
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _current_umask()


def write_text_atomically(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` (UTF-8) in one step; the folder must exist.

    Raises:
        OSError: The folder cannot be written.
    """
    handle, temporary = tempfile.mkstemp(prefix=f".{path.stem}-", suffix=path.suffix, dir=path.parent)
    try:
        # mkstemp makes the file 0600; the file keeps the mode it had (or the umask's default).
        Path(temporary).chmod(_mode_for(path))
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        Path(temporary).replace(path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _mode_for(path: Path) -> int:
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        return 0o666 & ~_UMASK


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
