"""The README's Fleets examples run as printed (issue 40, point 5).

Each example is the code block after a ``<!-- example: NAME -->`` line in README.md. The tests run
each command of it as written (split as a POSIX shell splits it, no shell), from a folder that
sees the checkout's ``integrations/`` at the same relative path, with Ansible's and the wizard's
state in the test's own folders. The one place a test changes a command is a folder the example
names on the administrator's machine (node_exporter's textfile folder), which is this test's.
winget cannot run here: its example's manifest folder is checked to be the one the schema tests
validate.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path, PureWindowsPath

import pytest
from prometheus_client.parser import text_string_to_metric_families

from integrations.ansible_harness import ansible_env

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
LIMIT_S = 600


def example(name: str) -> list[str]:
    """The commands of the README's example ``name``, one per line."""
    text = README.read_text(encoding="utf-8")
    found = re.search(rf"<!-- example: {re.escape(name)} -->\n```[a-z]*\n(.*?)\n```", text, re.DOTALL)
    assert found, f"README.md has no example named {name}"
    return [line for line in found.group(1).splitlines() if line.strip()]


def home() -> Path:
    return Path(os.environ["GPUWIZARD_HOME"])  # a fresh one for every test (tests/conftest.py)


def everything_under(folder: Path) -> list[str]:
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*") if path.is_file())


def run_as_printed(
    line: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        shlex.split(line), cwd=cwd, env=env, capture_output=True, text=True, timeout=LIMIT_S, check=False
    )


def test_every_example_the_tests_run_is_in_the_readme():
    names = re.findall(r"<!-- example: ([a-z-]+) -->", README.read_text(encoding="utf-8"))
    assert sorted(names) == ["ansible", "gate", "prometheus", "winget"]


@pytest.mark.slow
def test_the_ansible_example_builds_installs_and_previews_the_playbook(tmp_path: Path):
    work = tmp_path / "checkout"
    work.mkdir()
    (work / "integrations").symlink_to(ROOT / "integrations")
    env = ansible_env(
        tmp_path / "ansible",
        ANSIBLE_COLLECTIONS_PATH=str(tmp_path / "collections"),
        ANSIBLE_PYTHON_INTERPRETER=sys.executable,
    )
    outputs = []
    for line in example("ansible"):
        done = run_as_printed(line, work, env)
        assert done.returncode == 0, f"{line}\n{done.stdout[-4000:]}\n{done.stderr[-2000:]}"
        outputs.append(done.stdout)
    assert (
        tmp_path / "collections" / "ansible_collections" / "gpuwizard" / "gpu" / "MANIFEST.json"
    ).is_file()
    played = outputs[-1]
    # Check mode's diff: the environment it would make and its packages; nothing was made.
    assert "packages of lab" in played, played[-4000:]
    assert "+torch==2.13.0" in played, played[-4000:]
    assert re.search(r"ok=\d+\s+changed=\d+\s+unreachable=0\s+failed=0", played), played[-2000:]
    assert everything_under(home()) == []


def test_the_winget_example_names_the_manifest_folder_the_schema_tests_validate():
    (line,) = example("winget")
    argv = line.split()
    assert argv[:3] == ["winget", "install", "--manifest"]
    folder = ROOT.joinpath(*PureWindowsPath(argv[3]).parts)
    assert folder.is_dir(), folder
    assert sorted(path.name for path in folder.iterdir()) == [
        "GPUWizard.GPUSetupWizard.installer.yaml",
        "GPUWizard.GPUSetupWizard.locale.en-US.yaml",
        "GPUWizard.GPUSetupWizard.yaml",
    ]
    from gpuwizard import __version__

    assert folder.name == __version__


@pytest.mark.slow
def test_the_prometheus_example_writes_a_file_the_parser_reads(tmp_path: Path):
    (line,) = example("prometheus")
    printed_folder = "/var/lib/node_exporter/textfile_collector"
    assert printed_folder in line
    done = run_as_printed(line.replace(printed_folder, str(tmp_path)), tmp_path)
    # On a machine the wizard set nothing up on: exit 0, one line, and the metrics say so.
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("gpuwizard: nothing to verify"), done.stdout
    families = {
        family.name: family
        for family in text_string_to_metric_families((tmp_path / "gpuwizard.prom").read_text())
    }
    (healthy,) = families["gpuwizard_healthy"].samples
    assert healthy.value == 0
    assert [path.name for path in tmp_path.iterdir()] == ["gpuwizard.prom"]


@pytest.mark.slow
def test_the_gate_example_prints_one_line_and_exits_0_where_nothing_was_set_up(tmp_path: Path):
    (line,) = example("gate")
    done = run_as_printed(line, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("\n") == 1 and len(done.stdout) <= 201, done.stdout
    assert everything_under(home()) == []
