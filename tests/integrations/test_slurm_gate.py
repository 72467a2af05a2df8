"""The cluster gate (integrations/slurm): the Slurm prolog, the HealthCheckProgram and the NHC check.

Each runs in bash against a stub ``gpuwizard`` (it prints the line and exits with the status a
test gives it) and a stub ``scontrol``, first on PATH, both writing their argv to a file; the NHC
check is sourced with a stub ``die``. One test runs the prolog against the real wizard.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SLURM = ROOT / "integrations" / "slurm"
PROLOG = SLURM / "prolog.sh"
HEALTHCHECK = SLURM / "healthcheck.sh"
NHC_CHECK = SLURM / "gpuwizard.nhc"
#: bash by its full path: one test runs the prolog with an empty PATH, as slurmd does.
BASH = shutil.which("bash") or "/bin/bash"
#: Generous: a bash script and two stubs; the limit guards against a hang, it is no estimate.
LIMIT = 120

HEALTHY = "gpuwizard: healthy (1 environment, driver 570.86.15, 8 GPUs)"
NOTHING = "gpuwizard: nothing to verify (the wizard set nothing up here)"
BROKEN = "gpuwizard: broken: env:lab:import: import torch -> not installed (+1 more)"
GATE = ["verify", "--no-test", "--oneline"]

STUB = """#!/bin/bash
printf '%s\\0' "$@" > "$STUB_LOG/{name}.argv"
{body}
"""
GPUWIZARD_BODY = """env -0 > "$STUB_LOG/gpuwizard.env"
if [[ -n "${STUB_SLEEP:-}" ]]; then exec sleep "$STUB_SLEEP"; fi
printf '%b' "${STUB_OUTPUT-}"
exit "${STUB_STATUS:-0}"
"""
SCONTROL_BODY = 'exit "${SCONTROL_STATUS:-0}"\n'


class Gate:
    """A temporary folder with the stubs, and the environment the scripts run in."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.bin = root / "bin"
        self.log = root / "log"
        self.bin.mkdir()
        self.log.mkdir()
        for name, body in (("gpuwizard", GPUWIZARD_BODY), ("scontrol", SCONTROL_BODY)):
            stub = self.bin / name
            stub.write_text(STUB.format(name=name, body=body))
            stub.chmod(0o755)

    def env(self, output: str = "", status: int = 0, **more: str) -> dict[str, str]:
        return {
            "PATH": f"{self.bin}{os.pathsep}{os.environ['PATH']}",
            "STUB_LOG": str(self.log),
            "STUB_OUTPUT": output.replace("\\", "\\\\"),
            "STUB_STATUS": str(status),
            "SLURMD_NODENAME": "node17",
            # A settings file that does not exist: the machine's own /etc/default/gpuwizard, if
            # any, stays out of the tests.
            "GPUWIZARD_SETTINGS": str(self.root / "no-settings"),
            **more,
        }

    def run(self, script: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [BASH, str(script)], env=env, capture_output=True, text=True, timeout=LIMIT, check=False
        )

    def argv(self, name: str) -> list[str] | None:
        """What the stub ``name`` was called with; None if it was not called."""
        record = self.log / f"{name}.argv"
        if not record.exists():
            return None
        return record.read_text().split("\0")[:-1]

    def environment(self, name: str) -> dict[str, str]:
        """The environment the stub ``name`` ran with (only ``gpuwizard`` records it)."""
        entries = (self.log / f"{name}.env").read_text().split("\0")[:-1]
        return dict(entry.split("=", 1) for entry in entries)


@pytest.fixture
def gate(tmp_path: Path) -> Gate:
    return Gate(tmp_path)


def drained_with(reason: str) -> list[str]:
    return ["update", "NodeName=node17", "State=DRAIN", f"Reason={reason}"]


#: A 1-GPU job's selection on a 4-GPU node, as slurmd gives it to the Prolog (Slurm's Prolog and
#: Epilog Guide: CUDA_VISIBLE_DEVICES, GPU_DEVICE_ORDINAL, ROCR_VISIBLE_DEVICES; gres.conf(5):
#: ZE_AFFINITY_MASK), and the variables other runtimes read.
JOB_SELECTION = {
    "CUDA_VISIBLE_DEVICES": "2",
    "NVIDIA_VISIBLE_DEVICES": "2",
    "ROCR_VISIBLE_DEVICES": "2",
    "HIP_VISIBLE_DEVICES": "2",
    "GPU_DEVICE_ORDINAL": "2",
    "ZE_AFFINITY_MASK": "2",
    "ONEAPI_DEVICE_SELECTOR": "level_zero:2",
}


def test_the_stub_records_the_selection_it_is_given(gate: Gate):
    """The tests below can fail: a selection given to the stub directly reaches it."""
    subprocess.run(
        [str(gate.bin / "gpuwizard"), *GATE], env=gate.env(**JOB_SELECTION), timeout=LIMIT, check=True
    )
    assert JOB_SELECTION.items() <= gate.environment("gpuwizard").items()


@pytest.mark.parametrize("script", [PROLOG, HEALTHCHECK], ids=lambda path: path.name)
def test_the_gate_checks_the_node_not_the_job_s_gpus(gate: Gate, script: Path):
    env = gate.env(f"{HEALTHY}\n", 0, SLURM_JOB_ID="4711", SLURM_JOB_GPUS="2", **JOB_SELECTION)
    done = gate.run(script, env)
    assert done.returncode == 0, done.stderr
    seen = gate.environment("gpuwizard")
    assert not set(JOB_SELECTION) & set(seen), seen
    assert (seen["SLURM_JOB_ID"], seen["SLURM_JOB_GPUS"]) == ("4711", "2")  # the rest is left as it was


def test_the_settings_file_cannot_put_a_selection_back(gate: Gate):
    settings = gate.root / "gpuwizard.settings"
    settings.write_text("CUDA_VISIBLE_DEVICES=0\nexport CUDA_VISIBLE_DEVICES\n")
    done = gate.run(PROLOG, gate.env(f"{HEALTHY}\n", 0, GPUWIZARD_SETTINGS=str(settings)))
    assert done.returncode == 0, done.stderr
    assert "CUDA_VISIBLE_DEVICES" not in gate.environment("gpuwizard")


# --- prolog.sh: exit 1 (slurmd drains and requeues) on broken; never calls scontrol ---------


@pytest.mark.parametrize(
    ("line", "status", "expected"),
    [(HEALTHY, 0, 0), (NOTHING, 0, 0), (BROKEN, 1, 1)],
    ids=["healthy", "nothing-to-verify", "broken"],
)
def test_the_prolog_fails_only_a_broken_node(gate: Gate, line: str, status: int, expected: int):
    done = gate.run(PROLOG, gate.env(f"{line}\n", status))
    assert done.returncode == expected, done.stderr
    assert done.stdout == f"{line}\n"
    assert gate.argv("gpuwizard") == GATE
    # Slurm's Prolog and Epilog Guide: prologs should not call Slurm commands.
    assert gate.argv("scontrol") is None


def test_the_prolog_runs_without_a_search_path_of_its_own(gate: Gate):
    """slurmd gives a prolog no PATH: the settings file names the program."""
    settings = gate.root / "gpuwizard.settings"
    settings.write_text(f"GPUWIZARD={gate.bin / 'gpuwizard'}\n")
    env = gate.env(f"{BROKEN}\n", 1, GPUWIZARD_SETTINGS=str(settings))
    env["PATH"] = ""
    done = gate.run(PROLOG, env)
    assert done.returncode == 1, done.stderr
    assert done.stdout == f"{BROKEN}\n"
    assert gate.argv("gpuwizard") == GATE


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("missing", "gpuwizard: gate error: cannot run {absent}"),
        ("usage", "gpuwizard: gate error: verify exited 2"),
        ("silent", "gpuwizard: broken"),
    ],
)
def test_the_prolog_fails_closed_when_the_gate_cannot_tell(gate: Gate, case: str, expected: str):
    absent = gate.root / "absent" / "gpuwizard"
    env = {
        "missing": gate.env(GPUWIZARD=str(absent)),
        # A wizard without --oneline: argparse's usage error, on stderr, exit 2.
        "usage": gate.env("", 2),
        "silent": gate.env("", 1),
    }[case]
    done = gate.run(PROLOG, env)
    assert done.returncode == 1
    assert done.stdout == expected.format(absent=absent) + "\n"


def test_the_prolog_gives_up_after_its_timeout(gate: Gate):
    done = gate.run(PROLOG, gate.env(GPUWIZARD_TIMEOUT="1", STUB_SLEEP="600"))
    assert done.returncode == 1
    assert done.stdout == "gpuwizard: gate error: verify gave no answer within 1 s\n"


def test_the_prolog_passes_at_once_where_the_gate_is_off(gate: Gate):
    done = gate.run(PROLOG, gate.env(f"{BROKEN}\n", 1, GPUWIZARD_GATE="off"))
    assert done.returncode == 0
    assert gate.argv("gpuwizard") is None


def test_the_prolog_prints_one_line_of_at_most_200_characters(gate: Gate):
    done = gate.run(PROLOG, gate.env("gpuwizard: broken: " + "x" * 300 + "\nsecond line\n", 1))
    assert done.returncode == 1
    assert done.stdout == ("gpuwizard: broken: " + "x" * 300)[:200] + "\n"


@pytest.mark.slow
def test_the_prolog_passes_a_node_the_real_wizard_set_nothing_up_on(gate: Gate, tmp_path: Path):
    """The real ``gpuwizard verify --no-test --oneline`` with an empty state folder."""
    wizard = gate.root / "real" / "gpuwizard"
    wizard.parent.mkdir()
    wizard.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m gpuwizard "$@"\n')
    wizard.chmod(0o755)
    home = tmp_path / "home"
    env = gate.env(GPUWIZARD=str(wizard), GPUWIZARD_HOME=str(home), HOME=str(tmp_path))
    done = gate.run(PROLOG, env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("gpuwizard: nothing to verify")
    assert done.stdout.count("\n") == 1


# --- healthcheck.sh: drains with the line as the reason; resumes nothing ----------------------


@pytest.mark.parametrize(
    ("line", "status"), [(HEALTHY, 0), (NOTHING, 0)], ids=["healthy", "nothing-to-verify"]
)
def test_the_health_check_leaves_a_working_node_alone(gate: Gate, line: str, status: int):
    done = gate.run(HEALTHCHECK, gate.env(f"{line}\n", status))
    assert done.returncode == 0, done.stderr
    assert gate.argv("gpuwizard") == GATE
    assert gate.argv("scontrol") is None


def test_the_health_check_drains_a_broken_node_with_the_line_as_reason(gate: Gate):
    done = gate.run(HEALTHCHECK, gate.env(f"{BROKEN}\n", 1))
    assert done.returncode == 1, done.stderr
    assert gate.argv("scontrol") == drained_with(BROKEN)
    assert done.stdout == f"{BROKEN}\n"


def test_the_reason_reaches_scontrol_as_one_argument_whatever_it_holds(gate: Gate):
    line = 'gpuwizard: broken: env:a b:python: "C:\\x" -> $HOME; `id` * ? none'
    done = gate.run(HEALTHCHECK, gate.env(f"{line}\n", 1))
    assert done.returncode == 1, done.stderr
    assert gate.argv("scontrol") == drained_with(line)


def test_the_health_check_names_the_node_by_its_hostname_without_slurmd_s_variable(gate: Gate):
    env = gate.env(f"{BROKEN}\n", 1)
    del env["SLURMD_NODENAME"]
    hostname = gate.bin / "hostname"
    hostname.write_text('#!/bin/bash\n[[ "$1" == -s ]] && echo node03\n')
    hostname.chmod(0o755)
    done = gate.run(HEALTHCHECK, env)
    assert done.returncode == 1, done.stderr
    assert gate.argv("scontrol") == ["update", "NodeName=node03", "State=DRAIN", f"Reason={BROKEN}"]


def test_the_health_check_keeps_the_reason_of_a_node_already_unhealthy(gate: Gate):
    done = gate.run(HEALTHCHECK, gate.env(f"{BROKEN}\n", 1, SLURM_NODE_IS_HEALTHY="no"))
    assert done.returncode == 1
    assert gate.argv("scontrol") is None
    assert done.stdout == f"{BROKEN}\n"


def test_the_health_check_drains_when_the_gate_cannot_tell(gate: Gate):
    absent = gate.root / "absent" / "gpuwizard"
    done = gate.run(HEALTHCHECK, gate.env(GPUWIZARD=str(absent)))
    assert done.returncode == 1
    assert gate.argv("scontrol") == drained_with(f"gpuwizard: gate error: cannot run {absent}")


def test_the_health_check_says_so_when_scontrol_fails(gate: Gate):
    done = gate.run(HEALTHCHECK, gate.env(f"{BROKEN}\n", 1, SCONTROL_STATUS="1"))
    assert done.returncode == 1
    assert gate.argv("scontrol") == drained_with(BROKEN)
    assert "could not drain node17" in done.stderr


# --- gpuwizard.nhc: NHC's die 1 "line"; nothing to verify fails too ---------------------------

NHC_DRIVER = """die() { printf '%s\\0' "$@" > "$STUB_LOG/die.argv"; }
source "$1"
check_gpuwizard
echo "returned $?"
"""


def run_nhc_check(gate: Gate, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [BASH, "-c", NHC_DRIVER, "nhc", str(NHC_CHECK)],
        env=env, capture_output=True, text=True, timeout=LIMIT, check=False,
    )  # fmt: skip


def test_the_nhc_check_passes_a_healthy_node(gate: Gate):
    done = run_nhc_check(gate, gate.env(f"{HEALTHY}\n", 0))
    assert done.stdout == "returned 0\n", done.stderr
    assert gate.argv("gpuwizard") == GATE
    assert gate.argv("die") is None


@pytest.mark.parametrize(
    ("line", "status", "reason"),
    [
        (BROKEN, 1, BROKEN),
        (NOTHING, 0, f"{NOTHING}; the wizard has not set up this node"),
        ("", 2, "gpuwizard: gate error: verify exited 2"),
    ],
    ids=["broken", "nothing-to-verify", "usage"],
)
def test_the_nhc_check_dies_with_one_line(gate: Gate, line: str, status: int, reason: str):
    done = run_nhc_check(gate, gate.env(f"{line}\n" if line else "", status))
    assert done.stdout == "returned 1\n", done.stderr
    assert gate.argv("die") == ["1", reason]


NHC_DRIVER_AFTER = """die() { printf '%s\\0' "$@" > "$STUB_LOG/die.argv"; }
source "$1"
check_gpuwizard
echo "returned $? with CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES-unset}"
"""


def test_the_nhc_check_runs_the_gate_without_the_job_s_gpus_and_leaves_nhc_s_own(gate: Gate):
    """NHC as a Prolog gets the job's selection: the gate runs without it, NHC's other checks keep it."""
    done = subprocess.run(
        [BASH, "-c", NHC_DRIVER_AFTER, "nhc", str(NHC_CHECK)],
        env=gate.env(f"{HEALTHY}\n", 0, **JOB_SELECTION), capture_output=True, text=True, timeout=LIMIT,
        check=False,
    )  # fmt: skip
    assert done.stdout == "returned 0 with CUDA_VISIBLE_DEVICES=2\n", done.stderr
    seen = gate.environment("gpuwizard")
    assert not set(JOB_SELECTION) & set(seen), seen


def test_the_nhc_check_takes_its_program_from_a_setting(gate: Gate):
    absent = gate.root / "absent" / "gpuwizard"
    done = run_nhc_check(gate, gate.env(f"{HEALTHY}\n", 0, GPUWIZARD=str(absent)))
    assert done.stdout == "returned 1\n"
    assert gate.argv("die") == ["1", f"gpuwizard: gate error: cannot run {absent}"]


# --- the documentation and the scripts agree; shellcheck ---------------------------------------


#: A slurm.conf line in a script's header: ``#   slurm.conf:  Prolog=/etc/...`` and the lines under it.
SLURM_CONF_LINE = re.compile(r"^#\s+(?:slurm\.conf:\s+)?((?:Prolog|HealthCheck[A-Za-z]*)=\S+)$", re.MULTILINE)


@pytest.mark.parametrize("script", [PROLOG, HEALTHCHECK], ids=lambda path: path.name)
def test_the_readme_gives_the_slurm_conf_lines_the_script_names(script: Path):
    readme = (SLURM / "README.md").read_text()
    settings = SLURM_CONF_LINE.findall(script.read_text())
    assert settings, script.name
    for setting in settings:
        assert f"\n{setting}\n" in readme, setting


def test_the_readme_gives_the_nhc_conf_line_the_check_names():
    assert "\n* || check_gpuwizard\n" in (SLURM / "README.md").read_text()
    assert "#   * || check_gpuwizard\n" in NHC_CHECK.read_text()


SHELLCHECK = shutil.which("shellcheck")


@pytest.fixture
def shellcheck() -> str:
    """ShellCheck, skipped where it is not installed; in CI (.ci/run installs it) that fails instead."""
    if SHELLCHECK is None:
        why = "shellcheck is not installed (apt-get install shellcheck)"
        if os.environ.get("CI") == "true":
            pytest.fail(why)
        pytest.skip(why)
    return SHELLCHECK


@pytest.mark.parametrize("script", [PROLOG, HEALTHCHECK, NHC_CHECK], ids=lambda path: path.name)
def test_shellcheck_finds_nothing(script: Path, shellcheck: str):
    done = subprocess.run(
        [shellcheck, "--shell=bash", str(script)], capture_output=True, text=True, timeout=LIMIT, check=False
    )
    assert done.returncode == 0, done.stdout


def test_shellcheck_sees_an_unquoted_reason(tmp_path: Path, shellcheck: str):
    planted = tmp_path / "planted.sh"
    planted.write_text('#!/bin/bash\nline="$1"\nscontrol update NodeName=x State=DRAIN Reason=$line\n')
    done = subprocess.run(
        [shellcheck, str(planted)], capture_output=True, text=True, timeout=LIMIT, check=False
    )
    assert done.returncode != 0
    assert "SC2086" in done.stdout
