r"""Check from a freshly started process that the DLLs a plan expects now resolve.

Programs already running keep their PATH (microsoft/vscode#98454), the wizard included, so
its own environment proves nothing. The PATH a program started now gets is rebuilt from the
registry: the system value, then the user value (Microsoft Learn, "Environment Variables"), each
``REG_EXPAND_SZ`` one with its ``%VARIABLES%`` expanded and a ``REG_SZ`` one taken literally,
as Windows does. A new process with that PATH loads each DLL by bare name
(:mod:`gpuwizard.probes.dll_resolve`) and says which file it got.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from gpuwizard.adapters.elevation import relaunch_argv
from gpuwizard.adapters.registry import EnvironmentStore
from gpuwizard.adapters.runner import Runner, RunnerError
from gpuwizard.core.exit_status import status_text
from gpuwizard.core.pathedit.pathlist import expand_windows_vars
from gpuwizard.workflow.pathedit.changes import read_path


def fresh_process_path(store: EnvironmentStore, env: Mapping[str, str] | None = None) -> str:
    """The PATH a program started now would get: system then user, expanded as Windows does."""
    variables = dict(os.environ if env is None else env)
    parts: list[str] = []
    for scope in ("system", "user"):
        value = read_path(store, scope)
        if value is None or not str(value.value):
            continue
        text = str(value.value)
        parts.append(expand_windows_vars(text, variables) if value.type == "REG_EXPAND_SZ" else text)
    return ";".join(parts)


@dataclass(frozen=True)
class DllResolution:
    """Where each DLL loaded from in the fresh process; ``missing`` holds why one did not."""

    found: dict[str, str] = field(default_factory=dict)
    missing: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """Whether every DLL loaded."""
        return not self.missing


def resolve_dlls(store: EnvironmentStore, dlls: Sequence[str], runner: Runner) -> DllResolution:
    """Start the wizard afresh with the registry's PATH and load each DLL by its bare name."""
    if not dlls:
        return DllResolution()
    argv = [*relaunch_argv(), "path", "_resolve-dlls", *dlls]
    try:
        done = runner.run(argv, timeout=60, env_overrides={"PATH": fresh_process_path(store)})
    except RunnerError as error:
        return DllResolution(missing={name: str(error) for name in dlls})
    try:
        report = json.loads(done.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        said = done.stderr.strip().splitlines()
        # Silent: it crashed (the wizard's own DLLs missing is a status, 0xC0000135).
        reason = (
            said[-1]
            if said
            else f"the check gave no answer (exit {status_text(done.returncode, windows=True)})"
        )
        return DllResolution(missing=dict.fromkeys(dlls, reason))
    return DllResolution(
        found={str(k): str(v) for k, v in report.get("found", {}).items()},
        missing={str(k): str(v) for k, v in report.get("errors", {}).items()},
    )
