"""The date of compatibility data (``generated``): checked as a date and compared as one.

A published bundle (``workflow/compat/bundle.py``) and ``sources.json`` carry the day their
data was generated, ISO 8601: ``YYYY-MM-DD``, or a full timestamp with its UTC offset
(RFC 3339, the profile of ISO 8601 that JSON Schema's ``date-time`` format names):
``2027-01-05T12:00:00Z``. Anything else is refused: as text, ``2027-1-5`` sorts after
``2027-01-10`` and would block every newer bundle. A date alone stands for the start of that
day in UTC, so a timestamp later that day is newer.

>>> is_newer("2027-01-10", than="2026-12-31"), is_newer("2027-01-09T23:00:00-05:00", than="2027-01-10")
(True, True)
>>> try:
...     generated_at("2027-1-5")
... except DataDateError as error:
...     print(error)
its date '2027-1-5' is not an ISO 8601 date (YYYY-MM-DD, or a timestamp with its UTC offset such as 2027-01-05T12:00:00Z)
"""

from __future__ import annotations

import re
from datetime import date, datetime, time, timezone
from typing import Final

#: The form of ``generated``; the same pattern is in ``resources/schemas/compat-sources.schema.json``.
GENERATED_PATTERN: Final = (
    r"[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
    r"(T([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\.[0-9]+)?)?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9]))?"
)
_FORM: Final = "YYYY-MM-DD, or a timestamp with its UTC offset such as 2027-01-05T12:00:00Z"


class DataDateError(ValueError):
    """A ``generated`` that is no ISO 8601 date; the message completes "... is refused: "."""


def generated_at(text: str) -> datetime:
    """``text`` as a moment in UTC (a date alone: the start of that day).

    Raises:
        DataDateError: It is not in the form of :data:`GENERATED_PATTERN`, or no calendar day
            (``2027-02-30``).
    """
    if not isinstance(text, str) or not re.fullmatch(GENERATED_PATTERN, text):
        raise DataDateError(f"its date {text!r} is not an ISO 8601 date ({_FORM})")
    try:
        if "T" not in text:
            return datetime.combine(date.fromisoformat(text), time(), tzinfo=timezone.utc)
        # Python 3.10 reads no "Z" (3.11 does): the same offset spelled out.
        moment = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)
    except ValueError:
        raise DataDateError(f"its date {text!r} is not a day of the calendar") from None
    return moment.astimezone(timezone.utc)


def is_newer(candidate: str, *, than: str) -> bool:
    """Whether the data of ``candidate`` is newer than that of ``than``, compared as dates.

    ``than`` is the data in use; one that is not a date (the bundled data's ``0000-00-00``
    when ``sources.json`` names none) counts as older than any.

    Raises:
        DataDateError: ``candidate`` is not a date.
    """
    moment = generated_at(candidate)
    try:
        reference = generated_at(than)
    except DataDateError:
        return True
    return moment > reference
