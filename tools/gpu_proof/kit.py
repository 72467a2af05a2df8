"""The GPU proof kit: prove the wizard's GPU path on a real machine, offline, in minutes.

Two commands (``--help`` on each lists its options):

``python tools/gpu_proof/kit.py prepare [--out build/gpu-proof-wheels]``
    On a machine with network: builds the wizard's wheel from this checkout and downloads the
    headless dependencies (no PySide6, no uv, no py-rattler) for Linux x86_64 and CPython 3.10
    to 3.13, checks the folder stays under 64 MiB and writes ``manifest.json``.

``python tools/gpu_proof/kit.py run --wheels build/gpu-proof-wheels --out OUT [--python PY]``
    On the machine with the GPU, with no network: a venv that sees PY's PyTorch, the wizard
    installed into it from the folder alone, then ``detect``, the raw NVML record,
    ``recommend``, the live ``test``, the measured matmul peak, ``verify`` and ``report``, every
    output in OUT (layout: tools/gpu_proof/README.md). Exit 0 only when every step passed and
    the verdict is ``gpu_ok``; otherwise 1 and one line on stderr naming the first failed step.

Bad arguments: one line on stderr, exit 2, nothing changed. Standard library only, Python >= 3.10.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import NoReturn

import kit_common
import kit_prepare
import kit_run


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (the project's rule for bad input), exit 2."""

    def error(self, message: str) -> NoReturn:
        raise kit_common.UsageError(message)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="kit.py", description=(__doc__ or "").split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    prepare = commands.add_parser("prepare", help="build the offline wheel folder (needs the network)")
    prepare.add_argument(
        "--out",
        type=Path,
        default=kit_common.ROOT / "build" / "gpu-proof-wheels",
        metavar="DIR",
        help="the wheel folder (default: build/gpu-proof-wheels in the checkout)",
    )
    prepare.add_argument(
        "--python-versions",
        default=",".join(kit_prepare.PYTHON_VERSIONS),
        metavar="X.Y,...",
        help="CPython versions to download for (default: %(default)s)",
    )
    prepare.add_argument(
        "--limit-mib",
        type=float,
        default=kit_prepare.LIMIT_MIB,
        metavar="MIB",
        help="refuse a folder larger than this (default: %(default)s, what the GPU machine can carry)",
    )
    run = commands.add_parser("run", help="run every step on this machine, offline, into one folder")
    run.add_argument("--wheels", type=Path, required=True, metavar="DIR", help="the folder `prepare` made")
    run.add_argument("--out", type=Path, required=True, metavar="DIR", help="a new or empty folder")
    run.add_argument(
        "--python",
        default=sys.executable,
        metavar="PY",
        help="the Python with PyTorch installed (default: the one running the kit)",
    )
    run.add_argument(
        "--venv",
        type=Path,
        metavar="DIR",
        help="make the kit's venv here and keep it (default: a temporary folder, removed at the end)",
    )
    run.add_argument(
        "--timeout",
        type=float,
        default=kit_run.STEP_TIMEOUT_S,
        metavar="S",
        help="give up on one step after S seconds (default: %(default)s)",
    )
    run.add_argument(
        "--matmul-seconds",
        type=float,
        default=kit_run.MATMUL_SECONDS,
        metavar="S",
        help="time each dtype of the matmul peak for S seconds (default: %(default)s)",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; returns the exit code (0 done, 1 failed, 2 bad arguments)."""
    try:
        args = _parser().parse_args(argv)
        if args.command == "prepare":
            wanted = kit_prepare.checked_request(args.out, args.python_versions, args.limit_mib)
            return kit_prepare.prepare(wanted)
        request = kit_run.checked_request(
            wheels=args.wheels,
            out=args.out,
            python=args.python,
            venv=args.venv,
            timeout_s=args.timeout,
            matmul_seconds=args.matmul_seconds,
        )
        return kit_run.run(request)
    except kit_common.UsageError as error:
        print(f"kit.py: error: {error}", file=sys.stderr)
        return kit_common.EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
