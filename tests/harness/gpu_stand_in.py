"""The real training probe on its GPU path, with the CPU standing in for the GPU.

No GPU can be had here, so a GPU run is made the closest way possible: the real probe
(``probes/train_test.py``'s ``run_backend``) in an environment with the real CPU build of
torch, told that one GPU exists (:data:`STAND_IN_GPU`) and given a torch backend whose "GPU"
device is the CPU. Every event is the probe's own, in its own order (``device`` of kind
``gpu``, training, matmul, compare, summary); only the speed is not a GPU's, so the verdict is
``gpu_ok`` or ``gpu_slow`` as the CPU's speed falls.

:class:`StandInGpuRunner` is a streaming runner (the adapter's Protocol) that runs the probe so
whenever the wizard starts it, and passes every other command to the real runner.
"""

from __future__ import annotations

import json
import textwrap
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from gpuwizard import probes
from gpuwizard.adapters.runner import CompletedRun, StreamingSubprocessRunner

STAND_IN_GPU = {
    "index": 0,
    "name": "Stand-in GPU",
    "compute_capability": "9.0",
    "memory_total_mib": 1024,
    "arch_in_build": True,
    "ptx_only": False,
}
#: The smallest run that takes every step of the GPU path (the probe's own tests check its events).
SMALL_GPU_RUN = [
    "--steps", "6", "--batch", "16", "--warmup", "1", "--cpu-steps", "4", "--cpu-batch", "8",
    "--cpu-warmup", "1", "--matmul-size", "128",
]  # fmt: skip
#: A run long enough for the loss to fall, so the wizard's judge has a trained network to judge
#: (the recorded CPU run's loss is down by its tenth step), still a few seconds on a CPU.
LEARNING_GPU_RUN = [
    "--steps", "30", "--batch", "16", "--warmup", "1", "--cpu-steps", "20", "--cpu-batch", "16",
    "--cpu-warmup", "1", "--matmul-size", "128",
]  # fmt: skip

TORCH_SCRIPT = textwrap.dedent(
    """
    import json, sys, time
    sys.path.insert(0, sys.argv[1])
    import env_report, train_test, train_torch
    import torch
    config = train_test.parse_args(sys.argv[3:])
    report = env_report.framework_report("pytorch", torch)
    report["gpus"] = [json.loads(sys.argv[2])]
    backend = train_torch.TorchBackend(torch, config, gpu_device="cpu")
    sys.exit(train_test.run_backend(config, train_test.Output(), report, backend, started=time.perf_counter()))
    """
)


def stand_in_argv(python: str, *args: str) -> list[str]:
    """The probe's GPU path in ``python`` (an environment with torch), with the probe's ``args``."""
    return [python, "-c", TORCH_SCRIPT, str(probes.FOLDER), json.dumps(STAND_IN_GPU), *args]


class StandInGpuRunner:
    """A streaming runner: the training probe runs its GPU path on the CPU; all else runs as it is."""

    def __init__(self) -> None:
        self.real = StreamingSubprocessRunner()
        self.probe_runs = 0

    def run(
        self, argv: Sequence[str], *, timeout: float, env_overrides: Mapping[str, str] | None = None
    ) -> CompletedRun:
        return self.real.run(argv, timeout=timeout, env_overrides=env_overrides)

    def stream(
        self,
        argv: Sequence[str],
        on_line: Callable[[str], None],
        *,
        cancel: threading.Event,
        timeout: float | None = None,
        env_overrides: Mapping[str, str] | None = None,
        cwd: Path | None = None,
    ) -> int:
        if len(argv) > 1 and Path(argv[1]) == probes.script("train_test"):
            self.probe_runs += 1
            # The probe's own arguments, made small: the CPU is slow at a GPU's batch.
            argv = stand_in_argv(argv[0], *argv[2:], *LEARNING_GPU_RUN)
        return self.real.stream(
            argv, on_line, cancel=cancel, timeout=timeout, env_overrides=env_overrides, cwd=cwd
        )
