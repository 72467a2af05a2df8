"""One thing a package tool reported, and the pieces every tool's line parser shares.

:class:`ToolProgress` is the record the parsers of pip (pip_output.py), uv (uv_output.py) and
the conda family (conda_output.py) give, and :func:`parse_tool_line` (tool_output.py) hands on.
It is apart from the dispatcher so that the parsers can build records without importing the
module that imports them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

#: What a progress record says is happening. ``resolve``: the tool works out what to install
#: (pip's Collecting/Processing, uv's Resolved, micromamba's plan rows); ``solve``: a conda
#: family tool fetches channel metadata or solves; ``download``: a package (or its metadata)
#: arrives; ``build``: a wheel is built from source; ``install``: installing starts;
#: ``installed``: a package is in place; ``extract``/``link``/``transaction``: the steps of a
#: conda transaction.
ACTIONS: Final = (
    "resolve",
    "download",
    "build",
    "install",
    "installed",
    "solve",
    "extract",
    "link",
    "transaction",
)

_SIZE: Final = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]i?b|b|bytes?)\s*$", re.IGNORECASE)
_SIZE_FACTORS: Final = {
    "b": 1,
    "byte": 1,
    "bytes": 1,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "tb": 10**12,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
    "tib": 2**40,
}


@dataclass(frozen=True)
class ToolProgress:
    """One thing a package tool reported, as far as one line tells it.

    Attributes:
        action: One of :data:`ACTIONS`.
        package: The distribution (or conda package) name when the line names one.
        version: Its version when the line gives it.
        count: A number of packages when the line gives one (``Installed 12 packages``).
        bytes_done: Bytes transferred so far.
        bytes_total: The size of the transfer.
        percent: 0..100.
        message: The line (or the NUL-separated record), stripped.
    """

    action: str
    package: str | None = None
    version: str | None = None
    count: int | None = None
    bytes_done: int | None = None
    bytes_total: int | None = None
    percent: float | None = None
    message: str = ""

    def __post_init__(self) -> None:
        if self.action not in ACTIONS:
            raise ValueError(f"unknown progress action: {self.action!r}")
        if self.percent is not None and not 0.0 <= self.percent <= 100.0:
            raise ValueError(f"percent out of 0..100: {self.percent!r}")


def size_to_bytes(text: str) -> int | None:
    """``"200.1 MB"`` -> 200100000; decimal units are powers of 1000, ``KiB``/``MiB``... of 1024.

    pip and micromamba print decimal units (``kB``, ``MB``), uv binary ones (``MiB``). None when
    the text is not a size.

    >>> size_to_bytes("200.1 MB"), size_to_bytes("12.0MiB"), size_to_bytes("5 kB")
    (200100000, 12582912, 5000)
    >>> size_to_bytes("Cached") is None
    True
    """
    match = _SIZE.match(text)
    if match is None:
        return None
    value = float(match.group(1)) * _SIZE_FACTORS[match.group(2).lower()]
    return round(value) if math.isfinite(value) else None


#: What a tool's parser does with one segment of a line: the records it finds there.
Parser = Callable[[str], list[ToolProgress]]
#: Turns one pattern's match (and the segment it matched) into records.
Handler = Callable[[re.Match[str], str], list[ToolProgress]]
#: A tool's patterns in the order they are tried, each with its handler.
Handlers = tuple[tuple[re.Pattern[str], Handler], ...]


def first_match(handlers: Handlers, text: str) -> list[ToolProgress]:
    """The records of the first pattern in ``handlers`` that matches ``text``.

    Args:
        handlers: Patterns and their handlers, tried in order.
        text: One segment of an output line, stripped.

    Returns:
        What the handler of the first matching pattern gives; ``[]`` when none matches.
    """
    for pattern, handler in handlers:
        match = pattern.match(text)
        if match is not None:
            return handler(match, text)
    return []


def percent_of(done: float | None, total: float | None) -> float | None:
    """``done`` as a percentage of ``total``, held to 0..100.

    Args:
        done: The amount done so far.
        total: The whole amount.

    Returns:
        The percentage; None when either is unknown or ``total`` is not positive.
    """
    if done is None or total is None or total <= 0:
        return None
    return max(0.0, min(100.0, done / total * 100.0))
