"""The py-rattler engine's JSON lines as progress records and log sentences (issue 23).

The engine (``adapters/envs/rattler_engine.py``) prints one JSON object per line: ``progress``
with a ``stage`` (``repodata``, ``solve``, ``download``, ``link``), then ``done`` or ``error``.
:func:`rattler_json` turns a line into the same :class:`ToolProgress` records conda's and uv's
lines give, so the Install page and ``env create --json`` show a py-rattler environment being
made like any other; :func:`rattler_message` is the sentence the log and an error keep, rather
than the JSON.

>>> [(p.action, p.package, p.bytes_done, p.bytes_total, p.percent) for p in rattler_json(
...     '{"event": "progress", "stage": "download", "message": "downloading python", '
...     '"package": "python", "bytes_done": 50, "bytes_total": 200}')]
[('download', 'python', 50, 200, 25.0)]
>>> rattler_message('{"event": "error", "message": "cannot solve: nothing provides cudnn"}')
'error: cannot solve: nothing provides cudnn'
"""

from __future__ import annotations

import json
from typing import Any, Final

from gpuwizard.core.envs.tool_progress import ToolProgress, percent_of

# The engine's stages and what the progress records call them (tool_progress.ACTIONS):
# fetching channel metadata and solving are both "solve", as for conda.
_ACTIONS: Final = {"repodata": "solve", "solve": "solve", "download": "download", "link": "link"}


def _event(line: str) -> dict[str, Any] | None:
    text = line.strip()
    if not text.startswith("{"):
        return None
    try:
        event = json.loads(text)
    except ValueError:
        return None
    return event if isinstance(event, dict) and isinstance(event.get("event"), str) else None


def _int(value: object) -> int | None:
    # bool is an int in Python; a count or a size is never true or false, negative, or beyond
    # what a 64-bit counter holds (a larger one would not even divide into a float).
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**63:
        return value
    return None


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def rattler_json(line: str) -> list[ToolProgress]:
    """The progress record in one line of the engine; ``[]`` for anything else.

    A ``link`` record's percentage is packages linked of the transaction's total; a
    ``download`` record's is bytes of the package's size. ``done`` is ``installed`` with the
    number of packages.
    """
    event = _event(line)
    if event is None:
        return []
    message = _text(event.get("message")) or ""
    if event["event"] == "done":
        packages = event.get("packages")
        count = len(packages) if isinstance(packages, list) else None
        return [ToolProgress("installed", count=count, message=f"installed {count} packages")]
    action = _ACTIONS.get(str(event.get("stage"))) if event["event"] == "progress" else None
    if action is None:
        return []
    count, total = _int(event.get("count")), _int(event.get("total"))
    done, size = _int(event.get("bytes_done")), _int(event.get("bytes_total"))
    if action == "link":
        percent = percent_of(count, total)
    elif action == "download":
        percent = percent_of(done, size)
    else:
        percent = None
    return [
        ToolProgress(
            action,
            package=_text(event.get("package")),
            version=_text(event.get("version")),
            count=count,
            bytes_done=done if action == "download" else None,
            bytes_total=size,
            percent=percent,
            message=message,
        )
    ]


def rattler_message(line: str) -> str:
    """The sentence a line of the engine says, for the log: its message (an error's prefixed)."""
    event = _event(line)
    if event is None:
        return line
    message = _text(event.get("message"))
    if event["event"] == "error":
        return f"error: {message or 'the engine failed'}"
    if event["event"] == "done":
        packages = event.get("packages")
        names = ", ".join(str(item) for item in packages) if isinstance(packages, list) else ""
        return f"installed {names}" if names else "installed"
    return message or line
