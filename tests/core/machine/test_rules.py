"""Detection rules: facts and evidence in, findings out (pure, no I/O)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpuwizard.core.machine.rules import DetectionEvidence, detection_findings
from gpuwizard.core.machine.system_report import (
    CudaToolkitFacts,
    DriverFacts,
    GpuFacts,
    OsFacts,
    PythonFacts,
    RuntimeFacts,
    SystemReport,
)

LINUX = OsFacts("linux", False, "6.1.0", "x86_64")
WINDOWS = OsFacts("windows", False, "10.0.22631", "x86_64")
WSL2 = OsFacts("linux", True, "5.15.153.1-microsoft-standard-WSL2", "x86_64", wsl_version=2)
PY = PythonFacts("3.11.7", "/usr/bin/python3", 64)
DRIVER = DriverFacts("546.33", "12.3", "nvml")
RTX = GpuFacts(0, "nvidia", "NVIDIA GeForce RTX 3060", "8.6", 12288)
GTX_NO_DRIVER = GpuFacts(0, "nvidia", "NVIDIA GM204 [GeForce GTX 970]", status="no-driver")
INTEL = GpuFacts(1, "intel", "Intel UHD Graphics")


def codes(report: SystemReport, evidence: DetectionEvidence | None = None) -> list[str]:
    return [f.code for f in detection_findings(report, evidence or DetectionEvidence())]


def variant(report: SystemReport, evidence: DetectionEvidence) -> str | None:
    return detection_findings(report, evidence)[0].params.get("variant")


def test_a_healthy_machine_has_nothing_to_report():
    assert codes(SystemReport(os=LINUX, python=PY, driver=DRIVER, gpus=(RTX,))) == []


def test_no_gpu_at_all():
    assert codes(SystemReport(os=LINUX, python=PY), DetectionEvidence(nvml_failure="library_not_found")) == [
        "NO_NVIDIA_GPU"
    ]


def test_no_nvidia_gpu_but_another_vendors_gpu_is_named():
    # An Intel, AMD or Apple GPU is a fact, not an error: the recommendation checks its builds.
    report = SystemReport(os=LINUX, python=PY, gpus=(INTEL,))
    (finding,) = detection_findings(report, DetectionEvidence(nvml_failure="library_not_found"))
    assert finding.code == "GPU_NOT_NVIDIA" and "Intel UHD Graphics" in finding.message
    assert finding.severity == "info"
    # A virtual adapter is not such a GPU: no NVIDIA GPU, as before.
    vmware = replace(INTEL, vendor="vmware", name="VMware SVGA II Adapter")
    (finding,) = detection_findings(
        SystemReport(os=LINUX, python=PY, gpus=(vmware,)), DetectionEvidence(nvml_failure="library_not_found")
    )
    assert finding.code == "NO_NVIDIA_GPU" and finding.params.get("variant") == "other_gpu"


def test_a_rocm_runtime_this_user_cannot_reach_is_a_warning():
    amd = replace(INTEL, vendor="amd", name="AMD Radeon RX 7900 XTX")
    runtime = RuntimeFacts("rocm", "7.2.0", "/opt/rocm", "/opt/rocm/.info/version", usable=False, detail="x")
    report = SystemReport(os=LINUX, python=PY, gpus=(amd,), gpu_runtimes=(runtime,))
    codes = [f.code for f in detection_findings(report, DetectionEvidence(nvml_failure="library_not_found"))]
    assert "ROCM_DEVICE_ACCESS" in codes
    usable = replace(report, gpu_runtimes=(replace(runtime, usable=True),))
    assert "ROCM_DEVICE_ACCESS" not in [
        f.code for f in detection_findings(usable, DetectionEvidence(nvml_failure="library_not_found"))
    ]


@pytest.mark.parametrize(
    ("os_facts", "evidence", "expected_variant"),
    [
        (LINUX, DetectionEvidence(nvml_failure="library_not_found"), None),
        (LINUX, DetectionEvidence(nvml_failure="library_not_found", kernel_driver="nouveau"), "nouveau"),
        (
            replace(LINUX, container=True),
            DetectionEvidence(nvml_failure="library_not_found", kernel_driver="nvidia"),
            "container",
        ),
        (WINDOWS, DetectionEvidence(nvml_failure="library_not_found"), "windows"),
    ],
)
def test_a_gpu_without_a_working_driver(
    os_facts: OsFacts, evidence: DetectionEvidence, expected_variant: str | None
):
    report = SystemReport(os=os_facts, python=PY, gpus=(GTX_NO_DRIVER,))
    assert codes(report, evidence) == ["NO_NVIDIA_DRIVER"]
    assert variant(report, evidence) == expected_variant
    assert "GTX 970" in detection_findings(report, evidence)[0].message or expected_variant == "container"


def test_wsl2_without_the_windows_driver_is_no_driver_not_no_gpu():
    evidence = DetectionEvidence(nvml_failure="library_not_found", wsl_driver_present=False)
    report = SystemReport(os=WSL2, python=PY)
    assert codes(report, evidence) == ["NO_NVIDIA_DRIVER"]
    assert variant(report, evidence) == "wsl"


def test_wsl1_cannot_use_the_gpu():
    assert codes(SystemReport(os=replace(WSL2, wsl_version=1), python=PY)) == ["WSL1_NO_GPU"]


def test_a_linux_driver_inside_wsl_is_called_out():
    evidence = DetectionEvidence(
        nvml_failure="blocked_by_os", wsl_linux_driver="/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1"
    )
    report = SystemReport(os=WSL2, python=PY)
    assert codes(report, evidence) == ["NVML_BLOCKED_BY_OS", "WSL_LINUX_DRIVER_INSTALLED"]
    assert detection_findings(report, evidence)[0].params["variant"] == "wsl"


@pytest.mark.parametrize(
    ("failure", "code"),
    [
        ("driver_library_mismatch", "NVML_DRIVER_LIBRARY_MISMATCH"),
        ("no_permission", "NVML_NO_PERMISSION"),
        ("blocked_by_os", "NVML_BLOCKED_BY_OS"),
    ],
)
def test_nvml_failures_that_are_not_about_a_missing_driver(failure: str, code: str):
    report = SystemReport(os=LINUX, python=PY, gpus=(GTX_NO_DRIVER,))
    assert codes(report, DetectionEvidence(nvml_failure=failure)) == [code]


def test_the_fallback_answering_is_a_warning_not_an_error():
    report = SystemReport(os=LINUX, python=PY, driver=replace(DRIVER, source="nvidia-smi"), gpus=(RTX,))
    assert codes(
        report, DetectionEvidence(nvml_failure="binding_missing", nvml_detail="No module named 'pynvml'")
    ) == ["NVML_UNAVAILABLE"]


def test_an_old_driver_that_cannot_say_its_cuda():
    report = SystemReport(os=LINUX, python=PY, driver=DriverFacts("346.46", None, "nvml"), gpus=(RTX,))
    (finding,) = detection_findings(report, DetectionEvidence())
    assert finding.code == "DRIVER_CUDA_MAX_UNKNOWN" and "346.46" in finding.message


def test_each_lost_gpu_gets_its_own_finding():
    report = SystemReport(
        os=LINUX, python=PY, driver=DRIVER, gpus=(RTX, replace(RTX, index=1, status="lost"))
    )
    findings = detection_findings(report, DetectionEvidence(gpu_problems=((1, "GpuIsLost"),)))
    assert [(f.code, f.params["index"]) for f in findings] == [("GPU_NOT_RESPONDING", "1")]


def kit(version: str, rank: int | None, root: str | None = None) -> CudaToolkitFacts:
    return CudaToolkitFacts(version, root or f"C:\\CUDA\\v{version}", rank is not None, rank)


def test_several_cuda_versions_on_path_name_the_winner():
    report = SystemReport(
        os=WINDOWS,
        python=PY,
        driver=DRIVER,
        gpus=(RTX,),
        cuda_toolkits=(kit("11.2", 1), kit("12.1", 0), kit("10.1", None)),
        long_paths_enabled=True,
    )
    (finding,) = detection_findings(report, DetectionEvidence())
    assert finding.code == "MULTIPLE_CUDA_ON_PATH"
    assert finding.params == {"versions": "12.1, 11.2", "first": "12.1"}


def test_one_cuda_version_on_path_twice_is_fine():
    report = SystemReport(
        os=LINUX,
        python=PY,
        driver=DRIVER,
        gpus=(RTX,),
        cuda_toolkits=(kit("12.4", 0, "/usr/local/cuda-12.4"), kit("12.4", 1, "/opt/cuda-12.4")),
    )
    assert codes(report) == []


def test_cuda_path_pointing_elsewhere_than_path():
    report = SystemReport(
        os=WINDOWS,
        python=PY,
        driver=DRIVER,
        gpus=(RTX,),
        long_paths_enabled=True,
        cuda_toolkits=(kit("11.2", 0), kit("12.1", None)),
    )
    assert codes(report, DetectionEvidence(cuda_path_root="C:\\CUDA\\v12.1")) == ["CUDA_PATH_NOT_FIRST"]


@pytest.mark.parametrize(
    ("python", "expected"),
    [
        (PythonFacts("3.8.10", "C:\\Python38-32\\python.exe", 32), ["PYTHON_32BIT"]),
        (
            PythonFacts(
                "3.11.9",
                "C:\\Users\\a\\AppData\\Local\\Microsoft\\WindowsApps\\python.exe",
                64,
                ms_store=True,
            ),
            ["MS_STORE_PYTHON"],
        ),
        (None, ["NO_PYTHON_FOUND"]),
    ],
)
def test_python_problems(python: PythonFacts | None, expected: list[str]):
    report = SystemReport(os=WINDOWS, python=python, driver=DRIVER, gpus=(RTX,), long_paths_enabled=True)
    assert codes(report) == expected


def test_long_paths_matter_on_windows_only():
    assert codes(
        SystemReport(os=WINDOWS, python=PY, driver=DRIVER, gpus=(RTX,), long_paths_enabled=False)
    ) == ["LONG_PATHS_DISABLED"]
    assert (
        codes(SystemReport(os=WINDOWS, python=PY, driver=DRIVER, gpus=(RTX,), long_paths_enabled=None)) == []
    )


def test_macos_gets_the_macos_answer_only():
    assert codes(SystemReport(os=OsFacts("darwin", False, "23.4.0", "arm64"), python=PY)) == [
        "NO_CUDA_ON_MACOS"
    ]


def test_failed_detection_steps_are_reported():
    evidence = DetectionEvidence(failed_steps=(("CUDA and cuDNN", "PermissionError: denied"),))
    findings = detection_findings(SystemReport(os=LINUX, python=PY, driver=DRIVER, gpus=(RTX,)), evidence)
    assert [(f.code, f.params["step"]) for f in findings] == [("DETECTION_STEP_FAILED", "CUDA and cuDNN")]


def test_no_guess_about_the_gpu_when_the_driver_step_itself_failed():
    evidence = DetectionEvidence(
        nvml_failure="step_failed", failed_steps=(("NVIDIA driver", "TimeoutError: no answer"),)
    )
    assert codes(SystemReport(os=LINUX, python=PY), evidence) == ["DETECTION_STEP_FAILED"]


def test_errors_come_before_warnings():
    report = SystemReport(os=WINDOWS, python=PythonFacts("3.8", "x", 32), long_paths_enabled=False)
    found = detection_findings(report, DetectionEvidence(nvml_failure="library_not_found"))
    severities = [f.severity for f in found]
    assert severities == sorted(severities, key=["error", "warning", "info"].index)
