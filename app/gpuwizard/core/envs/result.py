"""The outcome of making an environment, as a typed value; its JSON is the ``result`` event.

``gpuwizard env create --json`` ends with it, the wizard's Install page shows it, ``apply``
reports it, and the Summary page and the live test take the environment from it. The JSON
form keeps the contract's fields (``status``, ``name``, ``path``, ``python``,
``framework_version``) and adds the wizard's own; :func:`env_result_from_json` reads back a
recorded one (``resources/samples/runs``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal

EnvStatus = Literal["ok", "failed", "cancelled"]
STATUSES: Final[tuple[EnvStatus, ...]] = ("ok", "failed", "cancelled")


@dataclass(frozen=True)
class EnvResult:
    """An environment made, or why not (everything made was then removed).

    Attributes:
        status: ``ok``, ``failed`` or ``cancelled``.
        name: The environment's name.
        path: Its folder (None when the request was refused before one was chosen).
        python: Its interpreter; None unless made.
        framework: ``pytorch`` or ``tensorflow``.
        framework_version: The public version installed (``2.13.0``); None unless made.
        framework_build: The build as the framework reports it (``2.13.0+cu126``).
        manager, tool: What made it (``venv``/``uv``, ``conda``/``mamba``...).
        constraints: The file that pins the build.
        variables: What activation sets (``CUDA_VISIBLE_DEVICES``...).
        jupyter_kernel: The kernel registered, if any.
        seconds: How long it took.
        log: The full log of the run.
        error: Why it was not made.
        log_tail: The tool's last lines, when it failed.
        rollback_problems: What could not be removed or put back.
        kept: An environment of the same plan existed and was kept as it was (``apply``).
    """

    status: EnvStatus
    name: str
    path: str | None = None
    python: str | None = None
    framework: str | None = None
    framework_version: str | None = None
    framework_build: str | None = None
    manager: str | None = None
    tool: str | None = None
    constraints: str | None = None
    variables: Mapping[str, str] = field(default_factory=dict)
    jupyter_kernel: str | None = None
    seconds: float | None = None
    log: str | None = None
    error: str | None = None
    log_tail: tuple[str, ...] = ()
    rollback_problems: tuple[str, ...] = ()
    kept: bool = False

    @property
    def ok(self) -> bool:
        """True when the environment was made (or kept) and its framework imports."""
        return self.status == "ok"

    def to_json(self) -> dict[str, Any]:
        """The ``result`` event: the contract's fields, then what fits the status."""
        data: dict[str, Any] = {
            "event": "result",
            "status": self.status,
            "name": self.name,
            "path": self.path,
            "python": self.python,
            "framework_version": self.framework_version,
        }
        if self.ok:
            data.update(
                framework=self.framework,
                framework_build=self.framework_build,
                manager=self.manager,
                tool=self.tool,
                constraints=self.constraints,
                variables=dict(self.variables),
                jupyter_kernel=self.jupyter_kernel,
            )
            if self.kept:
                data["kept"] = True
        else:
            data.update(
                error=self.error,
                log_tail=list(self.log_tail),
                rollback_problems=list(self.rollback_problems),
            )
        data.update(seconds=self.seconds, log=self.log)
        return data


def env_result_from_json(data: Mapping[str, Any]) -> EnvResult:
    """A result read back; fields it lacks are unknown.

    >>> env_result_from_json({"status": "ok", "name": "demo", "python": "/e/bin/python"}).ok
    True
    >>> env_result_from_json({"status": "exploded", "name": "x"}).status
    'failed'
    """
    status = data.get("status")
    variables = data.get("variables")
    return EnvResult(
        status=status if status in STATUSES else "failed",
        name=str(data.get("name") or ""),
        path=_text(data.get("path")),
        python=_text(data.get("python")),
        framework=_text(data.get("framework")),
        framework_version=_text(data.get("framework_version")),
        framework_build=_text(data.get("framework_build")),
        manager=_text(data.get("manager")),
        tool=_text(data.get("tool")),
        constraints=_text(data.get("constraints")),
        variables={str(k): str(v) for k, v in variables.items()} if isinstance(variables, Mapping) else {},
        jupyter_kernel=_text(data.get("jupyter_kernel")),
        seconds=_seconds(data.get("seconds")),
        log=_text(data.get("log")),
        error=_text(data.get("error")),
        log_tail=_lines(data.get("log_tail")),
        rollback_problems=_lines(data.get("rollback_problems")),
        kept=data.get("kept") is True,
    )


def _text(value: object) -> str | None:
    return None if value is None else str(value)


def _seconds(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def _lines(value: object) -> tuple[str, ...]:
    # A list of lines; a lone string is one line, anything else none.
    if isinstance(value, str):
        return (value,)
    return tuple(str(line) for line in value) if isinstance(value, list) else ()
