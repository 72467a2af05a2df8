"""``gpuwizard env create --wsl``: bad input is one line and exit 2, before anything changes (issue 39)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


def run(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    import os

    return subprocess.run(
        [sys.executable, "-m", "gpuwizard", "env", "create", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "GPUWIZARD_HOME": str(home)},
        check=False,
    )


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["tf", "--framework", "tensorflow", "--set-up-wsl"], "--set-up-wsl goes with --wsl"),
        # This machine is Linux: the route is carried out from Windows only.
        (
            ["tf", "--framework", "tensorflow", "--wsl"],
            "--wsl makes an environment inside WSL 2 from Windows",
        ),
        (["tf", "--framework", "tensorflow", "--wsl", "Ubuntu-24.04", "--set-up-wsl"], "from Windows"),
    ],
)
def test_refused_in_one_line_with_nothing_made(tmp_path: Path, args: list[str], said: str):
    home = tmp_path / "home"
    done = run(*args, home=home)
    assert done.returncode == 2, done.stderr
    assert said in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not (home / "environments.json").exists() and not (home / "pending" / "wsl-route.json").exists()
