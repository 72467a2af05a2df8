"""A known message in a log: the code it stands for, how to find it, where it was reported.

What :mod:`gpuwizard.core.findings.diagnosis` matches logs with; apart so that the signatures of
one theme can live in a module of their own (:mod:`.diagnosis_network`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

#: Values read from one match: a name and one value, or several values.
Values = dict[str, str | list[str]]
Extractor = Callable[[re.Match[str]], Values | None]


@dataclass(frozen=True)
class Signature:
    """One known message: the code it stands for, how to find it, and where it was reported.

    Attributes:
        code: The finding code the message stands for.
        pattern: The compiled expression; its named groups are the values read from the text.
        source: The address of a real report that shows the message.
        extract: Turns a match into values (default: the named groups); ``None`` from it means
            the match is not this problem after all.
        variant: The catalog variant this message calls for, if any.
    """

    code: str
    pattern: re.Pattern[str]
    source: str
    extract: Extractor | None = None
    variant: str | None = None

    def values(self, match: re.Match[str]) -> Values | None:
        """The values this match gives, or ``None`` when it does not count."""
        if self.extract is not None:
            return self.extract(match)
        return {name: value for name, value in match.groupdict().items() if value}


def sig(
    code: str,
    pattern: str,
    source: str,
    extract: Extractor | None = None,
    *,
    variant: str | None = None,
    flags: int = 0,
) -> Signature:
    """A signature from its pattern's text."""
    return Signature(code, re.compile(pattern, flags), source, extract, variant)
