"""The ways a log is read: as it is, with JSON escapes undone, with a console's hard wraps undone.

Logs are often quoted inside JSON (a probe's report, a notebook's error), and consoles wrap long
lines at a fixed width ("CUDAE" / "xecutionProvider" at 80 columns, microsoft/onnxruntime#22930):
:func:`log_views` gives :func:`gpuwizard.core.findings.diagnosis.diagnose` each reading in turn.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from typing import Final


def log_views(text: str) -> Iterator[str]:
    """``text``; with JSON string escapes undone when it has some; with hard wraps undone when it has some."""
    yield text
    # A log quoted in JSON is a report or a notebook's cell, not a large log file: one of 64 MiB
    # with a stray escape is not copied whole to be read again. Only the lines that hold escapes
    # read differently with them undone: the view is those lines alone, each undone.
    if len(text) <= _JSON_MAX_CHARS and ("\\n" in text or '\\"' in text):
        escaped = "\n".join(line for line in text.split("\n") if "\\n" in line or '\\"' in line)
        yield _ESCAPE.sub(lambda match: _ESCAPES[match.group(1)], escaped)
    # A wrapped console is a pasted excerpt: a large log file is not read a third time.
    if len(text) <= _WRAP_MAX_CHARS and (unwrapped := _unwrapped(text)) is not None:
        yield unwrapped


#: JSON's string escapes that logs hold (RFC 8259, section 7; \\u escapes stay as they are).
_ESCAPE: Final = re.compile(r'\\(["\\/nrt])')
_ESCAPES: Final = {'"': '"', "\\": "\\", "/": "/", "n": "\n", "r": "\r", "t": "\t"}

#: A console or a tracker wraps long lines at a fixed width (80 or 120 columns: "CUDAE" /
#: "xecutionProvider", microsoft/onnxruntime#22930); narrower lines are not taken for wraps.
_WRAP_MIN_WIDTH: Final = 60
_WRAP_MAX_CHARS: Final = 4 * 2**20
_JSON_MAX_CHARS: Final = 16 * 2**20


def _unwrapped(text: str) -> str | None:
    r"""``text`` with each line of a wrap width joined to the next, when the log has such widths.

    A wrap width is a length of two or more long lines; a log may have several (a console's
    width, and a table's), and lines of other lengths around a wrapped message do not hide it.

    >>> _unwrapped("x" * 90 + "\n" + "a" * 70 + "\n" + "b" * 70 + "\nend\nshort")[90:]
    '\naaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaabbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbend\nshort'
    >>> _unwrapped("one line only") is None
    True
    """
    lines = text.replace("\r\n", "\n").split("\n")
    lengths = Counter(len(line) for line in lines if len(line) >= _WRAP_MIN_WIDTH)
    widths = {width for width, count in lengths.items() if count >= 2}
    if not widths:
        return None
    return "".join(line if len(line) in widths else line + "\n" for line in lines).removesuffix("\n")
