"""The py-rattler engine's JSON lines: the progress records they carry, and their sentences (issue 23).

The engine (``adapters/envs/rattler_engine.py``) prints one JSON object per line, and each
``progress`` or ``done`` line carries its progress record as every tool's parser gives it
(:class:`ToolProgress`'s fields, worked out by the engine, which knows the stages), so a
py-rattler environment is shown being made like any other; ``log`` is the sentence the log and
an error keep, rather than the JSON.

>>> [(p.action, p.package, p.bytes_done, p.percent) for p in rattler_json(
...     '{"event": "progress", "stage": "download", "action": "download", "message": "downloading python", '
...     '"package": "python", "bytes_done": 50, "bytes_total": 200, "percent": 25.0, "log": "downloading python"}')]
[('download', 'python', 50, 25.0)]
>>> rattler_message('{"event": "error", "message": "cannot solve", "log": "error: cannot solve"}')
'error: cannot solve'
"""

from __future__ import annotations

from gpuwizard.core.envs.tool_progress import ToolProgress
from gpuwizard.core.events import value_from_json
from gpuwizard.core.json_lines import json_object

_SOURCE = "the py-rattler engine"


def rattler_json(line: str) -> list[ToolProgress]:
    """The progress record one line of the engine carries; ``[]`` for anything else."""
    record = json_object(line, source=_SOURCE)
    if record is None or not isinstance(record.get("action"), str):
        return []
    try:
        return [value_from_json(ToolProgress, record)]
    except ValueError:  # an action or a percentage no record takes
        return []


def rattler_message(line: str) -> str:
    """The sentence a line of the engine says, for the log; a line that is not the engine's, as it is."""
    record = json_object(line, source=_SOURCE)
    said = record.get("log") if record is not None else None
    return said if isinstance(said, str) and said else line
