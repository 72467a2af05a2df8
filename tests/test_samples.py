"""The shipped sample reports are exactly what the real detection makes of the test machines."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders.samples import SAMPLES, sample_text

SAMPLES_DIR = Path(__file__).parent.parent / "resources" / "samples"


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_sample_is_up_to_date(name: str):
    assert (SAMPLES_DIR / name).read_text(encoding="utf-8") == sample_text(name), (
        f"resources/samples/{name} is stale: rebuild with `python tests/builders/samples.py`"
    )


def test_every_shipped_sample_has_a_builder():
    assert sorted(p.name for p in SAMPLES_DIR.glob("*.json")) == sorted(SAMPLES)
