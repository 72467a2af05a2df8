"""What both of the kit's commands share: exit codes, paths, running a command with a log."""

from __future__ import annotations

import datetime
import hashlib
import os
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, TextIO

#: The checkout this kit belongs to (tools/gpu_proof/ is two levels down).
ROOT: Final = Path(__file__).resolve().parents[2]
KIT_DIR: Final = Path(__file__).resolve().parent

EXIT_OK: Final = 0
EXIT_FAILED: Final = 1
EXIT_USAGE: Final = 2
#: What `timeout(1)` answers for a command it stopped; the kit says the same of a step it stopped.
EXIT_TIMED_OUT: Final = 124

MANIFEST_NAME: Final = "manifest.json"
MANIFEST_SCHEMA: Final = "gpuwizard.gpu-proof-wheels/1"
REQUIREMENTS_NAME: Final = "headless-requirements.txt"
MIB: Final = 1024 * 1024


class UsageError(ValueError):
    """Bad arguments: one line, exit 2, nothing changed."""


def now_iso() -> str:
    """The time now, UTC, ISO 8601 to the second."""
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def sha256_of(path: Path) -> str:
    """The file's sha256, hex."""
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def folder_bytes(folder: Path) -> int:
    """The size of every file under ``folder`` together."""
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def offline_pip_environment(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for pip on the GPU machine: no configuration, no index, no cache.

    ``PIP_CONFIG_FILE=/dev/null`` makes pip read no configuration file at all ("Configuration"
    in pip's user guide: https://pip.pypa.io/en/stable/topics/configuration/#environment-variable),
    so a machine's ``index-url`` or ``extra-index-url`` adds nothing; ``PIP_NO_INDEX`` does what
    ``--no-index`` does for every pip the kit or the wizard starts.
    """
    environment = dict(os.environ if base is None else base)
    for name in [name for name in environment if name.startswith("PIP_")]:
        del environment[name]
    environment.update(
        {
            "PIP_CONFIG_FILE": os.devnull,
            "PIP_NO_INDEX": "1",
            "PIP_NO_CACHE_DIR": "1",
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
        }
    )
    return environment


@dataclass(frozen=True)
class Finished:
    """One command's end: its exit code (124 when the kit stopped it) and how long it ran."""

    exit_code: int
    seconds: float
    note: str = ""


class CommandLog:
    """``kit.log``: every command run, when, with its exit code and time."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def line(self, text: str) -> None:
        """Write one line, at once (a run killed part-way keeps what it did)."""
        self.stream.write(f"{now_iso()} {text}\n")
        self.stream.flush()

    def run(
        self,
        argv: Sequence[str],
        *,
        stdout: Path,
        stderr: Path,
        environment: Mapping[str, str],
        timeout_s: float,
        cwd: Path | None = None,
    ) -> Finished:
        """Run ``argv`` (no shell), its output into the two files; never raises for the command."""
        shown = ["<script>" if "\n" in arg else arg for arg in argv]  # a -c program is in the kit
        self.line(f"run: {' '.join(shown)}")
        began = time.monotonic()
        note = ""
        stdout.parent.mkdir(parents=True, exist_ok=True)
        with stdout.open("wb") as out, stderr.open("wb") as err:
            try:
                code = subprocess.run(
                    list(argv),
                    stdout=out,
                    stderr=err,
                    stdin=subprocess.DEVNULL,
                    env=dict(environment),
                    timeout=timeout_s,
                    cwd=cwd,
                    check=False,
                ).returncode
            except subprocess.TimeoutExpired:
                code, note = EXIT_TIMED_OUT, f"stopped after {timeout_s:g} s"
            except OSError as error:
                code, note = 127, f"could not start {argv[0]}: {error.strerror or error}"
                err.write(f"{note}\n".encode())
        seconds = round(time.monotonic() - began, 3)
        self.line(f"exit {code} after {seconds:.1f} s: {argv[0]}" + (f" ({note})" if note else ""))
        return Finished(code, seconds, note)
