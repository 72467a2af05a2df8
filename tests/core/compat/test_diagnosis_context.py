"""A diagnosis made exact for one machine (issue 22, point 2): the build the recommender plans.

The same real "no kernel image" log (ComfyUI, tests/fixtures/recorded/diagnose) on a Pascal card
and on an RTX 50-series card names two different builds; a log from another GPU, OS or a
machine without a driver gets no machine advice; the log's Python is planned for when it can be.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpuwizard.core.compat.diagnosis_context import finding_framework
from gpuwizard.core.findings.diagnosis import diagnose
from gpuwizard.core.findings.log_facts import read_log_facts
from gpuwizard.workflow.compat.data import load_compat
from gpuwizard.workflow.compat.diagnosis import diagnose_on_machine
from gpuwizard.workflow.machine.system_file import load_system_report

FIXTURES = Path(__file__).parents[2] / "fixtures"
REPORTS = FIXTURES / "reports"
DIAGNOSE = FIXTURES / "recorded" / "diagnose"
NO_KERNEL = (DIAGNOSE / "no-kernel-image_torch2.7.1-cu128-rtx2060_comfyui-10326_partial.txt").read_text(
    encoding="utf-8"
)


def on(report: str, text: str):
    machine = load_system_report(REPORTS / report)
    return diagnose_on_machine(text, lambda: machine, compat=load_compat)


def test_the_same_log_names_a_cu126_build_on_pascal_and_a_cu128_or_newer_one_on_rtx_50():
    [pascal], pascal_builds = on("windows-gtx1080-531.79.json", NO_KERNEL)
    [blackwell], blackwell_builds = on("windows-rtx5090-576.02.json", NO_KERNEL)
    assert pascal.code == blackwell.code == "NO_KERNEL_IMAGE"
    assert pascal.hint.startswith(
        "For this machine (NVIDIA GeForce GTX 1080, compute capability 6.1, driver 531.79)"
    )
    assert "--index-url https://download.pytorch.org/whl/cu126" in pascal.hint
    assert "RTX 50" not in pascal.hint  # the generic advice is replaced, not appended
    assert blackwell.hint.startswith("For this machine (NVIDIA GeForce RTX 5090, compute capability 12.0")
    variant = re.search(r"whl/cu(\d+)", blackwell.hint)
    assert variant and int(variant.group(1)) >= 128
    assert pascal_builds["pytorch"].build != blackwell_builds["pytorch"].build
    assert pascal.params["context_hint"] == blackwell.params["context_hint"] == "build"


def test_a_log_of_another_gpu_or_os_gets_no_machine_advice():
    rtx_5090_log = (
        DIAGNOSE / "gpu-arch-unsupported_rtx5090-sm_120-win-markdown-backticks_applio-1006.txt"
    ).read_text(encoding="utf-8")
    findings, builds = on("windows-gtx1080-531.79.json", rtx_5090_log)
    assert builds == {} and findings == diagnose(rtx_5090_log)
    # The same log on its own kind of machine does get it.
    findings, builds = on("windows-rtx5090-576.02.json", rtx_5090_log)
    assert "pytorch" in builds and findings[0].hint.startswith("For this machine (NVIDIA GeForce RTX 5090")
    # A Linux log on a Windows machine.
    linux_log = (DIAGNOSE / "dll-not-found_torch2.0.1-linux-libcudnn.so.8_pytorch-104259.txt").read_text(
        encoding="utf-8"
    )
    assert read_log_facts(linux_log).os_family == "linux"
    assert on("windows-gtx1080-531.79.json", linux_log)[1] == {}
    assert "pytorch" in on("linux-k80-470.256.02.json", linux_log)[1]


def test_no_machine_is_learnt_when_no_finding_needs_it():
    asked: list[str] = []

    def machine():
        asked.append("machine")

    out_of_memory = "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB"
    findings, builds = diagnose_on_machine(out_of_memory, machine)
    assert [f.code for f in findings] == ["GPU_OUT_OF_MEMORY"] and builds == {} and asked == []
    findings, builds = diagnose_on_machine(NO_KERNEL, machine)
    assert asked == ["machine"] and builds == {} and findings == diagnose(NO_KERNEL)


def test_a_machine_without_a_driver_gets_no_machine_advice(tmp_path: Path):
    data = (REPORTS / "windows-gtx1080-531.79.json").read_text(encoding="utf-8")
    no_driver = tmp_path / "no-driver.json"
    no_driver.write_text(re.sub(r'"driver": \{[^}]*\}', '"driver": null', data), encoding="utf-8")
    machine = load_system_report(no_driver)
    assert diagnose_on_machine(NO_KERNEL, lambda: machine)[1] == {}


@pytest.mark.parametrize(
    ("log", "framework"),
    [
        (
            "Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found",
            "tensorflow",
        ),
        ("AssertionError: Torch not compiled with CUDA enabled", "pytorch"),
        ("ERROR: No matching distribution found for tensorflow-gpu==2.12.0", "tensorflow"),
        ("ERROR: No matching distribution found for torch==1.4.0", "pytorch"),
        ("ERROR: No matching distribution found for opencv-python==9.9", None),
        ("torch.cuda.OutOfMemoryError: CUDA out of memory.", None),
    ],
)
def test_each_finding_is_about_the_framework_whose_build_fixes_it(log: str, framework: str | None):
    frameworks = {finding_framework(finding, read_log_facts(log)) for finding in diagnose(log)}
    assert framework in frameworks
    if framework is None:
        assert frameworks == {None}


def test_the_logs_python_is_planned_for_and_another_one_named_when_it_has_no_build():
    # Windows, Python 3.10 in the paths: TensorFlow 2.10 exists for it.
    log_310 = (
        'File "C:\\Users\\<user>\\AppData\\Local\\Programs\\Python\\Python310\\lib\\site-packages\\tensorflow\\__init__.py"\n'
        "Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found"
    )
    [finding], builds = on("windows-gtx1060-566.36.json", log_310)
    assert builds["tensorflow"].python == "3.10" and finding.params["context_hint"] == "build"
    # Python 3.13: no TensorFlow 2.10 for it, so the plan is for another Python, and it says so.
    log_313 = log_310.replace("Python310", "Python313")
    [finding], builds = on("windows-gtx1060-566.36.json", log_313)
    assert builds["tensorflow"].python != "3.13"
    assert finding.params["context_hint"] == "build_other_python"
    assert "Python 3.13, which the log shows" in finding.hint
