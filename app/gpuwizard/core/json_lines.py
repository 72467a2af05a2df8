"""Finding the JSON objects among another program's output lines.

The probes (``probes/``), the py-rattler engine and the live test print one JSON object per
line, among lines that are not JSON (a library's warning, a traceback). Every reader of such
output looks for its objects the same way, here: a line that starts with ``{`` and parses, as
:func:`gpuwizard.core.json_input.parse_json` parses (never a RecursionError, whatever was printed).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from gpuwizard.core.json_input import parse_json


def json_object(line: str, *, source: str = "the probe") -> dict[str, Any] | None:
    """The JSON object ``line`` holds, or None when it holds none.

    >>> json_object('  {"event": "step", "step": 1}  ')
    {'event': 'step', 'step': 1}
    >>> json_object("Warning: {not json") is None, json_object("[1, 2]") is None
    (True, True)
    """
    text = line.strip()
    if not text.startswith("{"):
        return None
    try:
        value = parse_json(text, source=source)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def last_json_object(
    lines: Iterable[str], accept: Callable[[Mapping[str, Any]], bool], *, source: str = "the probe"
) -> dict[str, Any] | None:
    """The last object among ``lines`` that ``accept`` takes (a probe prints its answer last).

    >>> last_json_object(['{"probe": "env_report", "n": 1}', "a warning", '{"x": 2}'], lambda o: "probe" in o)
    {'probe': 'env_report', 'n': 1}
    """
    for line in reversed(list(lines)):
        found = json_object(line, source=source)
        if found is not None and accept(found):
            return found
    return None
