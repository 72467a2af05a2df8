"""A probe ends at once after its output is out (probes/process_end.py): its status kept, no teardown.

The edge cases are those Python's own exit handles (flush_std_files): a stream the process was
started without, one the code closed, one whose reader went away (an outside check found the
first two turned into other statuses).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

PROBES = Path(__file__).resolve().parents[2] / "app" / "gpuwizard" / "probes"


def script(tmp_path: Path, body: str) -> list[str]:
    """A probe-like script run as the wizard runs one (``-I``), importing process_end by path."""
    path = tmp_path / "probe.py"
    path.write_text(
        "import atexit, sys\n"
        f"sys.path.insert(0, {str(PROBES)!r})\n"
        "from process_end import exit_now\n"
        "atexit.register(lambda: print('torn down', file=sys.__stderr__))\n" + body,
        encoding="utf-8",
    )
    return [sys.executable, "-I", str(path)]


def run(argv: list[str], **streams: int) -> subprocess.CompletedProcess[str]:
    options = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, **streams}
    return subprocess.run(argv, text=True, timeout=60, check=False, **options)  # type: ignore[call-overload]


@pytest.mark.parametrize("status", [0, 1, 3])
def test_the_output_is_out_the_status_kept_and_nothing_torn_down(tmp_path: Path, status: int):
    # Written without a newline or a flush: only exit_now's flush puts it out.
    done = run(
        script(tmp_path, f"sys.stdout.write('answer'); sys.stderr.write('said')\nexit_now({status})\n")
    )
    assert (done.returncode, done.stdout, done.stderr) == (status, "answer", "said")


@pytest.mark.parametrize("status", [0, 2])
def test_a_process_started_without_standard_error_keeps_its_status(tmp_path: Path, status: int):
    # Closed at the start (as `2>&-` does): sys.stderr is None.
    argv = ["sh", "-c", '"$@" 2>&-', "sh", *script(tmp_path, f"print('answer')\nexit_now({status})\n")]
    done = run(argv)
    assert (done.returncode, done.stdout) == (status, "answer\n")


def test_a_stream_the_code_closed_is_skipped_as_at_pythons_own_exit(tmp_path: Path):
    done = run(script(tmp_path, "sys.stdout.close()\nsys.stderr.write('said')\nexit_now(0)\n"))
    assert (done.returncode, done.stderr) == (0, "said")


@pytest.mark.parametrize(("status", "expected"), [(0, 120), (1, 1)])
def test_output_whose_reader_went_away_fails_a_success_as_python_does(
    tmp_path: Path, status: int, expected: int
):
    # The script writes once its reader is gone: the test closes the pipe, then lets it go on.
    body = f"sys.stdin.readline()\nsys.stdout.write('answer')\nexit_now({status})\n"
    process = subprocess.Popen(
        script(tmp_path, body), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    process.stdout.close()
    process.stdin.write(b"go\n")
    process.stdin.close()
    assert process.wait(timeout=60) == expected
    assert b"torn down" not in process.stderr.read()
    process.stderr.close()
