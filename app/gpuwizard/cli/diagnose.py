"""``gpuwizard diagnose [FILE|-] [--system REPORT | --log-only] [--json]``: recognise known errors in a log.

The log is a file, or standard input for ``-`` or no FILE. Where a finding's fix is installing a
build that fits (no kernel image for the GPU, a CPU-only build, missing CUDA libraries...), its
hint names the build for the machine: the one ``--system REPORT`` describes, or this machine
(learnt only then); ``--log-only`` keeps to what the log says. Its bytes are read as UTF-8, with
replacement characters for anything else, or as UTF-16 when it is UTF-16 (PowerShell 5's ``>``
writes UTF-16 with a byte order mark). When nothing is recognised but the log holds an error
(a traceback, a fatal line, a non-zero exit), the output quotes it and says where to ask
(``unrecognised_error`` in JSON). Exit code 1 when an error or a warning was recognised, 0 when
nothing was (an unrecognised error included: the contract's codes are about what was recognised);
a file that cannot be read is bad input (exit 2).
"""

from __future__ import annotations

import argparse
import codecs
import sys
from pathlib import Path
from typing import Final

from gpuwizard.cli import common

#: Severities that make the check fail (exit 1); information alone does not.
_PROBLEM_SEVERITIES: Final = frozenset({"error", "warning"})
#: Said with a log over the size limit (``adapters/input_files.py``, LOG_LIMIT).
_TAIL_HINT: Final = "the error is usually at the end: tail -c 10000000 LOG | gpuwizard diagnose"


def add_parser(commands: common.Subcommands) -> None:
    """Add ``diagnose [FILE|-] [--json]``."""
    parser = commands.add_parser(
        "diagnose",
        help="recognise known errors in a log or pasted traceback",
        description="Recognise known errors (missing CUDA libraries, unsupported GPUs, pip failures...) "
        "in a log or a pasted traceback, and say how to fix them.",
        epilog=common.examples(
            "gpuwizard diagnose train.log",
            "gpuwizard diagnose -    # paste the log, then Ctrl+D (Windows: Ctrl+Z, Enter)",
            "gpuwizard diagnose train.log --log-only --json",
            "gpuwizard diagnose train.log --system cluster-node.json",
        ),
    )
    parser.add_argument(
        "diagnose_file",
        metavar="FILE",
        nargs="?",
        default="-",
        help="the log to read; '-' or nothing reads standard input",
    )
    machine = parser.add_mutually_exclusive_group()
    machine.add_argument(
        "--system",
        dest="diagnose_system",
        metavar="FILE",
        type=Path,
        help="a saved system report (detect --json) of the machine the log comes from: hints name "
        "the build to install there",
    )
    machine.add_argument(
        "--log-only",
        dest="diagnose_log_only",
        action="store_true",
        help="do not look at this machine: advice from the log alone",
    )
    common.add_json_option(parser, "print JSON (schema gpuwizard.diagnosis/1)")


def run(args: argparse.Namespace, write: common.Write) -> int:
    """Diagnose the log named in ``args`` and write the findings; returns the exit code."""
    from gpuwizard.adapters.wizard_program import wizard_command  # noqa: PLC0415
    from gpuwizard.cli.text.findings import render_diagnosis  # noqa: PLC0415
    from gpuwizard.core.compat.diagnosis_context import machine_build_to_json  # noqa: PLC0415
    from gpuwizard.core.findings.diagnosis import diagnosis_of, diagnosis_to_json  # noqa: PLC0415
    from gpuwizard.core.wizard_command import BY_NAME  # noqa: PLC0415
    from gpuwizard.workflow.compat.diagnosis import diagnose_on_machine  # noqa: PLC0415

    # A bad report is bad input before the log is read; this machine is learnt only when needed.
    detect = None if args.diagnose_log_only else common.detector(args.diagnose_system)
    text = read_log(args.diagnose_file)
    here = wizard_command()
    # A saved report is another machine's: the wizard there is named by its name.
    there = BY_NAME if args.diagnose_system else here
    findings, builds = diagnose_on_machine(text, detect or (lambda: None), wizard=there)
    unrecognised = diagnosis_of(text, findings).unrecognised  # an error no finding explains
    if args.json:
        data = diagnosis_to_json(findings, unrecognised)
        if builds:
            data["machine"] = {
                "report": str(args.diagnose_system) if args.diagnose_system else "this machine",
                "builds": {framework: machine_build_to_json(build) for framework, build in builds.items()},
            }
        common.write_json(write, data)
    else:
        write(
            render_diagnosis(findings, width=common.terminal_width(), unrecognised=unrecognised, wizard=here)
        )
    return common.EXIT_PROBLEM if any(f.severity in _PROBLEM_SEVERITIES for f in findings) else common.EXIT_OK


def read_log(name: str) -> str:
    """The text of the log ``name`` (``-`` for standard input).

    Raises:
        common.UsageError: The file cannot be read, is larger than 64 MiB, or is binary
            (:func:`_looks_binary`). Bytes that are not UTF-8 are no reason: a log may mix
            encodings, and they are read as replacement characters.
    """
    from gpuwizard.adapters.input_files import LOG_LIMIT, InputFileError, read_input  # noqa: PLC0415

    if name == "-":
        if sys.stdin is None:
            raise common.UsageError("no standard input to read; name a log file")
        buffer = getattr(sys.stdin, "buffer", None)
        if buffer is None:
            return sys.stdin.read(LOG_LIMIT)
        data = buffer.read(LOG_LIMIT + 1)
        if len(data) > LOG_LIMIT:
            raise common.UsageError(
                f"standard input: too large (over {LOG_LIMIT // 2**20} MiB); {_TAIL_HINT}"
            )
        name = "standard input"
    else:
        try:
            data = read_input(Path(name), limit=LOG_LIMIT, what="a log")
        except InputFileError as error:
            hint = f"; {_TAIL_HINT}" if error.reason == "too_large" else ""
            raise common.UsageError(f"{error}{hint}") from None
    text = decode_log(data)
    if _looks_binary(text):
        raise common.UsageError(f"{name}: not a text log (it holds binary data)")
    return text


def _looks_binary(text: str) -> bool:
    r"""Whether decoded ``text`` is binary data: NUL characters, and a third of its start unreadable.

    A log cut short by a crash may end in NUL padding, and a log may hold a few bytes of another
    encoding: both are still text.

    >>> _looks_binary("Traceback ...\n" * 100 + "\0" * 512), _looks_binary("\0\ufffd\x01\ufffd" * 64)
    (False, True)
    """
    sample = text[:65536]
    if "\0" not in sample:
        return False
    return sample.count("\0") + sample.count("\ufffd") > len(sample) / 3


def decode_log(data: bytes) -> str:
    r"""``data`` as text: UTF-16 when it is (with or without a byte order mark), else UTF-8.

    >>> decode_log(codecs.BOM_UTF16_LE + "Torch not compiled".encode("utf-16-le"))
    'Torch not compiled'
    >>> decode_log(b"caf\xc3\xa9 caf\xe9").endswith("\ufffd")
    True
    """
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data.decode("utf-16", errors="replace")
    if _looks_like_utf16_le(data):
        return data.decode("utf-16-le", errors="replace")
    return data.decode("utf-8-sig", errors="replace")


def _looks_like_utf16_le(data: bytes) -> bool:
    # ASCII text in UTF-16-LE has a NUL in every second byte.
    sample = data[:400]
    return len(sample) >= 8 and sample[1::2].count(0) >= 0.9 * len(sample[1::2]) and 0 not in sample[0::2]
