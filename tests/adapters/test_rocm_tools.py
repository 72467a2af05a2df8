"""ROCm's folder, release and tools, with the recorded rocminfo and amd-smi outputs replayed."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from fakes.runner import FakeRunner
from gpuwizard.adapters.rocm_tools import read_rocm
from gpuwizard.adapters.runner import CommandTimedOut, CompletedRun

GPUS = Path(__file__).parents[1] / "fixtures" / "gpus"
OUTPUTS = GPUS / "_outputs"


def _rocm(root: Path, version: str | None, tools: Sequence[str] = ("rocminfo",)) -> Path:
    (root / "bin").mkdir(parents=True)
    for tool in tools:
        (root / "bin" / tool).write_text("")
    if version is not None:
        (root / ".info").mkdir()
        (root / ".info" / "version").write_text(version)
    return root


def test_nothing_installed_runs_nothing(tmp_path: Path):
    runner = FakeRunner()
    reading = read_rocm(runner, {}, [], [tmp_path / "opt" / "rocm"])
    assert not reading.found
    assert (reading.root, reading.version, reading.rocminfo, reading.amd_smi) == (None, None, None, ())
    assert runner.calls == []


def test_the_780m_machine_release_file_and_rocminfo(tmp_path: Path):
    root = _rocm(tmp_path / "opt" / "rocm", "7.2.0\n")
    runner = FakeRunner().when("rocminfo").answer((GPUS / "linux-radeon780m" / "rocminfo.txt").read_text())
    reading = read_rocm(runner, {}, [], [root])
    assert (reading.root, reading.version, reading.version_source) == (
        root,
        "7.2.0",
        str(root / ".info" / "version"),
    )
    assert reading.rocminfo is not None
    assert [agent.gfx_target for agent in reading.rocminfo.gpus] == ["gfx1103"]
    assert runner.calls == [(str(root / "bin" / "rocminfo"),)]  # an argv list, by full path


def test_rocm_path_wins_over_the_default_folder(tmp_path: Path):
    default = _rocm(tmp_path / "opt" / "rocm", "6.4.1\n", tools=())
    chosen = _rocm(tmp_path / "opt" / "rocm-7.2.0", "7.2.0\n", tools=())
    reading = read_rocm(FakeRunner(), {"ROCM_PATH": str(chosen)}, [], [default])
    assert (reading.root, reading.version) == (chosen, "7.2.0")


def test_amd_smi_gives_the_gpus_and_the_release_when_no_file_does(tmp_path: Path):
    root = _rocm(tmp_path / "opt" / "rocm", None, tools=("amd-smi",))
    runner = (
        FakeRunner()
        .when("amd-smi", "static", "--json")
        .answer((OUTPUTS / "amd-smi-static-json_rx7800xt_gpu_data.txt").read_text())
        .when("amd-smi", "version")
        .answer((OUTPUTS / "amd-smi-version_rx9060xt_rocm7.0.2.txt").read_text())
    )
    reading = read_rocm(runner, {}, [], [root])
    assert (reading.version, reading.version_source) == ("7.0.2", "amd-smi")
    assert [(gpu.bdf, gpu.gfx_target) for gpu in reading.amd_smi] == [("0000:03:00.0", "gfx1101")]
    assert reading.amd_smi_version["amdgpu version"] == "6.14.14"
    assert sorted(runner.calls) == [
        (str(root / "bin" / "amd-smi"), "static", "--json"),
        (str(root / "bin" / "amd-smi"), "version"),
    ]


def test_a_tool_on_path_is_found_without_a_rocm_folder(tmp_path: Path):
    """Distribution packages (Arch, Fedora) put rocminfo in /usr/bin."""
    (tmp_path / "usr" / "bin").mkdir(parents=True)
    (tmp_path / "usr" / "bin" / "rocminfo").write_text("")
    runner = FakeRunner().when("rocminfo").answer((GPUS / "linux-rx580" / "rocminfo.txt").read_text())
    reading = read_rocm(runner, {}, [str(tmp_path / "usr" / "bin")], [tmp_path / "opt" / "rocm"])
    assert reading.found and reading.root is None and reading.version is None
    assert reading.rocminfo is not None and reading.rocminfo.gpus[0].gfx_target == "gfx803"


def test_the_release_from_a_versioned_folder_name(tmp_path: Path):
    root = _rocm(tmp_path / "opt" / "rocm-6.3.1", None, tools=())
    reading = read_rocm(FakeRunner(), {}, [], [root])
    assert (reading.version, reading.version_source) == ("6.3.1", "folder name")


class _SlowRunner:
    """rocminfo hangs until the deadline it was given; records each timeout asked for."""

    def __init__(self) -> None:
        self.timeouts: list[float] = []

    def run(
        self, argv: Sequence[str], *, timeout: float, env_overrides: Mapping[str, str] | None = None
    ) -> CompletedRun:
        del env_overrides
        self.timeouts.append(timeout)
        time.sleep(timeout)
        raise CommandTimedOut(argv, "timed out")


def test_one_deadline_for_all_the_tools(tmp_path: Path):
    root = _rocm(tmp_path / "opt" / "rocm", "7.2.0\n", tools=("rocminfo", "amd-smi"))
    runner = _SlowRunner()
    reading = read_rocm(runner, {}, [], [root], deadline_s=0.3)
    assert runner.timeouts and runner.timeouts[0] <= 0.3
    assert len(runner.timeouts) == 1  # the time was spent: amd-smi does not start
    assert (reading.version, reading.rocminfo, reading.amd_smi) == ("7.2.0", None, ())


def test_a_failing_tool_keeps_what_it_printed(tmp_path: Path):
    """rocminfo exits non-zero after listing the agents it could read."""
    root = _rocm(tmp_path / "opt" / "rocm", None)
    text = (GPUS / "linux-rx6800" / "rocminfo.txt").read_text()
    reading = read_rocm(FakeRunner().when("rocminfo").answer(text, returncode=1), {}, [], [root])
    assert reading.rocminfo is not None and reading.rocminfo.gpus[0].gfx_target == "gfx1030"
