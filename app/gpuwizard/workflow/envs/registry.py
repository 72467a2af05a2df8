"""The environments the wizard made: listing them, and removing one with its folder and kernel.

Removal deletes only what the wizard can prove it made (``ownership.py``): the folder and the
kernel spec that carry its marker with the entry's id. It is restartable: the folder is first
renamed to a trash name beside it (one step, recorded before in ``pending/remove-KEY.json``),
then deleted with its marker last; a removal killed at any instant is finished by the next
command (``recovery.py``), and until the rename nothing has changed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpuwizard.adapters.file_locks import try_hold
from gpuwizard.adapters.wizard_program import wizard_command
from gpuwizard.workflow.envs.ownership import owned_by, read_marker, remove_owned
from gpuwizard.workflow.envs.recovery import recover_interrupted
from gpuwizard.workflow.envs.trees import mount_inside
from gpuwizard.workflow.envs.wsl_setup import TransportFactory, remove_wsl_record
from gpuwizard.workflow.state.env_pending import (
    PendingRemoval,
    being_made,
    drop_removal,
    name_lock,
    prefix_lock,
    save_removal,
)
from gpuwizard.workflow.state.env_registry import EnvRecord, drop_record, find_record, load_records


class EnvRemoveError(ValueError):
    """The environment cannot be removed as asked; nothing was changed (exit code 2)."""


@dataclass(frozen=True)
class Removed:
    """An environment removed: its entry, and what was kept because it is not provably the wizard's."""

    record: EnvRecord
    kept: tuple[str, ...] = ()


def list_environments() -> list[dict[str, Any]]:
    """The environments the wizard made: the contract's fields, then ``exists``, ``being_made`` and the rest.

    A creation a killed wizard left is settled first (:mod:`.recovery`); ``being_made`` marks an
    environment another gpuwizard is replacing right now.
    """
    recover_interrupted()
    return [
        {**record.to_json(), "exists": _exists(record), "being_made": being_made(record.name)}
        for record in load_records()
    ]


def _exists(record: EnvRecord) -> bool | None:
    """Whether the environment's folder is there; None for one inside WSL (looking would start its VM)."""
    return None if record.manager == "wsl" else Path(record.path).is_dir()


def trash_folder(folder: Path, owner_id: str) -> Path:
    """Where an environment (or kernel) is renamed to before it is deleted: beside it, on the same disk."""
    return folder.with_name(f".gpuwizard-removing-{owner_id[:16]}")


def remove_environment(name: str, *, wsl_transport: TransportFactory | None = None) -> Removed:
    """Remove the environment called ``name``: its folder, its Jupyter kernel, its entry.

    Only a folder and a kernel that carry the wizard's marker with the entry's id are deleted,
    so neither a hand-edited list nor an environment made by an earlier version without markers
    can make the wizard delete something else. An entry whose folder is gone is just forgotten.

    Raises:
        EnvRemoveError: No such environment, it is being made, or its folder is not provably
            the wizard's (kept, with what to do).
        OSError: What was renamed aside could not all be deleted (the next command finishes it).

    ``wsl_transport``: how to reach a WSL environment's distribution (tests give a local one);
    by default ``wsl.exe`` (``adapters/wsl.py``).
    """
    recover_interrupted()
    if being_made(name):
        raise EnvRemoveError(
            f"the environment {name!r} is being made by another gpuwizard; wait for it to finish"
        )
    record = find_record(name)
    if record is None:
        raise EnvRemoveError(
            f"no environment {name!r} was made by the wizard (see `{wizard_command().line('env list')}`)"
        )
    held = try_hold(name_lock(name))
    if held is None:
        raise EnvRemoveError(f"the environment {name!r} is being changed by another gpuwizard; try again")
    try:
        folder_lock = try_hold(prefix_lock(record.path))
        if folder_lock is None:
            raise EnvRemoveError(f"{record.path} is being changed by another gpuwizard; try again")
        try:
            if record.manager == "wsl":
                return _remove_in_wsl(record, wsl_transport)
            return _remove(record)
        finally:
            folder_lock.release()
    finally:
        held.release()


def _remove(record: EnvRecord) -> Removed:
    folder = Path(record.path)
    present = folder.exists() or folder.is_symlink()
    if present and not _proven(record, folder):
        raise EnvRemoveError(_unproven(record, folder))
    marker = read_marker(folder, "environment") if present else None
    kernel = Path(record.jupyter_kernel) if record.jupyter_kernel else None
    kernel_ours = kernel is not None and _proven_kernel(record, kernel)
    kept = (
        (
            f"the Jupyter kernel {kernel} (not marked as the wizard's: `jupyter kernelspec remove {kernel.name}`)",
        )
        if kernel is not None and kernel.exists() and not kernel_ours
        else ()
    )
    if not present and not kernel_ours:
        drop_record(record.name)
        return Removed(record, kept)
    trash = trash_folder(folder, record.id)
    kernel_trash = trash_folder(kernel, record.id) if kernel is not None and kernel_ours else None
    mounted = mount_inside(folder) if present else None
    if mounted is not None:
        # Checked before anything moves: deleting would descend into it, a person's data set.
        raise EnvRemoveError(
            f"a file system is mounted at {mounted}; unmount it, then remove {record.name!r} again"
        )
    for taken in (trash, kernel_trash):
        if taken is not None and (taken.exists() or taken.is_symlink()):
            # A rename onto an empty folder would replace it: whatever is there is not the wizard's.
            raise EnvRemoveError(f"{taken} is in the way of the removal; move it elsewhere and try again")
    save_removal(
        PendingRemoval(
            name=record.name,
            id=record.id,
            path=record.path,
            trash=str(trash),
            kernel=str(kernel) if kernel_trash is not None else None,
            kernel_trash=str(kernel_trash) if kernel_trash is not None else None,
            given=marker is not None and marker.given,
        )
    )
    # The point of no return: one rename takes the folder away whole.
    if present:
        folder.replace(trash)
    if kernel is not None and kernel_trash is not None:
        kernel.replace(kernel_trash)
    drop_record(record.name)
    problems = remove_owned(trash, "environment", record.id, place=folder)
    if kernel is not None and kernel_trash is not None:
        problems += remove_owned(kernel_trash, "kernel", record.id, place=kernel)
    if problems:
        raise OSError("; ".join(problems))
    if marker is not None and marker.given:
        folder.mkdir(parents=True, exist_ok=True)  # the empty folder the person gave stays theirs
    drop_removal(record.name)
    return Removed(record, kept)


def _remove_in_wsl(record: EnvRecord, transport: TransportFactory | None) -> Removed:
    """A WSL environment: removed inside its distribution by its marker, then forgotten (``wsl_setup``)."""
    from gpuwizard.adapters.runner import RunnerError  # noqa: PLC0415
    from gpuwizard.adapters.wsl import distro_transport  # noqa: PLC0415 - only for WSL environments

    if not record.id or not record.distro:
        raise EnvRemoveError(
            f"{record.name!r} in WSL was recorded without the marker that proves it the wizard's: nothing "
            f"was removed; delete {record.path} in {record.distro or 'its distribution'} yourself"
        )
    try:
        removal = remove_wsl_record(record, transport or distro_transport)
    except (RunnerError, ValueError) as error:
        raise EnvRemoveError(f"{record.distro} cannot be reached ({error}); nothing was removed") from None
    if removal.problems:
        raise OSError("; ".join(removal.problems))
    return Removed(record, removal.kept)


def _proven(record: EnvRecord, folder: Path) -> bool:
    """Whether ``folder`` is provably ``record``'s environment, made for this very entry.

    Its marker has the entry's id, was made for this folder (not copied from another), names
    the entry's name; and no other entry claims the id (an entry edited to another's id).
    """
    marker = read_marker(folder, "environment")
    return (
        marker is not None
        and owned_by(folder, "environment", record.id)
        and marker.name == record.name
        and [entry.name for entry in load_records() if entry.id == record.id] == [record.name]
    )


def _proven_kernel(record: EnvRecord, kernel: Path) -> bool:
    marker = read_marker(kernel, "kernel")
    return marker is not None and owned_by(kernel, "kernel", record.id) and marker.name == record.name


def _unproven(record: EnvRecord, folder: Path) -> str:
    forget = wizard_command().run("env", "remove", record.name)
    if not record.id:
        return (
            f"{folder} was made by an earlier version of the wizard, without the marker that proves it: "
            f"nothing was removed; delete the folder yourself if you no longer need it, then `{forget}` forgets it"
        )
    return (
        f"{folder} does not carry the wizard's marker for {record.name!r} (moved, replaced or edited by hand?): "
        f"nothing was removed; delete it yourself if it is yours to delete, then `{forget}` forgets it"
    )
