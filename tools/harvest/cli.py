"""The command line of ``python tools/compat_harvest.py``.

Exit status: 0 the data agrees (``--check``) or was written (``--write``); 1 ``--check`` found
disagreements; 2 bad arguments; 3 PyPI or the data could not be read, the updated data would not
validate, or (``--strict``) a source could not be read or searched to the end, or a library range
resolves today to a release that drops a GPU the data's recorded resolution kept.

Each library range of TensorFlow's ``[and-cuda]`` extra gets a ``range:`` line on stderr: what it
resolves to today and what the data recorded.
"""

from __future__ import annotations

import argparse
import copy
import datetime
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final, NoReturn

from gpuwizard.workflow.compat.files import COMPAT_FILES
from harvest.compare import compare
from harvest.harvest import Harvester, Note
from harvest.net import Fetcher, FetchError, url_problem
from harvest.update import FRAMEWORK_FILES, UpdateError, apply, write
from harvest.wheels import WheelReader

ROOT: Final = Path(__file__).resolve().parents[2]
DEFAULT_DATA: Final = ROOT / "resources" / "compat"
DEFAULT_PYPI: Final = "https://pypi.org/pypi"
DEFAULT_TORCH_INDEX: Final = "https://download.pytorch.org/whl"
DEFAULT_CACHE: Final = Path("~/.cache/gpuwizard-harvest")
#: Every file of the data set (validated together before --write writes): the bundled files.
DATA_FILES: Final = COMPAT_FILES
PROG: Final = "compat_harvest"
_MIB: Final = 1 << 20
EXIT_DISAGREE, EXIT_USAGE, EXIT_ERROR = 1, 2, 3


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        """One line, exit 2."""
        print(f"{PROG}: error: {message} (see --help)", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


def _positive(kind: type[int] | type[float]) -> Callable[[str], int | float]:
    def convert(text: str) -> int | float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be above 0: {text!r}")
        return value

    return convert


def _count(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"not a whole number >= 0: {text!r}")
    return int(text)


def parser() -> argparse.ArgumentParser:
    """The argument parser."""
    parse = _Parser(
        prog=PROG,
        description="Derive PyTorch/TensorFlow compatibility facts from the published wheels (PyPI, the "
        "PyTorch index), by HTTP Range reads, and compare them with resources/compat or write them into it.",
        epilog="Exit status: 0 agreement (--check) or written (--write); 1 disagreements; 2 bad arguments; "
        "3 PyPI or the data unreadable, invalid result, or (--strict) a source not read or a library range "
        "that resolves today to a release dropping a GPU the data's resolution kept.",
    )
    mode = parse.add_mutually_exclusive_group(required=True)
    mode.add_argument(
        "--check", action="store_true", help="print every disagreement, one a line; exit 1 if any"
    )
    mode.add_argument("--write", action="store_true", help="write the derived facts into the data files")
    parse.add_argument(
        "--data", type=Path, default=DEFAULT_DATA, metavar="DIR", help="the data folder (%(default)s)"
    )
    parse.add_argument("--pypi", default=DEFAULT_PYPI, metavar="URL", help="PyPI's JSON API (%(default)s)")
    parse.add_argument(
        "--torch-index",
        default=DEFAULT_TORCH_INDEX,
        metavar="URL",
        help="the PyTorch wheel index (%(default)s)",
    )
    parse.add_argument(
        "--cache",
        type=Path,
        default=DEFAULT_CACHE,
        metavar="DIR",
        help="what was read per wheel (%(default)s)",
    )
    parse.add_argument("--no-cache", action="store_true", help="read every wheel again, store nothing")
    parse.add_argument("--only", choices=FRAMEWORK_FILES, help="one framework only")
    parse.add_argument(
        "--strict",
        action="store_true",
        help="a source that could not be read (or searched to the end), or a range resolution that drops "
        "a GPU the data's recorded one kept, is an error",
    )
    parse.add_argument(
        "--scan-limit", type=_positive(int), default=64, metavar="MIB",
        help="compressed MiB of a CUDA library searched for its -gencode flags at most (%(default)s)",
    )  # fmt: skip
    parse.add_argument(
        "--timeout", type=_positive(float), default=30.0, metavar="S", help="per request (%(default)s)"
    )
    parse.add_argument("--retries", type=_count, default=3, metavar="N", help="per request (%(default)s)")
    parse.add_argument("-v", "--verbose", action="store_true", help="say what is read, to stderr")
    return parse


def _load(folder: Path, names: tuple[str, ...]) -> tuple[dict[str, Any], dict[str, str]]:
    files, originals = {}, {}
    for name in names:
        text = (folder / f"{name}.json").read_text("utf-8")
        originals[name] = text
        files[name] = json.loads(text)
    return files, originals


def _failures(notes: list[Note]) -> str:
    """``1 source(s) not read, 1 range resolution(s) drop ...``: the failing notes, counted by kind."""
    counts: dict[str, int] = {}
    for note in notes:
        if note.failure:
            counts[note.what] = counts.get(note.what, 0) + 1
    return ", ".join(f"{count} {what}" for what, count in counts.items())


def main(argv: list[str] | None = None) -> int:  # noqa: PLR0911, PLR0912, PLR0915 - one straight line of steps
    """Run the command line; the exit status."""
    args = parser().parse_args(argv)
    for option, url in (("--pypi", args.pypi), ("--torch-index", args.torch_index)):
        problem = url_problem(url)
        if problem:
            parser().error(f"{option}: {problem}")
    folder: Path = args.data.expanduser()
    missing = [name for name in DATA_FILES if not (folder / f"{name}.json").is_file()]
    if missing:
        parser().error(f"--data {folder}: no {', '.join(f'{name}.json' for name in missing)}")
    cache: Path | None = None if args.no_cache else args.cache.expanduser()
    if cache is not None and cache.exists() and not cache.is_dir():
        parser().error(f"--cache {cache}: not a folder")
    try:
        files, originals = _load(folder, DATA_FILES if args.write else (*FRAMEWORK_FILES, "cuda", "sources"))
    except (OSError, ValueError) as error:
        print(f"{PROG}: error: the data in {folder} cannot be read: {error}", file=sys.stderr)
        return EXIT_ERROR

    started = time.monotonic()
    fetcher = Fetcher(timeout=args.timeout, retries=args.retries)
    reader = WheelReader(fetcher, cache, args.scan_limit * _MIB)
    harvester = Harvester(fetcher, reader, args.pypi, args.torch_index, verbose=args.verbose)
    frameworks = [args.only] if args.only else list(FRAMEWORK_FILES)
    try:
        for framework in frameworks:
            minors = [row["version"] for row in files[framework]["releases"]]
            if framework == "pytorch":
                harvester.result.pytorch = harvester.pytorch(minors)
            else:
                harvester.result.tensorflow = harvester.tensorflow(minors)
    except FetchError as error:
        print(f"{PROG}: error: PyPI could not be read: {error}", file=sys.stderr)
        return EXIT_ERROR
    finally:
        fetcher.close()
    result = harvester.result
    today = datetime.date.today().isoformat()
    comparison = compare(result, files, today)
    disagreements = comparison.disagreements
    notes: list[Note] = result.notes + comparison.notes
    for line in comparison.ranges:
        print(f"range: {line}", file=sys.stderr)
    for note in notes:
        print(f"note: {note.text}", file=sys.stderr)
    failures = _failures(notes) if args.strict else ""
    elapsed = time.monotonic() - started
    counts = ", ".join(f"{name} {sum(d.framework == name for d in disagreements)}" for name in frameworks)
    traffic = (
        f"{reader.read_count} wheels read, {reader.cached_count} from the cache; "
        f"{fetcher.bytes_in / _MIB:.1f} MiB downloaded in {fetcher.requests} requests, {elapsed:.1f} s"
    )

    if args.check:
        for disagreement in disagreements:
            print(disagreement.line())
        print(f"{len(disagreements)} disagreements ({counts}); {traffic}")
        if failures:
            print(f"{PROG}: error: --strict: {failures} (the notes above)", file=sys.stderr)
            return EXIT_ERROR
        return EXIT_DISAGREE if disagreements else 0

    if failures:
        print(f"{PROG}: error: --strict: {failures}; nothing written", file=sys.stderr)
        return EXIT_ERROR
    updated = copy.deepcopy(files)
    changes = apply(updated, disagreements, result.records, today)
    for line in changes:
        print(f"changed: {line}")
    for disagreement in disagreements:
        if disagreement.fix is None:
            print(f"left as is: {disagreement.line()}")
    if not changes:
        print(f"nothing to change; {traffic}")
        return 0
    try:
        written = write(folder, updated, originals)
    except UpdateError as error:
        print(f"{PROG}: error: {error}; nothing written", file=sys.stderr)
        return EXIT_ERROR
    print(f"{len(changes)} changes, wrote {', '.join(written) or 'nothing'} in {folder}; {traffic}")
    return 0
