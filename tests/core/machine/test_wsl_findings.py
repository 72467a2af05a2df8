"""What a Windows report's ``wsl`` block says stands between the NVIDIA GPU and CUDA in WSL 2 (issue 39)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from gpuwizard.core.machine.rules import wsl_findings
from gpuwizard.core.machine.system_report import SystemReport, WslDistroFacts
from gpuwizard.workflow.machine.system_file import load_system_report

REPORT = Path(__file__).parents[2] / "fixtures" / "reports" / "windows-rtx4070-581.57-wsl-ubuntu2404.json"


def report_with(**changes: object) -> SystemReport:
    report = load_system_report(REPORT)
    assert report.wsl is not None
    return replace(report, wsl=replace(report.wsl, **changes))


def codes(report: SystemReport) -> list[tuple[str, str | None]]:
    return [(finding.code, finding.params.get("distro")) for finding in wsl_findings(report)]


def test_a_ready_wsl2_distribution_says_nothing():
    assert wsl_findings(load_system_report(REPORT)) == []


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        (
            {"virtualization": False, "detail": "HCS_E_HYPERV_NOT_INSTALLED"},
            [("WSL_VIRTUALIZATION_DISABLED", None)],
        ),
        ({"distros": (WslDistroFacts("Debian", 1, True),)}, [("WSL1_NO_GPU", "Debian")]),
        # A WSL 1 default beside a WSL 2 one: the route takes the WSL 2 one, nothing to say.
        ({"distros": (WslDistroFacts("Debian", 1, True), WslDistroFacts("Ubuntu", 2))}, []),
        (
            {
                "distros": (
                    WslDistroFacts(
                        "Ubuntu",
                        2,
                        True,
                        libcuda=True,
                        linux_driver="/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1",
                    ),
                )
            },
            [("WSL_LINUX_DRIVER_INSTALLED", None)],
        ),
        ({"distros": (WslDistroFacts("Ubuntu", 2, True, libcuda=False),)}, [("WSL_LIBCUDA_NOT_FOUND", None)]),
    ],
)
def test_each_obstacle_is_named(changes: dict[str, object], expected: list[tuple[str, str | None]]):
    assert codes(report_with(**changes)) == expected


def test_without_an_nvidia_gpu_or_outside_windows_nothing_is_said():
    report = report_with(virtualization=False)
    assert wsl_findings(replace(report, gpus=())) == []
    assert wsl_findings(replace(report, os=replace(report.os, family="linux"))) == []
