"""``gpuwizard detect``'s text shows an AMD GPU's target, a vendor driver and the GPU runtimes."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from gpuwizard.cli.text.system import render_report
from gpuwizard.workflow.machine.system_file import load_system_report

SAMPLES = resources.files("gpuwizard.resources").joinpath("samples")


def _text(name: str) -> str:
    return render_report(load_system_report(Path(str(SAMPLES.joinpath(name)))))


def test_the_gfx_target_and_the_rocm_runtime():
    text = _text("linux-radeon780m.json")
    assert "  0  AMD Radeon 780M Graphics  amd     gfx1103" in text
    assert "  rocm 7.2.0 in /opt/rocm (from /opt/rocm/.info/version; usable)" in text


def test_a_windows_vendor_driver():
    assert "  #0 driver 25.10.1 (from windows-registry)" in _text("windows-rx9070xt.json")


def test_an_nvidia_report_shows_no_extra_lines():
    text = _text("linux-h200.json")
    assert " driver " not in text.split("CUDA toolkits")[0].split("GPUs")[1]
