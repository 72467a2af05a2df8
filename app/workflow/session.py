"""The wizard's state as a plain object: what the pages show and what the user chose.

Pages read and write this object; it knows nothing of Qt, so the same state drives the
headless commands and is easy to set up in tests.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from gpuwizard.core.system_report import SystemReport
from gpuwizard.workflow.detect import detect_system


@dataclass
class WizardSession:
    """State shared by the wizard's pages.

    Attributes:
        report: The machine as detected, or as loaded from ``system_file``.
        system_file: A saved report being shown; then every change is only a preview.
        detect: How to detect this machine (tests pass a fake).
    """

    report: SystemReport | None = None
    system_file: Path | None = None
    detect: Callable[[], SystemReport] = field(default=detect_system)

    @property
    def preview(self) -> bool:
        """True when showing a saved report: nothing on this machine may change."""
        return self.system_file is not None
