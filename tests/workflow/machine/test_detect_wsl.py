"""Detection's ``wsl`` block: on a faked Windows with a stand-in ``wsl.exe``, and nowhere else."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from importlib import resources
from pathlib import Path

import jsonschema
import pytest

from fakes.machines import (
    LINUX_HOST,
    WINDOWS_HOST,
    WINDOWS_PYTHON,
    Machine,
    display_adapter,
    windows_registry,
)
from fakes.wsl_exe import stand_in_wsl
from gpuwizard.adapters.runner import SubprocessRunner
from gpuwizard.adapters.wsl import WslSource
from gpuwizard.core.machine.system_report import SystemReport, report_from_json, report_to_json
from gpuwizard.workflow.machine.detect import detect_system
from harness.waits import EVENT_S

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the stand-in is a #! script")

SCHEMA = json.loads(
    resources.files("gpuwizard.resources").joinpath("schemas/system-1.schema.json").read_text()
)
RTX2080 = display_adapter(
    "NVIDIA GeForce RTX 2080 SUPER", "NVIDIA", "32.0.15.6262", "PCI\\VEN_10DE&DEV_1E81&SUBSYS_40051458"
)
LISTING = {"--list --verbose": "en-list-verbose", "--status": "en-status", "--version": "en-version"}


def windows_machine(tmp_path: Path, nvml: str = "windows_rtx2080super_610") -> Machine:
    return Machine(
        tmp_path,
        nvml=nvml,
        host=WINDOWS_HOST,
        python=WINDOWS_PYTHON,
        env={"PATH": "", "SystemRoot": str(tmp_path / "Windows")},
        registry=windows_registry([RTX2080]),
    )


def detect(machine: Machine, wsl: Path | None) -> SystemReport:
    source = WslSource(SubprocessRunner(), wsl, deadline_s=EVENT_S) if wsl is not None else None
    report = detect_system(replace(machine.sources(), wsl=source))
    jsonschema.validate(report_to_json(report), SCHEMA)
    return report


def test_windows_reports_what_wsl_exe_lists(tmp_path: Path):
    wsl = stand_in_wsl(tmp_path / "bin", LISTING)
    report = detect(windows_machine(tmp_path), wsl.path)
    assert report.wsl is not None
    facts = report.wsl
    assert facts.installed and facts.windows_build == 22631  # WINDOWS_HOST's 10.0.22631
    assert facts.gpu_compute is True  # driver 610.62 on build 22631
    assert [(d.name, d.version, d.default, d.state) for d in facts.distros] == [
        ("Ubuntu", 2, True, "running"),
        ("Legacy", 1, False, "stopped"),
        ("Ubuntu-18.04", 1, False, "stopped"),
        ("docker-desktop", 2, False, "running"),
    ]
    assert (facts.default_version, facts.wsl_version, facts.kernel_version) == (2, "2.2.4.0", "5.15.153.1-2")
    # Only the listing: detection never starts a distribution.
    assert [call["argv"] for call in wsl.calls()] == [["--list", "--verbose"], ["--status"], ["--version"]]
    assert all(d.libcuda is None and d.python is None for d in facts.distros)
    data = json.loads(json.dumps(report_to_json(report)))
    assert data["wsl"]["distros"][0] == {
        "name": "Ubuntu",
        "version": 2,
        "default": True,
        "state": "running",
        "libcuda": None,
        "nvidia_smi": None,
        "linux_driver": None,
        "python": None,
        "externally_managed": None,
        "os_name": None,
        "home_free_mib": None,
        "memory_total_mib": None,
    }
    assert report_from_json(data).wsl == facts


def test_an_nvidia_gpu_without_a_driver_gives_no_cuda_to_wsl(tmp_path: Path):
    wsl = stand_in_wsl(tmp_path / "bin", LISTING)
    report = detect(windows_machine(tmp_path, nvml="no_gpu"), wsl.path)
    assert report.wsl is not None and report.wsl.installed
    # The registry still lists the RTX 2080 (no driver answered): an NVIDIA GPU without CUDA.
    assert report.wsl.gpu_compute is False


def test_windows_without_wsl(tmp_path: Path):
    fixture = "en-not-installed-component"
    wsl = stand_in_wsl(
        tmp_path / "bin", {"--list --verbose": fixture, "--status": fixture, "--version": fixture}
    )
    report = detect(windows_machine(tmp_path), wsl.path)
    assert report.wsl is not None and not report.wsl.installed and report.wsl.distros == ()
    assert report.wsl.gpu_compute is True  # the machine could: WSL is what is missing


def test_other_systems_have_no_wsl_block_and_never_ask(tmp_path: Path):
    wsl = stand_in_wsl(tmp_path / "bin", LISTING)
    report = detect(Machine(tmp_path, nvml="no_gpu", host=LINUX_HOST), wsl.path)
    assert report.wsl is None and wsl.calls() == []
    assert report_to_json(report)["wsl"] is None


def test_windows_without_a_wsl_source_leaves_the_block_out(tmp_path: Path):
    assert detect(windows_machine(tmp_path), None).wsl is None


# --- detect --wsl: the facts inside a distribution, on a saved report -----------------------------


def test_detect_wsl_fills_the_default_distribution_from_inside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    from gpuwizard.workflow.machine.detect import WslLookFailed, with_distro_facts
    from gpuwizard.workflow.machine.system_file import load_system_report

    report = load_system_report(
        Path(__file__).parents[2] / "fixtures" / "reports" / "windows-rtx4070-581.57-wsl-ubuntu2404.json"
    )
    root = tmp_path / "distro"
    wsl_lib = root / "usr" / "lib" / "wsl" / "lib"
    wsl_lib.mkdir(parents=True)
    (wsl_lib / "libcuda.so.1").write_bytes(b"")
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("GPUWIZARD_WSL_ROOT", str(root))
    monkeypatch.setenv("HOME", str(home))
    wsl = stand_in_wsl(tmp_path / "bin", LISTING)
    filled = with_distro_facts(report, WslSource(SubprocessRunner(), wsl.path, deadline_s=EVENT_S))
    assert filled.wsl is not None and report.wsl is not None
    ubuntu, docker = filled.wsl.distros
    assert (ubuntu.name, ubuntu.libcuda, ubuntu.linux_driver) == ("Ubuntu-24.04", True, None)
    assert docker == report.wsl.distros[1]  # only the one asked for is started
    assert [call["argv"][:2] for call in wsl.calls()] == [["--distribution", "Ubuntu-24.04"]]
    jsonschema.validate(report_to_json(filled), SCHEMA)
    with pytest.raises(WslLookFailed, match="no WSL distribution Debian"):
        with_distro_facts(report, WslSource(SubprocessRunner(), wsl.path), distro="Debian")
    with pytest.raises(WslLookFailed, match="not of a Windows machine"):
        with_distro_facts(replace(report, wsl=None))


def test_detect_wsl_on_a_machine_without_wsl_exe_is_bad_input(tmp_path: Path):
    import subprocess

    saved = Path(__file__).parents[2] / "fixtures" / "reports" / "windows-rtx4070-581.57-wsl-ubuntu2404.json"
    done = subprocess.run(
        [sys.executable, "-m", "gpuwizard", "detect", "--system", str(saved), "--wsl", "--json"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stdout == "" and "wsl.exe" in done.stderr and len(done.stderr.strip().splitlines()) == 1
