"""Whether the GPUs a request selects are on the machine (``env create --gpus``, apply's ``gpus``).

:func:`~gpuwizard.core.envs.variables.check_gpu_selection` checks that a selection can be
written as ``CUDA_VISIBLE_DEVICES``; this checks it against the machine's report: an index no GPU
of the report has would give the environment a variable that hides GPUs ("If one of the indices
is invalid, only the devices whose index precedes the invalid index are visible to CUDA
applications": CUDA C++ Programming Guide, "CUDA Environment Variables"), so that the live test
trains on the CPU or on fewer GPUs than asked. Refused before anything is made, naming the GPUs
the machine has.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from gpuwizard.core.machine.system_report import GpuFacts

#: Past this many GPUs the message gives their indices only, not each one's name.
_NAMED_AT_MOST: Final = 4


def absent_gpus(selection: str, gpus: Sequence[GpuFacts]) -> str | None:
    """One line saying which GPUs of ``selection`` the machine does not have, or None when all are there.

    ``selection`` is a checked selection (``0,2``, ``GPU-8f6c...``). An index must be one of a
    GPU of the report (any vendor: the report's indices are the ones people see and type). A
    UUID must begin a GPU's UUID (CUDA takes a unique beginning) where the report knows the UUIDs
    (live detection does; saved reports never hold them): where it knows none, a UUID is taken
    as it is. MIG instances are not in reports and are always taken.

    >>> h200 = [GpuFacts(0, "nvidia", "NVIDIA H200")]
    >>> absent_gpus("7", h200)
    'GPU 7 is not on this machine (it has GPU 0: NVIDIA H200)'
    >>> absent_gpus("0", h200) is None
    True
    """
    indices = {gpu.index for gpu in gpus}
    uuids = [gpu.uuid.lower() for gpu in gpus if gpu.uuid]
    missing: list[str] = []
    for part in selection.split(","):
        if re.fullmatch(r"[0-9]+", part):
            if int(part) not in indices:
                missing.append(part)
        elif part.startswith("GPU-") and uuids and not any(uuid.startswith(part.lower()) for uuid in uuids):
            missing.append(part)
    if not missing:
        return None
    named = " and ".join(f"GPU {part}" for part in missing)
    verb = "is" if len(missing) == 1 else "are"
    return f"{named} {verb} not on this machine ({_has(gpus)})"


def _has(gpus: Sequence[GpuFacts]) -> str:
    """``it has GPU 0: NVIDIA H200``, ``it has GPUs 0 to 7``, ``it has no GPU``."""
    if not gpus:
        return "it has no GPU"
    ordered = sorted(gpus, key=lambda gpu: gpu.index)
    if len(ordered) == 1:
        return f"it has GPU {ordered[0].index}: {ordered[0].name or ordered[0].vendor}"
    if len(ordered) <= _NAMED_AT_MOST:
        return "it has GPUs " + ", ".join(f"{gpu.index}: {gpu.name or gpu.vendor}" for gpu in ordered)
    numbers = [gpu.index for gpu in ordered]
    if numbers == list(range(numbers[0], numbers[-1] + 1)):
        return f"it has GPUs {numbers[0]} to {numbers[-1]}"
    return "it has GPUs " + ", ".join(str(number) for number in numbers)
