"""``gpuwizard test``: the live training test.

Exit codes: 0 when the framework trains as it should here (``gpu_ok``, or ``cpu_only`` on a
machine without an NVIDIA GPU); 1 when the test ran and found a problem (``broken``,
``gpu_slow``, or ``cpu_only`` although an NVIDIA GPU is present); 2 for bad input.
"""

from __future__ import annotations

import argparse
import threading
from collections.abc import Callable, Mapping
from typing import Any

from gpuwizard.cli.common import (
    EXIT_OK,
    EXIT_PROBLEM,
    Show,
    Subcommands,
    UsageError,
    Write,
    add_json_option,
    bad_input,
    cancel_on_signals,
    json_lines,
)


def add_parser(commands: Subcommands) -> None:
    """Add ``test``."""
    test = commands.add_parser("test", help="the live training test: does the framework train on the GPU?")
    target = test.add_mutually_exclusive_group()
    target.add_argument("--env", metavar="NAME", help="an environment the wizard made (default: the newest)")
    target.add_argument("--python", metavar="EXE", help="the interpreter of any environment")
    test.add_argument("--framework", choices=["pytorch", "tensorflow"], help="default: the environment's")
    test.add_argument("--timeout", type=float, default=600.0, metavar="S", help="give up after S seconds")
    add_json_option(test, "stream JSON lines ending in one result event")


def run(args: argparse.Namespace, write: Write) -> int:
    """Run ``gpuwizard test``; returns the exit code."""
    from gpuwizard.adapters.nvml import NvmlUnavailable, PynvmlSource, UsageSampler  # noqa: PLC0415
    from gpuwizard.adapters.runner import StreamingSubprocessRunner  # noqa: PLC0415
    from gpuwizard.cli.text.live_test import LiveTestProgress  # noqa: PLC0415
    from gpuwizard.workflow.livetest.run import LiveTestUsageError, resolve_target, run_live_test  # noqa: PLC0415

    if args.timeout <= 0:
        raise UsageError("--timeout must be a positive number of seconds")
    with bad_input(LiveTestUsageError):
        target = resolve_target(args.env, args.python, args.framework)
    try:
        has_gpu: bool | None = bool(PynvmlSource().read().gpus)
    except NvmlUnavailable as error:
        has_gpu = False if error.failure in ("library_not_found", "binding_missing") else None
    show = json_lines(write) if args.json else LiveTestProgress(write)
    seen = _GpuCount(show)
    cancel = threading.Event()
    with cancel_on_signals(cancel):
        result = run_live_test(
            target,
            runner=StreamingSubprocessRunner(),
            on_event=seen,
            cancel=cancel,
            machine_has_nvidia_gpu=has_gpu,
            sampler=UsageSampler() if has_gpu else None,
            timeout_s=args.timeout,
        )
    if target.env_name is not None and result["verdict"] != "broken" and not cancel.is_set():
        saved = _record_good_state(target.env_name, {**result, "gpus_visible": seen.gpus})
        if saved is not None and not args.json:  # JSON lines end with the result event (the contract)
            write(f"  recorded as the last good state: {saved}\n")
    fine = result["verdict"] == "gpu_ok" or (result["verdict"] == "cpu_only" and has_gpu is False)
    return EXIT_OK if fine else EXIT_PROBLEM


class _GpuCount:
    """Passes events on, counting the GPUs the framework reported (``device`` events of kind gpu)."""

    def __init__(self, show: Show) -> None:
        self.show: Callable[[Mapping[str, Any]], None] = show
        self.gpus = 0

    def __call__(self, event: dict[str, Any]) -> None:
        if event.get("event") == "device" and event.get("kind") == "gpu":
            self.gpus += 1
        self.show(event)


def _record_good_state(env_name: str, result: dict[str, Any]) -> str | None:
    """After a test of a wizard-made environment: record it as the last good state if it passed.

    That is what ``gpuwizard verify`` compares with later. Returns the file written, or None
    when the verdict does not pass on this machine (then nothing changes).
    """
    import os  # noqa: PLC0415

    from gpuwizard.workflow.health.good_state import record_good_state, snapshot_path  # noqa: PLC0415
    from gpuwizard.workflow.machine.detect import detect_system  # noqa: PLC0415

    store = None
    if os.name == "nt":  # the wizard edits PATH only on Windows: its folders are recorded there
        from gpuwizard.workflow.pathedit.machine import open_store  # noqa: PLC0415

        store = open_store(None)
    snapshot = record_good_state(detect_system(), env_name, result, path_store=store)
    return str(snapshot_path()) if snapshot is not None else None
