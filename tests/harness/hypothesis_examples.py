"""How many examples a Hypothesis test draws: its own number, or a few under the quick profile.

``tests/conftest.py`` registers the profiles; ``HYPOTHESIS_PROFILE=dev`` picks the quick one for
the inner loop (``HYPOTHESIS_PROFILE=dev pytest tests/core``), and CI and a plain ``pytest`` keep
every test's full number. A ``max_examples`` given in ``@settings`` outranks any profile
(hypothesis.readthedocs.io, "Settings profiles": loading one "will not change the behavior of
tests that explicitly change the settings"), so tests that ask for more than Hypothesis' default
ask through :func:`examples`, which the quick profile caps.
"""

from __future__ import annotations

from typing import Final

from hypothesis import settings

#: The examples a test draws at most under the quick profile (``dev``).
QUICK_EXAMPLES: Final = 10


def examples(wanted: int) -> int:
    """``wanted``, or :data:`QUICK_EXAMPLES` when fewer while the quick profile is loaded.

    Read when the test module is imported, after conftest has loaded the profile.
    """
    quick = settings().max_examples <= QUICK_EXAMPLES
    return min(wanted, QUICK_EXAMPLES) if quick else wanted
