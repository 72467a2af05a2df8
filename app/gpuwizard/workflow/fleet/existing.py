"""Whether the wizard's environment of the answers' name is what the answers ask for.

``apply`` keeps an environment of the answers' name as it is only when it is what the answers
would make: the plan's framework release, and every other answer the environment's record
keeps (``environments.json``, ``workflow/state/env_registry.py``): the GPUs it sees (its
``CUDA_VISIBLE_DEVICES``), and, where the answer file states them, the Python minor, the
manager, the tool, the folder and a Jupyter kernel. Anything else is a changed answer: as for
a changed ``version``, the run is refused before anything changes unless ``replace = true``,
and then the environment is made again (``changed: true``). Keeping it would report ``ok``
with the old value in force: a fleet's changed ``gpus`` would never reach its machines.
"""

from __future__ import annotations

import os
from pathlib import Path

from gpuwizard.core.compat.plan import Plan
from gpuwizard.core.compat.tables import minor_of
from gpuwizard.core.envs.request import SetupRequest
from gpuwizard.workflow.state.env_registry import EnvRecord

#: The activation variable that holds an environment's GPU selection (core/envs/variables.py).
GPU_VARIABLE = "CUDA_VISIBLE_DEVICES"


def same_plan(record: EnvRecord, plan: Plan) -> bool:
    """Whether the recorded environment was made for the plan's framework release."""
    version = record.framework_version.split("+", 1)[0]
    return record.framework == plan.framework and version == plan.framework_version


def unmatched_answers(record: EnvRecord, plan: Plan, request: SetupRequest) -> list[str]:
    """Each answer (besides the framework release) the environment does not match, in words.

    Empty when it matches every answer its record can be compared with. What the record does
    not keep (an environment recorded by an older version without its Python version or
    tool) is not held against it.

    Args:
        record: The wizard's environment of the answers' name.
        plan: The plan the answers give on this machine.
        request: The answers' environment.
    """
    changed: list[str] = []
    have_gpus = record.variables.get(GPU_VARIABLE)
    if have_gpus != request.gpus:
        # No variable, no selection: every GPU (as `gpus = "all"` or no `gpus` says).
        changed.append(f"gpus: it sees {_gpus(have_gpus)}, the answers ask for {_gpus(request.gpus)}")
    have_python = minor_of(record.python_version) if record.python_version else None
    if request.python is not None and have_python and have_python != plan.python:
        changed.append(f"python: it has Python {have_python}, the plan has Python {plan.python}")
    manager = request.wanted_manager
    if manager is not None and record.manager and record.manager != manager:
        changed.append(f"manager: it is a {record.manager} environment, the answers ask for {manager}")
    if request.tool is not None and record.tool and record.tool != request.tool:
        changed.append(f"tool: it was made with {record.tool}, the answers ask for {request.tool}")
    if request.prefix is not None and not _same_folder(record.path, request.prefix):
        changed.append(f"prefix: it is in {record.path}, the answers ask for {request.prefix}")
    if request.jupyter and not record.jupyter_kernel:
        changed.append("jupyter: it has no Jupyter kernel, the answers ask for one")
    return changed


def _gpus(selection: str | None) -> str:
    return f"GPUs {selection}" if selection is not None else "every GPU"


def _same_folder(recorded: str, asked: Path) -> bool:
    # As env create resolves --prefix (workflow/envs/prepare.py), compared as the file system
    # compares names on this OS (case-insensitively on Windows).
    def key(path: str | Path) -> str:
        return os.path.normcase(str(Path(path).expanduser().resolve()))

    return key(recorded) == key(asked)
