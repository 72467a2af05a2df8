"""``gpuwizard verify``: what drifted since the last good state.

Re-runs detection, probes every environment the wizard made, runs a short live test in each,
checks the PATH folders the wizard added, and compares it all with the last good state
(``GPUWIZARD_HOME/last-good.json``). A healthy run records a new last good state. Where the
wizard set nothing up (no environment it made, no PATH folder it added), it says there is
nothing to verify and records nothing.

``--prometheus FILE`` also writes the run's metrics to FILE (``*.prom``) for the textfile
collector of node_exporter or windows_exporter, atomically (docs/architecture.md, "Metrics for
Prometheus"). ``--oneline`` prints one line and nothing else on stdout, what a cluster scheduler
puts in a drain reason: ``gpuwizard verify --no-test --oneline`` is the cluster gate (a Slurm
prolog or ``HealthCheckProgram``), which reuses each unchanged environment's recorded probe
answer instead of importing its framework again, so it answers within a second.

Exit codes: 0 healthy (changes such as an upgraded driver are fine), or nothing to verify (not a
failure: the ``result`` has ``status`` ``nothing_to_verify``); 1 something is broken; 2 bad input
(one line on stderr); 130 cancelled (Ctrl+C, SIGTERM).
"""

from __future__ import annotations

import argparse
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from gpuwizard.cli import common

if TYPE_CHECKING:
    from gpuwizard.core.events import Event
    from gpuwizard.core.machine.system_report import SystemReport


def add_parser(commands: common.Subcommands) -> None:
    """Add ``verify``."""
    verify = commands.add_parser(
        "verify",
        help="check that the setup still works (exit 1 if broken)",
        description="Check that what the wizard set up still works: detect the machine again, "
        "probe and briefly test every environment it made, check the PATH folders it added, and "
        "say what changed since the last good state and what broke (exit 1), with the fix. "
        "A healthy run becomes the new last good state.",
        epilog=common.examples(
            "gpuwizard verify",
            "gpuwizard verify --env lab --no-test",
            "gpuwizard verify --no-test --oneline     # a cluster's health gate",
            "gpuwizard verify --prometheus gpuwizard.prom",
        ),
    )
    what = verify.add_argument_group("what is checked")
    what.add_argument(
        "--env",
        dest="verify_envs",
        metavar="NAME",
        action="append",
        help="only this environment (repeat for more; default: every one the wizard made)",
    )
    what.add_argument("--no-test", action="store_true", help="skip the short live test")
    what.add_argument("--no-record", action="store_true", help="do not record a healthy result")
    common.add_system_option(
        what, "verify_system", "a saved system report instead of detecting this machine (tests, support)"
    )
    common.add_registry_option(
        what, "verify_registry", "the PATH of a registry snapshot file instead of the live registry"
    )
    output = verify.add_argument_group("output")
    output.add_argument(
        "--oneline",
        action="store_true",
        help="print one line only (a scheduler's drain reason); not with --json",
    )
    common.add_json_option(output, "stream JSON lines ending in one result event")
    output.add_argument(
        "--prometheus",
        dest="verify_prometheus",
        metavar="FILE",
        type=Path,
        help="also write Prometheus metrics to FILE (*.prom) for a textfile collector",
    )


def run(args: argparse.Namespace, write: common.Write) -> int:
    """Run ``gpuwizard verify``; returns the exit code."""
    from gpuwizard.adapters.runner import StreamingSubprocessRunner  # noqa: PLC0415
    from gpuwizard.adapters.wizard_program import wizard_command  # noqa: PLC0415
    from gpuwizard.cli.text.verify import VerifyView  # noqa: PLC0415
    from gpuwizard.core.health.events import VerifyResult  # noqa: PLC0415
    from gpuwizard.core.health.gate_line import gate_line  # noqa: PLC0415
    from gpuwizard.workflow.health.metrics import MetricsFileError, check_metrics_file  # noqa: PLC0415
    from gpuwizard.workflow.health.verify import VerifyCancelled, VerifyUsageError, verify_setup  # noqa: PLC0415

    if args.oneline and args.json:
        raise common.UsageError("--oneline and --json cannot be used together: choose one")
    if args.verify_prometheus is not None:
        # Before anything is checked: a mistyped path is refused at once, nothing written.
        with common.bad_input(MetricsFileError):
            check_metrics_file(args.verify_prometheus)
    detect = common.detector(args.verify_system)
    store = common.path_store(args.verify_registry)
    machines: list[SystemReport] = []
    results: list[VerifyResult] = []

    def detect_and_keep() -> SystemReport:
        machines.append(detect())
        return machines[-1]

    def keep_result(event: Event) -> None:
        if isinstance(event, VerifyResult):  # verify's own; the short test's come wrapped
            results.append(event)

    show = common.json_lines(write) if args.json else VerifyView(write, wizard_command())
    cancel = threading.Event()
    try:
        with common.cancel_on_signals(cancel), common.bad_input(VerifyUsageError):
            health = verify_setup(
                detect=detect_and_keep,
                runner=StreamingSubprocessRunner(),
                on_event=keep_result if args.oneline else show,
                cancel=cancel,
                path_store=store,
                short_test=not args.no_test,
                record=not args.no_record,
                env_names=args.verify_envs,
                metrics_file=args.verify_prometheus,
            )
    except VerifyCancelled:
        if args.oneline:
            write(gate_line(results[-1], machines[-1] if machines else None) + "\n")
        return common.EXIT_CANCELLED
    if args.oneline:  # the result is always the last event: one line for it, and only it
        write(gate_line(results[-1], machines[-1] if machines else None) + "\n")
    # Nothing to verify (a report without checks, so nothing broken) is not a failure: exit 0.
    return common.EXIT_OK if health.healthy else common.EXIT_PROBLEM
