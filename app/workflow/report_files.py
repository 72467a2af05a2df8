"""Writing reports to files."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from gpuwizard.core.system_report import SystemReport, report_to_json


def save_system_report(report: SystemReport, path: Path) -> None:
    """Write ``report`` as ``gpuwizard.system/1`` JSON, atomically (no half-written file).

    Raises:
        OSError: The folder cannot be written.
    """
    text = json.dumps(report_to_json(report), indent=2, ensure_ascii=False) + "\n"
    handle, temporary = tempfile.mkstemp(prefix=".gpuwizard-", suffix=".json", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        Path(temporary).replace(path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
