"""``gpuwizard diagnose [FILE|-] [--json]``: recognise known errors in a log (DESIGN.md section 4).

The log is a file, or standard input for ``-`` or no FILE. Its bytes are read as UTF-8, with
replacement characters for anything else, or as UTF-16 when it is UTF-16 (PowerShell 5's ``>``
writes UTF-16 with a byte order mark). Exit code 1 when an error or a warning was recognised,
0 when nothing was; a file that cannot be read raises :class:`DiagnoseUsageError` (exit 2).
"""

from __future__ import annotations

import argparse
import codecs
import json
import shutil
import sys
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

from gpuwizard.core.diagnosis import diagnose, diagnosis_to_json
from gpuwizard.core.findings import Finding

EXIT_OK: Final = 0
EXIT_PROBLEM_FOUND: Final = 1

#: Severities that make the check fail (exit 1); information alone does not.
_PROBLEM_SEVERITIES: Final = frozenset({"error", "warning"})


class DiagnoseUsageError(Exception):
    """The log cannot be read: one line, exit code 2."""


def add_diagnose_parser(commands: Any) -> None:  # noqa: ANN401 - argparse's private _SubParsersAction
    """Add ``diagnose [FILE|-] [--json]`` to the command parser."""
    parser = commands.add_parser(
        "diagnose",
        help="recognise known errors in a log or pasted traceback",
        description="Recognise known errors (missing CUDA libraries, unsupported GPUs, pip failures...) "
        "in a log or a pasted traceback, and say how to fix them.",
    )
    parser.add_argument(
        "diagnose_file",
        metavar="FILE",
        nargs="?",
        default="-",
        help="the log to read; '-' or nothing reads standard input",
    )
    parser.add_argument("--json", action="store_true", help="print JSON (schema gpuwizard.diagnosis/1)")


def run_diagnose(args: argparse.Namespace, write: Callable[[str], None]) -> int:
    """Diagnose the log named in ``args`` and write the findings; returns the exit code.

    Raises:
        DiagnoseUsageError: The file cannot be read.
    """
    findings = diagnose(read_log(args.diagnose_file))
    if args.json:
        write(json.dumps(diagnosis_to_json(findings), indent=2, ensure_ascii=False) + "\n")
    else:
        write(render_diagnosis(findings, width=min(shutil.get_terminal_size().columns, 100)))
    return EXIT_PROBLEM_FOUND if any(f.severity in _PROBLEM_SEVERITIES for f in findings) else EXIT_OK


def read_log(name: str) -> str:
    """The text of the log ``name`` (``-`` for standard input).

    Raises:
        DiagnoseUsageError: The file cannot be read.
    """
    if name == "-":
        if sys.stdin is None:
            raise DiagnoseUsageError("no standard input to read; name a log file")
        buffer = getattr(sys.stdin, "buffer", None)
        return decode_log(buffer.read()) if buffer is not None else sys.stdin.read()
    try:
        data = Path(name).read_bytes()
    except OSError as error:
        raise DiagnoseUsageError(f"{name}: cannot read it ({error.strerror or error})") from None
    return decode_log(data)


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


def render_diagnosis(findings: Sequence[Finding], width: int = 100) -> str:
    """The findings as readable text, one block each, no wider than ``width``."""
    if not findings:
        return "No known problem recognised.\n"
    count = len(findings)
    lines = [f"Recognised {count} known problem{'s' if count != 1 else ''}:"]
    for finding in findings:
        lines += ["", f"{finding.severity.upper():<8} {finding.code}"]
        lines += textwrap.wrap(finding.message, width, initial_indent="    ", subsequent_indent="    ")
        evidence = finding.params.get("evidence")
        if evidence:
            lines.append("    " + textwrap.shorten(f"seen: {evidence}", max(width - 4, 40), placeholder=" …"))
        lines += textwrap.wrap(
            "-> " + finding.hint, width, initial_indent="    ", subsequent_indent="       "
        )
    return "\n".join(lines) + "\n"
