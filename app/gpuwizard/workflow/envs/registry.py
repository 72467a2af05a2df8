"""The environments the wizard made: listing them, and removing one with its folder and kernel."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gpuwizard.workflow.envs.recovery import recover_interrupted
from gpuwizard.workflow.envs.trees import remove_tree
from gpuwizard.workflow.state.env_pending import being_made
from gpuwizard.workflow.state.env_registry import EnvRecord, drop_record, find_record, load_records


class EnvRemoveError(ValueError):
    """The environment cannot be removed as asked; nothing was changed (exit code 2)."""


def list_environments() -> list[dict[str, Any]]:
    """The environments the wizard made: the contract's fields, then ``exists``, ``being_made`` and the rest.

    A creation a killed wizard left is settled first (:mod:`.recovery`); ``being_made`` marks an
    environment another gpuwizard is replacing right now.
    """
    recover_interrupted()
    return [
        {**record.to_json(), "exists": Path(record.path).is_dir(), "being_made": being_made(record.name)}
        for record in load_records()
    ]


def remove_environment(name: str) -> EnvRecord:
    """Remove the environment called ``name``: its folder, its Jupyter kernel, its entry.

    Only a folder that is an environment (``pyvenv.cfg`` or ``conda-meta``) is deleted, so a
    hand-edited list can never make the wizard delete something else.

    Raises:
        EnvRemoveError: No such environment, or its folder is not an environment.
    """
    recover_interrupted()
    if being_made(name):
        raise EnvRemoveError(
            f"the environment {name!r} is being made by another gpuwizard; wait for it to finish"
        )
    record = find_record(name)
    if record is None:
        raise EnvRemoveError(f"no environment {name!r} was made by the wizard (see `gpuwizard env list`)")
    folder = Path(record.path)
    if folder.exists() and not ((folder / "pyvenv.cfg").is_file() or (folder / "conda-meta").is_dir()):
        raise EnvRemoveError(f"{folder} does not look like an environment any more; not removing it")
    problems = remove_tree(folder)
    if record.jupyter_kernel and Path(record.jupyter_kernel).is_dir():
        problems += remove_tree(Path(record.jupyter_kernel))
    if problems:
        raise OSError("; ".join(problems))
    drop_record(name)
    return record
