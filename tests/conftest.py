"""Shared test set-up: Qt offscreen, state in a temporary home, fakes importable."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

# Before anything imports Qt: render offscreen, so the suite needs no display.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

TESTS = Path(__file__).parent
FIXTURES = TESTS / "fixtures"
sys.path.insert(0, str(TESTS))  # `import fakes...` from any test module


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """State never goes to the developer's real GPUWIZARD_HOME (DESIGN.md section 2)."""
    home = tmp_path_factory.mktemp("gpuwizard-home")
    monkeypatch.setenv("GPUWIZARD_HOME", str(home))
    return home
