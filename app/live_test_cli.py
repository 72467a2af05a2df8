"""``gpuwizard test``: the live training test (DESIGN.md section 4).

Exit codes: 0 when the framework trains as it should here (``gpu_ok``, or ``cpu_only`` on a
machine without an NVIDIA GPU); 1 when the test ran and found a problem (``broken``,
``gpu_slow``, or ``cpu_only`` although an NVIDIA GPU is present); 2 for bad input.
"""

from __future__ import annotations

import argparse
import threading
from collections.abc import Callable
from typing import Any, Final

from gpuwizard.env_cli import cancel_on_signals, json_lines

EXIT_OK: Final = 0
EXIT_PROBLEM: Final = 1


class LiveTestCliError(Exception):
    """Bad input for ``test``: one line, exit code 2."""


def add_test_parser(commands: Any) -> None:  # noqa: ANN401 - argparse's private _SubParsersAction
    """Add ``test`` to the command parser."""
    test = commands.add_parser("test", help="the live training test: does the framework train on the GPU?")
    target = test.add_mutually_exclusive_group()
    target.add_argument("--env", metavar="NAME", help="an environment the wizard made (default: the newest)")
    target.add_argument("--python", metavar="EXE", help="the interpreter of any environment")
    test.add_argument("--framework", choices=["pytorch", "tensorflow"], help="default: the environment's")
    test.add_argument("--timeout", type=float, default=600.0, metavar="S", help="give up after S seconds")
    test.add_argument("--json", action="store_true", help="stream JSON lines ending in one result event")


def run_test_command(args: argparse.Namespace, write: Callable[[str], None]) -> int:
    """Run ``gpuwizard test``; returns the exit code.

    Raises:
        LiveTestCliError: Bad input; nothing was run.
    """
    from gpuwizard.adapters.nvml import NvmlUnavailable, PynvmlSource, UsageSampler  # noqa: PLC0415
    from gpuwizard.adapters.runner import StreamingSubprocessRunner  # noqa: PLC0415
    from gpuwizard.workflow.live_test import LiveTestUsageError, resolve_target, run_live_test  # noqa: PLC0415

    if args.timeout <= 0:
        raise LiveTestCliError("--timeout must be a positive number of seconds")
    try:
        target = resolve_target(args.env, args.python, args.framework)
    except LiveTestUsageError as error:
        raise LiveTestCliError(str(error)) from None
    try:
        has_gpu: bool | None = bool(PynvmlSource().read().gpus)
    except NvmlUnavailable as error:
        has_gpu = False if error.failure in ("library_not_found", "binding_missing") else None
    show = json_lines(write) if args.json else _TextProgress(write)
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

    def __init__(self, show: Callable[[dict[str, Any]], None]) -> None:
        self.show = show
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

    from gpuwizard.workflow.detect import detect_system  # noqa: PLC0415
    from gpuwizard.workflow.snapshots import record_good_state, snapshot_path  # noqa: PLC0415

    store = None
    if os.name == "nt":  # the wizard edits PATH only on Windows: its folders are recorded there
        from gpuwizard.workflow.path_machine import open_store  # noqa: PLC0415

        store = open_store(None)
    snapshot = record_good_state(detect_system(), env_name, result, path_store=store)
    return str(snapshot_path()) if snapshot is not None else None


_VERDICT_TEXT: Final = {
    "gpu_ok": "The GPU trains, and it is clearly faster than the CPU.",
    "gpu_slow": "The GPU trains, but it is not clearly faster than the CPU.",
    "cpu_only": "Training works, but on the CPU only: the framework sees no GPU.",
    "broken": "Training does not work in this environment.",
}


class _TextProgress:
    """A newcomer's view: what runs now, a line per few steps, then the verdict and why."""

    def __init__(self, write: Callable[[str], None]) -> None:
        self.write = write

    def __call__(self, event: dict[str, Any]) -> None:
        kind = event.get("event")
        if kind == "start":
            cuda = event.get("cuda_build") or "none (CPU build)"
            self.write(
                f"Testing {event.get('framework')} {event.get('framework_version')} (CUDA build: {cuda})\n"
            )
        elif kind == "device":
            self.write(f"  sees {event.get('kind')}: {event.get('name')}\n")
        elif kind == "phase":
            device = f" on the {event['device'].upper()}" if event.get("device") else ""
            self.write(f"- {event.get('phase')}{device}\n")
        elif kind == "step" and int(event.get("step", 0)) % 5 == 0:
            self.write(
                f"    step {event['step']:>3}  loss {float(event['loss']):.3f}  "
                f"{float(event['samples_per_s']):,.0f} samples/s\n"
            )
        elif kind == "matmul":
            self.write(
                f"    matrix multiply ({event.get('dtype')}): {float(event.get('tflops', 0)):.1f} TFLOP/s\n"
            )
        elif kind == "finding":
            self.write(f"\n[{event['severity']}] {event['message']}\n    {event['hint']}\n")
        elif kind == "result":
            self.write(_result_text(event))


def _result_text(event: dict[str, Any]) -> str:
    rates = event.get("samples_per_s") or {}
    lines = [f"\nVerdict: {event['verdict']}. {_VERDICT_TEXT[event['verdict']]}"]
    if event.get("loss_first") is not None:
        lines.append(f"  loss {event['loss_first']} -> {event['loss_last']}")
    if rates.get("gpu"):
        lines.append(f"  GPU {rates['gpu']:,.0f} samples/s, CPU {rates.get('cpu') or 0:,.0f} samples/s")
        if event.get("speedup"):
            lines.append(f"  the GPU is {event['speedup']}x the CPU")
    elif rates.get("cpu"):
        lines.append(f"  CPU {rates['cpu']:,.0f} samples/s")
    lines.append(f"  {event['seconds']} s; interpreter {event.get('python')}")
    return "\n".join(lines) + "\n"
