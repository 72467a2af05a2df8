"""A known message in a log: the code it stands for, how to find it, where it was reported.

What :mod:`gpuwizard.core.findings.diagnosis` matches logs with; apart so that the signatures of
one theme can live in a module of their own (:mod:`.diagnosis_network`, :mod:`.diagnosis_torch`,
...). Such a module gives a :class:`DiagnosisPart`: its codes, its signatures, the findings its
findings make redundant, and how a finding's variant is chosen from the whole log.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

#: Hints that a log comes from Windows: a DLL name, a drive letter or a Windows error number.
WINDOWS_LOG: Final = re.compile(r"\b[\w-]{1,80}\.dll\b|\b[A-Za-z]:\\|\[WinError \d", re.IGNORECASE)

#: Values read from one match: a name and one value, or several values.
Values = dict[str, str | list[str]]
Extractor = Callable[[re.Match[str]], Values | None]
#: Chooses a finding's variant from every value its matches read (by name, in order of
#: appearance), the variants its signatures named and the whole log; returns the variant
#: (``None`` for the plain text) and parameters to add or replace.
Refiner = Callable[[Mapping[str, Sequence[str]], Sequence[str], str], tuple[str | None, dict[str, object]]]


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


@dataclass(frozen=True)
class DiagnosisPart:
    """The signatures of one theme, and how their findings combine with the others.

    Attributes:
        codes: The finding codes this part adds to the contract's list (new codes only; a
            part may also give variants of codes defined elsewhere).
        signatures: The messages it recognises, most specific first.
        suppresses: A finding of the key explains the same failure as the codes listed,
            which are then dropped (``{"WINDOWS_PAGING_FILE_TOO_SMALL": ("TORCH_DLL_LOAD_FAILED",)}``).
        refiners: For a code, how its variant and extra parameters are chosen from the whole
            log (:data:`Refiner`); without one, the first variant a matching signature named.
    """

    codes: tuple[str, ...]
    signatures: tuple[Signature, ...]
    suppresses: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    refiners: Mapping[str, Refiner] = field(default_factory=dict)
