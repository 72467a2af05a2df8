"""``gpuwizard test``: the live training test.

Exit codes: 0 when the test passed on this machine (it trained on the GPU, ``gpu_ok`` or
``gpu_slow``, or on the CPU of a machine without an NVIDIA GPU: the rule of
:mod:`gpuwizard.core.livetest.verdicts`); 1 when it ran and did not pass (``broken``, or
``cpu_only`` although an NVIDIA GPU is present); 2 for bad input; 130 when it was cancelled
(Ctrl+C, SIGTERM; Ctrl+Break on Windows): the probe is stopped, the last event (``--json``) is a
``result`` with ``status`` and ``verdict`` ``cancelled``, and nothing is recorded. A test that
passed in an environment the wizard made is recorded as the last good state, which
``gpuwizard verify`` compares with later.
"""

from __future__ import annotations

import argparse
import functools
import sys
import threading

from gpuwizard.cli import common


def add_parser(commands: common.Subcommands) -> None:
    """Add ``test``."""
    test = commands.add_parser(
        "test",
        help="the live test: does the framework train on the GPU?",
        description="Train a small model for a few steps in an environment and say whether the "
        "framework really uses the GPU (exit 0 when it does, or when the machine has no NVIDIA "
        "GPU and it trains on the CPU). A pass in an environment the wizard made is recorded "
        "for verify.",
        epilog=common.examples(
            "gpuwizard test",
            "gpuwizard test --env lab",
            "gpuwizard test --python /opt/venv/bin/python --framework pytorch",
        ),
    )
    which = test.add_argument_group("which environment")
    target = which.add_mutually_exclusive_group()
    target.add_argument("--env", metavar="NAME", help="an environment the wizard made (default: the newest)")
    target.add_argument("--python", metavar="EXE", help="the interpreter of any environment")
    which.add_argument(
        "--framework",
        choices=["pytorch", "tensorflow"],
        help="the framework to test (default: the environment's)",
    )
    test.add_argument(
        "--timeout", type=float, default=600.0, metavar="S", help="give up after S seconds (default: 600)"
    )
    common.add_json_option(test, "stream JSON lines ending in one result event")


def run(args: argparse.Namespace, write: common.Write) -> int:
    """Run ``gpuwizard test``; returns the exit code."""
    from gpuwizard.cli.text.live_test import LiveTestProgress  # noqa: PLC0415
    from gpuwizard.core.events import Event, to_json  # noqa: PLC0415
    from gpuwizard.core.livetest.verdicts import passed  # noqa: PLC0415
    from gpuwizard.core.machine.readiness import machine_has_nvidia_gpu  # noqa: PLC0415
    from gpuwizard.workflow.health.good_state import snapshot_path  # noqa: PLC0415
    from gpuwizard.workflow.health.tested import run_test_and_record  # noqa: PLC0415
    from gpuwizard.workflow.livetest.run import LiveTestUsageError, resolve_target, run_test  # noqa: PLC0415
    from gpuwizard.workflow.machine.detect import detect_system  # noqa: PLC0415

    if args.timeout <= 0:
        raise common.UsageError("--timeout must be a positive number of seconds")
    with common.bad_input(LiveTestUsageError):
        target = resolve_target(args.env, args.python, args.framework)
    # The wizard edits PATH only on Windows (the live registry): its folders are recorded there.
    store = common.path_store(None) if target.env_name is not None else None
    progress: LiveTestProgress | None = None
    if args.json:
        lines = common.json_lines(write)

        def show(event: Event) -> None:
            lines(to_json(event))
    else:
        # On a terminal the slow preparations (import, CUDA, compiling) show a moving counter.
        show = progress = LiveTestProgress(write, live=sys.stdout.isatty())
    cancel = threading.Event()
    # From detection on, a signal only sets `cancel`: the test then ends as cancelled, with its
    # result event, never as a verdict (a probe killed on request says nothing of the setup).
    with common.cancel_on_signals(cancel):
        report = detect_system()
        try:
            tested = run_test_and_record(
                functools.partial(run_test, timeout_s=args.timeout),
                report,
                target,
                show,
                cancel,
                path_store=store,
            )
        finally:
            if progress is not None:
                progress.stop()
    if tested.error is not None:
        raise tested.error  # the verdict was shown; the disk that refused its record is the error
    result = tested.result
    if result.cancelled:
        return common.EXIT_CANCELLED
    if tested.snapshot is not None and not args.json:  # JSON lines end with the result event (the contract)
        write(f"  recorded as the last good state: {snapshot_path()}\n")
    return (
        common.EXIT_OK
        if passed(
            result.verdict, machine_has_nvidia_gpu(report), gpu_expected=result.device_expected is not None
        )
        else common.EXIT_PROBLEM
    )
