"""The cluster gate: ``gpuwizard verify --no-test --oneline`` as a Slurm prolog or health check runs it.

It prints exactly one line on stdout (a drain reason) and exits 0 or 1; with ``--json`` it is a
usage error. On a machine ``gpuwizard apply`` set up with the real CPU torch (slow: a real
environment), the gate reuses the environment's recorded probe answer instead of importing torch
again, loads no network code, and writes nothing but its last good state; its wall time is
printed, never asserted (``tests/bench/bench_verify_gate.py`` measures it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gpuwizard.core.health.gate_line import MAX_LENGTH
from gpuwizard.core.health.probe_reuse import REUSED_NOTE
from harness.entry_point import gpuwizard
from harness.path_states import CUDA_BIN, USER, registry_with_a_folder_the_wizard_added

SAMPLES = Path(__file__).resolve().parents[2] / "resources" / "samples"
H200 = SAMPLES / "linux-h200.json"  # driver 610.43.02, one NVIDIA H200
NO_GPU = SAMPLES / "no-gpu.json"
GATE = ("verify", "--no-test", "--oneline")


def home() -> Path:
    return Path(os.environ["GPUWIZARD_HOME"])  # a fresh one for every test (tests/conftest.py)


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    """The gate's only line on stdout (and that it is only one, short, printable)."""
    lines = done.stdout.split("\n")
    assert len(lines) == 2 and lines[1] == "", done.stdout
    assert len(lines[0]) <= MAX_LENGTH and lines[0].isprintable(), lines[0]
    return lines[0]


def test_nothing_set_up_is_one_line_and_exit_0():
    done = gpuwizard(*GATE, "--system", str(NO_GPU), timeout=60)
    assert done.returncode == 0, done.stderr
    assert one_line(done) == "gpuwizard: nothing to verify (the wizard set nothing up here)"
    assert not (home() / "last-good.json").exists()


def test_a_healthy_setup_is_one_line_and_exit_0(tmp_path: Path):
    registry = registry_with_a_folder_the_wizard_added(tmp_path)
    done = gpuwizard(*GATE, "--system", str(H200), "--registry", str(registry), timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert one_line(done) == "gpuwizard: healthy (1 PATH folder, driver 610.43.02, 1 GPU)"
    assert (home() / "last-good.json").is_file()  # recorded, as verify records a healthy run


def test_a_broken_setup_names_the_first_broken_check_and_how_many_more_and_exits_1(tmp_path: Path):
    registry = registry_with_a_folder_the_wizard_added(tmp_path)
    assert gpuwizard(*GATE, "--system", str(H200), "--registry", str(registry), timeout=60).returncode == 0
    data = json.loads(registry.read_text())
    data[USER]["Path"]["value"] = "%USERPROFILE%\\bin"  # an installer took the folder away
    registry.write_text(json.dumps(data))
    broken = gpuwizard(*GATE, "--system", str(H200), "--registry", str(registry), timeout=60)
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert one_line(broken) == f"gpuwizard: broken: path:user:{CUDA_BIN}: on PATH -> not on PATH"
    # The driver is gone as well: the first broken check, and one more.
    worse = gpuwizard(*GATE, "--system", str(NO_GPU), "--registry", str(registry), timeout=60)
    assert worse.returncode == 1, worse.stdout + worse.stderr
    line = one_line(worse)
    assert line.startswith("gpuwizard: broken: driver: 610.43.02 -> none (+"), line
    assert line.endswith(" more)")


def test_oneline_with_json_is_a_usage_error_and_nothing_is_done(tmp_path: Path):
    registry = registry_with_a_folder_the_wizard_added(tmp_path)
    done = gpuwizard(*GATE, "--json", "--system", str(H200), "--registry", str(registry), timeout=60)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and "--oneline and --json" in done.stderr
    assert not (home() / "last-good.json").exists()


def tree(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``folder``: its size and modification time in nanoseconds."""
    return {
        str(path.relative_to(folder)): (path.lstat().st_size, path.lstat().st_mtime_ns)
        for path in folder.rglob("*")
        if not path.is_dir() or path.is_symlink()
    }


#: Runs the gate in this interpreter with every way out to the network refused and counted: it
#: must ask no package index and refresh no compatibility data (it prints what it tried last).
_GATE_WITHOUT_NETWORK = (
    "import socket, sys\n"
    "tried = []\n"
    "def refuse(*args, **kwargs):\n"
    "    tried.append(repr(args[1:2]))\n"
    "    raise OSError('the gate used the network')\n"
    "socket.socket.connect = socket.socket.connect_ex = refuse\n"
    "socket.getaddrinfo = socket.create_connection = refuse\n"
    "from gpuwizard.cli.main import main\n"
    "code = main(sys.argv[1:])\n"
    "print('network:', ','.join(tried))\n"
    "raise SystemExit(code)\n"
)


@pytest.mark.slow
def test_on_a_machine_apply_set_up_the_gate_reuses_the_probe_asks_no_network_and_writes_only_its_state(
    torch_folder: Path, tmp_path: Path
):
    answers = tmp_path / "lab.toml"
    answers.write_text(
        f'framework = "pytorch"\nversion = "2.13"\nenvironment = "lab"\nfind_links = "{torch_folder.as_posix()}"\n'
        "offline = true\n",
        encoding="utf-8",
    )
    applied = gpuwizard("apply", "--answers", str(answers), "--yes", "--json")
    assert applied.returncode == 0, applied.stdout[-3000:] + applied.stderr
    recorded = gpuwizard("verify", "--no-test", "--json")  # the last good state, with the fingerprint
    assert recorded.returncode == 0, recorded.stdout[-3000:] + recorded.stderr
    environment = json.loads(applied.stdout.splitlines()[-1])["environment"]["path"]
    env_before, home_before = tree(Path(environment)), tree(home())

    started = time.monotonic()
    gate = subprocess.run(
        [sys.executable, "-c", _GATE_WITHOUT_NETWORK, *GATE],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    print(f"the gate on a set-up machine: {time.monotonic() - started:.2f} s (whole process)")
    assert gate.returncode == 0, gate.stdout + gate.stderr
    line, network = gate.stdout.splitlines()
    assert line == "gpuwizard: healthy (1 environment, no NVIDIA driver, 0 GPUs)"
    assert network == "network: ", network
    # Nothing written but the last good state (and its lock): the environment is as it was.
    assert tree(Path(environment)) == env_before
    home_after = tree(home())
    changed = {
        name
        for name in home_before.keys() | home_after.keys()
        if home_before.get(name) != home_after.get(name)
    }
    assert changed <= {"last-good.json", "last-good.json.lock"}, changed

    # And it was not probed: each check made from the recorded answer says so.
    again = gpuwizard("verify", "--no-test", "--json")
    assert again.returncode == 0, again.stdout[-3000:]
    checks = {
        event["check_id"]: event
        for event in map(json.loads, again.stdout.splitlines())
        if event["event"] == "check"
    }
    assert checks["env:lab:import"]["note"] == REUSED_NOTE
    assert checks["env:lab:build"]["after"] == "2.13.0+cpu (CPU)"
