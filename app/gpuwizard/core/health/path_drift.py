"""Drift of the PATH: whether each folder the wizard added is still on its scope's PATH.

Apart because the facts come from elsewhere (the PATH of each scope and the wizard's PATH
journal), and a missing folder is fixed with ``gpuwizard path add``, not in an environment.

Which folders are checked: those the last good state records, and those the PATH journal
says the wizard added and did not take away since (:func:`path_entries_to_check`). The
journal's count from the first ``verify`` after a ``path add``, before any good state
recorded them (issue 37, point 7: that run checked nothing and called it "as before").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from gpuwizard.core.findings.model import make_finding
from gpuwizard.core.health.checks import HealthCheck
from gpuwizard.core.health.snapshot import SnapshotPathEntry
from gpuwizard.core.pathedit.algebra import entry_key
from gpuwizard.core.wizard_command import BY_NAME, WizardCommand, registry_option, shell_argument


def compare_path(
    entry: SnapshotPathEntry,
    *,
    present: bool,
    removed_by_wizard: bool = False,
    wizard: WizardCommand = BY_NAME,
) -> HealthCheck:
    """A PATH folder the wizard added: still on that scope's PATH?

    ``removed_by_wizard``: the PATH journal shows a later ``gpuwizard path remove`` (or undo)
    of it, so its absence is the user's own choice, a change rather than a breakage.
    ``wizard``: how the person starts the wizard here, for the fix.
    """
    check_id = f"path:{entry.scope}:{entry.folder}"
    if present:
        return HealthCheck(check_id, "path", entry.folder, "ok", "on PATH", "on PATH")
    command = path_add_command(entry, wizard)
    if removed_by_wizard:
        finding = make_finding(
            "DRIFT_PATH_ENTRY_DROPPED", folder=entry.folder, scope=entry.scope, command=command
        )
        return HealthCheck(check_id, "path", entry.folder, "changed", "on PATH", "not on PATH", finding)
    finding = make_finding(
        "DRIFT_PATH_ENTRY_REMOVED",
        folder=entry.folder,
        scope=entry.scope,
        command=command,
        history=wizard.line("path history" + registry_option(entry.registry)),
    )
    return HealthCheck(check_id, "path", entry.folder, "broken", "on PATH", "not on PATH", finding)


def path_add_command(entry: SnapshotPathEntry, wizard: WizardCommand = BY_NAME) -> str:
    r"""The command that puts ``entry`` back, started as ``wizard`` says.

    >>> path_add_command(SnapshotPathEntry("live", "user", "C:\\Program Files\\CUDA\\bin"))
    'gpuwizard path add "C:\\Program Files\\CUDA\\bin" --scope user'
    """
    arguments = f"path add {shell_argument(entry.folder)} --scope {entry.scope}"
    return wizard.line(arguments + registry_option(entry.registry))


def path_entries_to_check(
    recorded: Iterable[SnapshotPathEntry], owned: Mapping[tuple[str, str], str], registry: str
) -> list[SnapshotPathEntry]:
    r"""The PATH folders of ``registry`` that ``verify`` checks: recorded ones, then the journal's.

    Args:
        recorded: The last good state's PATH folders (of every registry; others are left out).
        owned: What the PATH journal says the wizard added and kept: ``(scope, comparison key)
            -> folder`` (``workflow/health/good_state.py``, ``PathOwnership.owned``).
        registry: The identity of the registry checked.

    >>> recorded = [SnapshotPathEntry("live", "user", "C:\\CUDA\\bin"), SnapshotPathEntry("file:x", "user", "D:\\")]
    >>> owned = {("user", "c:\\cuda\\bin"): "C:\\CUDA\\bin", ("system", "c:\\tools"): "C:\\Tools"}
    >>> [(e.scope, e.folder) for e in path_entries_to_check(recorded, owned, "live")]
    [('user', 'C:\\CUDA\\bin'), ('system', 'C:\\Tools')]
    """
    entries: list[SnapshotPathEntry] = [entry for entry in recorded if entry.registry == registry]
    seen = {(entry.scope, entry_key(entry.folder)) for entry in entries}
    for (scope, key), folder in owned.items():
        if (scope, key) not in seen:
            seen.add((scope, key))
            entries.append(SnapshotPathEntry(registry, scope, folder))
    return entries
