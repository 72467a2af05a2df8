"""The outcome of making an environment: the typed ``result`` event of the creation's stream.

``gpuwizard env create --json`` ends with it, the wizard's Install page shows it, ``apply``
reports it, and the Summary page and the live test take the environment from it. Its JSON
(derived from the fields by :mod:`gpuwizard.core.events`) keeps the contract's fields
(``status``, ``name``, ``path``, ``python``, ``framework_version``) first, then what fits the
status: what was made for ``ok``, why not and what was left for the others;
:func:`env_result_from_json` reads back a recorded one (``resources/samples/runs``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final, Literal

from gpuwizard.core.events import Event, json_field, to_json, value_from_json

EnvStatus = Literal["ok", "failed", "cancelled"]
STATUSES: Final[tuple[EnvStatus, ...]] = ("ok", "failed", "cancelled")


def _made(result: EnvResult) -> bool:
    return result.ok


def _not_made(result: EnvResult) -> bool:
    return not result.ok


def _kept(result: EnvResult) -> bool:
    return result.ok and result.kept


def _status(value: object) -> EnvStatus:
    # An unknown status (a newer wizard's, a damaged file) is not a success.
    return next((status for status in STATUSES if status == value), "failed")


def _lines(value: object) -> tuple[str, ...]:
    # A list of lines; a lone string is one line, anything else none.
    if isinstance(value, str):
        return (value,)
    return tuple(str(line) for line in value) if isinstance(value, list) else ()


@dataclass(frozen=True, kw_only=True)
class EnvResult(Event):
    """An environment made, or why not (everything made was then removed).

    The fields are in the order of the JSON; those of one status only are written for it.

    Attributes:
        status: ``ok``, ``failed`` or ``cancelled``.
        name: The environment's name.
        path: Its folder (None when the request was refused before one was chosen).
        python: Its interpreter; None unless made.
        framework_version: The public version installed (``2.13.0``); None unless made.
        framework: ``pytorch`` or ``tensorflow``.
        framework_build: The build as the framework reports it (``2.13.0+cu126``).
        manager, tool: What made it (``venv``/``uv``, ``conda``/``mamba``...).
        constraints: The file that pins the build.
        variables: What activation sets (``CUDA_VISIBLE_DEVICES``...).
        jupyter_kernel: The kernel registered, if any.
        kept: An environment of the same plan existed and was kept as it was (``apply``).
        error: Why it was not made.
        log_tail: The tool's last lines, when it failed.
        rollback_problems: What could not be removed or put back.
        seconds: How long it took.
        log: The full log of the run.
    """

    KIND: ClassVar[str] = "result"

    status: EnvStatus = json_field(read=_status)
    name: str
    path: str | None = None
    python: str | None = None
    framework_version: str | None = None
    framework: str | None = json_field(default=None, when=_made)
    framework_build: str | None = json_field(default=None, when=_made)
    manager: str | None = json_field(default=None, when=_made)
    tool: str | None = json_field(default=None, when=_made)
    constraints: str | None = json_field(default=None, when=_made)
    variables: Mapping[str, str] = json_field(default_factory=dict, when=_made)
    jupyter_kernel: str | None = json_field(default=None, when=_made)
    kept: bool = json_field(default=False, when=_kept, read=lambda value: value is True)
    error: str | None = json_field(default=None, when=_not_made)
    log_tail: tuple[str, ...] = json_field(default=(), when=_not_made, read=_lines)
    rollback_problems: tuple[str, ...] = json_field(default=(), when=_not_made, read=_lines)
    seconds: float | None = None
    log: str | None = None

    @property
    def ok(self) -> bool:
        """True when the environment was made (or kept) and its framework imports."""
        return self.status == "ok"

    def to_json(self) -> dict[str, Any]:
        """The ``result`` event as JSON (:func:`gpuwizard.core.events.to_json`)."""
        return to_json(self)


def env_result_from_json(data: Mapping[str, Any]) -> EnvResult:
    """A result read back; fields it lacks are unknown.

    >>> env_result_from_json({"status": "ok", "name": "demo", "python": "/e/bin/python"}).ok
    True
    >>> env_result_from_json({"status": "exploded", "name": "x"}).status
    'failed'
    """
    return value_from_json(EnvResult, data)
