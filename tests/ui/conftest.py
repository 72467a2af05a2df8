"""The UI tests' shared set-up: every wizard a test keeps is closed after it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from harness.kept_wizards import close_kept


@pytest.fixture(autouse=True)
def _close_wizards() -> Iterator[None]:
    """Each wizard a test opens is closed after it, its workers waited for (harness/kept_wizards.py)."""
    yield
    close_kept()
