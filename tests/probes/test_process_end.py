"""A probe ends at once after its output is out (probes/process_end.py): its status kept, no teardown."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

PROBES = Path(__file__).resolve().parents[2] / "app" / "gpuwizard" / "probes"


def run_by_path(tmp_path: Path, body: str) -> subprocess.CompletedProcess[str]:
    """A script beside nothing, run as the wizard runs a probe (``-I``), importing process_end by path."""
    script = tmp_path / "probe.py"
    script.write_text(
        "import atexit, sys\n"
        f"sys.path.insert(0, {str(PROBES)!r})\n"
        "from process_end import exit_now\n"
        "atexit.register(lambda: sys.stderr.write('torn down\\n'))\n" + body,
        encoding="utf-8",
    )
    return subprocess.run(
        [sys.executable, "-I", str(script)], capture_output=True, text=True, timeout=60, check=False
    )


@pytest.mark.parametrize("status", [0, 1, 3])
def test_the_output_is_out_the_status_kept_and_nothing_torn_down(tmp_path: Path, status: int):
    # Written without a newline or a flush: only exit_now's flush puts it out.
    done = run_by_path(
        tmp_path, f"sys.stdout.write('answer'); sys.stderr.write('said')\nexit_now({status})\n"
    )
    assert (done.returncode, done.stdout, done.stderr) == (status, "answer", "said")


def test_output_that_cannot_be_flushed_is_a_failure_as_at_pythons_own_exit(tmp_path: Path):
    done = run_by_path(tmp_path, "sys.stdout.close()\nexit_now(0)\n")
    assert done.returncode == 120
    assert "torn down" not in done.stderr
