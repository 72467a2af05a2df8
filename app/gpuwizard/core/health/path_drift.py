"""Drift of the PATH: whether each folder the wizard added is still on its scope's PATH.

Apart because the facts come from elsewhere (the PATH of each scope and the wizard's PATH
journal), and a missing folder is fixed with ``gpuwizard path add``, not in an environment.
"""

from __future__ import annotations

import re

from gpuwizard.core.findings.model import make_finding
from gpuwizard.core.health.checks import HealthCheck
from gpuwizard.core.health.snapshot import SnapshotPathEntry


def compare_path(entry: SnapshotPathEntry, *, present: bool, removed_by_wizard: bool = False) -> HealthCheck:
    """A PATH folder the wizard added: still on that scope's PATH?

    ``removed_by_wizard``: the PATH journal shows a later ``gpuwizard path remove`` (or undo)
    of it, so its absence is the user's own choice, a change rather than a breakage.
    """
    check_id = f"path:{entry.scope}:{entry.folder}"
    if present:
        return HealthCheck(check_id, "path", entry.folder, "ok", "on PATH", "on PATH")
    command = path_add_command(entry)
    if removed_by_wizard:
        finding = make_finding(
            "DRIFT_PATH_ENTRY_DROPPED", folder=entry.folder, scope=entry.scope, command=command
        )
        return HealthCheck(check_id, "path", entry.folder, "changed", "on PATH", "not on PATH", finding)
    finding = make_finding(
        "DRIFT_PATH_ENTRY_REMOVED", folder=entry.folder, scope=entry.scope, command=command
    )
    return HealthCheck(check_id, "path", entry.folder, "broken", "on PATH", "not on PATH", finding)


def path_add_command(entry: SnapshotPathEntry) -> str:
    r"""The command that puts ``entry`` back.

    >>> path_add_command(SnapshotPathEntry("live", "user", "C:\\Program Files\\CUDA\\bin"))
    'gpuwizard path add "C:\\Program Files\\CUDA\\bin" --scope user'
    """
    parts = ["gpuwizard", "path", "add", _double_quoted(entry.folder), "--scope", entry.scope]
    if entry.registry.startswith("file:"):
        parts += ["--registry", _double_quoted(entry.registry.removeprefix("file:"))]
    return " ".join(parts)


def _double_quoted(text: str) -> str:
    # Double quotes work in cmd, PowerShell and POSIX shells alike for paths without quotes.
    return f'"{text}"' if re.search(r"\s", text) else text
